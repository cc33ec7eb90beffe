//! Pooling over the spatial axes of NCHW data: `nn.max_pool2d`,
//! `nn.avg_pool2d` (TVM's `pool_size`, `strides`, `padding`, `dilation`,
//! `ceil_mode`, `count_include_pad`) and `nn.global_avg_pool2d`. Padding
//! takes no part in a maximum; an average counts it only with
//! `count_include_pad`.

use super::nn::{bool_attr, bounded_work, wide};
use super::window::{Window, pair, require_layout};
use super::{OpDef, OpValue, as_tensor, known, tensor_type, value_type};
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
    let out = known(&out_dims)?;
    let pool = Pool::from_attrs(attrs)?;
    let sx = x.shape();
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
    let windows = Windows::new(&pool, sx, &out);
    // A maximum of integers is taken on the integers themselves: through
    // f64, int64 past 2^53 would round.
    // An average of integers is TVM's: the sum, wrapped in the dtype, then
    // divided truncating toward zero.
    if let Some(xs) = x.to_i64s() {
        let result = match kind {
            Reduce::Max => {
                let lowest = lowest_integer(dtype);
                windows.reduce(&xs, |a, b| a.max(b), |m, _| m.unwrap_or(lowest))
            }
            Reduce::Avg => windows.reduce(&xs, i64::wrapping_add, |s, n| {
                s.map_or(0, |s| integer_mean(s, n as i64, dtype))
            }),
        };
        return Tensor::from_i64s(&out, result)?
            .wrapped_to(dtype)
            .map(OpValue::Tensor);
    }
    let (_, xs) = wide(x);
    let result = match kind {
        Reduce::Max => {
            let lowest = lowest_float(dtype);
            windows.reduce(&xs, f64::max, |m, _| m.unwrap_or(lowest))
        }
        Reduce::Avg => windows.reduce(&xs, |a, b| a + b, |s, n| s.map_or(0.0, |s| s / n)),
    };
    Tensor::from_f64s(dtype, &out, &result).map(OpValue::Tensor)
}

/// The windows of a pooling over NCHW data, in output order. Index
/// arithmetic is in i128: with `ceil_mode` and a huge stride, the last
/// window starts past any i64.
struct Windows<'a> {
    pool: &'a Pool,
    input: [usize; 4],
    out: [usize; 2],
}

impl<'a> Windows<'a> {
    fn new(pool: &'a Pool, input: &[usize], out: &[usize]) -> Self {
        Windows {
            pool,
            input: [input[0], input[1], input[2], input[3]],
            out: [out[2], out[3]],
        }
    }

    /// Each window's values folded with `combine`, then `finish`ed with the
    /// count an average divides by.
    fn reduce<T: Copy, R>(
        &self,
        xs: &[T],
        combine: impl Fn(T, T) -> T,
        finish: impl Fn(Option<T>, f64) -> R,
    ) -> Vec<R> {
        let [n, c, h, w] = self.input;
        let (pool, win) = (self.pool, &self.pool.window);
        let axis = |i: usize| {
            let extent = [h, w][i] as i128;
            Axis {
                stride: i128::from(win.strides[i]),
                dilation: i128::from(win.dilation[i]),
                size: i128::from(pool.size[i]),
                pad: i128::from(win.padding[i]),
                extent,
                // Padding ends here: with `ceil_mode` windows may pass it.
                padded_end: extent + i128::from(win.padding[i + 2]),
            }
        };
        let (ay, ax) = (axis(0), axis(1));
        let count = |r: std::ops::Range<i128>| (r.end - r.start) as f64;
        let area = h * w;
        let mut result = Vec::with_capacity(n * c * self.out[0] * self.out[1]);
        for p in 0..n * c {
            // An empty input still has windows, over padding only.
            let plane = &xs[p * area..(p + 1) * area];
            for y in 0..self.out[0] as i128 {
                let (top, rows) = ay.taps(y);
                for xo in 0..self.out[1] as i128 {
                    let (left, cols) = ax.taps(xo);
                    let mut acc = None::<T>;
                    for ky in rows.clone() {
                        let row = (top + ky * ay.dilation) * w as i128;
                        for kx in cols.clone() {
                            let v = plane[(row + left + kx * ax.dilation) as usize];
                            acc = Some(acc.map_or(v, |a| combine(a, v)));
                        }
                    }
                    let divisor = if pool.count_include_pad {
                        count(ay.padded_taps(y)) * count(ax.padded_taps(xo))
                    } else {
                        count(rows.clone()) * count(cols)
                    };
                    result.push(finish(acc, divisor));
                }
            }
        }
        result
    }
}

/// The geometry of a pooling window along one spatial axis.
struct Axis {
    stride: i128,
    dilation: i128,
    size: i128,
    pad: i128,
    extent: i128,
    padded_end: i128,
}

impl Axis {
    /// Where output `o`'s window starts, and its taps inside the input.
    fn taps(&self, o: i128) -> (i128, std::ops::Range<i128>) {
        let start = o * self.stride - self.pad;
        (start, taps(start, self.dilation, self.size, 0, self.extent))
    }

    /// Output `o`'s taps inside the input or its padding.
    fn padded_taps(&self, o: i128) -> std::ops::Range<i128> {
        let start = o * self.stride - self.pad;
        taps(
            start,
            self.dilation,
            self.size,
            i128::MIN / 2,
            self.padded_end,
        )
    }
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
fn lowest_float(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => f64::from(half::f16::MIN),
        DType::F32 => f64::from(f32::MIN),
        DType::BOOL => 0.0,
        _ => f64::MIN,
    }
}

/// [`lowest_float`] for the integer types.
fn lowest_integer(dtype: DType) -> i64 {
    match dtype {
        DType::I16 => i64::from(i16::MIN),
        DType::I32 => i64::from(i32::MIN),
        _ => i64::MIN,
    }
}

/// `sum / count` for an integer average, as TVM computes it: the sum wraps
/// in `dtype`, the division truncates toward zero, and a count below 1
/// counts as 1.
fn integer_mean(sum: i64, count: i64, dtype: DType) -> i64 {
    let sum = match dtype {
        DType::I16 => i64::from(sum as i16),
        DType::I32 => i64::from(sum as i32),
        _ => sum,
    };
    sum.wrapping_div(count.max(1))
}

fn eval_global_avg_pool(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let x = as_tensor(&args[0])?;
    nchw(&value_type(&args[0]), attrs, "nn.global_avg_pool2d")?;
    let sx = x.shape();
    let area = sx[2] * sx[3];
    // An empty plane averages to 0 here: TVM divides by zero (undefined),
    // and `integer_mean` counts the count as 1.
    if let Some(xs) = x.to_i64s() {
        let means = (0..sx[0] * sx[1])
            .map(|p| {
                let plane = &xs[p * area..(p + 1) * area];
                let sum = plane.iter().fold(0i64, |a, &b| a.wrapping_add(b));
                integer_mean(sum, area as i64, x.dtype())
            })
            .collect();
        return Tensor::from_i64s(&[sx[0], sx[1], 1, 1], means)?
            .wrapped_to(x.dtype())
            .map(OpValue::Tensor);
    }
    let (sx, xs) = wide(x);
    let means: Vec<f64> = if area == 0 {
        vec![f64::NAN; sx[0] * sx[1]]
    } else {
        xs.chunks_exact(area)
            .map(|plane| plane.iter().sum::<f64>() / area as f64)
            .collect()
    };
    Tensor::from_f64s(x.dtype(), &[sx[0], sx[1], 1, 1], &means).map(OpValue::Tensor)
}
