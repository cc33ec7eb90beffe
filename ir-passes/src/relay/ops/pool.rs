//! Pooling over the spatial axes of NCHW data: `nn.max_pool2d`,
//! `nn.avg_pool2d` (TVM's `pool_size`, `strides`, `padding`, `dilation`,
//! `ceil_mode`, `count_include_pad`) and `nn.global_avg_pool2d`. Padding
//! takes no part in a maximum; an average counts it only with
//! `count_include_pad`.

use super::nn::{bool_attr, bounded_work, wide};
use super::window::{Window, pair, require_layout};
use super::{OpDef, OpValue, as_tensor, tensor_type, value_type};
use crate::relay::attrs::Attrs;
use crate::relay::dtype::DType;
use crate::relay::tensor::Tensor;
use crate::relay::ty::{Dim, Type};

/// The operators of this file, for the registry.
pub(super) static POOL_OPS: [OpDef; 3] = [
    OpDef {
        name: "nn.max_pool2d",
        arity: 1,
        infer: |args, attrs| infer_pool(&args[0], attrs, Reduce::Max),
        eval: |args, attrs| eval_pool(&args[0], attrs, Reduce::Max),
    },
    OpDef {
        name: "nn.avg_pool2d",
        arity: 1,
        infer: |args, attrs| infer_pool(&args[0], attrs, Reduce::Avg),
        eval: |args, attrs| eval_pool(&args[0], attrs, Reduce::Avg),
    },
    OpDef {
        name: "nn.global_avg_pool2d",
        arity: 1,
        infer: |args, attrs| {
            let (shape, dtype) = nchw(&args[0], attrs, "nn.global_avg_pool2d")?;
            Ok(Type::tensor(
                vec![shape[0], shape[1], Dim::Known(1), Dim::Known(1)],
                dtype,
            ))
        },
        eval: eval_global_avg_pool,
    },
];

#[derive(Clone, Copy, PartialEq)]
enum Reduce {
    Max,
    Avg,
}

/// The checked attributes of a pooling window.
struct Pool {
    size: [i64; 2],
    window: Window,
    ceil_mode: bool,
    count_include_pad: bool,
}

impl Pool {
    fn from_attrs(attrs: &Attrs) -> Result<Pool, String> {
        let size = pair(attrs, "pool_size", 1)?;
        if size.iter().any(|&k| k < 1) {
            return Err("`pool_size` must be positive".into());
        }
        Ok(Pool {
            size,
            window: Window::from_attrs(attrs)?,
            ceil_mode: bool_attr(attrs, "ceil_mode", false)?,
            count_include_pad: bool_attr(attrs, "count_include_pad", false)?,
        })
    }
}

/// The shape and dtype of NCHW data, with the layouts checked.
fn nchw(
    t: &Type,
    attrs: &Attrs,
    name: &str,
) -> Result<(Vec<Dim>, crate::relay::dtype::DType), String> {
    require_layout(attrs, "layout", "NCHW")?;
    require_layout(attrs, "out_layout", "NCHW")?;
    let (shape, dtype) = tensor_type(t)?;
    if shape.len() != 4 {
        return Err(format!("{name} takes NCHW data, of rank 4"));
    }
    Ok((shape, dtype))
}

fn infer_pool(t: &Type, attrs: &Attrs, kind: Reduce) -> Result<Type, String> {
    let name = match kind {
        Reduce::Max => "nn.max_pool2d",
        Reduce::Avg => "nn.avg_pool2d",
    };
    let (shape, dtype) = nchw(t, attrs, name)?;
    let pool = Pool::from_attrs(attrs)?;
    let out = |i: usize| {
        pool.window
            .out_extent(i, shape[2 + i], Dim::Known(pool.size[i]), pool.ceil_mode)
    };
    Ok(Type::tensor(
        vec![shape[0], shape[1], out(0)?, out(1)?],
        dtype,
    ))
}

fn eval_pool(v: &OpValue, attrs: &Attrs, kind: Reduce) -> Result<OpValue, String> {
    let x = as_tensor(v)?;
    let out_type = infer_pool(&value_type(v), attrs, kind)?;
    let (out_dims, dtype) = tensor_type(&out_type)?;
    let out: Vec<usize> = out_dims
        .iter()
        .map(|d| match d {
            Dim::Known(v) => *v as usize,
            Dim::Any => 0,
        })
        .collect();
    let pool = Pool::from_attrs(attrs)?;
    let win = pool.window;
    let (sx, xs) = wide(x);
    let [h, w] = [sx[2] as i128, sx[3] as i128];
    // Only the taps inside the input are visited: a window much larger
    // than the input costs what the input holds.
    bounded_work(
        "pooling",
        out.iter().try_fold(
            (pool.size[0].min(sx[2] as i64) as u64)
                .saturating_mul(pool.size[1].min(sx[3] as i64) as u64),
            |a, &d| a.checked_mul(d as u64),
        ),
    )?;
    // Index arithmetic in i128: with `ceil_mode` and a huge stride, the
    // last window starts past any i64.
    let geometry = |i: usize| {
        (
            i128::from(win.strides[i]),
            i128::from(win.dilation[i]),
            i128::from(pool.size[i]),
            i128::from(win.padding[i]),
            // Padding ends here: with `ceil_mode` windows may pass it.
            [h, w][i] + i128::from(win.padding[i + 2]),
        )
    };
    let (sy, dy, kh, py, h_end) = geometry(0);
    let (sxs, dx, kw, px, w_end) = geometry(1);
    let empty_max = lowest(dtype);
    let mut result = Vec::with_capacity(out.iter().product());
    let area = sx[2] * sx[3];
    for p in 0..sx[0] * sx[1] {
        let plane = &xs[p * area..(p + 1) * area];
        for y in 0..out[2] as i128 {
            let top = y * sy - py;
            let rows = taps(top, dy, kh, 0, h);
            for xo in 0..out[3] as i128 {
                let left = xo * sxs - px;
                let cols = taps(left, dx, kw, 0, w);
                let mut acc = None::<f64>;
                for ky in rows.clone() {
                    let row = (top + ky * dy) * w;
                    for kx in cols.clone() {
                        let v = plane[(row + left + kx * dx) as usize];
                        acc = Some(match (acc, kind) {
                            (None, _) => v,
                            (Some(a), Reduce::Max) => a.max(v),
                            (Some(a), Reduce::Avg) => a + v,
                        });
                    }
                }
                let count = |r: std::ops::Range<i128>| (r.end - r.start) as f64;
                let divisor = if pool.count_include_pad {
                    count(taps(top, dy, kh, i128::MIN / 2, h_end))
                        * count(taps(left, dx, kw, i128::MIN / 2, w_end))
                } else {
                    count(rows.clone()) * count(cols.clone())
                };
                result.push(match (acc, kind) {
                    (None, Reduce::Max) => empty_max,
                    (None, Reduce::Avg) => 0.0,
                    (Some(a), Reduce::Max) => a,
                    (Some(a), Reduce::Avg) => a / divisor,
                });
            }
        }
    }
    Tensor::from_f64s(dtype, &out, &result).map(OpValue::Tensor)
}

/// The taps `k` in `0..count` of a window starting at `start`, `step`
/// apart, that land in `lo..hi`.
fn taps(start: i128, step: i128, count: i128, lo: i128, hi: i128) -> std::ops::Range<i128> {
    let ceil_div = |a: i128| (a + step - 1).div_euclid(step);
    let first = ceil_div(lo - start).clamp(0, count);
    let end = ceil_div(hi - start).clamp(first, count);
    first..end
}

/// What a maximum over no element gives: the dtype's lowest value, as
/// TVM pads a max pool (`false` for bool).
fn lowest(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => f64::from(half::f16::MIN),
        DType::F32 => f64::from(f32::MIN),
        DType::F64 => f64::MIN,
        DType::I16 => f64::from(i16::MIN),
        DType::I32 => f64::from(i32::MIN),
        DType::I64 => i64::MIN as f64,
        _ => 0.0,
    }
}

fn eval_global_avg_pool(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let x = as_tensor(&args[0])?;
    nchw(&value_type(&args[0]), attrs, "nn.global_avg_pool2d")?;
    let (sx, xs) = wide(x);
    let area = sx[2] * sx[3];
    let means: Vec<f64> = if area == 0 {
        vec![f64::NAN; sx[0] * sx[1]]
    } else {
        xs.chunks_exact(area)
            .map(|plane| plane.iter().sum::<f64>() / area as f64)
            .collect()
    };
    Tensor::from_f64s(x.dtype(), &[sx[0], sx[1], 1, 1], &means).map(OpValue::Tensor)
}
