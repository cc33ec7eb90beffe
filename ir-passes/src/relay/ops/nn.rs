//! The neural-network operators (`nn.*`): dense, conv2d, bias_add, softmax
//! and batch_norm, with TVM's attributes. Kernels work in `f64` and round
//! once into the result's dtype, so that they are deterministic.

use super::window::{Window, require_layout};
use super::{
    MAX_WORK, OpDef, OpValue, as_tensor, axis_attr, float_tensor, int_list, known, normalize_axis,
    tensor_type, value_type,
};
use crate::relay::attrs::{AttrValue, Attrs};
use crate::relay::dtype::DType;
use crate::relay::tensor::Tensor;
use crate::relay::ty::{Dim, Type};

/// The operators of this file, for the registry.
pub(super) static NN_OPS: [OpDef; 7] = [
    OpDef {
        name: "nn.dense",
        arity: 2,
        infer: infer_dense,
        eval: eval_dense,
    },
    OpDef {
        name: "nn.conv2d",
        arity: 2,
        infer: infer_conv2d,
        eval: eval_conv2d,
    },
    OpDef {
        name: "nn.bias_add",
        arity: 2,
        infer: infer_bias_add,
        eval: super::eval_bias_add,
    },
    OpDef {
        name: "nn.softmax",
        arity: 1,
        infer: |args, attrs| {
            let t = float_tensor(&args[0])?;
            let (shape, _) = tensor_type(&t)?;
            normalize_axis(axis_attr(attrs, -1)?, shape.len())?;
            Ok(t)
        },
        eval: eval_softmax,
    },
    OpDef {
        name: "nn.dropout",
        arity: 1,
        infer: |args, attrs| {
            let t = float_tensor(&args[0])?;
            rate(attrs)?;
            Ok(Type::tuple(vec![t.clone(), t]))
        },
        eval: eval_dropout,
    },
    OpDef {
        name: "nn.batch_flatten",
        arity: 1,
        infer: infer_batch_flatten,
        eval: super::eval_batch_flatten,
    },
    OpDef {
        name: "nn.batch_norm",
        arity: 5,
        infer: infer_batch_norm,
        eval: eval_batch_norm,
    },
];

/// Refuses a kernel whose multiply-adds pass [`MAX_WORK`]: evaluating it
/// would take minutes, where folding should leave the call alone.
pub(super) fn bounded_work(name: &str, work: Option<u64>) -> Result<(), String> {
    match work {
        Some(w) if w <= MAX_WORK => Ok(()),
        _ => Err(format!(
            "{name} would take more than {MAX_WORK} multiply-adds to evaluate"
        )),
    }
}

pub(super) fn same_dtype(name: &str, a: DType, b: DType) -> Result<(), String> {
    if a != b {
        return Err(format!("{name} operand types differ: {a} and {b}"));
    }
    Ok(())
}

/// Two extents that must agree where both are known.
pub(super) fn agree(name: &str, what: &str, a: Dim, b: Dim) -> Result<(), String> {
    match (a, b) {
        (Dim::Known(x), Dim::Known(y)) if x != y => Err(format!("{name}: {what}: {x} against {y}")),
        _ => Ok(()),
    }
}

/// `f64` values of a tensor, with its shape.
pub(super) fn wide(t: &Tensor) -> (Vec<usize>, Vec<f64>) {
    (t.shape().to_vec(), t.to_f64s())
}

// ---- nn.dense ----

fn infer_dense(args: &[Type], _: &Attrs) -> Result<Type, String> {
    let (sx, dx) = tensor_type(&args[0])?;
    let (sw, dw) = tensor_type(&args[1])?;
    same_dtype("nn.dense", dx, dw)?;
    if sx.is_empty() || sw.len() != 2 {
        return Err("nn.dense takes data of rank >= 1 and a weight of rank 2".into());
    }
    agree("nn.dense", "reduces", sx[sx.len() - 1], sw[1])?;
    let mut out = sx[..sx.len() - 1].to_vec();
    out.push(sw[0]);
    Ok(Type::tensor(out, dx))
}

fn eval_dense(args: &[OpValue], _: &Attrs) -> Result<OpValue, String> {
    let (x, w) = (as_tensor(&args[0])?, as_tensor(&args[1])?);
    if x.dtype() != w.dtype() || w.shape().len() != 2 || x.shape().is_empty() {
        return Err("nn.dense takes data of rank >= 1 and a weight of rank 2 of one dtype".into());
    }
    let k = *x.shape().last().unwrap_or(&0);
    let (n, wk) = (w.shape()[0], w.shape()[1]);
    if k != wk {
        return Err(format!("nn.dense reduces {k} against {wk}"));
    }
    // From the shape: with nothing to reduce (`k` = 0) there are still
    // rows, each of zeros.
    let batch = &x.shape()[..x.shape().len() - 1];
    let rows: usize = batch.iter().product();
    // Each output element costs a step even when there is nothing to
    // reduce: the bound covers the result's allocation too.
    bounded_work(
        "nn.dense",
        (rows as u64)
            .checked_mul(n as u64)
            .and_then(|v| v.checked_mul(k.max(1) as u64)),
    )?;
    let (xs, ws) = (x.to_f64s(), w.to_f64s());
    let mut out = vec![0.0; rows * n];
    for r in 0..rows {
        for j in 0..n {
            // From +0.0: an empty `sum()` of floats is -0.0.
            out[r * n + j] = (0..k).fold(0.0, |acc, i| acc + xs[r * k + i] * ws[j * k + i]);
        }
    }
    let mut shape = batch.to_vec();
    shape.push(n);
    Tensor::from_f64s(x.dtype(), &shape, &out).map(OpValue::Tensor)
}

// ---- nn.conv2d ----

/// The attributes of a 2-D convolution, checked.
struct Conv2d {
    window: Window,
    groups: i64,
}

/// `groups`: a positive integer, 1 when absent.
pub(super) fn groups(attrs: &Attrs) -> Result<i64, String> {
    match attrs.get("groups") {
        None => Ok(1),
        Some(v) => v
            .as_int()
            .filter(|g| *g >= 1)
            .ok_or_else(|| "`groups` must be a positive integer".into()),
    }
}

/// That `extent` (`what`: "channels", "output channels") divides into
/// `groups` equal parts, when it is known.
pub(super) fn split_into_groups(extent: Dim, what: &str, groups: i64) -> Result<(), String> {
    match extent {
        Dim::Known(n) if n % groups != 0 => {
            Err(format!("{n} {what} do not split into {groups} groups"))
        }
        _ => Ok(()),
    }
}

impl Conv2d {
    fn from_attrs(attrs: &Attrs) -> Result<Conv2d, String> {
        require_layout(attrs, "data_layout", "NCHW")?;
        require_layout(attrs, "kernel_layout", "OIHW")?;
        require_layout(attrs, "out_layout", "NCHW")?;
        Ok(Conv2d {
            window: Window::from_attrs(attrs)?,
            groups: groups(attrs)?,
        })
    }

    /// The output extent of spatial axis `i` (0: height, 1: width).
    fn out_extent(&self, i: usize, input: Dim, kernel: Dim) -> Result<Dim, String> {
        self.window.out_extent(i, input, kernel, false)
    }
}

fn infer_conv2d(args: &[Type], attrs: &Attrs) -> Result<Type, String> {
    let conv = Conv2d::from_attrs(attrs)?;
    let (sx, dx) = tensor_type(&args[0])?;
    let (sw, dw) = tensor_type(&args[1])?;
    same_dtype("nn.conv2d", dx, dw)?;
    if sx.len() != 4 || sw.len() != 4 {
        return Err("nn.conv2d takes NCHW data and an OIHW weight, both of rank 4".into());
    }
    split_into_groups(sx[1], "channels", conv.groups)?;
    split_into_groups(sw[0], "output channels", conv.groups)?;
    if let Dim::Known(c) = sx[1] {
        agree(
            "nn.conv2d",
            "input channels per group",
            Dim::Known(c / conv.groups),
            sw[1],
        )?;
    }
    if let Some(channels) = attrs.get("channels").and_then(AttrValue::as_int) {
        agree("nn.conv2d", "channels", Dim::Known(channels), sw[0])?;
    }
    if let Some(ks) = int_list(attrs, "kernel_size")? {
        if ks.len() != 2 {
            return Err("`kernel_size` takes 2 values".into());
        }
        agree("nn.conv2d", "kernel_size", Dim::Known(ks[0]), sw[2])?;
        agree("nn.conv2d", "kernel_size", Dim::Known(ks[1]), sw[3])?;
    }
    let dtype = match attrs.get("out_dtype") {
        Some(AttrValue::Str(s)) if !s.is_empty() => s.parse()?,
        _ => dx,
    };
    Ok(Type::tensor(
        vec![
            sx[0],
            sw[0],
            conv.out_extent(0, sx[2], sw[2])?,
            conv.out_extent(1, sx[3], sw[3])?,
        ],
        dtype,
    ))
}

fn eval_conv2d(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let (x, w) = (as_tensor(&args[0])?, as_tensor(&args[1])?);
    let arg_types: Vec<Type> = args.iter().map(value_type).collect();
    let out_type = infer_conv2d(&arg_types, attrs)?;
    let (out_dims, dtype) = tensor_type(&out_type)?;
    let conv = Conv2d::from_attrs(attrs)?;
    let (sx, xs) = wide(x);
    let (sw, ws) = wide(w);
    let [n, c, h, wd] = [sx[0], sx[1], sx[2], sx[3]];
    let [o, cg, kh, kw] = [sw[0], sw[1], sw[2], sw[3]];
    let out = known(&out_dims)?;
    let [oh, ow] = [out[2], out[3]];
    let out_count = out.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64));
    bounded_work(
        "nn.conv2d",
        out_count.and_then(|c| c.checked_mul((cg * kh * kw).max(1) as u64)),
    )?;
    let groups = conv.groups as usize;
    let win = conv.window;
    let per_group_out = o / groups;
    let mut result = vec![0.0; n * o * oh * ow];
    for b in 0..n {
        for oc in 0..o {
            let g = oc / per_group_out.max(1);
            for y in 0..oh {
                for xo in 0..ow {
                    let mut acc = 0.0;
                    for ic in 0..cg {
                        let ch = g * cg + ic;
                        for ky in 0..kh {
                            let iy = (y as i64) * win.strides[0] + (ky as i64) * win.dilation[0]
                                - win.padding[0];
                            if iy < 0 || iy >= h as i64 {
                                continue;
                            }
                            for kx in 0..kw {
                                let ix = (xo as i64) * win.strides[1]
                                    + (kx as i64) * win.dilation[1]
                                    - win.padding[1];
                                if ix < 0 || ix >= wd as i64 {
                                    continue;
                                }
                                let xi = ((b * c + ch) * h + iy as usize) * wd + ix as usize;
                                let wi = ((oc * cg + ic) * kh + ky) * kw + kx;
                                acc += xs[xi] * ws[wi];
                            }
                        }
                    }
                    result[((b * o + oc) * oh + y) * ow + xo] = acc;
                }
            }
        }
    }
    Tensor::from_f64s(dtype, &out, &result).map(OpValue::Tensor)
}

// ---- nn.batch_flatten ----

/// The batch axis kept, every other axis folded into one.
pub(super) fn infer_batch_flatten(args: &[Type], _: &Attrs) -> Result<Type, String> {
    let (shape, dtype) = tensor_type(&args[0])?;
    let Some((&batch, rest)) = shape.split_first() else {
        return Err("nn.batch_flatten takes a tensor of rank >= 1".into());
    };
    let folded = rest.iter().try_fold(Some(1i64), |n, d| match (n, d) {
        (Some(n), Dim::Known(d)) => n
            .checked_mul(*d)
            .map(Some)
            .ok_or("the folded axis is longer than 2^63"),
        _ => Ok(None),
    })?;
    Ok(Type::tensor(
        vec![batch, folded.map_or(Dim::Any, Dim::Known)],
        dtype,
    ))
}

// ---- nn.bias_add ----

fn infer_bias_add(args: &[Type], attrs: &Attrs) -> Result<Type, String> {
    let (sx, dx) = tensor_type(&args[0])?;
    let (sb, db) = tensor_type(&args[1])?;
    same_dtype("nn.bias_add", dx, db)?;
    let axis = normalize_axis(axis_attr(attrs, 1)?, sx.len())?;
    if sb.len() != 1 || sx.is_empty() {
        return Err("nn.bias_add takes a bias of rank 1".into());
    }
    agree("nn.bias_add", "bias length", sb[0], sx[axis])?;
    Ok(Type::tensor(sx, dx))
}

// ---- nn.softmax ----

/// Applies `f` to every line of `values` along `axis` (the elements that
/// differ only in that coordinate).
fn along_axis(shape: &[usize], axis: usize, values: &mut [f64], f: impl Fn(&mut [f64])) {
    let extent = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut line = vec![0.0; extent];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * extent + k) * inner + i;
            for (k, slot) in line.iter_mut().enumerate() {
                *slot = values[at(k)];
            }
            f(&mut line);
            for (k, v) in line.iter().enumerate() {
                values[at(k)] = *v;
            }
        }
    }
}

fn eval_softmax(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let x = as_tensor(&args[0])?;
    if !x.dtype().is_float() {
        return Err("nn.softmax takes a float tensor".into());
    }
    let (shape, mut xs) = wide(x);
    if shape.is_empty() {
        return Err("nn.softmax takes a tensor of rank >= 1".into());
    }
    let axis = normalize_axis(axis_attr(attrs, -1)?, shape.len())?;
    along_axis(&shape, axis, &mut xs, |line| {
        let max = line.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut total = 0.0;
        for v in line.iter_mut() {
            *v = (*v - max).exp();
            total += *v;
        }
        for v in line.iter_mut() {
            *v /= total;
        }
    });
    Tensor::from_f64s(x.dtype(), &shape, &xs).map(OpValue::Tensor)
}

// ---- nn.dropout ----

fn rate(attrs: &Attrs) -> Result<f64, String> {
    match attrs.get("rate") {
        None => Ok(0.5),
        Some(AttrValue::Float(r)) if (0.0..1.0).contains(r) => Ok(*r),
        Some(_) => Err("nn.dropout: `rate` must be a float in [0, 1)".into()),
    }
}

/// Inference mode: the data unchanged, and a mask keeping everything (as
/// TVM's `SimplifyInference` reads it). The type is TVM's: both are the
/// data's type.
fn eval_dropout(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let x = as_tensor(&args[0])?;
    rate(attrs)?;
    let (shape, values) = wide(x);
    let mask = Tensor::from_f64s(x.dtype(), &shape, &vec![1.0; values.len()])?;
    Ok(OpValue::Tuple(vec![args[0].clone(), OpValue::Tensor(mask)]))
}

// ---- nn.batch_norm ----

pub(super) fn bool_attr(attrs: &Attrs, key: &str, default: bool) -> Result<bool, String> {
    match attrs.get(key) {
        None => Ok(default),
        Some(AttrValue::Bool(b)) => Ok(*b),
        Some(AttrValue::Int(v)) => Ok(*v != 0),
        Some(_) => Err(format!("attribute `{key}` must be a boolean")),
    }
}

fn epsilon(attrs: &Attrs) -> Result<f64, String> {
    match attrs.get("epsilon") {
        None => Ok(1e-5),
        Some(AttrValue::Float(v)) if *v >= 0.0 => Ok(*v),
        Some(AttrValue::Int(v)) if *v >= 0 => Ok(*v as f64),
        Some(_) => Err("attribute `epsilon` must be a non-negative number".into()),
    }
}

/// TVM's type: the data's type, and the moving mean's and variance's
/// (vectors of the axis's extent).
fn infer_batch_norm(args: &[Type], attrs: &Attrs) -> Result<Type, String> {
    let data = float_tensor(&args[0])?;
    let (shape, dtype) = tensor_type(&data)?;
    let axis = normalize_axis(axis_attr(attrs, 1)?, shape.len())?;
    if shape.is_empty() {
        return Err("nn.batch_norm takes data of rank >= 1".into());
    }
    for (arg, what) in args[1..]
        .iter()
        .zip(["gamma", "beta", "moving_mean", "moving_var"])
    {
        let (s, d) = tensor_type(arg)?;
        same_dtype("nn.batch_norm", dtype, d)?;
        if s.len() != 1 {
            return Err(format!("{what} must be a vector"));
        }
        agree("nn.batch_norm", what, s[0], shape[axis])?;
    }
    bool_attr(attrs, "center", true)?;
    bool_attr(attrs, "scale", true)?;
    epsilon(attrs)?;
    let vector = Type::tensor(vec![shape[axis]], dtype);
    Ok(Type::tuple(vec![data, vector.clone(), vector]))
}

/// Inference mode, as TVM's `SimplifyInference` computes it:
/// `(x - mean) / sqrt(var + epsilon) * gamma + beta`, with the moving
/// statistics passed through.
fn eval_batch_norm(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let x = as_tensor(&args[0])?;
    let (shape, mut xs) = wide(x);
    if shape.is_empty() || !x.dtype().is_float() {
        return Err("nn.batch_norm takes float data of rank >= 1".into());
    }
    let axis = normalize_axis(axis_attr(attrs, 1)?, shape.len())?;
    let vectors: Vec<Vec<f64>> = args[1..]
        .iter()
        .map(|a| as_tensor(a).map(Tensor::to_f64s))
        .collect::<Result<_, _>>()?;
    if vectors.iter().any(|v| v.len() != shape[axis]) {
        return Err("a vector does not match the axis".into());
    }
    let (center, scale, eps) = (
        bool_attr(attrs, "center", true)?,
        bool_attr(attrs, "scale", true)?,
        epsilon(attrs)?,
    );
    let [gamma, beta, mean, var] = [&vectors[0], &vectors[1], &vectors[2], &vectors[3]];
    let inner: usize = shape[axis + 1..].iter().product();
    for (i, v) in xs.iter_mut().enumerate() {
        let ch = (i / inner.max(1)) % shape[axis];
        let mut y = (*v - mean[ch]) / (var[ch] + eps).sqrt();
        if scale {
            y *= gamma[ch];
        }
        if center {
            y += beta[ch];
        }
        *v = y;
    }
    let out = Tensor::from_f64s(x.dtype(), &shape, &xs)?;
    Ok(OpValue::Tuple(vec![
        OpValue::Tensor(out),
        args[3].clone(),
        args[4].clone(),
    ]))
}
