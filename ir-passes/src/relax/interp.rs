//! A reference interpreter for Relax: what a program computes, so that
//! every pass can be checked to compute the same (`tests/relax_properties.rs`).
//!
//! Tensors are row-major `f64` elements with a dtype (integers exact up to
//! 2^53, rounded to their type by `astype`); shapes bind symbolic variables
//! at `match_cast` and at a call's parameters. Every operator of the
//! registry has a kernel here. Errors (a shape that does not match, a
//! tensor past [`MAX_ELEMENTS`], a recursion deeper than [`MAX_CALLS`]) are
//! `Err`, never a panic.

use std::fmt;
use std::sync::Arc;

use ir_core::{IdMap, Node, stack};

use super::dtype::DataType;
use super::expr::{AttrValue, Call, Expr, Function, SeqExpr, Var};
use super::free_vars::free_vars;
use super::module::{RelaxModule, is_global};
use super::ops::{attr, axes_attr, normalize_axis};
use super::prim::{BinOp, PrimExpr, PrimVar};
use super::sinfo::StructInfo;

/// The most elements one tensor may have (a kernel that would make more
/// fails instead of exhausting memory).
pub const MAX_ELEMENTS: usize = 1 << 24;

/// The most nested calls (recursion through closures or globals).
pub const MAX_CALLS: usize = 100_000;

/// A tensor: dtype, shape and row-major elements.
#[derive(Clone, PartialEq)]
pub struct Tensor {
    /// Element type.
    pub dtype: DataType,
    /// Extents.
    pub shape: Vec<usize>,
    /// Row-major elements.
    pub data: Arc<Vec<f64>>,
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:?}{:?}", self.dtype, self.shape, self.data)
    }
}

impl Tensor {
    /// A tensor of `shape` filled from `data` (checked to fit).
    pub fn new(dtype: DataType, shape: Vec<usize>, data: Vec<f64>) -> Result<Tensor, String> {
        let n = elements(&shape)?;
        if n != data.len() {
            return Err(format!(
                "{} elements for shape {shape:?}, which holds {n}",
                data.len()
            ));
        }
        Ok(Tensor {
            dtype,
            shape,
            data: Arc::new(data),
        })
    }

    /// Equal elements (NaN equal to NaN), dtype and shape.
    pub fn same(&self, other: &Tensor) -> bool {
        self.dtype == other.dtype
            && self.shape == other.shape
            && self
                .data
                .iter()
                .zip(other.data.iter())
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
    }
}

/// A value of a Relax program.
#[derive(Clone, Debug)]
pub enum Value {
    /// A tensor.
    Tensor(Tensor),
    /// A tuple.
    Tuple(Arc<Vec<Value>>),
    /// A shape.
    Shape(Vec<i64>),
    /// A scalar (`R.prim_value`).
    Prim(i64),
    /// A string.
    Str(String),
    /// A function with the values of its captured variables.
    Closure(Arc<Closure>),
    /// Storage from `R.vm.alloc_storage`, of this many bytes.
    Storage(i64),
}

/// A function value.
pub struct Closure {
    /// The code.
    pub function: Node<Function>,
    /// Captured variables and their values.
    pub env: Vec<(Node<Var>, Value)>,
    /// The variable the function is bound to, when it calls itself.
    pub itself: Option<Node<Var>>,
    /// Extra trailing arguments (`R.make_closure`'s captured values).
    pub extra: Vec<Value>,
}

impl fmt::Debug for Closure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<closure of {} parameters>", self.function.params.len())
    }
}

impl Value {
    /// Whether two values are the same (tensors element by element, NaN
    /// equal to NaN; closures by identity).
    pub fn same(&self, other: &Value) -> bool {
        stack::guarded(|| match (self, other) {
            (Value::Tensor(a), Value::Tensor(b)) => a.same(b),
            (Value::Tuple(a), Value::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same(y))
            }
            (Value::Shape(a), Value::Shape(b)) => a == b,
            (Value::Prim(a), Value::Prim(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Closure(a), Value::Closure(b)) => Arc::ptr_eq(a, b),
            (Value::Storage(a), Value::Storage(b)) => a == b,
            _ => false,
        })
    }

    fn tensor(&self, what: &str) -> Result<&Tensor, String> {
        match self {
            Value::Tensor(t) => Ok(t),
            other => Err(format!("{what} is not a tensor: {other:?}")),
        }
    }
}

fn elements(shape: &[usize]) -> Result<usize, String> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= MAX_ELEMENTS)
        .ok_or_else(|| format!("a tensor of shape {shape:?} is past {MAX_ELEMENTS} elements"))
}

/// Runs function `name` of `module` on `args`.
///
/// ```
/// use ir_passes::relax::interp::{Tensor, Value, run};
/// use ir_passes::relax::{DataType, parse_module};
///
/// let module = parse_module(r#"# from tvm.script import ir as I
/// ## from tvm.script import relax as R
///
/// @I.ir_module
/// class Module:
///     @R.function
///     def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
///         y: R.Tensor((2,), dtype="float32") = R.add(x, x)
///         return y"#).unwrap();
/// let x = Tensor::new(DataType::F32, vec![2], vec![1.0, 2.5]).unwrap();
/// let Value::Tensor(y) = run(&module, "main", vec![Value::Tensor(x)]).unwrap() else { panic!() };
/// assert_eq!(*y.data, vec![2.0, 5.0]);
/// ```
pub fn run(module: &RelaxModule, name: &str, args: Vec<Value>) -> Result<Value, String> {
    let f = module
        .get(name)
        .ok_or_else(|| format!("no function {name}"))?
        .clone();
    let mut m = Machine {
        module,
        calls: 0,
        free: IdMap::default(),
    };
    m.call_function(&f, &[], None, args)
}

/// The state of one run.
struct Machine<'a> {
    module: &'a RelaxModule,
    calls: usize,
    /// Free variables of nested functions, computed once each.
    free: IdMap<Node<Function>, Vec<Node<Var>>>,
}

/// The values of one activation.
#[derive(Default)]
struct Env {
    vars: IdMap<Node<Var>, Value>,
    prims: IdMap<Node<PrimVar>, i64>,
}

impl Machine<'_> {
    fn call_function(
        &mut self,
        f: &Node<Function>,
        env: &[(Node<Var>, Value)],
        itself: Option<(&Node<Var>, Value)>,
        args: Vec<Value>,
    ) -> Result<Value, String> {
        if f.params.len() != args.len() {
            return Err(format!(
                "a function of {} parameters called with {} arguments",
                f.params.len(),
                args.len()
            ));
        }
        self.calls += 1;
        if self.calls > MAX_CALLS {
            return Err(format!("more than {MAX_CALLS} nested calls"));
        }
        let mut e = Env::default();
        for (v, value) in env {
            e.vars.insert(v.id(), value.clone());
        }
        if let Some((v, value)) = itself {
            e.vars.insert(v.id(), value);
        }
        for (p, a) in f.params.iter().zip(args) {
            match_sinfo(&p.sinfo, &a, &mut e.prims)?;
            e.vars.insert(p.id(), a);
        }
        let out = self.seq(&f.body, &mut e);
        self.calls -= 1;
        out
    }

    fn seq(&mut self, s: &SeqExpr, e: &mut Env) -> Result<Value, String> {
        for block in &s.blocks {
            for b in &block.bindings {
                let v = self.eval(&b.value, e, Some(&b.var))?;
                if let Some(cast) = &b.cast {
                    match_sinfo(cast, &v, &mut e.prims)?;
                }
                e.vars.insert(b.var.id(), v);
            }
        }
        self.eval(&s.body, e, None)
    }

    fn eval(
        &mut self,
        x: &Expr,
        e: &mut Env,
        bound_to: Option<&Node<Var>>,
    ) -> Result<Value, String> {
        stack::guarded(|| match x {
            Expr::Constant(c) => Ok(Value::Tensor(Tensor::new(
                c.data().dtype,
                c.data().shape.iter().map(|&d| d as usize).collect(),
                c.data().values.clone(),
            )?)),
            Expr::Var(v) => e
                .vars
                .get(&v.id())
                .cloned()
                .ok_or_else(|| format!("variable {} has no value", v.name)),
            Expr::ShapeExpr(s) => Ok(Value::Shape(
                s.values
                    .iter()
                    .map(|p| prim(p, &e.prims))
                    .collect::<Result<_, _>>()?,
            )),
            Expr::PrimValue(p) => Ok(Value::Prim(prim(&p.value, &e.prims)?)),
            Expr::StringImm(s) => Ok(Value::Str(s.value.clone())),
            Expr::DataTypeImm(d) => Ok(Value::Str(d.value.to_string())),
            Expr::Tuple(t) => Ok(Value::Tuple(Arc::new(
                t.fields
                    .iter()
                    .map(|f| self.eval(f, e, None))
                    .collect::<Result<_, _>>()?,
            ))),
            Expr::TupleGetItem(t) => match self.eval(&t.tuple, e, None)? {
                Value::Tuple(items) => items
                    .get(t.index)
                    .cloned()
                    .ok_or_else(|| format!("index {} of a {}-tuple", t.index, items.len())),
                other => Err(format!("a projection of a non-tuple {other:?}")),
            },
            Expr::Call(c) => self.call(c, e),
            Expr::If(i) => {
                let cond = self.eval(&i.cond, e, None)?;
                let t = cond.tensor("an if condition")?;
                let branch = if t.data.first().is_some_and(|&v| v != 0.0) {
                    &i.true_branch
                } else {
                    &i.false_branch
                };
                self.seq(branch, e)
            }
            Expr::Function(f) => {
                let free = match self.free.get(&f.id()) {
                    Some(free) => free.clone(),
                    None => {
                        let free = free_vars(x);
                        self.free.insert(f.id(), free.clone());
                        free
                    }
                };
                let mut env = Vec::new();
                let mut itself = None;
                for v in free {
                    if bound_to.is_some_and(|b| b.same_as(&v)) {
                        itself = Some(v);
                    } else if let Some(value) = e.vars.get(&v.id()) {
                        env.push((v, value.clone()));
                    } else {
                        return Err(format!("variable {} has no value", v.name));
                    }
                }
                Ok(Value::Closure(Arc::new(Closure {
                    function: f.clone(),
                    env,
                    itself,
                    extra: Vec::new(),
                })))
            }
            Expr::SeqExpr(s) => self.seq(s, e),
            Expr::GlobalVar(g) => match self.module.get(&g.name) {
                Some(f) => Ok(Value::Closure(Arc::new(Closure {
                    function: f.clone(),
                    env: Vec::new(),
                    itself: None,
                    extra: Vec::new(),
                }))),
                None if is_global(self.module, &g.name) => {
                    Err(format!("external function {} cannot run here", g.name))
                }
                None => Err(format!("no function {}", g.name)),
            },
            Expr::Op(o) => Err(format!("operator R.{} used as a value", o.name())),
            Expr::ExternFunc(f) => Err(format!("external function {} cannot run here", f.name)),
            Expr::BindingBlock(_) | Expr::Binding(_) => Err("a block is not a value".into()),
        })
    }

    fn invoke(&mut self, callee: &Value, args: Vec<Value>) -> Result<Value, String> {
        let Value::Closure(c) = callee else {
            return Err(format!("calling a non-function {callee:?}"));
        };
        let mut args = args;
        args.extend(c.extra.iter().cloned());
        let itself = c.itself.as_ref().map(|v| (v, callee.clone()));
        self.call_function(&c.function, &c.env, itself, args)
    }

    fn call(&mut self, c: &Node<Call>, e: &mut Env) -> Result<Value, String> {
        let args: Vec<Value> = c
            .args()
            .iter()
            .map(|a| self.eval(a, e, None))
            .collect::<Result<_, _>>()?;
        let Expr::Op(op) = c.op() else {
            let callee = self.eval(c.op(), e, None)?;
            return self.invoke(&callee, args);
        };
        match op.name() {
            "make_closure" => {
                let [Value::Closure(f), Value::Tuple(captured)] = &args[..] else {
                    return Err("R.make_closure takes a function and a tuple".into());
                };
                Ok(Value::Closure(Arc::new(Closure {
                    function: f.function.clone(),
                    env: f.env.clone(),
                    itself: f.itself.clone(),
                    extra: captured.to_vec(),
                })))
            }
            "invoke_closure" | "invoke_pure_closure" => {
                let [callee, Value::Tuple(call_args)] = &args[..] else {
                    return Err(format!("R.{} takes a closure and a tuple", op.name()));
                };
                self.invoke(callee, call_args.to_vec())
            }
            // Effects yield nothing; printing writes nothing here (the
            // interpreter checks values, not output), and freeing is the
            // host's business.
            "print" | "vm.kill_object" => Ok(Value::Tuple(Arc::new(Vec::new()))),
            // Allocations: storage, and tensors (of zeros) in it or alone.
            "vm.alloc_storage" => match args.first() {
                Some(Value::Shape(s)) if s.len() == 1 => Ok(Value::Storage(s[0])),
                _ => Err("R.vm.alloc_storage takes a 1-d shape (its size in bytes)".into()),
            },
            "vm.alloc_tensor" | "builtin.alloc_tensor" => {
                let (shape, dtype) = match (op.name(), &args[..]) {
                    (
                        "vm.alloc_tensor",
                        [Value::Storage(_), _, Value::Shape(s), Value::Str(d), _],
                    )
                    | ("builtin.alloc_tensor", [Value::Shape(s), Value::Str(d), _, _]) => (s, d),
                    _ => return Err(format!("R.{}: unexpected arguments", op.name())),
                };
                let shape: Vec<usize> = shape
                    .iter()
                    .map(|&d| usize::try_from(d).map_err(|_| format!("negative extent {d}")))
                    .collect::<Result<_, _>>()?;
                let len = elements(&shape)?;
                Ok(Value::Tensor(Tensor::new(
                    dtype.parse()?,
                    shape,
                    vec![0.0; len],
                )?))
            }
            "assert_op" => {
                let holds = match args.first() {
                    Some(Value::Tensor(t)) if t.data.len() == 1 => t.data[0] != 0.0,
                    Some(Value::Prim(v)) => *v != 0,
                    _ => return Err("R.assert_op's condition must be a boolean scalar".into()),
                };
                if holds {
                    return Ok(Value::Tuple(Arc::new(Vec::new())));
                }
                Err(assertion_message(&args[1..]))
            }
            name => kernel(name, &args, c.attrs()),
        }
    }
}

/// A failed `R.assert_op`'s message: its format string, each `{}` in turn
/// replaced by one of the values after it.
fn assertion_message(format_and_values: &[Value]) -> String {
    let (format, values) = match format_and_values.split_first() {
        Some((Value::Str(f), values)) => (f.as_str(), values),
        _ => ("", format_and_values),
    };
    let mut message = String::new();
    let mut values = values.iter();
    let mut pieces = format.split("{}");
    if let Some(first) = pieces.next() {
        message.push_str(first);
    }
    for piece in pieces {
        match values.next() {
            Some(v) => message.push_str(&format!("{v:?}")),
            None => message.push_str("{}"),
        }
        message.push_str(piece);
    }
    format!("assertion failed: {message}")
}

/// A symbolic expression's value; an unbound variable is an error.
fn prim(p: &PrimExpr, prims: &IdMap<Node<PrimVar>, i64>) -> Result<i64, String> {
    stack::guarded(|| {
        if let Some(v) = p.as_int() {
            return Ok(v);
        }
        if let PrimExpr::PrimVar(v) = p {
            return prims
                .get(&v.id())
                .copied()
                .ok_or_else(|| format!("symbolic variable {} has no value", v.name));
        }
        let Some((op, a, b)) = p.as_binary_parts() else {
            return Err(format!("cannot evaluate {p}"));
        };
        let (a, b) = (prim(a, prims)?, prim(b, prims)?);
        let overflow = || format!("{p} overflows");
        match op {
            BinOp::Add => a.checked_add(b).ok_or_else(overflow),
            BinOp::Sub => a.checked_sub(b).ok_or_else(overflow),
            BinOp::Mul => a.checked_mul(b).ok_or_else(overflow),
            BinOp::FloorDiv | BinOp::FloorMod if b == 0 => Err(format!("{p} divides by zero")),
            BinOp::FloorDiv => floor_div(a, b).ok_or_else(overflow),
            BinOp::FloorMod => floor_div(a, b)
                .and_then(|q| q.checked_mul(b))
                .and_then(|m| a.checked_sub(m))
                .ok_or_else(overflow),
            BinOp::Min => Ok(a.min(b)),
            BinOp::Max => Ok(a.max(b)),
        }
    })
}

/// `a // b` rounded down (`None` on overflow).
fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    Some(if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Checks `value` against `s`, binding symbolic variables met first.
fn match_sinfo(
    s: &StructInfo,
    value: &Value,
    prims: &mut IdMap<Node<PrimVar>, i64>,
) -> Result<(), String> {
    stack::guarded(|| match (s, value) {
        (StructInfo::ObjectStructInfo(_), _) => Ok(()),
        (StructInfo::TensorStructInfo(t), Value::Tensor(v)) => {
            if t.ndim >= 0 && t.ndim as usize != v.shape.len() {
                return Err(format!(
                    "a rank-{} tensor where rank {} is declared",
                    v.shape.len(),
                    t.ndim
                ));
            }
            if !t.dtype.is_void() && t.dtype != v.dtype {
                return Err(format!(
                    "a {} tensor where {} is declared",
                    v.dtype, t.dtype
                ));
            }
            match &t.shape {
                Some(dims) => match_dims(
                    dims,
                    &v.shape.iter().map(|&d| d as i64).collect::<Vec<_>>(),
                    prims,
                ),
                None => Ok(()),
            }
        }
        (StructInfo::ShapeStructInfo(sh), Value::Shape(v)) => match &sh.values {
            Some(dims) => match_dims(dims, v, prims),
            None if sh.ndim >= 0 && sh.ndim as usize != v.len() => Err(format!(
                "a shape of {} values where {} are declared",
                v.len(),
                sh.ndim
            )),
            None => Ok(()),
        },
        (StructInfo::TupleStructInfo(t), Value::Tuple(items)) => {
            if t.fields.len() != items.len() {
                return Err(format!(
                    "a {}-tuple where a {}-tuple is declared",
                    items.len(),
                    t.fields.len()
                ));
            }
            t.fields
                .iter()
                .zip(items.iter())
                .try_for_each(|(s, v)| match_sinfo(s, v, prims))
        }
        (StructInfo::PrimStructInfo(_), Value::Prim(_) | Value::Tensor(_)) => Ok(()),
        (StructInfo::FuncStructInfo(_), Value::Closure(_)) => Ok(()),
        (s, v) => Err(format!("{v:?} does not match {s:?}")),
    })
}

fn match_dims(
    dims: &[PrimExpr],
    values: &[i64],
    prims: &mut IdMap<Node<PrimVar>, i64>,
) -> Result<(), String> {
    if dims.len() != values.len() {
        return Err(format!(
            "{} dimensions where {} are declared",
            values.len(),
            dims.len()
        ));
    }
    for (d, &v) in dims.iter().zip(values) {
        if let PrimExpr::PrimVar(p) = d
            && !prims.contains_key(&p.id())
        {
            prims.insert(p.id(), v);
            continue;
        }
        let want = prim(d, prims)?;
        if want != v {
            return Err(format!("extent {v} where {d} = {want} is declared"));
        }
    }
    Ok(())
}

// ---- kernels ------------------------------------------------------------------

/// An axis of a tensor of rank `rank`, negative ones counted from the end
/// (the check struct info inference makes).
fn axis(a: i64, rank: usize) -> Result<usize, String> {
    normalize_axis(a, rank as i64)
}

/// Rounds a value to what `dtype` holds.
fn round(v: f64, dtype: DataType) -> f64 {
    match dtype {
        DataType::Bool => f64::from(u8::from(v != 0.0)),
        DataType::Int(bits) if v.is_finite() => {
            let t = v.trunc();
            if bits >= 64 {
                t
            } else {
                let m = 2f64.powi(i32::from(bits));
                let w = t.rem_euclid(m);
                if w >= m / 2.0 { w - m } else { w }
            }
        }
        DataType::UInt(bits) if v.is_finite() => {
            v.trunc().rem_euclid(2f64.powi(i32::from(bits.min(63))))
        }
        // float16 is kept at float32's precision (a known approximation).
        DataType::Float(16 | 32) => f64::from(v as f32),
        _ => v,
    }
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

fn broadcast(a: &Tensor, b: &Tensor, f: impl Fn(f64, f64) -> f64) -> Result<Tensor, String> {
    let rank = a.shape.len().max(b.shape.len());
    let dim = |t: &Tensor, i: usize| -> usize {
        let off = rank - t.shape.len();
        if i < off { 1 } else { t.shape[i - off] }
    };
    let mut shape = Vec::with_capacity(rank);
    for i in 0..rank {
        let (x, y) = (dim(a, i), dim(b, i));
        shape.push(match (x, y) {
            _ if x == y => x,
            (1, _) => y,
            (_, 1) => x,
            _ => {
                return Err(format!(
                    "shapes {:?} and {:?} do not broadcast",
                    a.shape, b.shape
                ));
            }
        });
    }
    let n = elements(&shape)?;
    let out_strides = strides(&shape);
    let index = |t: &Tensor, flat: usize| -> usize {
        let ts = strides(&t.shape);
        let off = rank - t.shape.len();
        let mut at = 0;
        for (i, &s) in out_strides.iter().enumerate() {
            let coord = flat / s % shape[i].max(1);
            if i >= off && t.shape[i - off] != 1 {
                at += coord * ts[i - off];
            }
        }
        at
    };
    let same = a.shape == shape && b.shape == shape;
    let data: Vec<f64> = (0..n)
        .map(|i| {
            let (x, y) = if same {
                (a.data[i], b.data[i])
            } else {
                (a.data[index(a, i)], b.data[index(b, i)])
            };
            round(f(x, y), a.dtype)
        })
        .collect();
    Tensor::new(a.dtype, shape, data)
}

fn unary(t: &Tensor, f: impl Fn(f64) -> f64) -> Result<Tensor, String> {
    Tensor::new(
        t.dtype,
        t.shape.clone(),
        t.data.iter().map(|&v| round(f(v), t.dtype)).collect(),
    )
}

fn kernel(name: &str, args: &[Value], attrs: &[(String, AttrValue)]) -> Result<Value, String> {
    let t = |i: usize| -> Result<&Tensor, String> {
        args.get(i)
            .ok_or_else(|| format!("R.{name} needs argument {i}"))?
            .tensor(&format!("R.{name}'s argument {i}"))
    };
    let out = match name {
        "add" => broadcast(t(0)?, t(1)?, |a, b| a + b)?,
        "subtract" => broadcast(t(0)?, t(1)?, |a, b| a - b)?,
        "multiply" => broadcast(t(0)?, t(1)?, |a, b| a * b)?,
        "divide" => {
            let int = t(0)?.dtype.is_int();
            broadcast(
                t(0)?,
                t(1)?,
                move |a, b| if int { (a / b).floor() } else { a / b },
            )?
        }
        "maximum" => broadcast(t(0)?, t(1)?, f64::max)?,
        "minimum" => broadcast(t(0)?, t(1)?, f64::min)?,
        "negative" => unary(t(0)?, |a| -a)?,
        "exp" => unary(t(0)?, f64::exp)?,
        "nn.relu" => unary(t(0)?, |a| a.max(0.0))?,
        "astype" => {
            let dtype = match attr(attrs, "dtype") {
                Some(AttrValue::Str(s)) => s.parse::<DataType>()?,
                _ => return Err("R.astype needs a dtype".into()),
            };
            let x = t(0)?;
            Tensor::new(
                dtype,
                x.shape.clone(),
                x.data.iter().map(|&v| round(v, dtype)).collect(),
            )?
        }
        "matmul" => matmul(t(0)?, t(1)?)?,
        "reshape" => {
            let x = t(0)?;
            let Some(Value::Shape(target)) = args.get(1) else {
                return Err("R.reshape needs a shape".into());
            };
            let known: i64 = target.iter().filter(|&&d| d != -1).product();
            let shape: Vec<usize> = target
                .iter()
                .map(|&d| {
                    if d == -1 && known > 0 {
                        Ok(x.data.len() / known as usize)
                    } else {
                        usize::try_from(d).map_err(|_| format!("extent {d} in R.reshape"))
                    }
                })
                .collect::<Result<_, String>>()?;
            Tensor::new(x.dtype, shape, x.data.to_vec())?
        }
        "permute_dims" => {
            let x = t(0)?;
            let rank = x.shape.len();
            let axes: Vec<usize> = match axes_attr(attrs, "axes") {
                Some(a) => a.iter().map(|&a| axis(a, rank)).collect::<Result<_, _>>()?,
                None => (0..rank).rev().collect(),
            };
            if axes.len() != rank {
                return Err(format!("{} axes for rank {rank}", axes.len()));
            }
            let shape: Vec<usize> = axes.iter().map(|&a| x.shape[a]).collect();
            let (in_s, out_s) = (strides(&x.shape), strides(&shape));
            let data = (0..x.data.len())
                .map(|flat| {
                    let at: usize = (0..rank)
                        .map(|i| flat / out_s[i] % shape[i].max(1) * in_s[axes[i]])
                        .sum();
                    x.data[at]
                })
                .collect();
            Tensor::new(x.dtype, shape, data)?
        }
        "concat" => {
            let Some(Value::Tuple(items)) = args.first() else {
                return Err("R.concat needs a tuple".into());
            };
            let ts: Vec<&Tensor> = items
                .iter()
                .map(|v| v.tensor("R.concat's field"))
                .collect::<Result<_, _>>()?;
            let first = ts.first().ok_or("R.concat of nothing")?;
            let rank = first.shape.len();
            let a = axis(
                axes_attr(attrs, "axis")
                    .and_then(|v| v.first().copied())
                    .unwrap_or(0),
                rank,
            )?;
            let mut shape = first.shape.clone();
            shape[a] = ts
                .iter()
                .map(|t| t.shape.get(a).copied().unwrap_or(0))
                .sum();
            let outer: usize = first.shape[..a].iter().product();
            let mut data = Vec::with_capacity(elements(&shape)?);
            for o in 0..outer {
                for t in &ts {
                    let chunk: usize = t.shape[a..].iter().product();
                    data.extend_from_slice(&t.data[o * chunk..(o + 1) * chunk]);
                }
            }
            Tensor::new(first.dtype, shape, data)?
        }
        "sum" => {
            let x = t(0)?;
            let rank = x.shape.len();
            let keep = matches!(attr(attrs, "keepdims"), Some(AttrValue::Bool(true)));
            let axes: Vec<usize> = match axes_attr(attrs, "axis") {
                Some(a) => a.iter().map(|&a| axis(a, rank)).collect::<Result<_, _>>()?,
                None => (0..rank).collect(),
            };
            let kept: Vec<usize> = x
                .shape
                .iter()
                .enumerate()
                .map(|(i, &d)| if axes.contains(&i) { 1 } else { d })
                .collect();
            let (in_s, out_s) = (strides(&x.shape), strides(&kept));
            let mut data = vec![0.0; elements(&kept)?];
            for (flat, v) in x.data.iter().enumerate() {
                let at: usize = (0..rank)
                    .map(|i| {
                        if axes.contains(&i) {
                            0
                        } else {
                            flat / in_s[i] % x.shape[i].max(1) * out_s[i]
                        }
                    })
                    .sum();
                data[at] += v;
            }
            let shape = if keep {
                kept
            } else {
                x.shape
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !axes.contains(i))
                    .map(|(_, &d)| d)
                    .collect()
            };
            let data = data.into_iter().map(|v| round(v, x.dtype)).collect();
            Tensor::new(x.dtype, shape, data)?
        }
        "shape_of" => {
            return Ok(Value::Shape(
                t(0)?.shape.iter().map(|&d| d as i64).collect(),
            ));
        }
        "nn.conv2d" => conv2d(t(0)?, t(1)?, attrs)?,
        "arange" => {
            let bound = |i: usize| match args.get(i) {
                Some(Value::Prim(v)) => Ok(*v),
                _ => Err(format!("R.arange's argument {i} must be an integer")),
            };
            let (start, end, step) = (bound(0)?, bound(1)?, bound(2)?);
            if step == 0 {
                return Err("R.arange's step must not be zero".into());
            }
            // ceil((end - start) / step), in i128 so that no bound overflows.
            let (span, step) = (i128::from(end) - i128::from(start), i128::from(step));
            let len = if (span > 0) == (step > 0) && span != 0 {
                (span + step - step.signum()) / step
            } else {
                0
            };
            let len = usize::try_from(len).map_err(|_| "R.arange: too many elements".to_owned())?;
            elements(&[len])?;
            let data = (0..len)
                .map(|i| (i128::from(start) + i as i128 * step) as f64)
                .collect();
            Tensor::new(dtype_of(attrs, name)?, vec![len], data)?
        }
        "ones" | "zeros" => {
            let Some(Value::Shape(shape)) = args.first() else {
                return Err(format!("R.{name} needs a shape"));
            };
            let shape: Vec<usize> = shape
                .iter()
                .map(|&d| usize::try_from(d).map_err(|_| format!("R.{name}: negative extent {d}")))
                .collect::<Result<_, _>>()?;
            let fill = if name == "ones" { 1.0 } else { 0.0 };
            // Checked before anything is allocated.
            let len = elements(&shape)?;
            Tensor::new(dtype_of(attrs, name)?, shape, vec![fill; len])?
        }
        other => return Err(format!("the interpreter has no kernel for R.{other}")),
    };
    Ok(Value::Tensor(out))
}

fn dtype_of(attrs: &[(String, AttrValue)], op: &str) -> Result<DataType, String> {
    match attr(attrs, "dtype") {
        Some(AttrValue::Str(s)) => s.parse::<DataType>(),
        _ => Err(format!("R.{op} needs a dtype")),
    }
}

fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    let (ra, rb) = (a.shape.len(), b.shape.len());
    if ra < 2 || rb < 2 || a.shape[..ra - 2] != b.shape[..rb - 2] {
        return Err(format!(
            "the interpreter's matmul takes equal batches of matrices, not {:?} and {:?}",
            a.shape, b.shape
        ));
    }
    let (m, k, n) = (a.shape[ra - 2], a.shape[ra - 1], b.shape[rb - 1]);
    if b.shape[rb - 2] != k {
        return Err(format!("matmul of {:?} and {:?}", a.shape, b.shape));
    }
    let batch: usize = a.shape[..ra - 2].iter().product();
    let mut shape = a.shape[..ra - 2].to_vec();
    shape.extend([m, n]);
    let mut data = vec![0.0; elements(&shape)?];
    for bi in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0;
                for p in 0..k {
                    s += a.data[bi * m * k + i * k + p] * b.data[bi * k * n + p * n + j];
                }
                data[bi * m * n + i * n + j] = round(s, a.dtype);
            }
        }
    }
    Tensor::new(a.dtype, shape, data)
}

fn conv2d(x: &Tensor, w: &Tensor, attrs: &[(String, AttrValue)]) -> Result<Tensor, String> {
    for (key, want) in [
        ("data_layout", "NCHW"),
        ("kernel_layout", "OIHW"),
        ("out_layout", "NCHW"),
    ] {
        if let Some(AttrValue::Str(s)) = attr(attrs, key)
            && s != want
        {
            return Err(format!(
                "the interpreter's conv2d takes {key} {want}, not {s}"
            ));
        }
    }
    let get = |key: &str, default: Vec<i64>| axes_attr(attrs, key).unwrap_or(default);
    let (st, pad, dil) = (
        get("strides", vec![1, 1]),
        get("padding", vec![0, 0, 0, 0]),
        get("dilation", vec![1, 1]),
    );
    let groups = match attr(attrs, "groups") {
        Some(AttrValue::Int(g)) if *g > 0 => *g as usize,
        _ => 1,
    };
    let [n, c, h, wd] = x.shape[..] else {
        return Err("conv2d needs rank-4 data".into());
    };
    let [o, i, kh, kw] = w.shape[..] else {
        return Err("conv2d needs a rank-4 kernel".into());
    };
    let pad: Vec<i64> = (0..4)
        .map(|k| pad.get(k).or(pad.get(k % 2)).copied().unwrap_or(0))
        .collect();
    if st.len() < 2
        || dil.len() < 2
        || st.iter().chain(&dil).any(|&v| v <= 0)
        || pad.iter().any(|&v| v < 0)
    {
        return Err("conv2d strides, dilation and padding must be positive".into());
    }
    if c != i * groups || o % groups != 0 {
        return Err(format!(
            "conv2d of {c} channels with a kernel of {i} per group, {groups} groups"
        ));
    }
    let out_dim = |size: usize, k: usize, lo: i64, hi: i64, s: i64, d: i64| -> i64 {
        (size as i64 + lo + hi - d * (k as i64 - 1) - 1) / s + 1
    };
    let oh = out_dim(h, kh, pad[0], pad[2], st[0], dil[0]);
    let ow = out_dim(wd, kw, pad[1], pad[3], st[1], dil[1]);
    if oh <= 0 || ow <= 0 {
        return Err("conv2d output would be empty".into());
    }
    let (oh, ow) = (oh as usize, ow as usize);
    let shape = vec![n, o, oh, ow];
    let mut data = vec![0.0; elements(&shape)?];
    let per_group = o / groups;
    for b in 0..n {
        for oc in 0..o {
            let g = oc / per_group;
            for y in 0..oh {
                for xx in 0..ow {
                    let mut s = 0.0;
                    for ic in 0..i {
                        for ky in 0..kh {
                            for kx in 0..kw {
                                let iy = (y as i64) * st[0] + (ky as i64) * dil[0] - pad[0];
                                let ix = (xx as i64) * st[1] + (kx as i64) * dil[1] - pad[1];
                                if iy < 0 || ix < 0 || iy >= h as i64 || ix >= wd as i64 {
                                    continue;
                                }
                                let cin = g * i + ic;
                                s += x.data[((b * c + cin) * h + iy as usize) * wd + ix as usize]
                                    * w.data[((oc * i + ic) * kh + ky) * kw + kx];
                            }
                        }
                    }
                    data[((b * o + oc) * oh + y) * ow + xx] = round(s, x.dtype);
                }
            }
        }
    }
    Tensor::new(x.dtype, shape, data)
}
