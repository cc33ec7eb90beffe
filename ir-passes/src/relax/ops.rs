//! The operator registry: each operator's struct-info inference (static and
//! symbolic shapes, numpy broadcasting). TVMScript spells them `R.<name>`.

use std::sync::OnceLock;

use ir_core::Node;
use rustc_hash::FxHashMap;

use super::arith::{can_prove_equal, const_value, simplify};
use super::dtype::DataType;
use super::expr::{AttrValue, Attrs, Expr, Op};
use super::prim::{BinOp, PrimExpr};
use super::sinfo::{ShapeStructInfo, StructInfo, TensorStructInfo};

/// How an operator derives its result from its arguments' struct info,
/// borrowed: a call's operands are not copied to be looked at.
type Infer = fn(&[&StructInfo], &[(String, AttrValue)]) -> Result<StructInfo, String>;

/// A registered operator.
pub struct OpDef {
    /// The name, without `R.`: `add`, `nn.relu`.
    pub name: &'static str,
    /// How many arguments it takes (at least, when `variadic`).
    pub arity: usize,
    /// Whether it takes any number of further arguments (`R.print`).
    pub variadic: bool,
    /// Its inference.
    pub infer: Infer,
    /// Whether it is free of side effects (all but `invoke_closure`).
    pub pure: bool,
    /// Whether it allocates: pure, yet two calls are two objects, which
    /// common-subexpression elimination must not merge (TVM's `TAllocator`).
    pub allocator: bool,
    /// The argument that is the result's element type (an `R.dtype`),
    /// handed to inference as the `dtype` attribute: struct info does not
    /// carry it.
    pub dtype_arg: Option<usize>,
}

const fn op(name: &'static str, arity: usize, infer: Infer) -> OpDef {
    OpDef {
        name,
        arity,
        infer,
        pure: true,
        variadic: false,
        allocator: false,
        dtype_arg: None,
    }
}

/// An allocation: pure, of `arity` arguments, its element type (if any)
/// the argument at `dtype_arg`.
const fn allocation(
    name: &'static str,
    arity: usize,
    infer: Infer,
    dtype_arg: Option<usize>,
) -> OpDef {
    OpDef {
        allocator: true,
        dtype_arg,
        ..op(name, arity, infer)
    }
}

static OPS: &[OpDef] = &[
    op("add", 2, broadcast),
    op("subtract", 2, broadcast),
    op("multiply", 2, broadcast),
    op("divide", 2, broadcast),
    op("maximum", 2, broadcast),
    op("minimum", 2, broadcast),
    op("negative", 1, unary),
    op("exp", 1, unary),
    op("nn.relu", 1, unary),
    op("matmul", 2, matmul),
    op("reshape", 2, reshape),
    op("permute_dims", 1, permute_dims),
    op("concat", 1, concat),
    op("sum", 1, sum),
    op("shape_of", 1, shape_of),
    op("astype", 1, astype),
    op("nn.conv2d", 2, conv2d),
    // Closures, as lambda-lift makes them: `R.make_closure(cls.f, (captured,))`
    // is an opaque object, and invoking one yields its `ty_args`.
    op("make_closure", 2, opaque_object),
    op("invoke_pure_closure", 2, opaque_object),
    OpDef {
        name: "invoke_closure",
        arity: 2,
        infer: opaque_object,
        pure: false,
        variadic: false,
        allocator: false,
        dtype_arg: None,
    },
    // Calls of packed functions by name, as TVM lays them out: the function
    // is the first argument, an `R.ExternFunc` TVMScript writes as a string.
    // `R.call_pure_packed(f, args..., ty_args=(S,))` is pure and yields its
    // `ty_args`; `R.call_dps_packed(f, (args,), out_ty=S)` writes its
    // results into outputs of `out_ty` the call allocates. (`R.call_packed`,
    // which may have effects, is not an operator: it is a call whose callee
    // is the `R.ExternFunc` itself.)
    OpDef {
        name: "call_pure_packed",
        arity: 1,
        infer: opaque_object,
        pure: true,
        variadic: true,
        allocator: false,
        dtype_arg: None,
    },
    op("call_dps_packed", 2, opaque_object),
    // Tensors made from nothing but their shape: `R.arange(start, end,
    // step, dtype=...)`, `R.ones(shape, dtype=...)`, `R.zeros(...)`.
    op("arange", 3, arange),
    op("ones", 1, filled),
    op("zeros", 1, filled),
    // Memory, as TVM's VM lowering writes it: `R.vm.alloc_storage(shape,
    // device, R.dtype(d), R.str(scope))` is an opaque storage object,
    // `R.vm.alloc_tensor(storage, offset, shape, R.dtype(d), device)` and
    // `R.builtin.alloc_tensor(shape, R.dtype(d), device, R.str(scope))`
    // tensors of that shape and type; `R.vm.kill_object(x)` frees one.
    allocation("vm.alloc_storage", 4, opaque_object, None),
    allocation("vm.alloc_tensor", 5, vm_alloc_tensor, Some(3)),
    allocation("builtin.alloc_tensor", 4, builtin_alloc_tensor, Some(1)),
    OpDef {
        name: "vm.kill_object",
        arity: 1,
        infer: nothing,
        pure: false,
        variadic: false,
        allocator: false,
        dtype_arg: None,
    },
    // Effects, as TVM lays them out: `R.print(values..., format=s)` is
    // `print(s, values...)`, `R.assert_op(cond, values..., format=s)` is
    // `assert_op(cond, s, values...)`. Both yield nothing (an empty tuple),
    // and a binding of their result prints as a bare statement.
    OpDef {
        name: "print",
        arity: 1,
        infer: print,
        pure: false,
        variadic: true,
        allocator: false,
        dtype_arg: None,
    },
    OpDef {
        name: "assert_op",
        arity: 2,
        infer: assert_op,
        pure: false,
        variadic: true,
        allocator: false,
        dtype_arg: None,
    },
];

/// The index of the format string among an effect operator's arguments
/// (`R.print`'s and `R.assert_op`'s), which TVMScript writes as `format=`.
pub(crate) fn format_index(name: &str) -> Option<usize> {
    match name {
        "print" => Some(0),
        "assert_op" => Some(1),
        _ => None,
    }
}

/// `R.print`: its format string, then anything.
fn print(args: &[&StructInfo], _: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    format_string(args[0], "print")?;
    Ok(StructInfo::tuple(Vec::new()))
}

/// `R.assert_op`: a boolean scalar, its format string, then anything.
fn assert_op(args: &[&StructInfo], _: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let boolean = match args[0] {
        StructInfo::TensorStructInfo(t) => {
            t.dtype == DataType::Bool && (t.ndim == 0 || t.ndim == -1)
        }
        StructInfo::PrimStructInfo(p) => p.dtype == DataType::Bool,
        _ => false,
    };
    if !boolean {
        return Err("R.assert_op's condition must be a boolean scalar".into());
    }
    format_string(args[1], "assert_op")?;
    Ok(StructInfo::tuple(Vec::new()))
}

fn format_string(s: &StructInfo, op: &str) -> Result<(), String> {
    match s {
        StructInfo::ObjectStructInfo(_) => Ok(()),
        _ => Err(format!("R.{op}'s format must be a string (R.str)")),
    }
}

/// An opaque object: a closure, or the result of a call (of a closure, of
/// a packed function) whose result the call does not give (its `ty_args`,
/// which take precedence, are read by the caller).
fn opaque_object(_: &[&StructInfo], _: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    Ok(StructInfo::object())
}

/// Whether the operator's first argument is a packed function's name (an
/// `R.ExternFunc`, written as a bare string).
pub(crate) fn takes_packed_function(name: &str) -> bool {
    matches!(name, "call_pure_packed" | "call_dps_packed")
}

/// `R.arange(start, end, step)`: `ceil((end - start) / step)` elements, of
/// the `dtype` attribute.
fn arange(args: &[&StructInfo], attrs: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let value = |i: usize, what: &str| match args[i] {
        StructInfo::PrimStructInfo(p) => p.value.clone().ok_or_else(|| {
            format!("R.arange's {what} must be a known integer (R.prim_value of one)")
        }),
        _ => Err(format!("R.arange's {what} must be a scalar (R.prim_value)")),
    };
    let (start, end, step) = (value(0, "start")?, value(1, "end")?, value(2, "step")?);
    let len = match (const_value(&start), const_value(&end), const_value(&step)) {
        (_, _, Some(0)) => return Err("R.arange's step must not be zero".into()),
        (Some(a), Some(b), Some(c)) => {
            // ceil((b - a) / c), at least 0, exactly (i128: no bound overflows).
            let (span, c) = (i128::from(b) - i128::from(a), i128::from(c));
            let len = if span != 0 && (span > 0) == (c > 0) {
                (span + c - c.signum()) / c
            } else {
                0
            };
            PrimExpr::int(i64::try_from(len).map_err(|_| "R.arange: too many elements")?)
        }
        // A known negative step counts down: (start - end - step - 1) // -step.
        (_, _, Some(c)) if c < 0 => simplify(&PrimExpr::binary(
            BinOp::FloorDiv,
            PrimExpr::binary(
                BinOp::Add,
                PrimExpr::binary(BinOp::Sub, start, end),
                PrimExpr::int(-c - 1),
            ),
            PrimExpr::int(-c),
        )),
        // (end - start + step - 1) // step, which is end - start for a step
        // of 1 (TVM's form; a range that is empty is not told apart).
        _ => simplify(&PrimExpr::binary(
            BinOp::FloorDiv,
            PrimExpr::binary(
                BinOp::Add,
                PrimExpr::binary(BinOp::Sub, end, start),
                PrimExpr::binary(BinOp::Sub, step.clone(), PrimExpr::int(1)),
            ),
            step,
        )),
    };
    Ok(StructInfo::tensor(
        vec![len],
        dtype_attr(attrs, "R.arange")?,
    ))
}

/// `R.ones(shape)`, `R.zeros(shape)`: a tensor of that shape, of the
/// `dtype` attribute.
fn filled(args: &[&StructInfo], attrs: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    tensor_of_shape(args[0], attrs)
}

/// `R.vm.alloc_tensor(storage, offset, shape, dtype, device)`.
fn vm_alloc_tensor(
    args: &[&StructInfo],
    attrs: &[(String, AttrValue)],
) -> Result<StructInfo, String> {
    tensor_of_shape(args[2], attrs)
}

/// `R.builtin.alloc_tensor(shape, dtype, device, scope)`.
fn builtin_alloc_tensor(
    args: &[&StructInfo],
    attrs: &[(String, AttrValue)],
) -> Result<StructInfo, String> {
    tensor_of_shape(args[0], attrs)
}

/// What an effect without a result yields: the empty tuple.
fn nothing(_: &[&StructInfo], _: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    Ok(StructInfo::tuple(Vec::new()))
}

/// A tensor of shape `shape` (a shape's struct info) and of the `dtype`
/// attribute.
fn tensor_of_shape(
    shape: &StructInfo,
    attrs: &[(String, AttrValue)],
) -> Result<StructInfo, String> {
    let dtype = dtype_attr(attrs, "the allocation")?;
    match shape {
        StructInfo::ShapeStructInfo(s) => Ok(match &s.values {
            Some(values) => StructInfo::tensor(values.clone(), dtype),
            None => StructInfo::tensor_ndim(s.ndim, dtype),
        }),
        _ => Err("the shape must be a shape (R.shape)".into()),
    }
}

fn dtype_attr(attrs: &[(String, AttrValue)], what: &str) -> Result<DataType, String> {
    match attr(attrs, "dtype") {
        Some(AttrValue::Str(s)) => s.parse(),
        _ => Err(format!("{what} needs a dtype")),
    }
}

/// The operator named `name` (without `R.`).
pub fn lookup(name: &str) -> Option<&'static OpDef> {
    index_of(name).map(|i| &OPS[i])
}

/// What is made once per registered operator: its shared node and its
/// attributes at their defaults.
struct Registered {
    node: Node<Op>,
    defaults: Attrs,
}

/// The registry's index by name and what is made once per operator. A
/// hashed index: a linear scan of the names cost more than inferring an
/// `R.add`.
fn registered() -> &'static (FxHashMap<&'static str, usize>, Vec<Registered>) {
    static TABLE: OnceLock<(FxHashMap<&'static str, usize>, Vec<Registered>)> = OnceLock::new();
    TABLE.get_or_init(|| {
        let index = OPS.iter().enumerate().map(|(i, d)| (d.name, i)).collect();
        let made = OPS
            .iter()
            .enumerate()
            .map(|(i, d)| Registered {
                node: Node::new(Op::with_index(d.name, Some(i as u32))),
                defaults: canonical_attrs(d.name, Vec::new()).expect("no attributes given"),
            })
            .collect();
        (index, made)
    })
}

/// Registry entry `index` (of an [`Op`]).
pub(crate) fn def_at(index: u32) -> &'static OpDef {
    &OPS[index as usize]
}

/// Where the operator named `name` is registered.
fn index_of(name: &str) -> Option<usize> {
    registered().0.get(name).copied()
}

/// Every registered name.
pub fn op_names() -> impl Iterator<Item = &'static str> {
    OPS.iter().map(|o| o.name)
}

/// The operator `R.<name>` as an expression. A registered operator is one
/// node shared by every call of it, as TVM's `Op::Get` hands out the
/// registry's: a call allocates no operator and no name.
pub fn op_expr(name: &str) -> Expr {
    match made_for(name) {
        Some(made) => Expr::Op(made.node.clone()),
        None => Op::with_index(name, None).into(),
    }
}

/// [`op_expr`], with the operator's attributes at their defaults (none for
/// an unregistered name).
pub(crate) fn op_with_defaults(name: &str) -> (Expr, Attrs) {
    match made_for(name) {
        Some(made) => (Expr::Op(made.node.clone()), made.defaults.clone()),
        None => (Op::with_index(name, None).into(), Vec::new()),
    }
}

/// What was made once for the operator `name`, if it is registered.
fn made_for(name: &str) -> Option<&'static Registered> {
    index_of(name).map(|i| &registered().1[i])
}

/// The struct info of `name(args)` with `attrs`.
pub fn infer_call(
    name: &str,
    args: &[&StructInfo],
    attrs: &[(String, AttrValue)],
) -> Result<StructInfo, String> {
    let def = lookup(name).ok_or_else(|| format!("unknown operator R.{name}"))?;
    infer_with(def, args, attrs)
}

/// [`infer_call`] of a registry entry.
pub(crate) fn infer_with(
    def: &OpDef,
    args: &[&StructInfo],
    attrs: &[(String, AttrValue)],
) -> Result<StructInfo, String> {
    let name = def.name;
    if args.len() < def.arity {
        return Err(format!(
            "R.{name} takes at least {} argument{}, got {}",
            def.arity,
            if def.arity == 1 { "" } else { "s" },
            args.len()
        ));
    }
    if args.len() != def.arity && !def.variadic {
        return Err(format!(
            "R.{name} takes {} argument{}, got {}",
            def.arity,
            if def.arity == 1 { "" } else { "s" },
            args.len()
        ));
    }
    (def.infer)(args, attrs)
}

fn tensor<'a>(s: &'a StructInfo, what: &str) -> Result<&'a TensorStructInfo, String> {
    s.as_tensor_struct_info()
        .map(|n| &**n)
        .ok_or_else(|| format!("{what} must be a tensor"))
}

pub(super) fn attr<'a>(attrs: &'a [(String, AttrValue)], key: &str) -> Option<&'a AttrValue> {
    attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// An axis list attribute: `axis=1`, `axis=[0, 2]`, `axis=None`.
pub(super) fn axes_attr(attrs: &[(String, AttrValue)], key: &str) -> Option<Vec<i64>> {
    match attr(attrs, key)? {
        AttrValue::Int(i) => Some(vec![*i]),
        AttrValue::Ints(v) => Some(v.clone()),
        _ => None,
    }
}

pub(super) fn normalize_axis(axis: i64, ndim: i64) -> Result<usize, String> {
    let a = if axis < 0 { axis + ndim } else { axis };
    if a < 0 || a >= ndim {
        Err(format!("axis {axis} is out of range for rank {ndim}"))
    } else {
        Ok(a as usize)
    }
}

fn join_dtype(a: DataType, b: DataType) -> Result<DataType, String> {
    match (a, b) {
        (DataType::Void, _) | (_, DataType::Void) => Ok(DataType::Void),
        (a, b) if a == b => Ok(a),
        (a, b) => Err(format!("data types {a} and {b} do not match")),
    }
}

/// One broadcast dimension, or `None` when it cannot be decided statically.
/// It is always one of the two operands' own dimensions.
fn broadcast_dim<'a>(a: &'a PrimExpr, b: &'a PrimExpr) -> Result<Option<&'a PrimExpr>, String> {
    match (const_value(a), const_value(b)) {
        (Some(1), _) => Ok(Some(b)),
        (_, Some(1)) => Ok(Some(a)),
        (Some(x), Some(y)) if x != y => Err(format!("shapes do not broadcast: {x} and {y}")),
        _ if can_prove_equal(a, b) => Ok(Some(a)),
        _ => Ok(None),
    }
}

/// Dimension `i` of two shapes broadcast together (aligned from the
/// right), or `None` when it cannot be decided statically.
fn broadcast_at<'a>(
    sa: &'a [PrimExpr],
    sb: &'a [PrimExpr],
    i: usize,
) -> Result<Option<&'a PrimExpr>, String> {
    let n = sa.len().max(sb.len());
    let da = (i + sa.len()).checked_sub(n).map(|j| &sa[j]);
    let db = (i + sb.len()).checked_sub(n).map(|j| &sb[j]);
    match (da, db) {
        (Some(x), Some(y)) => broadcast_dim(x, y),
        (Some(x), None) | (None, Some(x)) => Ok(Some(x)),
        (None, None) => unreachable!("i < n"),
    }
}

fn broadcast(args: &[&StructInfo], _: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let (a, b) = (
        tensor(args[0], "the first operand")?,
        tensor(args[1], "the second operand")?,
    );
    let dtype = join_dtype(a.dtype, b.dtype)?;
    let ndim = if a.ndim < 0 || b.ndim < 0 {
        -1
    } else {
        a.ndim.max(b.ndim)
    };
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        return Ok(StructInfo::tensor_ndim(ndim, dtype));
    };
    let n = sa.len().max(sb.len());
    let dim = |i| broadcast_at(sa, sb, i);
    // The result is often an operand's own struct info (`x + 1`, `x * x`):
    // shared, it is neither allocated again nor printed again. Only a
    // result that mixes both operands' dimensions is built.
    let (mut like_a, mut like_b) = (sa.len() == n, sb.len() == n);
    for i in 0..n {
        let Some(d) = dim(i)? else {
            return Ok(StructInfo::tensor_ndim(ndim, dtype));
        };
        like_a = like_a && sa[i].same_as(d);
        like_b = like_b && sb[i].same_as(d);
    }
    if like_a && a.dtype == dtype {
        return Ok(args[0].clone());
    }
    if like_b && b.dtype == dtype {
        return Ok(args[1].clone());
    }
    let out = (0..n)
        .map(|i| Ok(dim(i)?.expect("decided above").clone()))
        .collect::<Result<Vec<_>, String>>()?;
    Ok(StructInfo::tensor(out, dtype))
}

fn unary(args: &[&StructInfo], _: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    tensor(args[0], "the operand")?;
    Ok(args[0].clone())
}

fn matmul(args: &[&StructInfo], attrs: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let (a, b) = (
        tensor(args[0], "the first operand")?,
        tensor(args[1], "the second operand")?,
    );
    let dtype = match attr(attrs, "out_dtype") {
        Some(AttrValue::Str(s)) => s.parse()?,
        _ => join_dtype(a.dtype, b.dtype)?,
    };
    if a.ndim == 0 || b.ndim == 0 {
        return Err("matmul operands must have rank 1 or more".into());
    }
    let (Some(sa), Some(sb)) = (&a.shape, &b.shape) else {
        let ndim = if a.ndim < 0 || b.ndim < 0 {
            -1
        } else {
            let batch = (a.ndim - 2).max(b.ndim - 2).max(0);
            batch + i64::from(a.ndim > 1) + i64::from(b.ndim > 1)
        };
        return Ok(StructInfo::tensor_ndim(ndim, dtype));
    };
    // 1-D operands are a row (left) or a column (right) that disappears.
    let (ka, kb) = (
        &sa[sa.len() - 1],
        &sb[if sb.len() == 1 { 0 } else { sb.len() - 2 }],
    );
    if let (Some(x), Some(y)) = (const_value(ka), const_value(kb))
        && x != y
    {
        return Err(format!("matmul reduction lengths differ: {x} and {y}"));
    }
    let batch_a = &sa[..sa.len().saturating_sub(2)];
    let batch_b = &sb[..sb.len().saturating_sub(2)];
    let n = batch_a.len().max(batch_b.len());
    let mut out = Vec::new();
    for i in 0..n {
        match broadcast_at(batch_a, batch_b, i)? {
            Some(d) => out.push(d.clone()),
            None => return Ok(StructInfo::tensor_ndim(n as i64 + 2, dtype)),
        }
    }
    if sa.len() > 1 {
        out.push(sa[sa.len() - 2].clone());
    }
    if sb.len() > 1 {
        out.push(sb[sb.len() - 1].clone());
    }
    Ok(StructInfo::tensor(out, dtype))
}

fn product(dims: &[PrimExpr]) -> PrimExpr {
    let mut it = dims.iter().cloned();
    match it.next() {
        None => PrimExpr::int(1),
        Some(first) => simplify(&it.fold(first, |acc, d| PrimExpr::binary(BinOp::Mul, acc, d))),
    }
}

fn reshape(args: &[&StructInfo], _: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let x = tensor(args[0], "the data")?;
    let target = args[1]
        .as_shape_struct_info()
        .ok_or("the new shape must be a shape")?;
    let Some(values) = &target.values else {
        return Ok(StructInfo::tensor_ndim(target.ndim, x.dtype));
    };
    let holes: Vec<usize> = (0..values.len())
        .filter(|&i| const_value(&values[i]) == Some(-1))
        .collect();
    if holes.len() > 1 {
        return Err("reshape takes at most one -1".into());
    }
    let mut out = values.clone();
    match (&x.shape, holes.first()) {
        (Some(shape), Some(&hole)) => {
            let known: Vec<PrimExpr> = (0..values.len())
                .filter(|&i| i != hole)
                .map(|i| values[i].clone())
                .collect();
            let (total, rest) = (product(shape), product(&known));
            out[hole] = simplify(&PrimExpr::binary(BinOp::FloorDiv, total, rest));
        }
        (Some(shape), None) => {
            let (a, b) = (product(shape), product(values));
            if let (Some(x), Some(y)) = (const_value(&a), const_value(&b))
                && x != y
            {
                return Err(format!("reshape changes the element count from {x} to {y}"));
            }
        }
        (None, Some(_)) => return Ok(StructInfo::tensor_ndim(values.len() as i64, x.dtype)),
        (None, None) => {}
    }
    Ok(StructInfo::tensor(out, x.dtype))
}

fn permute_dims(args: &[&StructInfo], attrs: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let x = tensor(args[0], "the data")?;
    if x.ndim < 0 {
        return Ok(args[0].clone());
    }
    let axes: Vec<usize> = match axes_attr(attrs, "axes") {
        Some(axes) => {
            if axes.len() as i64 != x.ndim {
                return Err(format!(
                    "permute_dims needs {} axes, got {}",
                    x.ndim,
                    axes.len()
                ));
            }
            let axes = axes
                .iter()
                .map(|&a| normalize_axis(a, x.ndim))
                .collect::<Result<Vec<_>, _>>()?;
            let mut seen = vec![false; axes.len()];
            for &a in &axes {
                if std::mem::replace(&mut seen[a], true) {
                    return Err(format!("axis {a} repeats in permute_dims"));
                }
            }
            axes
        }
        None => (0..x.ndim as usize).rev().collect(),
    };
    Ok(match &x.shape {
        Some(shape) => {
            StructInfo::tensor(axes.iter().map(|&a| shape[a].clone()).collect(), x.dtype)
        }
        None => args[0].clone(),
    })
}

fn concat(args: &[&StructInfo], attrs: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let fields = &args[0]
        .as_tuple_struct_info()
        .ok_or("concat takes a tuple of tensors")?
        .fields;
    if fields.is_empty() {
        return Err("concat needs at least one tensor".into());
    }
    let tensors = fields
        .iter()
        .map(|f| tensor(f, "each concat operand"))
        .collect::<Result<Vec<_>, _>>()?;
    let mut dtype = tensors[0].dtype;
    for t in &tensors[1..] {
        dtype = join_dtype(dtype, t.dtype)?;
    }
    let ndim = tensors
        .iter()
        .map(|t| t.ndim)
        .find(|&n| n >= 0)
        .unwrap_or(-1);
    if tensors.iter().any(|t| t.ndim >= 0 && t.ndim != ndim) {
        return Err("concat operands differ in rank".into());
    }
    if ndim < 0 {
        return Ok(StructInfo::tensor_ndim(-1, dtype));
    }
    let axis = normalize_axis(
        axes_attr(attrs, "axis")
            .and_then(|a| a.first().copied())
            .unwrap_or(0),
        ndim,
    )?;
    let shapes: Option<Vec<&Vec<PrimExpr>>> = tensors.iter().map(|t| t.shape.as_ref()).collect();
    let Some(shapes) = shapes else {
        return Ok(StructInfo::tensor_ndim(ndim, dtype));
    };
    let mut out = shapes[0].clone();
    for s in &shapes[1..] {
        for (i, d) in s.iter().enumerate() {
            if i == axis {
                out[i] = PrimExpr::binary(BinOp::Add, out[i].clone(), d.clone());
            } else if let (Some(x), Some(y)) = (const_value(&out[i]), const_value(d))
                && x != y
            {
                return Err(format!(
                    "concat operands differ in dimension {i}: {x} and {y}"
                ));
            }
        }
    }
    out[axis] = simplify(&out[axis]);
    Ok(StructInfo::tensor(out, dtype))
}

fn sum(args: &[&StructInfo], attrs: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let x = tensor(args[0], "the data")?;
    let keepdims = matches!(attr(attrs, "keepdims"), Some(AttrValue::Bool(true)));
    let axes = axes_attr(attrs, "axis");
    if x.ndim < 0 {
        return Ok(StructInfo::tensor_ndim(-1, x.dtype));
    }
    let reduced: Vec<usize> = match axes {
        Some(axes) => axes
            .iter()
            .map(|&a| normalize_axis(a, x.ndim))
            .collect::<Result<_, _>>()?,
        None => (0..x.ndim as usize).collect(),
    };
    let Some(shape) = &x.shape else {
        let ndim = if keepdims {
            x.ndim
        } else {
            x.ndim - reduced.len() as i64
        };
        return Ok(StructInfo::tensor_ndim(ndim, x.dtype));
    };
    let out = shape
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match (reduced.contains(&i), keepdims) {
            (false, _) => Some(d.clone()),
            (true, true) => Some(PrimExpr::int(1)),
            (true, false) => None,
        })
        .collect();
    Ok(StructInfo::tensor(out, x.dtype))
}

fn shape_of(args: &[&StructInfo], _: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let x = tensor(args[0], "the data")?;
    Ok(ShapeStructInfo {
        values: x.shape.clone(),
        ndim: x.ndim,
    }
    .into())
}

fn astype(args: &[&StructInfo], attrs: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let x = tensor(args[0], "the data")?;
    let dtype = match attr(attrs, "dtype") {
        Some(AttrValue::Str(s)) => s.parse()?,
        _ => return Err("astype needs a dtype".into()),
    };
    Ok(match &x.shape {
        Some(shape) => StructInfo::tensor(shape.clone(), dtype),
        None => StructInfo::tensor_ndim(x.ndim, dtype),
    })
}

fn ints_attr(attrs: &[(String, AttrValue)], key: &str, len: usize) -> Result<Vec<i64>, String> {
    match attr(attrs, key) {
        Some(AttrValue::Ints(v)) if v.len() == len => Ok(v.clone()),
        _ => Err(format!("conv2d's {key} needs {len} integers")),
    }
}

fn layout_attr(
    attrs: &[(String, AttrValue)],
    key: &str,
    letters: &str,
) -> Result<Vec<usize>, String> {
    let Some(AttrValue::Str(layout)) = attr(attrs, key) else {
        return Err(format!("conv2d needs a {key}"));
    };
    let pos: Option<Vec<usize>> = letters.chars().map(|c| layout.find(c)).collect();
    match pos {
        Some(p) if layout.len() == 4 => Ok(p),
        _ => Err(format!(
            "conv2d's {key} `{layout}` is not a permutation of {letters}"
        )),
    }
}

/// 2-D convolution in any of the layouts of `N`, `C`, `H`, `W` (data and
/// result) and `O`, `I`, `H`, `W` (kernel).
fn conv2d(args: &[&StructInfo], attrs: &[(String, AttrValue)]) -> Result<StructInfo, String> {
    let (x, w) = (tensor(args[0], "the data")?, tensor(args[1], "the kernel")?);
    let dtype = match attr(attrs, "out_dtype") {
        Some(AttrValue::Str(s)) => s.parse()?,
        _ => join_dtype(x.dtype, w.dtype)?,
    };
    let (strides, padding, dilation) = (
        ints_attr(attrs, "strides", 2)?,
        ints_attr(attrs, "padding", 4)?,
        ints_attr(attrs, "dilation", 2)?,
    );
    let [dn, dc, dh, dw] = layout_attr(attrs, "data_layout", "NCHW")?[..] else {
        unreachable!("four letters")
    };
    let [ko, ki, kh, kw] = layout_attr(attrs, "kernel_layout", "OIHW")?[..] else {
        unreachable!("four letters")
    };
    let out = layout_attr(attrs, "out_layout", "NCHW")?;
    let (Some(xs), Some(ws)) = (&x.shape, &w.shape) else {
        return Ok(StructInfo::tensor_ndim(4, dtype));
    };
    if xs.len() != 4 || ws.len() != 4 {
        return Err("conv2d needs rank-4 data and kernel".into());
    }
    let _ = (dc, ki);
    let spatial = |size: &PrimExpr, k: &PrimExpr, axis: usize| -> PrimExpr {
        // (size + pad_lo + pad_hi - dilation * (k - 1) - 1) // stride + 1
        let pad = padding[axis].saturating_add(padding[axis + 2]);
        let reach = PrimExpr::binary(
            BinOp::Mul,
            PrimExpr::int(dilation[axis]),
            PrimExpr::binary(BinOp::Sub, k.clone(), PrimExpr::int(1)),
        );
        let span = PrimExpr::binary(
            BinOp::Sub,
            PrimExpr::binary(BinOp::Add, size.clone(), PrimExpr::int(pad)),
            PrimExpr::binary(BinOp::Add, reach, PrimExpr::int(1)),
        );
        simplify(&PrimExpr::binary(
            BinOp::Add,
            PrimExpr::binary(BinOp::FloorDiv, span, PrimExpr::int(strides[axis])),
            PrimExpr::int(1),
        ))
    };
    let n = xs[dn].clone();
    let c = ws[ko].clone();
    let h = spatial(&xs[dh], &ws[kh], 0);
    let wd = spatial(&xs[dw], &ws[kw], 1);
    let mut shape = vec![PrimExpr::int(0); 4];
    for (letter, value) in [(0, n), (1, c), (2, h), (3, wd)] {
        shape[out[letter]] = value;
    }
    Ok(StructInfo::tensor(shape, dtype))
}

/// Whether [`legalize_call`] may rewrite a call of `name` (so that other
/// calls skip deriving their arguments' struct info for it).
pub fn has_legalizer(name: &str) -> bool {
    name == "reshape"
}

/// Rewrites a call as TVM builds it: `R.reshape`'s `-1` is resolved from
/// the data's shape. `None` when the call stays as it is.
pub fn legalize_call(name: &str, args: &[Expr], arg_sinfo: &[StructInfo]) -> Option<Vec<Expr>> {
    if !has_legalizer(name) || args.len() != 2 {
        return None;
    }
    let Expr::ShapeExpr(target) = &args[1] else {
        return None;
    };
    let hole = target
        .values
        .iter()
        .position(|v| const_value(v) == Some(-1))?;
    let arg_sinfo: Vec<&StructInfo> = arg_sinfo.iter().collect();
    let resolved = reshape(&arg_sinfo, &Vec::new()).ok()?;
    let shape = resolved.tensor_parts()?.shape.as_ref()?;
    if const_value(&shape[hole]) == Some(-1) {
        return None;
    }
    let mut values = target.values.clone();
    values[hole] = shape[hole].clone();
    Some(vec![args[0].clone(), Expr::shape(values)])
}

/// The attributes of `name` with defaults filled in, in the order TVM
/// prints them; `given` overrides them. An attribute the operator does not
/// take is an error. `sum`'s axis is always a list.
pub fn canonical_attrs(name: &str, given: Attrs) -> Result<Attrs, String> {
    let mut attrs: Attrs = match name {
        "matmul" => vec![("out_dtype".into(), AttrValue::Null)],
        "permute_dims" => vec![("axes".into(), AttrValue::Null)],
        "concat" => vec![("axis".into(), AttrValue::Int(0))],
        "astype" => vec![("dtype".into(), AttrValue::Str("float32".into()))],
        // TVM's default for integer bounds.
        "arange" => vec![("dtype".into(), AttrValue::Str("int64".into()))],
        "ones" | "zeros" => vec![("dtype".into(), AttrValue::Str("float32".into()))],
        "nn.conv2d" => vec![
            ("strides".into(), AttrValue::Ints(vec![1, 1])),
            ("padding".into(), AttrValue::Ints(vec![0, 0, 0, 0])),
            ("dilation".into(), AttrValue::Ints(vec![1, 1])),
            ("groups".into(), AttrValue::Int(1)),
            ("data_layout".into(), AttrValue::Str("NCHW".into())),
            ("kernel_layout".into(), AttrValue::Str("OIHW".into())),
            ("out_layout".into(), AttrValue::Str("NCHW".into())),
            ("out_dtype".into(), AttrValue::Null),
        ],
        "sum" => vec![
            ("axis".into(), AttrValue::Null),
            ("keepdims".into(), AttrValue::Bool(false)),
        ],
        _ => Vec::new(),
    };
    for (key, value) in given {
        let Some(slot) = attrs.iter_mut().find(|(k, _)| *k == key) else {
            return Err(format!("R.{name} has no attribute `{key}`"));
        };
        slot.1 = match (name, key.as_str(), value) {
            ("sum", _, AttrValue::Int(i)) => AttrValue::Ints(vec![i]),
            ("nn.conv2d", "strides" | "dilation", AttrValue::Int(i)) => AttrValue::Ints(vec![i, i]),
            ("nn.conv2d", "padding", AttrValue::Int(i)) => AttrValue::Ints(vec![i; 4]),
            ("nn.conv2d", "padding", AttrValue::Ints(v)) if v.len() == 2 => {
                AttrValue::Ints(vec![v[0], v[1], v[0], v[1]])
            }
            (_, _, v) => v,
        };
    }
    Ok(attrs)
}
