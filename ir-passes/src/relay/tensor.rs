//! Constant tensors: n-d arrays of bool, int16/32/64 and float16/32/64.

use std::fmt;
use std::hash::{Hash, Hasher};

use half::f16;
use ndarray::{ArrayD, IxDyn};

use super::dtype::DType;

/// The data of a constant, row-major, with its shape.
#[derive(Debug, Clone)]
pub enum Tensor {
    /// `bool`
    Bool(ArrayD<bool>),
    /// `int16`
    I16(ArrayD<i16>),
    /// `int32`
    I32(ArrayD<i32>),
    /// `int64`
    I64(ArrayD<i64>),
    /// `float16`: stored as IEEE binary16; kernels compute in `f32` and
    /// round once.
    F16(ArrayD<f16>),
    /// `float32`
    F32(ArrayD<f32>),
    /// `float64`
    F64(ArrayD<f64>),
}

/// Applies `$body` to the array inside any variant.
#[allow(unused_macros)]
macro_rules! each_array {
    ($t:expr, $a:ident => $body:expr) => {
        match $t {
            Tensor::Bool($a) => $body,
            Tensor::I16($a) => $body,
            Tensor::I32($a) => $body,
            Tensor::I64($a) => $body,
            Tensor::F16($a) => $body,
            Tensor::F32($a) => $body,
            Tensor::F64($a) => $body,
        }
    };
}

/// The element count of `shape` when `given` values fill it exactly. The
/// shape comes from the input: its element count may overflow.
fn fits(shape: &[usize], given: usize) -> Result<usize, String> {
    let Some(n) = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) else {
        return Err(format!(
            "shape {shape:?} has more elements than an address can count"
        ));
    };
    if n != given {
        return Err(format!("shape {shape:?} needs {n} values, found {given}"));
    }
    Ok(n)
}

impl Tensor {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            Tensor::Bool(_) => DType::BOOL,
            Tensor::I16(_) => DType::I16,
            Tensor::I32(_) => DType::I32,
            Tensor::I64(_) => DType::I64,
            Tensor::F16(_) => DType::F16,
            Tensor::F32(_) => DType::F32,
            Tensor::F64(_) => DType::F64,
        }
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        each_array!(self, a => a.shape())
    }

    /// Its type: `Tensor[shape, dtype]`.
    pub fn ty(&self) -> super::ty::Type {
        use super::ty::{Dim, Type};
        Type::tensor(
            self.shape().iter().map(|&d| Dim::Known(d as i64)).collect(),
            self.dtype(),
        )
    }

    /// `true` for rank 0.
    pub fn is_scalar(&self) -> bool {
        self.shape().is_empty()
    }

    /// A rank-0 `float32`.
    pub fn scalar_f32(v: f32) -> Self {
        Tensor::F32(ArrayD::from_elem(IxDyn(&[]), v))
    }

    /// A rank-0 `int32`.
    pub fn scalar_i32(v: i32) -> Self {
        Tensor::I32(ArrayD::from_elem(IxDyn(&[]), v))
    }

    /// A rank-0 `bool`.
    pub fn scalar_bool(v: bool) -> Self {
        Tensor::Bool(ArrayD::from_elem(IxDyn(&[]), v))
    }

    /// Builds a tensor of `dtype` from row-major `f64` values (the metadata form).
    pub fn from_f64s(dtype: DType, shape: &[usize], values: &[f64]) -> Result<Self, String> {
        let n = fits(shape, values.len())?;
        let shape = IxDyn(shape);
        macro_rules! ints {
            ($variant:ident, $t:ty) => {{
                let mut out = Vec::with_capacity(n);
                for &v in values {
                    // `MAX as f64` rounds up to 2^63 for i64: the bound is
                    // -MIN, excluded.
                    if v.fract() != 0.0 || v < <$t>::MIN as f64 || v >= -(<$t>::MIN as f64) {
                        return Err(format!("{v} is not a valid {dtype}"));
                    }
                    out.push(v as $t);
                }
                Tensor::$variant(ArrayD::from_shape_vec(shape, out).map_err(|e| e.to_string())?)
            }};
        }
        Ok(match dtype {
            DType::BOOL => Tensor::Bool(
                ArrayD::from_shape_vec(shape, values.iter().map(|&v| v != 0.0).collect())
                    .map_err(|e| e.to_string())?,
            ),
            DType::I16 => ints!(I16, i16),
            DType::I32 => ints!(I32, i32),
            DType::I64 => ints!(I64, i64),
            DType::F16 => Tensor::F16(
                ArrayD::from_shape_vec(shape, values.iter().map(|&v| f16::from_f64(v)).collect())
                    .map_err(|e| e.to_string())?,
            ),
            DType::F32 => Tensor::F32(
                ArrayD::from_shape_vec(shape, values.iter().map(|&v| v as f32).collect())
                    .map_err(|e| e.to_string())?,
            ),
            DType::F64 => Tensor::F64(
                ArrayD::from_shape_vec(shape, values.to_vec()).map_err(|e| e.to_string())?,
            ),
            other => return Err(format!("constants of type {other} are not supported")),
        })
    }

    /// An int64 tensor of `shape` holding `values`, row-major: exact, where
    /// [`Tensor::from_f64s`] rounds past 2^53.
    pub fn from_i64s(shape: &[usize], values: Vec<i64>) -> Result<Self, String> {
        fits(shape, values.len())?;
        ArrayD::from_shape_vec(IxDyn(shape), values)
            .map(Tensor::I64)
            .map_err(|e| e.to_string())
    }

    /// This int64 tensor as `dtype` (int16, int32 or int64), each value's
    /// low bits kept, as C converts.
    pub fn wrapped_to(self, dtype: DType) -> Result<Self, String> {
        let Tensor::I64(a) = self else {
            return Err("wrapped_to converts an int64 tensor".into());
        };
        match dtype {
            DType::I16 => Ok(Tensor::I16(a.mapv(|v| v as i16))),
            DType::I32 => Ok(Tensor::I32(a.mapv(|v| v as i32))),
            DType::I64 => Ok(Tensor::I64(a)),
            other => Err(format!("{other} is not an integer type")),
        }
    }

    /// The values of an integer tensor (int16, int32 or int64) as `i64`,
    /// row-major, exactly; `None` for bool and floats.
    pub fn to_i64s(&self) -> Option<Vec<i64>> {
        match self {
            Tensor::I16(a) => Some(a.iter().map(|&v| i64::from(v)).collect()),
            Tensor::I32(a) => Some(a.iter().map(|&v| i64::from(v)).collect()),
            Tensor::I64(a) => Some(a.iter().copied().collect()),
            _ => None,
        }
    }

    /// How many elements it holds.
    pub fn element_count(&self) -> usize {
        each_array!(self, a => a.len())
    }

    /// The values as `f64`, row-major (the metadata form).
    pub fn to_f64s(&self) -> Vec<f64> {
        match self {
            Tensor::Bool(a) => a.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect(),
            Tensor::I16(a) => a.iter().map(|&v| v as f64).collect(),
            Tensor::I32(a) => a.iter().map(|&v| v as f64).collect(),
            Tensor::I64(a) => a.iter().map(|&v| v as f64).collect(),
            Tensor::F16(a) => a.iter().map(|&v| v.to_f64()).collect(),
            Tensor::F32(a) => a.iter().map(|&v| v as f64).collect(),
            Tensor::F64(a) => a.iter().copied().collect(),
        }
    }

    /// The rank-0 value as text with the literal suffix of the text format
    /// (`1`, `2i64`, `1.5f`, `True`), or `None` if it cannot be written inline.
    pub fn scalar_literal(&self) -> Option<String> {
        if !self.is_scalar() {
            return None;
        }
        // Each width prints its own shortest form, so the text reads back exactly.
        fn float<F: fmt::Display + Into<f64> + Copy>(v: F, suffix: &str) -> Option<String> {
            let wide: f64 = v.into();
            if wide.is_nan() {
                None
            } else if wide.is_infinite() {
                Some(format!("{}inf{suffix}", if wide < 0.0 { "-" } else { "" }))
            } else {
                Some(format!("{v}{suffix}"))
            }
        }
        match self {
            Tensor::Bool(a) => Some(
                if a.iter().next() == Some(&true) {
                    "True"
                } else {
                    "False"
                }
                .into(),
            ),
            Tensor::I16(a) => a.iter().next().map(|v| format!("{v}i16")),
            Tensor::I32(a) => a.iter().next().map(|v| v.to_string()),
            Tensor::I64(a) => a.iter().next().map(|v| format!("{v}i64")),
            Tensor::F16(a) => a.iter().next().and_then(|&v| float(Shortest16(v), "f16")),
            Tensor::F32(a) => a.iter().next().and_then(|&v| float(v, "f")),
            Tensor::F64(a) => a.iter().next().and_then(|&v| float(v, "f64")),
        }
    }
}

/// A float16 displayed with the fewest decimals that read back to it
/// (`0.1`, where going through f32 would give `0.099975586`).
#[derive(Clone, Copy)]
struct Shortest16(f16);

impl From<Shortest16> for f64 {
    fn from(v: Shortest16) -> f64 {
        v.0.to_f64()
    }
}

impl fmt::Display for Shortest16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0.to_f64();
        // The smallest subnormal, 2^-24, needs 8 decimals to be told apart
        // from its neighbours; 25 always suffice.
        for decimals in 0..25 {
            let text = format!("{v:.decimals$}");
            if text.parse::<f64>().map(f16::from_f64) == Ok(self.0) {
                return f.write_str(&text);
            }
        }
        write!(f, "{v}")
    }
}

/// Bitwise equality of the data, as TVM compares constants (NaN equals NaN).
impl PartialEq for Tensor {
    fn eq(&self, other: &Self) -> bool {
        if self.dtype() != other.dtype() || self.shape() != other.shape() {
            return false;
        }
        match (self, other) {
            (Tensor::F16(a), Tensor::F16(b)) => {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            (Tensor::F32(a), Tensor::F32(b)) => {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            (Tensor::F64(a), Tensor::F64(b)) => {
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
            (Tensor::Bool(a), Tensor::Bool(b)) => a == b,
            (Tensor::I16(a), Tensor::I16(b)) => a == b,
            (Tensor::I32(a), Tensor::I32(b)) => a == b,
            (Tensor::I64(a), Tensor::I64(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Tensor {}

impl Hash for Tensor {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.dtype().hash(state);
        self.shape().hash(state);
        match self {
            Tensor::F16(a) => a.iter().for_each(|x| x.to_bits().hash(state)),
            Tensor::F32(a) => a.iter().for_each(|x| x.to_bits().hash(state)),
            Tensor::F64(a) => a.iter().for_each(|x| x.to_bits().hash(state)),
            Tensor::Bool(a) => a.iter().for_each(|x| x.hash(state)),
            Tensor::I16(a) => a.iter().for_each(|x| x.hash(state)),
            Tensor::I32(a) => a.iter().for_each(|x| x.hash(state)),
            Tensor::I64(a) => a.iter().for_each(|x| x.hash(state)),
        }
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.scalar_literal() {
            Some(s) => f.write_str(&s),
            None => write!(f, "Tensor[{:?}, {}]", self.shape(), self.dtype()),
        }
    }
}
