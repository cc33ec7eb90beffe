//! The operator registry: arity, type and shape inference, and a reference
//! kernel per operator. Elementwise operators broadcast like numpy.

use half::f16;
use ndarray::{ArrayD, Axis, IxDyn, Zip};

mod conv2d_transpose;
mod nn;
mod pool;
mod window;
mod work;

use super::attrs::{AttrValue, Attrs};
use super::dtype::DType;
use super::tensor::Tensor;
use super::ty::{Dim, Type};

/// A runtime value of the interpreter and of constant folding.
#[derive(Debug, Clone, PartialEq)]
pub enum OpValue {
    /// A tensor.
    Tensor(Tensor),
    /// A tuple of values.
    Tuple(Vec<OpValue>),
}

/// One registered operator.
pub struct OpDef {
    /// The name, e.g. `add` or `nn.dense`.
    pub name: &'static str,
    /// Number of arguments.
    pub arity: usize,
    /// Infers the result type from argument types and attributes.
    pub infer: fn(&[Type], &Attrs) -> Result<Type, String>,
    /// Computes the result.
    pub eval: fn(&[OpValue], &Attrs) -> Result<OpValue, String>,
}

/// The largest rank an operator may give its result (attributes asking
/// for more are a type error, not an allocation).
pub const MAX_RANK: usize = 64;

/// The most multiply-adds a kernel performs (`nn.dense`, `nn.conv2d`):
/// past it, the kernel refuses, and folding leaves the call.
pub const MAX_WORK: u64 = 1 << 30;

fn all_ops() -> impl Iterator<Item = &'static OpDef> {
    OPS.iter()
        .chain(nn::NN_OPS.iter())
        .chain(pool::POOL_OPS.iter())
        .chain(conv2d_transpose::OPS.iter())
}

/// Looks up an operator by name.
pub fn op(name: &str) -> Option<&'static OpDef> {
    all_ops().find(|o| o.name == name)
}

/// Names of all registered operators.
pub fn op_names() -> impl Iterator<Item = &'static str> {
    all_ops().map(|o| o.name)
}

impl OpDef {
    /// The steps (multiply-adds, or elements read and written) the kernel
    /// takes on arguments of types `args` giving `result`, estimated from
    /// the types; `None` past a `u64`.
    pub fn work(&self, args: &[Type], attrs: &Attrs, result: &Type) -> Option<u64> {
        work::estimate(self.name, args, attrs, result)
    }
}

/// What one kernel run may take: the elements of its largest value, and
/// its steps (see [`OpDef::apply`]).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most elements an argument or the result may span.
    pub max_elements: u64,
    /// The most steps (multiply-adds, or elements read and written).
    pub max_work: u64,
}

impl OpDef {
    /// Runs the kernel on `args` after checking them as inference does,
    /// and only within `limits`: the kernel allocates the result whole,
    /// and the input decides its size and the kernel's time. Gives the
    /// value and the steps charged for it.
    pub fn apply(
        &self,
        args: &[OpValue],
        attrs: &Attrs,
        limits: Limits,
    ) -> Result<(OpValue, u64), String> {
        let max_elements = limits.max_elements;
        if args.len() != self.arity {
            return Err(format!(
                "`{}` takes {} arguments, given {}",
                self.name,
                self.arity,
                args.len()
            ));
        }
        let types: Vec<Type> = args.iter().map(value_type).collect();
        // A tensor without elements may still have huge extents, which
        // kernels loop over or broadcast other operands to: the bound is
        // on extents, each empty one counted as 1.
        if let Some(t) = types
            .iter()
            .find(|t| extent_span(t).is_none_or(|n| n > max_elements))
        {
            return Err(format!(
                "an argument, {}, spans more than {max_elements} elements",
                super::printer::print_type_brief(t)
            ));
        }
        let result = (self.infer)(&types, attrs)?;
        if extent_span(&result).is_none_or(|n| n > max_elements) {
            return Err(format!(
                "the result, {}, has more than {max_elements} elements",
                super::printer::print_type_brief(&result)
            ));
        }
        match self.work(&types, attrs, &result) {
            Some(w) if w <= limits.max_work => (self.eval)(args, attrs).map(|v| (v, w)),
            _ => Err(format!(
                "`{}` would take more than {} steps",
                self.name, limits.max_work
            )),
        }
    }
}

/// Elements of a value of type `t`, when its shape is known and the count
/// fits in a `u64`.
pub fn elements(t: &Type) -> Option<u64> {
    count_elements(t, 0)
}

/// Elements of `t`, each extent of at least `floor`.
fn count_elements(t: &Type, floor: u64) -> Option<u64> {
    match t {
        Type::TensorType(t) => t.shape.iter().try_fold(1u64, |n, d| match d {
            Dim::Known(k) => n.checked_mul(u64::try_from(*k).ok()?.max(floor)),
            _ => None,
        }),
        Type::TupleType(t) => t
            .fields
            .iter()
            .try_fold(0u64, |n, f| n.checked_add(count_elements(f, floor)?)),
        _ => None,
    }
}

/// [`elements`], with each extent of 0 counted as 1: what a kernel's loops
/// and broadcasts over a value of type `t` may span, even when it holds
/// nothing.
pub fn extent_span(t: &Type) -> Option<u64> {
    count_elements(t, 1)
}

/// The type of a value.
pub fn value_type(v: &OpValue) -> Type {
    match v {
        OpValue::Tensor(t) => t.ty(),
        OpValue::Tuple(items) => Type::tuple(items.iter().map(value_type).collect()),
    }
}

macro_rules! elementwise {
    ($name:literal, $kind:expr) => {
        OpDef {
            name: $name,
            arity: 2,
            infer: |args, _| infer_broadcast(args, $kind),
            eval: |args, _| eval_binary(args, $kind),
        }
    };
}

/// An elementwise operator of one operand: its type from `$infer` on the
/// operand's, its kernel `unary` of `$kind`.
macro_rules! unary {
    ($name:literal, $infer:ident, $kind:expr) => {
        OpDef {
            name: $name,
            arity: 1,
            infer: |args, _| $infer(&args[0]),
            eval: |args, _| unary(&args[0], $kind),
        }
    };
}

/// Applies `$body`, a rearrangement of the elements of array `$a` that works
/// for any element type (a reshape, a transpose, a slice), to the tensor's
/// own elements: they never pass through `f64`, so int64 stays exact.
macro_rules! rearranged {
    ($t:expr, |$a:ident| $body:expr) => {{
        fn checked<T>(r: Result<T, String>) -> Result<T, String> {
            r
        }
        let out = || -> Result<Tensor, String> {
            Ok(match $t {
                Tensor::Bool($a) => Tensor::Bool(checked($body)?),
                Tensor::I16($a) => Tensor::I16(checked($body)?),
                Tensor::I32($a) => Tensor::I32(checked($body)?),
                Tensor::I64($a) => Tensor::I64(checked($body)?),
                Tensor::F16($a) => Tensor::F16(checked($body)?),
                Tensor::F32($a) => Tensor::F32(checked($body)?),
                Tensor::F64($a) => Tensor::F64(checked($body)?),
            })
        };
        out().map(OpValue::Tensor)
    }};
}

static OPS: &[OpDef] = &[
    elementwise!("add", Bin::Add),
    elementwise!("subtract", Bin::Sub),
    elementwise!("multiply", Bin::Mul),
    elementwise!("divide", Bin::Div),
    elementwise!("maximum", Bin::Max),
    elementwise!("minimum", Bin::Min),
    elementwise!("equal", Bin::Eq),
    elementwise!("not_equal", Bin::Ne),
    elementwise!("less", Bin::Lt),
    elementwise!("less_equal", Bin::Le),
    elementwise!("greater", Bin::Gt),
    elementwise!("greater_equal", Bin::Ge),
    unary!("negative", same_tensor, Unary::Neg),
    unary!("nn.relu", same_tensor, Unary::Relu),
    unary!("abs", same_tensor, Unary::Abs),
    unary!("exp", float_tensor, Unary::Exp),
    unary!("log", float_tensor, Unary::Log),
    unary!("sqrt", float_tensor, Unary::Sqrt),
    unary!("tanh", float_tensor, Unary::Tanh),
    unary!("sigmoid", float_tensor, Unary::Sigmoid),
    OpDef {
        name: "clip",
        arity: 1,
        infer: |args, attrs| {
            clip_bounds(attrs)?;
            same_tensor(&args[0])
        },
        eval: |args, attrs| {
            let (low, high) = clip_bounds(attrs)?;
            // TVM's order: the upper bound first, then the lower; integers
            // against the bounds cast to their type, never through f64.
            macro_rules! ints {
                ($a:expr, $variant:ident, $t:ty) => {
                    Tensor::$variant($a.mapv(|v| v.min(high as $t).max(low as $t)))
                };
            }
            Ok(OpValue::Tensor(match as_tensor(&args[0])? {
                Tensor::I16(a) => ints!(a, I16, i16),
                Tensor::I32(a) => ints!(a, I32, i32),
                Tensor::I64(a) => ints!(a, I64, i64),
                t => return map_array(t, |a| Ok(a.mapv(|v| v.min(high).max(low)))),
            }))
        },
    },
    OpDef {
        name: "split",
        arity: 1,
        infer: infer_split,
        eval: eval_split,
    },
    OpDef {
        name: "where",
        arity: 3,
        infer: infer_where,
        eval: eval_where,
    },
    OpDef {
        name: "concatenate",
        arity: 1,
        infer: infer_concatenate,
        eval: eval_concatenate,
    },
    OpDef {
        name: "reshape",
        arity: 1,
        infer: |args, attrs| {
            let (shape, dtype) = tensor_type(&args[0])?;
            let new = reshape_dims(&shape, attrs)?;
            Ok(Type::tensor(new, dtype))
        },
        eval: |args, attrs| {
            let t = as_tensor(&args[0])?;
            let dims: Vec<Dim> = t.shape().iter().map(|&d| Dim::Known(d as i64)).collect();
            let new = known(&reshape_dims(&dims, attrs)?)?;
            rearranged!(t, |a| {
                a.to_shape(IxDyn(&new))
                    .map(|v| v.to_owned())
                    .map_err(|e| e.to_string())
            })
        },
    },
    OpDef {
        name: "expand_dims",
        arity: 1,
        infer: |args, attrs| {
            let (shape, dtype) = tensor_type(&args[0])?;
            Ok(Type::tensor(expand_dims(&shape, attrs)?, dtype))
        },
        eval: |args, attrs| {
            let t = as_tensor(&args[0])?;
            let dims: Vec<Dim> = t.shape().iter().map(|&d| Dim::Known(d as i64)).collect();
            let new = known(&expand_dims(&dims, attrs)?)?;
            rearranged!(t, |a| {
                a.to_shape(IxDyn(&new))
                    .map(|v| v.to_owned())
                    .map_err(|e| e.to_string())
            })
        },
    },
    OpDef {
        name: "squeeze",
        arity: 1,
        infer: |args, attrs| {
            let (shape, dtype) = tensor_type(&args[0])?;
            Ok(Type::tensor(squeeze(&shape, attrs)?, dtype))
        },
        eval: |args, attrs| {
            let t = as_tensor(&args[0])?;
            let dims: Vec<Dim> = t.shape().iter().map(|&d| Dim::Known(d as i64)).collect();
            let new = known(&squeeze(&dims, attrs)?)?;
            rearranged!(t, |a| {
                a.to_shape(IxDyn(&new))
                    .map(|v| v.to_owned())
                    .map_err(|e| e.to_string())
            })
        },
    },
    OpDef {
        name: "transpose",
        arity: 1,
        infer: |args, attrs| {
            let (shape, dtype) = tensor_type(&args[0])?;
            let axes = transpose_axes(shape.len(), attrs)?;
            Ok(Type::tensor(
                axes.iter().map(|&a| shape[a]).collect(),
                dtype,
            ))
        },
        eval: |args, attrs| {
            let t = as_tensor(&args[0])?;
            let axes = transpose_axes(t.shape().len(), attrs)?;
            rearranged!(t, |a| {
                Ok(a.clone()
                    .permuted_axes(IxDyn(&axes))
                    .as_standard_layout()
                    .into_owned())
            })
        },
    },
    OpDef {
        name: "cast",
        arity: 1,
        infer: |args, attrs| {
            let (shape, _) = tensor_type(&args[0])?;
            Ok(Type::tensor(shape, cast_dtype(attrs)?))
        },
        eval: eval_cast,
    },
    OpDef {
        name: "sum",
        arity: 1,
        infer: |args, attrs| infer_reduce(&args[0], attrs),
        eval: |args, attrs| eval_reduce(&args[0], attrs, false),
    },
    OpDef {
        name: "mean",
        arity: 1,
        infer: |args, attrs| infer_reduce(&args[0], attrs),
        eval: |args, attrs| eval_reduce(&args[0], attrs, true),
    },
    OpDef {
        name: "shape_of",
        arity: 1,
        infer: |args, attrs| {
            let (shape, _) = tensor_type(&args[0])?;
            Ok(Type::tensor(
                vec![Dim::Known(shape.len() as i64)],
                dtype_attr(attrs, DType::I32)?,
            ))
        },
        eval: |args, attrs| shape_only_value("shape_of", &value_type(&args[0]), attrs),
    },
    OpDef {
        name: "ndarray_size",
        arity: 1,
        infer: |args, attrs| {
            tensor_type(&args[0])?;
            Ok(Type::scalar(dtype_attr(attrs, DType::I32)?))
        },
        eval: |args, attrs| shape_only_value("ndarray_size", &value_type(&args[0]), attrs),
    },
    OpDef {
        name: "zeros",
        arity: 0,
        infer: |_, attrs| filled_type(attrs),
        eval: |_, attrs| filled(attrs, 0.0),
    },
    OpDef {
        name: "ones",
        arity: 0,
        infer: |_, attrs| filled_type(attrs),
        eval: |_, attrs| filled(attrs, 1.0),
    },
];

/// The type `zeros` and `ones` make: `shape` (non-negative extents, rank at
/// most [`MAX_RANK`]) and `dtype` (float32 by default).
fn filled_type(attrs: &Attrs) -> Result<Type, String> {
    let shape = int_list(attrs, "shape")?.ok_or("needs a `shape` attribute")?;
    if shape.len() > MAX_RANK {
        return Err(format!(
            "rank {} is above the largest rank {MAX_RANK}",
            shape.len()
        ));
    }
    if let Some(d) = shape.iter().find(|d| **d < 0) {
        return Err(format!("negative extent {d} in `shape`"));
    }
    let dtype = dtype_attr(attrs, DType::F32)?;
    Ok(Type::tensor(
        shape.into_iter().map(Dim::Known).collect(),
        dtype,
    ))
}

fn filled(attrs: &Attrs, value: f64) -> Result<OpValue, String> {
    let t = filled_type(attrs)?;
    let (dims, dtype) = tensor_type(&t)?;
    let shape = known(&dims)?;
    let count = elements(&t).ok_or("the shape's element count overflows")?;
    if count > MAX_WORK {
        return Err(format!("{count} elements is more than the kernel makes"));
    }
    Tensor::from_f64s(dtype, &shape, &vec![value; count as usize]).map(OpValue::Tensor)
}

/// A `dtype` attribute, `default` when absent.
fn dtype_attr(attrs: &Attrs, default: DType) -> Result<DType, String> {
    match attrs.get("dtype") {
        None => Ok(default),
        Some(AttrValue::Str(s)) => s.parse(),
        Some(_) => Err("attribute `dtype` must be a string".into()),
    }
}

/// Operators whose calls must run, and run each time: folding leaves them
/// alone (TVM's `TOpIsStateful`).
pub const STATEFUL: [&str; 1] = ["nn.dropout"];

/// Operators whose result depends only on their argument's type, not its
/// value: folded whenever that type is static (TVM folds `shape_of` and
/// `ndarray_size` so).
pub const SHAPE_ONLY: [&str; 2] = ["shape_of", "ndarray_size"];

/// The value of a [`SHAPE_ONLY`] operator on an argument of type `t`,
/// computed from the type alone (no tensor of the argument's size is made).
pub fn shape_only_value(name: &str, t: &Type, attrs: &Attrs) -> Result<OpValue, String> {
    let (shape, _) = tensor_type(t)?;
    let dims = known(&shape)?;
    let dtype = dtype_attr(attrs, DType::I32)?;
    let (shape, values): (&[usize], Vec<i64>) = match name {
        "shape_of" => (&[dims.len()], dims.iter().map(|&d| d as i64).collect()),
        "ndarray_size" => {
            let count = dims
                .iter()
                .try_fold(1i64, |n, &d| n.checked_mul(d as i64))
                .ok_or("the element count overflows")?;
            (&[], vec![count])
        }
        other => return Err(format!("`{other}` reads more than its argument's shape")),
    };
    // Integers exactly, as the dtype holds them; floats rounded once.
    if dtype.is_float() {
        let values: Vec<f64> = values.iter().map(|&v| v as f64).collect();
        Tensor::from_f64s(dtype, shape, &values)
    } else {
        Tensor::from_i64s(shape, values).and_then(|t| t.wrapped_to(dtype))
    }
    .map(OpValue::Tensor)
}

/// `cast`'s `dtype`.
fn cast_dtype(attrs: &Attrs) -> Result<DType, String> {
    match attrs.get("dtype") {
        Some(AttrValue::Str(s)) => s.parse(),
        _ => Err("cast needs a `dtype` attribute".into()),
    }
}

/// Converts element by element, as C does: floats to integers truncate
/// (saturating at the type's range, NaN to 0), anything to bool is `!= 0`.
fn eval_cast(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let t = as_tensor(&args[0])?;
    let dtype = cast_dtype(attrs)?;
    // Integers to integers keep the low bits, as C's conversions do, and
    // integers to floats round once: neither passes through f64 (which
    // rounds int64 past 2^53, and then again to float32).
    macro_rules! ints_to {
        ($variant:ident, $t:ty) => {
            match t {
                Tensor::I16(a) => Some(Tensor::$variant(a.mapv(|v| v as $t))),
                Tensor::I32(a) => Some(Tensor::$variant(a.mapv(|v| v as $t))),
                Tensor::I64(a) => Some(Tensor::$variant(a.mapv(|v| v as $t))),
                _ => None,
            }
        };
    }
    let exact = match dtype {
        DType::I16 => ints_to!(I16, i16),
        DType::I32 => ints_to!(I32, i32),
        DType::I64 => ints_to!(I64, i64),
        // Rounded once, to the nearest float, as C converts.
        DType::F32 => ints_to!(F32, f32),
        DType::F64 => ints_to!(F64, f64),
        _ => None,
    };
    if let Some(out) = exact {
        return Ok(OpValue::Tensor(out));
    }
    if dtype == DType::I64 {
        // Floats truncate and saturate (NaN to 0), straight into i64: the
        // top of the range is not an f64.
        let values: Vec<i64> = t.to_f64s().into_iter().map(|v| v as i64).collect();
        return Tensor::from_i64s(t.shape(), values).map(OpValue::Tensor);
    }
    let values: Vec<f64> = t
        .to_f64s()
        .into_iter()
        .map(|v| match dtype {
            DType::I16 => (v.trunc() as i16).into(),
            DType::I32 => (v.trunc() as i32).into(),
            _ => v,
        })
        .collect();
    Tensor::from_f64s(dtype, t.shape(), &values).map(OpValue::Tensor)
}

/// `clip`'s `a_min` and `a_max`, integers or floats.
fn clip_bounds(attrs: &Attrs) -> Result<(f64, f64), String> {
    let bound = |key: &str| match attrs.get(key) {
        Some(AttrValue::Float(v)) => Ok(*v),
        Some(AttrValue::Int(v)) => Ok(*v as f64),
        _ => Err(format!("clip needs a number `{key}`")),
    };
    Ok((bound("a_min")?, bound("a_max")?))
}

/// The most parts `split` makes. Each is a field of the result's tuple
/// type: an attribute of a few bytes must not make a type of any size.
pub const MAX_SPLIT_PARTS: i64 = 1 << 10;

/// Where `split` cuts axis `axis` of extent `extent`: `indices_or_sections`
/// is a count of equal parts, or the ascending indices to cut at. The parts'
/// extents, `None` where unknown.
fn split_extents(extent: Dim, attrs: &Attrs) -> Result<Vec<Option<i64>>, String> {
    let known = match extent {
        Dim::Known(n) => Some(n),
        Dim::Any => None,
    };
    match attrs.get("indices_or_sections") {
        Some(AttrValue::Int(sections)) => {
            if !(1..=MAX_SPLIT_PARTS).contains(sections) {
                return Err(format!(
                    "split makes 1 to {MAX_SPLIT_PARTS} sections, asked for {sections}"
                ));
            }
            if let Some(n) = known
                && n % sections != 0
            {
                return Err(format!("{sections} sections do not divide extent {n}"));
            }
            Ok(vec![known.map(|n| n / sections); *sections as usize])
        }
        Some(AttrValue::List(_)) => {
            let indices = int_list(attrs, "indices_or_sections")?.unwrap_or_default();
            if indices.len() as i64 >= MAX_SPLIT_PARTS {
                return Err(format!("split makes at most {MAX_SPLIT_PARTS} parts"));
            }
            let mut begin = 0;
            let mut out = Vec::with_capacity(indices.len() + 1);
            for &i in &indices {
                if i <= begin {
                    return Err("split's indices must ascend from above 0".into());
                }
                out.push(Some(i - begin));
                begin = i;
            }
            match known {
                Some(n) if begin >= n && !indices.is_empty() => {
                    return Err(format!("split index {begin} is past extent {n}"));
                }
                Some(n) => out.push(Some(n - begin)),
                None => out.push(None),
            }
            Ok(out)
        }
        _ => Err("split needs `indices_or_sections`: a count or a list of indices".into()),
    }
}

fn infer_split(args: &[Type], attrs: &Attrs) -> Result<Type, String> {
    let (shape, dtype) = tensor_type(&args[0])?;
    let axis = normalize_axis(axis_attr(attrs, 0)?, shape.len())?;
    // Parts of one extent share one type node.
    let mut last: Option<(Option<i64>, Type)> = None;
    let parts = split_extents(shape[axis], attrs)?
        .into_iter()
        .map(|extent| match &last {
            Some((e, t)) if *e == extent => t.clone(),
            _ => {
                let mut s = shape.clone();
                s[axis] = extent.map_or(Dim::Any, Dim::Known);
                let t = Type::tensor(s, dtype);
                last = Some((extent, t.clone()));
                t
            }
        })
        .collect();
    Ok(Type::tuple(parts))
}

fn eval_split(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let t = as_tensor(&args[0])?;
    let axis = normalize_axis(axis_attr(attrs, 0)?, t.shape().len())?;
    let extents = split_extents(Dim::Known(t.shape()[axis] as i64), attrs)?;
    let mut begin = 0usize;
    let mut parts = Vec::with_capacity(extents.len());
    for extent in extents {
        let end = begin + extent.unwrap_or(0) as usize;
        parts.push(rearranged!(t, |a| {
            Ok(a.slice_axis(Axis(axis), ndarray::Slice::from(begin..end))
                .to_owned())
        })?);
        begin = end;
    }
    Ok(OpValue::Tuple(parts))
}

/// `nn.bias_add`: `add` of the bias shaped to broadcast along `axis`, so
/// that integers add as `add` does, wrapping, and never pass through f64.
fn eval_bias_add(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let (x, bias) = (as_tensor(&args[0])?, as_tensor(&args[1])?);
    let shape = x.shape();
    let axis = normalize_axis(axis_attr(attrs, 1)?, shape.len())?;
    if shape.is_empty() || bias.element_count() != shape[axis] || x.dtype() != bias.dtype() {
        return Err("the bias does not match the axis".into());
    }
    let mut along = vec![1; shape.len()];
    along[axis] = shape[axis];
    let OpValue::Tensor(bias) = rearranged!(bias, |a| {
        a.to_shape(IxDyn(&along))
            .map(|v| v.to_owned())
            .map_err(|e| e.to_string())
    })?
    else {
        return Err("the bias must be a tensor".into());
    };
    binary(x, &bias, Bin::Add)
}

/// `nn.batch_flatten`: a reshape to the batch axis and the rest, on the
/// tensor's own elements.
fn eval_batch_flatten(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let t = as_tensor(&args[0])?;
    let out_type = nn::infer_batch_flatten(&[value_type(&args[0])], attrs)?;
    let shape = known(&tensor_type(&out_type)?.0)?;
    rearranged!(t, |a| {
        a.to_shape(IxDyn(&shape))
            .map(|v| v.to_owned())
            .map_err(|e| e.to_string())
    })
}

/// `transpose`'s `axes`: a permutation of the dimensions (reversed when
/// absent), negative axes counted from the end.
fn transpose_axes(rank: usize, attrs: &Attrs) -> Result<Vec<usize>, String> {
    let Some(axes) = int_list(attrs, "axes")? else {
        return Ok((0..rank).rev().collect());
    };
    if axes.len() != rank {
        return Err(format!("{} axes for rank {rank}", axes.len()));
    }
    let axes: Vec<usize> = axes
        .iter()
        .map(|&a| normalize_axis(a, rank))
        .collect::<Result<_, _>>()?;
    let mut seen = vec![false; rank];
    for &a in &axes {
        if std::mem::replace(&mut seen[a], true) {
            return Err(format!("axis {a} appears twice"));
        }
    }
    Ok(axes)
}

/// The dimensions a reduction (`sum`, `mean`) folds: `axis` (all when
/// absent), or all but those with `exclude=True`.
fn reduce_axes(rank: usize, attrs: &Attrs) -> Result<Vec<bool>, String> {
    let exclude = matches!(attrs.get("exclude"), Some(AttrValue::Bool(true)));
    let Some(axes) = int_list(attrs, "axis")? else {
        return Ok(vec![!exclude; rank]);
    };
    let mut folded = vec![exclude; rank];
    for a in axes {
        folded[normalize_axis(a, rank)?] = !exclude;
    }
    Ok(folded)
}

fn keepdims(attrs: &Attrs) -> bool {
    matches!(attrs.get("keepdims"), Some(AttrValue::Bool(true)))
}

fn infer_reduce(t: &Type, attrs: &Attrs) -> Result<Type, String> {
    let (shape, dtype) = tensor_type(t)?;
    let folded = reduce_axes(shape.len(), attrs)?;
    let keep = keepdims(attrs);
    let out = shape
        .iter()
        .zip(&folded)
        .filter_map(|(d, &f)| match (f, keep) {
            (false, _) => Some(*d),
            (true, true) => Some(Dim::Known(1)),
            (true, false) => None,
        })
        .collect();
    Ok(Type::tensor(out, dtype))
}

/// `sum` and `mean` in one pass over the input: each element adds into
/// the output element its kept coordinates name. Integers sum in i64,
/// wrapping as the machine does, and a mean divides with truncation;
/// floats sum in f64, and the mean of nothing is NaN (0 / 0).
fn eval_reduce(v: &OpValue, attrs: &Attrs, mean: bool) -> Result<OpValue, String> {
    let t = as_tensor(v)?;
    let shape = t.shape();
    let folded = reduce_axes(shape.len(), attrs)?;
    let out_shape: Vec<usize> = shape
        .iter()
        .zip(&folded)
        .filter_map(|(&d, &f)| match (f, keepdims(attrs)) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    let count: usize = shape
        .iter()
        .zip(&folded)
        .filter(|(_, f)| **f)
        .map(|(d, _)| *d)
        .product();
    // The output offset of each input axis's step: 0 for a folded axis.
    let mut strides = vec![0usize; shape.len()];
    let mut step = 1;
    for i in (0..shape.len()).rev() {
        if !folded[i] {
            strides[i] = step;
            step *= shape[i];
        }
    }
    let out_len: usize = out_shape.iter().product();
    // Visits input elements in order with the output offset of each.
    let each = |f: &mut dyn FnMut(usize, usize)| {
        let mut index = vec![0usize; shape.len()];
        let mut offset = 0usize;
        for i in 0..t.element_count() {
            f(i, offset);
            for axis in (0..shape.len()).rev() {
                index[axis] += 1;
                offset += strides[axis];
                if index[axis] < shape[axis] {
                    break;
                }
                offset -= strides[axis] * shape[axis];
                index[axis] = 0;
            }
        }
    };
    if t.dtype().is_float() || t.dtype() == DType::BOOL {
        let xs = t.to_f64s();
        let mut sums = vec![0.0; out_len];
        each(&mut |i, o| sums[o] += xs[i]);
        if mean {
            sums.iter_mut().for_each(|s| *s /= count as f64);
        }
        return Tensor::from_f64s(t.dtype(), &out_shape, &sums).map(OpValue::Tensor);
    }
    let xs = t
        .to_i64s()
        .ok_or_else(|| format!("no sum kernel for {}", t.dtype()))?;
    let mut sums = vec![0i64; out_len];
    each(&mut |i, o| sums[o] = sums[o].wrapping_add(xs[i]));
    let sums = Tensor::from_i64s(&out_shape, sums)?.wrapped_to(t.dtype())?;
    if !mean {
        return Ok(OpValue::Tensor(sums));
    }
    // As TVM: the sum in the data's type, divided by the count in that
    // type, truncating.
    macro_rules! divide {
        ($a:expr, $variant:ident, $t:ty) => {{
            let count = count as $t;
            if count == 0 {
                return Err("the mean divides by a count of 0 in its type".into());
            }
            Tensor::$variant($a.mapv(|s| s.wrapping_div(count)))
        }};
    }
    Ok(OpValue::Tensor(match sums {
        Tensor::I16(a) => divide!(a, I16, i16),
        Tensor::I32(a) => divide!(a, I32, i32),
        Tensor::I64(a) => divide!(a, I64, i64),
        other => other,
    }))
}

// ---- types ----

pub(super) fn tensor_type(t: &Type) -> Result<(Vec<Dim>, DType), String> {
    match t {
        Type::TensorType(t) => Ok((t.shape.clone(), t.dtype)),
        _ => Err(format!(
            "expected a tensor, found {}",
            super::printer::print_type_brief(t)
        )),
    }
}

fn same_tensor(t: &Type) -> Result<Type, String> {
    tensor_type(t).map(|(s, d)| Type::tensor(s, d))
}

/// The type of a float-only elementwise operator (`exp`, `log`, `sqrt`).
pub(super) fn float_tensor(t: &Type) -> Result<Type, String> {
    let (s, d) = tensor_type(t)?;
    if !d.is_float() {
        return Err(format!("expected a float tensor, found {d}"));
    }
    Ok(Type::tensor(s, d))
}

fn broadcast_dims(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, String> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let x = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            Dim::Known(1)
        };
        let y = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            Dim::Known(1)
        };
        out.push(match (x, y) {
            (Dim::Known(1), d) | (d, Dim::Known(1)) => d,
            (Dim::Known(p), Dim::Known(q)) if p == q => Dim::Known(p),
            (Dim::Known(p), Dim::Known(q)) => {
                return Err(format!(
                    "shapes do not broadcast: dimension {p} against {q}"
                ));
            }
            (Dim::Any, d) | (d, Dim::Any) => {
                let _ = d;
                Dim::Any
            }
        });
    }
    Ok(out)
}

fn infer_broadcast(args: &[Type], kind: Bin) -> Result<Type, String> {
    let (sa, da) = tensor_type(&args[0])?;
    let (sb, db) = tensor_type(&args[1])?;
    if da != db {
        return Err(format!("operand types differ: {da} and {db}"));
    }
    let dtype = if kind.is_comparison() {
        DType::BOOL
    } else {
        da
    };
    Ok(Type::tensor(broadcast_dims(&sa, &sb)?, dtype))
}

fn infer_where(args: &[Type], _: &Attrs) -> Result<Type, String> {
    let (sc, dc) = tensor_type(&args[0])?;
    let (sx, dx) = tensor_type(&args[1])?;
    let (sy, dy) = tensor_type(&args[2])?;
    if dc != DType::BOOL {
        return Err(format!("the condition of where must be bool, found {dc}"));
    }
    if dx != dy {
        return Err(format!("where branches differ: {dx} and {dy}"));
    }
    Ok(Type::tensor(
        broadcast_dims(&broadcast_dims(&sc, &sx)?, &sy)?,
        dx,
    ))
}

pub(super) fn axis_attr(attrs: &Attrs, default: i64) -> Result<i64, String> {
    match attrs.get("axis") {
        None => Ok(default),
        Some(v) => v
            .as_int()
            .ok_or_else(|| "attribute `axis` must be an integer".into()),
    }
}

pub(super) fn normalize_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    let a = if axis < 0 { axis + r } else { axis };
    // A scalar has no axis to name.
    if a < 0 || a >= r {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(a as usize)
}

fn infer_concatenate(args: &[Type], attrs: &Attrs) -> Result<Type, String> {
    let Type::TupleType(t) = &args[0] else {
        return Err("concatenate takes a tuple of tensors".into());
    };
    let fields: Vec<(Vec<Dim>, DType)> =
        t.fields.iter().map(tensor_type).collect::<Result<_, _>>()?;
    let Some((first, dtype)) = fields.first().cloned() else {
        return Err("concatenate needs at least one tensor".into());
    };
    let axis = normalize_axis(axis_attr(attrs, 0)?, first.len())?;
    let mut out = first.clone();
    for (shape, d) in &fields[1..] {
        if *d != dtype || shape.len() != first.len() {
            return Err("concatenate needs tensors of one dtype and rank".into());
        }
        for (i, (a, b)) in out.iter_mut().zip(shape).enumerate() {
            match (*a, *b) {
                _ if i == axis => {}
                (Dim::Known(x), Dim::Known(y)) if x != y => {
                    return Err(format!(
                        "concatenate: axis {i} has extent {x} in one tensor and {y} in another"
                    ));
                }
                (Dim::Any, known) => *a = known,
                _ => {}
            }
        }
        out[axis] = match (out[axis], shape[axis]) {
            (Dim::Known(a), Dim::Known(b)) => Dim::Known(
                a.checked_add(b)
                    .ok_or("the joined axis is longer than 2^63")?,
            ),
            _ => Dim::Any,
        };
    }
    Ok(Type::tensor(out, dtype))
}

pub(super) fn int_list(attrs: &Attrs, key: &str) -> Result<Option<Vec<i64>>, String> {
    match attrs.get(key) {
        None | Some(AttrValue::Null) => Ok(None),
        Some(AttrValue::List(items)) => items
            .iter()
            .map(|v| {
                v.as_int()
                    .ok_or_else(|| format!("attribute `{key}` must be a list of integers"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(AttrValue::Int(v)) => Ok(Some(vec![*v])),
        Some(_) => Err(format!("attribute `{key}` must be a list of integers")),
    }
}

/// The element count of a shape, if every dimension is known; an error if
/// it overflows (the dimensions come from the input text).
fn element_count<'a>(dims: impl Iterator<Item = &'a Dim>) -> Result<Option<i64>, String> {
    let mut count = Some(1i64);
    for d in dims {
        match (d, count) {
            (Dim::Known(n), Some(c)) => {
                count = Some(
                    c.checked_mul(*n)
                        .ok_or("the shape has more elements than 2^63")?,
                );
            }
            _ => count = None,
        }
    }
    Ok(count)
}

/// `newshape` with TVM's `0` (copy) and `-1` (infer) codes.
fn reshape_dims(shape: &[Dim], attrs: &Attrs) -> Result<Vec<Dim>, String> {
    let new = int_list(attrs, "newshape")?.ok_or("reshape needs `newshape`")?;
    let mut out = Vec::with_capacity(new.len());
    let mut infer_at = None;
    for (i, &d) in new.iter().enumerate() {
        out.push(match d {
            0 => *shape
                .get(i)
                .ok_or("newshape copies a dimension that does not exist")?,
            -1 if infer_at.is_none() => {
                infer_at = Some(i);
                Dim::Any
            }
            d if d > 0 => Dim::Known(d),
            d => return Err(format!("invalid newshape entry {d}")),
        });
    }
    let total = element_count(shape.iter())?;
    let known_out = element_count(
        out.iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != infer_at)
            .map(|(_, d)| d),
    )?;
    match (infer_at, total, known_out) {
        (Some(i), Some(t), Some(k)) if k > 0 && t % k == 0 => out[i] = Dim::Known(t / k),
        (Some(_), Some(_), Some(_)) => {
            return Err("newshape does not divide the element count".into());
        }
        (None, Some(t), Some(k)) if t != k => {
            return Err(format!("cannot reshape {t} elements into {k}"));
        }
        _ => {}
    }
    Ok(out)
}

fn expand_dims(shape: &[Dim], attrs: &Attrs) -> Result<Vec<Dim>, String> {
    let axis = attrs
        .get("axis")
        .and_then(AttrValue::as_int)
        .ok_or("expand_dims needs an integer `axis`")?;
    let num = match attrs.get("num_newaxis") {
        None => 1,
        Some(v) => v
            .as_int()
            .filter(|n| *n >= 0)
            .ok_or("`num_newaxis` must be a non-negative integer")?,
    };
    let rank = shape.len() as i64;
    let at = if axis < 0 { axis + rank + 1 } else { axis };
    if at < 0 || at > rank {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    if num > MAX_RANK as i64 - rank {
        return Err(format!(
            "`num_newaxis` = {num} would give rank {}, above the largest rank {MAX_RANK}",
            rank.saturating_add(num)
        ));
    }
    let at = at as usize;
    let mut out = Vec::with_capacity(shape.len() + num as usize);
    out.extend_from_slice(&shape[..at]);
    out.extend(std::iter::repeat_n(Dim::Known(1), num as usize));
    out.extend_from_slice(&shape[at..]);
    Ok(out)
}

fn squeeze(shape: &[Dim], attrs: &Attrs) -> Result<Vec<Dim>, String> {
    match int_list(attrs, "axis")? {
        None => Ok(shape
            .iter()
            .copied()
            .filter(|d| *d != Dim::Known(1))
            .collect()),
        Some(axes) => {
            let axes: Vec<usize> = axes
                .iter()
                .map(|&a| normalize_axis(a, shape.len()))
                .collect::<Result<_, _>>()?;
            for &a in &axes {
                if shape[a] != Dim::Known(1) && shape[a] != Dim::Any {
                    return Err(format!("cannot squeeze axis {a} of extent {}", shape[a]));
                }
            }
            Ok(shape
                .iter()
                .enumerate()
                .filter(|(i, _)| !axes.contains(i))
                .map(|(_, d)| *d)
                .collect())
        }
    }
}

pub(super) fn known(dims: &[Dim]) -> Result<Vec<usize>, String> {
    dims.iter()
        .map(|d| match d {
            Dim::Known(n) if *n >= 0 => Ok(*n as usize),
            _ => Err("shape is not known".to_string()),
        })
        .collect()
}

// ---- kernels ----

/// Binary elementwise operators.
#[derive(Debug, Clone, Copy)]
pub enum Bin {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// max
    Max,
    /// min
    Min,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Bin {
    fn is_comparison(self) -> bool {
        matches!(
            self,
            Bin::Eq | Bin::Ne | Bin::Lt | Bin::Le | Bin::Gt | Bin::Ge
        )
    }
}

pub(super) fn as_tensor(v: &OpValue) -> Result<&Tensor, String> {
    match v {
        OpValue::Tensor(t) => Ok(t),
        OpValue::Tuple(_) => Err("expected a tensor, found a tuple".into()),
    }
}

fn zip_map<T: Copy, U>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    f: impl Fn(T, T) -> U,
) -> Result<ArrayD<U>, String> {
    let da: Vec<Dim> = a.shape().iter().map(|&d| Dim::Known(d as i64)).collect();
    let db: Vec<Dim> = b.shape().iter().map(|&d| Dim::Known(d as i64)).collect();
    let shape = known(&broadcast_dims(&da, &db)?)?;
    let (Some(av), Some(bv)) = (a.broadcast(IxDyn(&shape)), b.broadcast(IxDyn(&shape))) else {
        return Err("shapes do not broadcast".into());
    };
    Ok(Zip::from(&av).and(&bv).map_collect(|&x, &y| f(x, y)))
}

fn compare<T: PartialOrd + Copy>(
    a: &ArrayD<T>,
    b: &ArrayD<T>,
    kind: Bin,
) -> Result<Tensor, String> {
    Ok(Tensor::Bool(zip_map(a, b, |x, y| match kind {
        Bin::Eq => x == y,
        Bin::Ne => x != y,
        Bin::Lt => x < y,
        Bin::Le => x <= y,
        Bin::Gt => x > y,
        _ => x >= y,
    })?))
}

macro_rules! int_arith {
    ($a:expr, $b:expr, $kind:expr, $variant:ident) => {{
        if matches!($kind, Bin::Div) && $b.iter().any(|&y| y == 0) {
            return Err("integer division by zero".into());
        }
        Tensor::$variant(zip_map($a, $b, |x, y| match $kind {
            Bin::Add => x.wrapping_add(y),
            Bin::Sub => x.wrapping_sub(y),
            Bin::Mul => x.wrapping_mul(y),
            Bin::Div => x.wrapping_div(y),
            Bin::Max => x.max(y),
            _ => x.min(y),
        })?)
    }};
}

macro_rules! float_arith {
    ($a:expr, $b:expr, $kind:expr, $variant:ident) => {{
        Tensor::$variant(zip_map($a, $b, |x, y| match $kind {
            Bin::Add => x + y,
            Bin::Sub => x - y,
            Bin::Mul => x * y,
            Bin::Div => x / y,
            Bin::Max => x.max(y),
            _ => x.min(y),
        })?)
    }};
}

fn eval_binary(args: &[OpValue], kind: Bin) -> Result<OpValue, String> {
    binary(as_tensor(&args[0])?, as_tensor(&args[1])?, kind)
}

/// An elementwise operator on two tensors, broadcast.
fn binary(a: &Tensor, b: &Tensor, kind: Bin) -> Result<OpValue, String> {
    let out = match (a, b) {
        (Tensor::I16(a), Tensor::I16(b)) if kind.is_comparison() => compare(a, b, kind)?,
        (Tensor::I32(a), Tensor::I32(b)) if kind.is_comparison() => compare(a, b, kind)?,
        (Tensor::I64(a), Tensor::I64(b)) if kind.is_comparison() => compare(a, b, kind)?,
        (Tensor::F16(a), Tensor::F16(b)) if kind.is_comparison() => compare(a, b, kind)?,
        (Tensor::F32(a), Tensor::F32(b)) if kind.is_comparison() => compare(a, b, kind)?,
        (Tensor::F64(a), Tensor::F64(b)) if kind.is_comparison() => compare(a, b, kind)?,
        (Tensor::Bool(a), Tensor::Bool(b)) if kind.is_comparison() => compare(a, b, kind)?,
        (Tensor::I16(a), Tensor::I16(b)) => int_arith!(a, b, kind, I16),
        (Tensor::I32(a), Tensor::I32(b)) => int_arith!(a, b, kind, I32),
        (Tensor::I64(a), Tensor::I64(b)) => int_arith!(a, b, kind, I64),
        (Tensor::F16(a), Tensor::F16(b)) => float_arith!(a, b, kind, F16),
        (Tensor::F32(a), Tensor::F32(b)) => float_arith!(a, b, kind, F32),
        (Tensor::F64(a), Tensor::F64(b)) => float_arith!(a, b, kind, F64),
        (a, b) => {
            return Err(format!(
                "no {kind:?} kernel for {} and {}",
                a.dtype(),
                b.dtype()
            ));
        }
    };
    Ok(OpValue::Tensor(out))
}

#[derive(Clone, Copy)]
enum Unary {
    Neg,
    Relu,
    Abs,
    Exp,
    Log,
    Sqrt,
    Tanh,
    Sigmoid,
}

fn unary(v: &OpValue, kind: Unary) -> Result<OpValue, String> {
    let t = as_tensor(v)?;
    // Integers: negation, relu and abs (wrapping, as the machine does).
    macro_rules! int {
        ($a:expr, $variant:ident) => {
            Tensor::$variant($a.mapv(|x| match kind {
                Unary::Neg => x.wrapping_neg(),
                Unary::Relu => x.max(0),
                Unary::Abs => x.wrapping_abs(),
                Unary::Exp | Unary::Log | Unary::Sqrt | Unary::Tanh | Unary::Sigmoid => x,
            }))
        };
    }
    macro_rules! float {
        ($a:expr, $variant:ident) => {
            Tensor::$variant($a.mapv(|x| match kind {
                Unary::Neg => -x,
                Unary::Relu => {
                    if x > 0.0 {
                        x
                    } else {
                        0.0
                    }
                }
                Unary::Abs => x.abs(),
                Unary::Exp => x.exp(),
                Unary::Log => x.ln(),
                Unary::Sqrt => x.sqrt(),
                Unary::Tanh => x.tanh(),
                Unary::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            }))
        };
    }
    let float_only = matches!(
        kind,
        Unary::Exp | Unary::Log | Unary::Sqrt | Unary::Tanh | Unary::Sigmoid
    );
    Ok(OpValue::Tensor(match t {
        Tensor::I16(_) | Tensor::I32(_) | Tensor::I64(_) if float_only => {
            return Err("this operator takes a float tensor".into());
        }
        Tensor::I16(a) => int!(a, I16),
        Tensor::I32(a) => int!(a, I32),
        Tensor::I64(a) => int!(a, I64),
        // float16 has no exp, log or sqrt of its own: compute in f32, round once.
        Tensor::F16(a) => match unary(&OpValue::Tensor(Tensor::F32(a.mapv(f16::to_f32))), kind)? {
            OpValue::Tensor(Tensor::F32(r)) => Tensor::F16(r.mapv(f16::from_f32)),
            _ => return Err("float16 kernel: expected a float32 result".into()),
        },
        Tensor::F32(a) => float!(a, F32),
        Tensor::F64(a) => float!(a, F64),
        Tensor::Bool(_) => return Err("no kernel for bool".into()),
    }))
}

fn map_array(
    t: &Tensor,
    f: impl Fn(&ArrayD<f64>) -> Result<ArrayD<f64>, String>,
) -> Result<OpValue, String> {
    // Float kernels compute in f64; integer ones have their own paths
    // (a float one given integers rounds int64 past 2^53).
    // Operators that only move elements use `rearranged!`, exact for all.
    let shape = t.shape().to_vec();
    let wide = ArrayD::from_shape_vec(IxDyn(&shape), t.to_f64s()).map_err(|e| e.to_string())?;
    let out = f(&wide)?;
    let shape = out.shape().to_vec();
    let values: Vec<f64> = out.iter().copied().collect();
    Tensor::from_f64s(t.dtype(), &shape, &values).map(OpValue::Tensor)
}

fn eval_where(args: &[OpValue], _: &Attrs) -> Result<OpValue, String> {
    let Tensor::Bool(c) = as_tensor(&args[0])? else {
        return Err("the condition of where must be bool".into());
    };
    let (x, y) = (as_tensor(&args[1])?, as_tensor(&args[2])?);
    // Each dtype selects its own elements: int64 stays exact.
    macro_rules! each_dtype {
        ($($v:ident),*) => {
            match (x, y) {
                $((Tensor::$v(x), Tensor::$v(y)) => Tensor::$v(select(c, x, y)?),)*
                _ => return Err("where branches differ in dtype".into()),
            }
        };
    }
    Ok(OpValue::Tensor(each_dtype!(
        Bool, I16, I32, I64, F16, F32, F64
    )))
}

/// `c ? x : y` elementwise, the three broadcast together.
fn select<T: Clone>(c: &ArrayD<bool>, x: &ArrayD<T>, y: &ArrayD<T>) -> Result<ArrayD<T>, String> {
    let dims = |s: &[usize]| -> Vec<Dim> { s.iter().map(|&d| Dim::Known(d as i64)).collect() };
    let shape = known(&broadcast_dims(
        &broadcast_dims(&dims(c.shape()), &dims(x.shape()))?,
        &dims(y.shape()),
    )?)?;
    let shape = IxDyn(&shape);
    let (Some(cv), Some(xv), Some(yv)) = (
        c.broadcast(shape.clone()),
        x.broadcast(shape.clone()),
        y.broadcast(shape),
    ) else {
        return Err("shapes do not broadcast".into());
    };
    Ok(Zip::from(&cv)
        .and(&xv)
        .and(&yv)
        .map_collect(|&c, x, y| if c { x.clone() } else { y.clone() }))
}

fn eval_concatenate(args: &[OpValue], attrs: &Attrs) -> Result<OpValue, String> {
    let OpValue::Tuple(items) = &args[0] else {
        return Err("concatenate takes a tuple".into());
    };
    let tensors: Vec<&Tensor> = items.iter().map(as_tensor).collect::<Result<_, _>>()?;
    let Some(first) = tensors.first() else {
        return Err("concatenate needs at least one tensor".into());
    };
    let axis = normalize_axis(axis_attr(attrs, 0)?, first.shape().len())?;
    // Each dtype joins its own elements: int64 stays exact.
    macro_rules! each_dtype {
        ($($v:ident),*) => {
            match first {
                $(Tensor::$v(_) => {
                    let views = tensors
                        .iter()
                        .map(|t| match t {
                            Tensor::$v(a) => Ok(a.view()),
                            _ => Err("concatenate needs tensors of one dtype".to_string()),
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Tensor::$v(
                        ndarray::concatenate(Axis(axis), &views).map_err(|e| e.to_string())?,
                    )
                })*
            }
        };
    }
    Ok(OpValue::Tensor(each_dtype!(
        Bool, I16, I32, I64, F16, F32, F64
    )))
}
