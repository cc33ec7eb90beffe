//! A reference interpreter for the Tensor IR: the oracle the passes are
//! checked against. It runs a function of a module on scalar and buffer
//! arguments and returns what it returned and the final contents of the
//! buffers it was given.
//!
//! Semantics:
//! - Integers wrap: `s32` and `s64` in two's complement, `index` as an
//!   unsigned 64-bit value; the constant folder evaluates constants the same
//!   way, so its reassociations are exact. `f32` is IEEE. Division or
//!   remainder by zero is an error.
//! - `&&` and `||` short-circuit; a select evaluates only the chosen value.
//! - A loop evaluates its bounds and step once; its variable takes
//!   `begin, begin + step, ...` while below `end`, whatever the body assigns
//!   to it. A step that is not positive is an error.
//! - A variable defined without an initializer must be assigned before it is
//!   read. A tensor definition allocates zeroed elements; one initialized
//!   with a tensor pointer, `tensor B: [f32 * 4] = &A[2]`, is a view of the
//!   memory from that element on, with its own layout (nothing allocated).
//!   Indices are bounds-checked per dimension, and a view must fit in the
//!   memory it views.
//! - A call passes scalars by value and tensors by reference; a tensor
//!   pointer argument, `f(&A[2])`, passes the memory from that element on.
//!
//! Every run is bounded: a step budget ([`Interpreter::with_fuel`]), a call
//! depth and a total number of live tensor elements, so no input hangs or
//! exhausts memory; deep programs run on the framework's growable stack.

use std::fmt;

use ir_core::stack::guarded;
use ir_core::{IdMap, Node};

use super::dtype::{DType, Value};
use super::expr::{Expr, Intrin, Tensor, Var};
use super::ops::{
    AddOp, AndOp, ArithOp, DivOp, EqOp, GeOp, GtOp, LeOp, LogicOp, LtOp, MaxOp, MinOp, ModOp,
    MulOp, NeOp, OrOp, RelOp, SubOp, compare, eval_arith,
};
use super::stmt::{Func, Module, Stmt};

/// An argument of the called function: a scalar for a `Var` parameter, the
/// elements of a buffer for a `Tensor` parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A scalar value.
    Scalar(Value),
    /// A buffer's elements, in memory order.
    Buffer(Vec<Value>),
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The returned value, if the function returned one.
    pub ret: Option<Value>,
    /// The final contents of each buffer argument, in parameter order.
    pub buffers: Vec<Vec<Value>>,
}

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EvalError {}

fn err<T>(msg: impl Into<String>) -> Result<T, EvalError> {
    Err(EvalError(msg.into()))
}

/// Statements and loop iterations a run may take by default.
pub const DEFAULT_FUEL: u64 = 10_000_000;
/// Nested calls a run may make.
pub const MAX_CALL_DEPTH: usize = 10_000;
/// Tensor elements that may be live at once.
pub const MAX_LIVE_ELEMENTS: usize = 1 << 24;

/// The interpreter over one module (calls resolve in it).
#[derive(Debug)]
pub struct Interpreter<'m> {
    module: &'m Module,
    fuel: u64,
    frames: Vec<Frame>,
    buffers: Vec<Vec<Value>>,
    live_elements: usize,
}

/// One call's variables and tensors, keyed by node identity.
#[derive(Debug, Default)]
struct Frame {
    vars: IdMap<Node<Var>, Option<Value>>,
    tensors: IdMap<Node<Tensor>, View>,
    /// Buffers below this index belong to callers.
    buffers_base: usize,
}

/// A tensor as one call sees it: a buffer, where in it the tensor starts,
/// and the layout its definition gave it (a callee, or a tensor defined as a
/// view, may see a buffer with another layout).
#[derive(Debug, Clone)]
struct View {
    buffer: usize,
    base: u64,
    dims: Vec<u64>,
    strides: Vec<u64>,
}

/// How a statement ended.
enum Flow {
    Next,
    Return(Option<Value>),
}

impl<'m> Interpreter<'m> {
    /// An interpreter with the default step budget.
    pub fn new(module: &'m Module) -> Self {
        Interpreter {
            module,
            fuel: DEFAULT_FUEL,
            frames: Vec::new(),
            buffers: Vec::new(),
            live_elements: 0,
        }
    }

    /// The same with a budget of `fuel` statements and loop iterations.
    pub fn with_fuel(mut self, fuel: u64) -> Self {
        self.fuel = fuel;
        self
    }

    /// Runs the function `name` on `args`.
    ///
    /// ```
    /// use ir_passes::tensor_ir::{parse_module, interp::{Arg, Interpreter}, Value};
    ///
    /// let m = parse_module(
    ///     "func sum(n: s32, A: [s32 * 4]): s32 {
    ///        var s: s32 = 0
    ///        for i in (0, n, 1) { s = (s + A[i]) }
    ///        return s
    ///      }",
    /// )
    /// .unwrap();
    /// let four = |v: i64| Arg::Buffer(vec![Value::Int(v); 4]);
    /// let out = Interpreter::new(&m).run("sum", vec![Arg::Scalar(Value::Int(3)), four(5)]).unwrap();
    /// assert_eq!(out.ret, Some(Value::Int(15)));
    /// ```
    pub fn run(&mut self, name: &str, args: Vec<Arg>) -> Result<Outcome, EvalError> {
        let module = self.module;
        let Some(func) = module.get(name) else {
            return err(format!("no function named `{name}`"));
        };
        let base = self.buffers.len();
        let mut ids = Vec::new();
        let mut callee_args = Vec::with_capacity(args.len());
        for arg in args {
            callee_args.push(match arg {
                Arg::Scalar(v) => Bound::Scalar(v),
                Arg::Buffer(elems) => {
                    self.reserve(elems.len())?;
                    self.buffers.push(elems);
                    ids.push(self.buffers.len() - 1);
                    Bound::Memory {
                        buffer: self.buffers.len() - 1,
                        base: 0,
                    }
                }
            });
        }
        let result = self.call(func, callee_args);
        let buffers = ids
            .iter()
            .map(|&id| std::mem::take(&mut self.buffers[id]))
            .collect();
        self.buffers.truncate(base);
        self.live_elements = 0;
        Ok(Outcome {
            ret: result?,
            buffers,
        })
    }

    fn reserve(&mut self, elements: usize) -> Result<(), EvalError> {
        match self.live_elements.checked_add(elements) {
            Some(n) if n <= MAX_LIVE_ELEMENTS => {
                self.live_elements = n;
                Ok(())
            }
            _ => err(format!(
                "tensors too large: more than {MAX_LIVE_ELEMENTS} elements live"
            )),
        }
    }

    fn spend(&mut self) -> Result<(), EvalError> {
        if self.fuel == 0 {
            return err("step budget exhausted (the program may not terminate)");
        }
        self.fuel -= 1;
        Ok(())
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a call is running")
    }

    fn call(&mut self, func: &Func, args: Vec<Bound>) -> Result<Option<Value>, EvalError> {
        if self.frames.len() >= MAX_CALL_DEPTH {
            return err(format!("calls nested deeper than {MAX_CALL_DEPTH}"));
        }
        if args.len() != func.params.len() {
            let n = func.params.len();
            let plural = if n == 1 { "" } else { "s" };
            return err(format!(
                "`{}` takes {n} argument{plural}, got {}",
                func.name,
                args.len()
            ));
        }
        self.frames.push(Frame {
            buffers_base: self.buffers.len(),
            ..Frame::default()
        });
        let result = self.enter(func, args);
        let frame = self.frames.pop().expect("pushed above");
        for b in self.buffers.drain(frame.buffers_base..) {
            self.live_elements -= b.len();
        }
        result
    }

    fn enter(&mut self, func: &Func, args: Vec<Bound>) -> Result<Option<Value>, EvalError> {
        for (param, arg) in func.params.iter().zip(args) {
            match (param, arg) {
                (Expr::Var(v), Bound::Scalar(value)) => {
                    let value = value
                        .convert(v.dtype)
                        .ok_or_else(|| EvalError(format!("bad argument for `{}`", v.name)))?;
                    self.frame().vars.insert(v.id(), Some(value));
                }
                (Expr::Tensor(t), Bound::Memory { buffer, base }) => {
                    let view = self.view_at(t, buffer, base)?;
                    self.frame().tensors.insert(t.id(), view);
                }
                (p, _) => {
                    return err(format!(
                        "argument kind does not match parameter `{}` of `{}`",
                        super::print::print_expr(p),
                        func.name
                    ));
                }
            }
        }
        match self.exec(&func.body)? {
            Flow::Return(v) => Ok(v),
            Flow::Next => Ok(None),
        }
    }

    /// `t` laid out from element `base` of `buffer`, which must hold it.
    fn view_at(&mut self, t: &Tensor, buffer: usize, base: u64) -> Result<View, EvalError> {
        // Integers of any width share one representation; floats and
        // booleans do not mix with them.
        if let Some(held) = self.buffers[buffer].first()
            && std::mem::discriminant(held) != std::mem::discriminant(&Value::zero(t.elem))
        {
            return err(format!(
                "`{}` has element type {}, the memory it is given holds other values",
                t.name, t.elem
            ));
        }
        let (dims, strides) = self.layout(t)?;
        let needed = extent(&dims, &strides);
        let held = self.buffers[buffer].len() as u64;
        if needed.checked_add(base).is_none_or(|end| end > held) {
            let available = held.saturating_sub(base);
            return err(if base == 0 {
                format!(
                    "buffer for `{}` holds {held} elements, its layout needs {needed}",
                    t.name
                )
            } else {
                format!(
                    "memory for `{}` holds {available} elements from where it starts, \
                     its layout needs {needed}",
                    t.name
                )
            });
        }
        Ok(View {
            buffer,
            base,
            dims,
            strides,
        })
    }

    /// The memory a tensor or a tensor pointer names: a buffer, and the
    /// element where it starts.
    fn memory(&mut self, e: &Expr) -> Result<(usize, u64), EvalError> {
        let (buffer, base) = match e {
            Expr::Tensor(t) => {
                let view = self.view_of(t)?;
                (view.buffer, view.base)
            }
            Expr::TensorPtr(p) => {
                let (buffer, offset) = self.element(&p.base.tensor, &p.base.index)?;
                (buffer, offset as u64)
            }
            other => {
                return err(format!(
                    "`{}` is not a tensor or a tensor pointer",
                    super::print::print_expr(other)
                ));
            }
        };
        Ok((buffer, base))
    }

    /// A tensor's dims and strides, evaluated.
    fn layout(&mut self, t: &Tensor) -> Result<(Vec<u64>, Vec<u64>), EvalError> {
        if t.dims.len() != t.strides.len() {
            return err(format!(
                "`{}` has dims and strides of different ranks",
                t.name
            ));
        }
        let mut eval_all = |es: &[Expr], what: &str| -> Result<Vec<u64>, EvalError> {
            es.iter()
                .map(|e| {
                    let v = self.eval_int(e)?;
                    u64::try_from(v)
                        .map_err(|_| EvalError(format!("`{}` has a negative {what}", t.name)))
                })
                .collect()
        };
        let dims = eval_all(&t.dims, "dimension")?;
        let strides = eval_all(&t.strides, "stride")?;
        Ok((dims, strides))
    }

    fn exec(&mut self, s: &Stmt) -> Result<Flow, EvalError> {
        guarded(|| self.exec_inner(s))
    }

    fn exec_inner(&mut self, s: &Stmt) -> Result<Flow, EvalError> {
        self.spend()?;
        match s {
            Stmt::Assign(a) => {
                let value = self.eval(&a.rhs)?;
                match &a.lhs {
                    Expr::Var(v) => match self.frame().vars.get_mut(&v.id()) {
                        Some(slot) => *slot = Some(value),
                        None => return err(format!("assignment to undefined `{}`", v.name)),
                    },
                    Expr::Indexing(i) => {
                        let (id, offset) = self.element(&i.tensor, &i.index)?;
                        self.buffers[id][offset] = value;
                    }
                    other => {
                        return err(format!(
                            "cannot assign to `{}`",
                            super::print::print_expr(other)
                        ));
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::Stmts(b) => {
                for s in &b.seq {
                    if let Flow::Return(v) = self.exec(s)? {
                        return Ok(Flow::Return(v));
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::IfElse(i) => {
                if self.eval_bool(&i.cond)? {
                    self.exec(&i.then_case)
                } else if let Some(e) = &i.else_case {
                    self.exec(e)
                } else {
                    Ok(Flow::Next)
                }
            }
            Stmt::ForLoop(l) => {
                let dtype = l.var.dtype;
                let begin = self.eval_as(&l.begin, dtype)?;
                let end = self.eval_as(&l.end, dtype)?;
                let step = self.eval_as(&l.step, dtype)?;
                if compare(step, Value::zero(dtype), dtype) != Some(std::cmp::Ordering::Greater) {
                    return err(format!(
                        "loop over `{}` has a step that is not positive",
                        l.var.name
                    ));
                }
                let mut current = begin;
                while compare(current, end, dtype) == Some(std::cmp::Ordering::Less) {
                    self.spend()?;
                    self.frame().vars.insert(l.var.id(), Some(current));
                    if let Flow::Return(v) = self.exec(&l.body)? {
                        return Ok(Flow::Return(v));
                    }
                    // Stepping past the type's range ends the loop.
                    match self.arith::<AddOp>(current, step, dtype) {
                        Ok(next)
                            if compare(next, current, dtype)
                                == Some(std::cmp::Ordering::Greater) =>
                        {
                            current = next
                        }
                        _ => break,
                    }
                }
                Ok(Flow::Next)
            }
            Stmt::Evaluate(e) => {
                self.eval(&e.value)?;
                Ok(Flow::Next)
            }
            Stmt::Return(r) => {
                let v = match &r.value {
                    Some(e) => Some(self.eval(e)?),
                    None => None,
                };
                Ok(Flow::Return(v))
            }
            Stmt::Define(d) => {
                let v = match &d.init {
                    Some(e) => Some(self.eval_as(e, d.var.dtype)?),
                    None => None,
                };
                self.frame().vars.insert(d.var.id(), v);
                Ok(Flow::Next)
            }
            Stmt::DefineTensor(d) => {
                let t = &d.tensor;
                // A view of existing memory: nothing allocated.
                if let Some(init) = &d.init {
                    let (buffer, base) = self.memory(init)?;
                    let view = self.view_at(t, buffer, base)?;
                    self.frame().tensors.insert(t.id(), view);
                    return Ok(Flow::Next);
                }
                let (dims, strides) = self.layout(t)?;
                let len = usize::try_from(extent(&dims, &strides)).unwrap_or(usize::MAX);
                let zero = Value::zero(t.elem);
                // Run again (in a loop): the same buffer, zeroed anew.
                let known = self.frame().tensors.get(&t.id()).map(|v| v.buffer);
                let buffer = match known {
                    Some(id) => {
                        // Emptied first, so the count stays right if the new size is refused.
                        self.live_elements -= self.buffers[id].len();
                        self.buffers[id].clear();
                        self.reserve(len)?;
                        self.buffers[id].resize(len, zero);
                        id
                    }
                    None => {
                        self.reserve(len)?;
                        self.buffers.push(vec![zero; len]);
                        self.buffers.len() - 1
                    }
                };
                let view = View {
                    buffer,
                    base: 0,
                    dims,
                    strides,
                };
                self.frame().tensors.insert(t.id(), view);
                Ok(Flow::Next)
            }
        }
    }

    /// The buffer and element offset that `tensor[index]` names.
    fn element(&mut self, tensor: &Expr, index: &[Expr]) -> Result<(usize, usize), EvalError> {
        let Expr::Tensor(t) = tensor else {
            return err("indexing something other than a tensor");
        };
        let view = self.view_of(t)?;
        if index.len() != view.dims.len() {
            return err(format!(
                "`{}` has {} dimensions, indexed with {}",
                t.name,
                view.dims.len(),
                index.len()
            ));
        }
        let mut offset: u64 = view.base;
        for (k, e) in index.iter().enumerate() {
            let i = self.eval_int(e)?;
            let i = u64::try_from(i)
                .ok()
                .filter(|&i| i < view.dims[k])
                .ok_or_else(|| {
                    EvalError(format!(
                        "index {i} out of bounds for dimension {k} of `{}` (size {})",
                        t.name, view.dims[k]
                    ))
                })?;
            // In bounds per dimension, so within the extent checked at definition.
            offset += i * view.strides[k];
        }
        let len = self.buffers[view.buffer].len();
        match usize::try_from(offset) {
            Ok(o) if o < len => Ok((view.buffer, o)),
            _ => err(format!(
                "offset {offset} outside `{}` ({len} elements)",
                t.name
            )),
        }
    }

    fn view_of(&mut self, t: &Node<Tensor>) -> Result<View, EvalError> {
        self.frame()
            .tensors
            .get(&t.id())
            .cloned()
            .ok_or_else(|| EvalError(format!("use of undefined tensor `{}`", t.name)))
    }

    fn eval_int(&mut self, e: &Expr) -> Result<i64, EvalError> {
        match self.eval(e)? {
            // An index beyond `i64::MAX` is out of every bound.
            Value::Int(v) if e.dtype() == DType::Index && v < 0 => Ok(i64::MAX),
            Value::Int(v) => Ok(v),
            _ => err(format!(
                "`{}` is not an integer",
                super::print::print_expr(e)
            )),
        }
    }

    fn eval_bool(&mut self, e: &Expr) -> Result<bool, EvalError> {
        match self.eval(e)? {
            Value::Bool(b) => Ok(b),
            _ => err(format!("`{}` is not a bool", super::print::print_expr(e))),
        }
    }

    /// `e` converted to `dtype`, as a definition or a loop bound takes it.
    fn eval_as(&mut self, e: &Expr, dtype: DType) -> Result<Value, EvalError> {
        let v = self.eval(e)?;
        v.convert(dtype)
            .ok_or_else(|| EvalError(format!("cannot convert to {dtype}")))
    }

    /// Evaluates an expression.
    fn eval(&mut self, e: &Expr) -> Result<Value, EvalError> {
        guarded(|| self.eval_inner(e))
    }

    fn eval_inner(&mut self, e: &Expr) -> Result<Value, EvalError> {
        macro_rules! arith {
            ($n:expr, $op:ty) => {{
                let (l, r) = (self.eval(&$n.l)?, self.eval(&$n.r)?);
                self.arith::<$op>(l, r, $n.dtype)
            }};
        }
        macro_rules! cmp {
            ($n:expr, $op:ty) => {{
                let dtype = $n.l.dtype();
                let (l, r) = (self.eval(&$n.l)?, self.eval(&$n.r)?);
                Ok(Value::Bool(match compare(l, r, dtype) {
                    Some(ord) => <$op>::holds(ord),
                    // NaN compares unordered: only `!=` holds.
                    None => <$op>::SYMBOL == "!=",
                }))
            }};
        }
        macro_rules! logic {
            ($n:expr, $op:ty) => {{
                let l = self.eval_bool(&$n.l)?;
                if l == <$op>::ABSORBING {
                    return Ok(Value::Bool(l));
                }
                Ok(Value::Bool(<$op>::eval(l, self.eval_bool(&$n.r)?)))
            }};
        }
        match e {
            Expr::Constant(c) => Ok(c.value),
            Expr::Var(v) => match self.frame().vars.get(&v.id()) {
                Some(Some(value)) => Ok(*value),
                Some(None) => err(format!("`{}` is read before it is assigned", v.name)),
                None => err(format!("use of undefined `{}`", v.name)),
            },
            Expr::Cast(c) => {
                let v = self.eval(&c.value)?;
                v.convert(c.dtype)
                    .ok_or_else(|| EvalError(format!("cannot cast to {}", c.dtype)))
            }
            Expr::Add(n) => arith!(n, AddOp),
            Expr::Sub(n) => arith!(n, SubOp),
            Expr::Mul(n) => arith!(n, MulOp),
            Expr::Div(n) => arith!(n, DivOp),
            Expr::Mod(n) => arith!(n, ModOp),
            Expr::Min(n) => arith!(n, MinOp),
            Expr::Max(n) => arith!(n, MaxOp),
            Expr::Eq(n) => cmp!(n, EqOp),
            Expr::Ne(n) => cmp!(n, NeOp),
            Expr::Lt(n) => cmp!(n, LtOp),
            Expr::Le(n) => cmp!(n, LeOp),
            Expr::Gt(n) => cmp!(n, GtOp),
            Expr::Ge(n) => cmp!(n, GeOp),
            Expr::And(n) => logic!(n, AndOp),
            Expr::Or(n) => logic!(n, OrOp),
            Expr::Not(n) => Ok(Value::Bool(!self.eval_bool(&n.value)?)),
            Expr::Select(s) => {
                if self.eval_bool(&s.cond)? {
                    self.eval(&s.then_value)
                } else {
                    self.eval(&s.else_value)
                }
            }
            Expr::Call(c) => {
                let module = self.module;
                let Some(callee) = module.get(&c.func) else {
                    return err(format!("call of unknown function `{}`", c.func));
                };
                let mut args = Vec::with_capacity(c.args.len());
                for a in &c.args {
                    args.push(match a {
                        Expr::Tensor(_) | Expr::TensorPtr(_) => {
                            let (buffer, base) = self.memory(a)?;
                            Bound::Memory { buffer, base }
                        }
                        _ => Bound::Scalar(self.eval(a)?),
                    });
                }
                match self.call(callee, args)? {
                    Some(v) => Ok(v),
                    None => err(format!("`{}` returned no value", c.func)),
                }
            }
            Expr::Intrinsic(c) => {
                let [arg] = c.args.as_slice() else {
                    return err(format!("`{}` takes one argument", c.intrin.name()));
                };
                let v = self.eval(arg)?;
                intrinsic(c.intrin, v, c.dtype)
            }
            Expr::Tensor(t) => err(format!(
                "tensor `{}` used as a value outside indexing or a call",
                t.name
            )),
            Expr::Indexing(i) => {
                let (id, offset) = self.element(&i.tensor, &i.index)?;
                Ok(self.buffers[id][offset])
            }
            Expr::TensorPtr(_) => err(
                "a tensor pointer used as a value: it is a call argument or a tensor's initializer",
            ),
        }
    }

    /// `l op r` at `dtype`, wrapping.
    fn arith<Op: ArithOp>(&self, l: Value, r: Value, dtype: DType) -> Result<Value, EvalError> {
        eval_arith::<Op>(l, r, dtype).ok_or_else(|| EvalError(format!("`{}` by zero", Op::SYMBOL)))
    }
}

/// Elements a layout spans: one past the largest offset (0 when a dim is 0).
fn extent(dims: &[u64], strides: &[u64]) -> u64 {
    if dims.contains(&0) {
        return 0;
    }
    dims.iter()
        .zip(strides)
        .try_fold(1u64, |acc, (&d, &s)| {
            acc.checked_add((d - 1).checked_mul(s)?)
        })
        .unwrap_or(u64::MAX)
}

fn intrinsic(intrin: Intrin, v: Value, dtype: DType) -> Result<Value, EvalError> {
    Ok(match (intrin, v) {
        (Intrin::Abs, Value::Int(i)) if dtype == DType::Index => Value::Int(i),
        (Intrin::Abs, Value::Int(i)) => Value::Int(dtype.wrap(i.wrapping_abs())),
        (Intrin::Abs, Value::Float(f)) => Value::Float(f.abs()),
        (Intrin::Sqrt, Value::Float(f)) => Value::Float(f.sqrt()),
        (Intrin::Exp, Value::Float(f)) => Value::Float(f.exp()),
        (Intrin::Log, Value::Float(f)) => Value::Float(f.ln()),
        (Intrin::Floor, Value::Float(f)) => Value::Float(f.floor()),
        (Intrin::Ceil, Value::Float(f)) => Value::Float(f.ceil()),
        (Intrin::Round, Value::Float(f)) => Value::Float(f.round()),
        (Intrin::Floor | Intrin::Ceil | Intrin::Round, v @ Value::Int(_)) => v,
        (i, v) => return err(format!("`{}` of {v:?}", i.name())),
    })
}

/// An argument as the callee receives it.
enum Bound {
    Scalar(Value),
    /// Memory from element `base` of a buffer on.
    Memory {
        buffer: usize,
        base: u64,
    },
}
