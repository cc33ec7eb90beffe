//! TVM's own `#[metadata]` section, as `astext()` writes it: TVM's object
//! graph in JSON (`root`, `nodes`, `b64ndarrays`), whose root maps
//! `relay.Constant` to an array of constants, each naming one of the
//! base64-encoded arrays. Only the constants are read: they are what
//! `meta[relay.Constant][i]` refers to.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::dtype::{DType, DTypeCode};
use super::tensor::Tensor;

/// The magic number an NDArray's serialization starts with.
const NDARRAY_MAGIC: u64 = 0xDD5E_40F0_96B4_A13F;

/// `true` when `json` is TVM's object graph rather than irkit's own form.
pub fn is_tvm_metadata(json: &Value) -> bool {
    json.get("root").is_some() && json.get("nodes").is_some()
}

/// What TVM's metadata holds that the text refers to: the constants of
/// `meta[relay.Constant][i]` and the integers of `meta[runtime.BoxInt][i]`
/// (attribute values TVM boxes).
#[derive(Debug, Default)]
pub struct TvmMeta {
    /// `relay.Constant`, in order.
    pub constants: Vec<Tensor>,
    /// `runtime.BoxInt`, in order.
    pub ints: Vec<i64>,
}

/// Reads TVM's metadata.
pub fn tvm_metadata(json: &Value) -> Result<TvmMeta, String> {
    Ok(TvmMeta {
        constants: tvm_constants(json)?,
        ints: entries(json, "runtime.BoxInt")?
            .iter()
            .enumerate()
            .map(|(i, node)| {
                node.get("repr_str")
                    .and_then(Value::as_str)
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| format!("runtime.BoxInt {i} is not an integer"))
            })
            .collect::<Result<_, _>>()?,
    })
}

/// The nodes the root map lists under `key` (none if it has no such key).
fn entries<'a>(json: &'a Value, key: &str) -> Result<Vec<&'a Value>, String> {
    let nodes = json
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or("the metadata has no \"nodes\" list")?;
    let node = |i: Option<u64>| {
        i.and_then(|i| nodes.get(i as usize))
            .ok_or_else(|| "a node index is out of range".to_string())
    };
    let root = node(json.get("root").and_then(Value::as_u64))?;
    let keys = root.get("keys").and_then(Value::as_array);
    let data = root.get("data").and_then(Value::as_array);
    let (Some(keys), Some(data)) = (keys, data) else {
        return Err("the metadata's root is not a map".into());
    };
    let Some(at) = keys.iter().position(|k| k.as_str() == Some(key)) else {
        return Ok(Vec::new());
    };
    let list = node(data.get(at).and_then(Value::as_u64))?;
    list.get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("the {key} entry is not an array"))?
        .iter()
        .map(|i| node(i.as_u64()))
        .collect()
}

/// The constants `meta[relay.Constant][i]` names, in order.
fn tvm_constants(json: &Value) -> Result<Vec<Tensor>, String> {
    let arrays = json
        .get("b64ndarrays")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    entries(json, "relay.Constant")?
        .iter()
        .enumerate()
        .map(|(i, constant)| {
            let array = constant
                .get("attrs")
                .and_then(|a| a.get("data"))
                .and_then(Value::as_str)
                .and_then(|d| d.parse::<usize>().ok())
                .ok_or_else(|| format!("relay.Constant {i} names no array"))?;
            let b64 = arrays
                .get(array)
                .and_then(Value::as_str)
                .ok_or_else(|| format!("relay.Constant {i}: array {array} is missing"))?;
            let bytes = STANDARD
                .decode(b64)
                .map_err(|e| format!("relay.Constant {i}: bad base64: {e}"))?;
            ndarray_from_bytes(&bytes).map_err(|e| format!("relay.Constant {i}: {e}"))
        })
        .collect()
}

/// Reads little-endian values from a byte slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        if self.0.len() < N {
            return Err("the array's bytes end early".into());
        }
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        let mut out = [0; N];
        out.copy_from_slice(head);
        Ok(out)
    }
    fn u64(&mut self) -> Result<u64, String> {
        self.take::<8>().map(u64::from_le_bytes)
    }
    fn i64(&mut self) -> Result<i64, String> {
        self.take::<8>().map(i64::from_le_bytes)
    }
    fn i32(&mut self) -> Result<i32, String> {
        self.take::<4>().map(i32::from_le_bytes)
    }
}

/// TVM's NDArray serialization: magic, reserved, device, ndim, dtype
/// (code, bits, lanes), shape, byte size, data.
fn ndarray_from_bytes(bytes: &[u8]) -> Result<Tensor, String> {
    let mut r = Reader(bytes);
    if r.u64()? != NDARRAY_MAGIC {
        return Err("not a serialized NDArray".into());
    }
    let _reserved = r.u64()?;
    let _device = (r.i32()?, r.i32()?);
    let ndim = r.i32()?;
    if !(0..=64).contains(&ndim) {
        return Err(format!("rank {ndim} is out of range"));
    }
    let [code, bits, lanes_lo, lanes_hi] = r.take::<4>()?;
    let lanes = u16::from_le_bytes([lanes_lo, lanes_hi]);
    let code = match code {
        0 => DTypeCode::Int,
        1 => DTypeCode::UInt,
        2 => DTypeCode::Float,
        c => return Err(format!("dtype code {c} is not supported")),
    };
    let dtype = match (code, bits) {
        (DTypeCode::UInt, 1) => DType::BOOL,
        _ => DType::new(code, u16::from(bits)),
    };
    if lanes != 1 {
        return Err(format!(
            "vector constants ({lanes} lanes) are not supported"
        ));
    }
    let shape: Vec<usize> = (0..ndim)
        .map(|_| {
            r.i64()
                .and_then(|d| usize::try_from(d).map_err(|_| format!("extent {d} is negative")))
        })
        .collect::<Result<_, _>>()?;
    let size = r.i64()?;
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or("the element count overflows")?;
    let width = usize::from(bits.max(8) / 8);
    let need = count.checked_mul(width).ok_or("the data size overflows")?;
    if usize::try_from(size).ok() != Some(need) || r.0.len() < need {
        return Err("the data size does not match the shape".into());
    }
    let bytes = &r.0[..need];
    if let (DTypeCode::Int, 64) = (code, bits) {
        // Not through f64, which rounds past 2^53.
        let values: Vec<i64> = bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        return Tensor::from_i64s(&shape, values);
    }
    let values: Vec<f64> = bytes
        .chunks_exact(width)
        .map(|c| match (code, bits) {
            (DTypeCode::Float, 16) => half::f16::from_le_bytes([c[0], c[1]]).to_f64(),
            (DTypeCode::Float, 32) => f32::from_le_bytes([c[0], c[1], c[2], c[3]]).into(),
            (DTypeCode::Float, 64) => f64::from_le_bytes(c.try_into().unwrap_or([0; 8])),
            (DTypeCode::Int, 8) => f64::from(c[0] as i8),
            (DTypeCode::Int, 16) => f64::from(i16::from_le_bytes([c[0], c[1]])),
            (DTypeCode::Int, 32) => f64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            _ => f64::from(c[0]),
        })
        .collect();
    Tensor::from_f64s(dtype, &shape, &values)
}
