//! A reference interpreter: evaluates `@main` (or any expression) on given
//! inputs. It is the oracle the pass tests compare against.

use std::sync::{Arc, Mutex};

use ir_core::stack::guarded;
use ir_core::{Family, Id, IdMap, Node};

use super::expr::{Constructor, Expr, Function, Var};
use super::free_vars::free_vars_of_functions;
use super::module::RelayModule;
use super::ops::{Limits, MAX_WORK, OpValue, op};
use super::pattern::Pattern;
use super::tensor::Tensor;

/// The largest tensor, in elements, an operator may make when interpreted:
/// past it, evaluation stops with an error instead of allocating.
pub const MAX_ELEMENTS: u64 = 1 << 24;

/// The most tensors in one operator argument (a tuple) the interpreter
/// passes to a kernel.
pub const MAX_ARGUMENT_TENSORS: u64 = 1 << 16;

/// The deepest [`run_main`] nests calls of functions: past it, a call is
/// an error instead of growing the stack until memory runs out (a
/// recursion that never ends). Above the million levels of the depth tests
/// (functions applied in function bodies); each level takes about 5 KB, so
/// the bound is about 10 GB. [`run_main_limited`] takes another bound.
pub const MAX_CALL_DEPTH: usize = 1 << 21;

/// A runtime value. Values nest as deep as the program makes them (a tuple
/// in a tuple a million times): dropping one is a loop, and cloning,
/// comparing and printing one grow the stack as they go.
pub enum Value {
    /// A tensor: shared, so that a variable used a thousand times holds
    /// its data once (make one with [`Value::tensor`]).
    Tensor(Arc<Tensor>),
    /// A tuple: shared, so that a value bound once and used many times
    /// (a let-bound tuple, a parameter) is not copied at each use.
    Tuple(Arc<Vec<Value>>),
    /// A function with the values of its free variables.
    Closure(Closure),
    /// An operator, callable.
    Op(String),
    /// A constructor, callable: it makes an [`Value::Adt`].
    Constructor(Node<Constructor>),
    /// A value of an algebraic data type: its constructor and fields.
    Adt(Arc<AdtValue>),
    /// A reference cell (`ref(v)`): shared by every copy of the value.
    Ref(Arc<Mutex<Value>>),
}

/// The constructor and fields of a [`Value::Adt`].
#[derive(Debug, Clone)]
pub struct AdtValue {
    /// The constructor that made it.
    pub constructor: Node<Constructor>,
    /// Its fields.
    pub fields: Vec<Value>,
}

impl AdtValue {
    /// The constructor's name.
    pub fn name(&self) -> &str {
        &self.constructor.name
    }
}

impl PartialEq for AdtValue {
    fn eq(&self, other: &Self) -> bool {
        same_constructor(&self.constructor, &other.constructor) && self.fields == other.fields
    }
}

/// Constructors by definition and tag (each use is a node of its own).
fn same_constructor(a: &Constructor, b: &Constructor) -> bool {
    a.tag == b.tag && a.adt.name == b.adt.name
}

/// A function value.
#[derive(Debug, Clone)]
pub struct Closure {
    func: Node<Function>,
    /// Shared: a closure used many times keeps one list of its captures.
    captured: Arc<Vec<(Node<Var>, Value)>>,
    /// The let variable naming this closure inside its own body (recursion).
    recursive: Option<Node<Var>>,
}

impl Value {
    /// A tuple of `items`.
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Arc::new(items))
    }

    /// A tensor value.
    ///
    /// ```
    /// use ir_passes::relay::{Tensor, Value};
    ///
    /// let two = Value::tensor(Tensor::scalar_f32(2.0));
    /// assert_eq!(two.as_tensor(), Some(&Tensor::scalar_f32(2.0)));
    /// ```
    pub fn tensor(t: Tensor) -> Value {
        Value::Tensor(Arc::new(t))
    }

    /// The tensor, if the value is one.
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Value {
        Value::tensor(t)
    }
}

impl PartialEq for Value {
    /// Tensors and tuples by value; functions by identity of their code.
    fn eq(&self, other: &Self) -> bool {
        guarded(|| match (self, other) {
            (Value::Tensor(a), Value::Tensor(b)) => a == b,
            (Value::Tuple(a), Value::Tuple(b)) => a == b,
            (Value::Closure(a), Value::Closure(b)) => a.func.same_as(&b.func),
            (Value::Op(a), Value::Op(b)) => a == b,
            (Value::Constructor(a), Value::Constructor(b)) => same_constructor(a, b),
            (Value::Adt(a), Value::Adt(b)) => a == b,
            (Value::Ref(a), Value::Ref(b)) => Arc::ptr_eq(a, b),
            _ => false,
        })
    }
}

impl Clone for Value {
    fn clone(&self) -> Self {
        guarded(|| match self {
            Value::Tensor(t) => Value::Tensor(Arc::clone(t)),
            Value::Tuple(items) => Value::Tuple(Arc::clone(items)),
            Value::Closure(c) => Value::Closure(c.clone()),
            Value::Op(name) => Value::Op(name.clone()),
            Value::Constructor(c) => Value::Constructor(c.clone()),
            Value::Adt(a) => Value::Adt(Arc::clone(a)),
            Value::Ref(r) => Value::Ref(Arc::clone(r)),
        })
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        guarded(|| match self {
            Value::Tensor(t) => f.debug_tuple("Tensor").field(t).finish(),
            Value::Tuple(items) => f.debug_tuple("Tuple").field(items).finish(),
            Value::Closure(c) => f.debug_tuple("Closure").field(c).finish(),
            Value::Op(name) => f.debug_tuple("Op").field(name).finish(),
            Value::Constructor(c) => f.debug_tuple("Constructor").field(&c.name).finish(),
            Value::Adt(a) => f.debug_tuple(a.name()).field(&a.fields).finish(),
            Value::Ref(r) => match r.try_lock() {
                Ok(v) => f.debug_tuple("Ref").field(&*v).finish(),
                Err(_) => f.write_str("Ref(..)"),
            },
        })
    }
}

impl Drop for Value {
    /// Takes the values this one holds out before it goes, and drops them
    /// from a list, so that no drop recurses into the next.
    fn drop(&mut self) {
        let mut pending = Vec::new();
        self.give_up_parts(&mut pending);
        while let Some(mut value) = pending.pop() {
            value.give_up_parts(&mut pending);
        }
    }
}

impl Value {
    /// Moves the values this one alone holds into `out`.
    fn give_up_parts(&mut self, out: &mut Vec<Value>) {
        match self {
            Value::Tuple(items) => {
                if let Some(items) = Arc::get_mut(items) {
                    out.append(items);
                }
            }
            Value::Adt(adt) => {
                if let Some(adt) = Arc::get_mut(adt) {
                    out.append(&mut adt.fields);
                }
            }
            Value::Ref(cell) => {
                if let Some(cell) = Arc::get_mut(cell)
                    && let Ok(v) = cell.get_mut()
                {
                    out.push(std::mem::replace(v, Value::tuple(Vec::new())));
                }
            }
            Value::Closure(c) => {
                if let Some(captured) = Arc::get_mut(&mut c.captured) {
                    out.extend(captured.drain(..).map(|(_, v)| v));
                }
            }
            _ => {}
        }
    }

    /// The value as an operator argument, copied out, if it holds at most
    /// [`MAX_ELEMENTS`] elements in at most [`MAX_ARGUMENT_TENSORS`]
    /// tensors, counting shared parts each time: a tuple holding one
    /// tensor a thousand times, or another tuple twice forty deep, is sized
    /// before anything is copied.
    fn to_op_value(&self) -> Result<OpValue, String> {
        let (mut elements, mut tensors) = (0u64, 0u64);
        self.size_within(&mut elements, &mut tensors)?;
        self.copy_op_value()
    }

    fn size_within(&self, elements: &mut u64, tensors: &mut u64) -> Result<(), String> {
        guarded(|| match self {
            Value::Tensor(t) => {
                *tensors += 1;
                *elements = elements.saturating_add(t.element_count() as u64);
                if *elements > MAX_ELEMENTS || *tensors > MAX_ARGUMENT_TENSORS {
                    return Err(format!(
                        "an operator argument holds more than {MAX_ELEMENTS} elements or \
                         {MAX_ARGUMENT_TENSORS} tensors"
                    ));
                }
                Ok(())
            }
            Value::Tuple(items) => items
                .iter()
                .try_for_each(|v| v.size_within(elements, tensors)),
            _ => Err("an operator argument must be a tensor or a tuple of tensors".into()),
        })
    }

    fn copy_op_value(&self) -> Result<OpValue, String> {
        guarded(|| match self {
            Value::Tensor(t) => Ok(OpValue::Tensor(Tensor::clone(t))),
            Value::Tuple(items) => items
                .iter()
                .map(Value::copy_op_value)
                .collect::<Result<_, _>>()
                .map(OpValue::Tuple),
            _ => Err("an operator argument must be a tensor or a tuple of tensors".into()),
        })
    }

    fn from_op_value(v: OpValue) -> Value {
        match v {
            OpValue::Tensor(t) => Value::tensor(t),
            OpValue::Tuple(items) => {
                Value::tuple(items.into_iter().map(Value::from_op_value).collect())
            }
        }
    }
}

/// Runs `@main` of `module` on `inputs`.
pub fn run_main(module: &RelayModule, inputs: &[Value]) -> Result<Value, String> {
    run_main_limited(module, inputs, MAX_CALL_DEPTH)
}

/// [`run_main`] with calls nested at most `max_call_depth` deep.
///
/// ```
/// use ir_passes::relay::{Tensor, Value, parse_module, run_main_limited};
///
/// let m = parse_module(
///     "#[version = \"0.0.5\"]\ndef @main(%n: int) -> int {\n  \
///      let %f = fn (%i: int) -> int { %f(%i + 1) };\n  %f(%n)\n}",
/// )
/// .unwrap();
/// let err = run_main_limited(&m, &[Value::tensor(Tensor::scalar_i32(0))], 100).unwrap_err();
/// assert!(err.contains("calls nest deeper than 100"));
/// ```
pub fn run_main_limited(
    module: &RelayModule,
    inputs: &[Value],
    max_call_depth: usize,
) -> Result<Value, String> {
    let main = module.get("main").ok_or("the module has no @main")?;
    let mut interp = Interpreter::new(module);
    interp.max_depth = max_call_depth;
    interp.call_function(
        &Closure {
            func: main.clone(),
            captured: Arc::default(),
            recursive: None,
        },
        inputs.to_vec(),
    )
}

/// Evaluates a closed expression (free variables must be given in `bindings`).
pub fn eval_expr(e: &Expr, bindings: &[(Node<Var>, Value)]) -> Result<Value, String> {
    let empty = RelayModule::new();
    let mut interp = Interpreter::new(&empty);
    for (v, value) in bindings {
        interp.env.insert(v.id(), value.clone());
    }
    interp.eval(e)
}

/// Whether `value` fits `pattern`; the values its variables bind go to `out`.
fn matches_pattern(pattern: &Pattern, value: &Value, out: &mut Vec<(Node<Var>, Value)>) -> bool {
    // A worklist: patterns and values nest as deep as the input.
    let mut work = vec![(pattern, value)];
    while let Some((p, v)) = work.pop() {
        match (p, v) {
            (Pattern::PatternWildcard(_), _) => {}
            (Pattern::PatternVar(pv), _) => out.push((pv.var.clone(), v.clone())),
            (Pattern::PatternConstructor(pc), Value::Adt(adt))
                if same_constructor(&pc.constructor, &adt.constructor)
                    && pc.patterns.len() == adt.fields.len() =>
            {
                work.extend(pc.patterns.iter().zip(&adt.fields));
            }
            (Pattern::PatternTuple(pt), Value::Tuple(items))
                if pt.patterns.len() == items.len() =>
            {
                work.extend(pt.patterns.iter().zip(items.iter()));
            }
            _ => return false,
        }
    }
    true
}

/// A variable bound anew and the value the binding hid.
type Hidden = (Id<Node<Var>>, Option<Value>);

struct Interpreter<'m> {
    module: &'m RelayModule,
    env: IdMap<Node<Var>, Value>,
    /// Values of shared nodes, per function invocation.
    cache: Vec<IdMap<Expr, Value>>,
    /// Let bindings made by each invocation, with the values they hid, so a
    /// recursive call cannot clobber its caller's let-bound variables.
    let_log: Vec<Vec<Hidden>>,
    free_vars: IdMap<Node<Function>, Vec<Node<Var>>>,
    /// Calls of functions under way, and how many may be.
    depth: usize,
    max_depth: usize,
}

impl<'m> Interpreter<'m> {
    fn new(module: &'m RelayModule) -> Self {
        Interpreter {
            module,
            env: IdMap::default(),
            cache: vec![IdMap::default()],
            let_log: vec![Vec::new()],
            free_vars: IdMap::default(),
            depth: 0,
            max_depth: MAX_CALL_DEPTH,
        }
    }

    fn eval(&mut self, e: &Expr) -> Result<Value, String> {
        guarded(|| {
            let shared = e.strong_count() > 1;
            if let Some(v) = self
                .cache
                .last()
                .and_then(|c| c.get(&e.id()))
                .filter(|_| shared)
            {
                return Ok(v.clone());
            }
            let v = self.eval_uncached(e)?;
            if let Some(c) = self.cache.last_mut().filter(|_| shared) {
                c.insert(e.id(), v.clone());
            }
            Ok(v)
        })
    }

    fn eval_uncached(&mut self, e: &Expr) -> Result<Value, String> {
        match e {
            Expr::Constant(c) => Ok(Value::tensor(c.data.clone())),
            // A kind added by another crate evaluates if it stands for a constant.
            Expr::Ext(x) => x
                .interface()
                .constant()
                .map(Value::tensor)
                .ok_or_else(|| format!("cannot evaluate a `{}` node", x.kind_name())),
            Expr::Var(v) => self
                .env
                .get(&v.id())
                .cloned()
                .ok_or_else(|| format!("unbound variable %{}", v.name)),
            Expr::GlobalVar(g) => {
                let f = self
                    .module
                    .get(&g.name)
                    .ok_or_else(|| format!("unknown global @{}", g.name))?;
                Ok(Value::Closure(Closure {
                    func: f.clone(),
                    captured: Arc::default(),
                    recursive: None,
                }))
            }
            Expr::Op(o) => Ok(Value::Op(o.name.clone())),
            Expr::Tuple(t) => t
                .fields
                .iter()
                .map(|f| self.eval(f))
                .collect::<Result<_, _>>()
                .map(Value::tuple),
            Expr::TupleGetItem(g) => match &self.eval(&g.tuple)? {
                Value::Tuple(items) if g.index < items.len() => Ok(items[g.index].clone()),
                Value::Tuple(items) => Err(format!("index {} of a {}-tuple", g.index, items.len())),
                _ => Err("projection of a non-tuple".into()),
            },
            Expr::Function(f) => Ok(Value::Closure(self.close(f, None))),
            Expr::Call(c) => {
                let callee = self.eval(&c.op)?;
                let args = c
                    .args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<_>, _>>()?;
                match &callee {
                    Value::Op(name) => {
                        let def = op(name).ok_or_else(|| format!("unknown operator `{name}`"))?;
                        let args = args
                            .iter()
                            .map(Value::to_op_value)
                            .collect::<Result<Vec<_>, _>>()?;
                        let limits = Limits {
                            max_elements: MAX_ELEMENTS,
                            max_work: MAX_WORK,
                        };
                        def.apply(&args, &c.attrs, limits)
                            .map(|(v, _)| Value::from_op_value(v))
                            .map_err(|m| format!("{name}: {m}"))
                    }
                    Value::Closure(closure) => self.call_function(closure, args),
                    Value::Constructor(c) => {
                        let arity = c.adt.constructors[c.tag].inputs.len();
                        if args.len() != arity {
                            return Err(format!(
                                "`{}` takes {arity} fields, given {}",
                                c.name,
                                args.len()
                            ));
                        }
                        Ok(Value::Adt(Arc::new(AdtValue {
                            constructor: c.clone(),
                            fields: args,
                        })))
                    }
                    _ => Err("calling a value that is not a function".into()),
                }
            }
            Expr::Let(_) => {
                // A let chain is a loop, not recursion.
                let mut e = e.clone();
                while let Expr::Let(l) = &e {
                    let value = match &l.value {
                        Expr::Function(f) => Value::Closure(self.close(f, Some(l.var.clone()))),
                        other => self.eval(other)?,
                    };
                    let hidden = self.env.insert(l.var.id(), value);
                    if let Some(log) = self.let_log.last_mut() {
                        log.push((l.var.id(), hidden));
                    }
                    e = l.body.clone();
                }
                self.eval(&e)
            }
            Expr::If(i) => match self.eval(&i.cond)?.as_tensor() {
                Some(Tensor::Bool(b)) if b.len() == 1 => {
                    let taken = if b.iter().next() == Some(&true) {
                        &i.then_branch
                    } else {
                        &i.else_branch
                    };
                    self.eval(taken)
                }
                _ => Err("the condition of if must be a scalar bool".into()),
            },
            Expr::Constructor(c) => Ok(Value::Constructor(c.clone())),
            Expr::RefCreate(r) => Ok(Value::Ref(Arc::new(Mutex::new(self.eval(&r.value)?)))),
            Expr::RefRead(r) => match &self.eval(&r.reference)? {
                Value::Ref(cell) => cell
                    .lock()
                    .map(|v| v.clone())
                    .map_err(|_| "a reference was poisoned".to_string()),
                _ => Err("ref_read of a value that is not a reference".into()),
            },
            Expr::RefWrite(w) => {
                let reference = self.eval(&w.reference)?;
                let value = self.eval(&w.value)?;
                let Value::Ref(cell) = &reference else {
                    return Err("ref_write to a value that is not a reference".into());
                };
                let mut slot = cell
                    .lock()
                    .map_err(|_| "a reference was poisoned".to_string())?;
                // The old value is dropped after the lock is released.
                let old = std::mem::replace(&mut *slot, value);
                drop(slot);
                drop(old);
                Ok(Value::tuple(Vec::new()))
            }
            Expr::Match(m) => {
                let data = self.eval(&m.data)?;
                for clause in &m.clauses {
                    let mut bound = Vec::new();
                    if matches_pattern(&clause.lhs, &data, &mut bound) {
                        for (var, value) in bound {
                            let hidden = self.env.insert(var.id(), value);
                            if let Some(log) = self.let_log.last_mut() {
                                log.push((var.id(), hidden));
                            }
                        }
                        return self.eval(&clause.rhs);
                    }
                }
                Err("no clause of the match fits the value".into())
            }
        }
    }

    fn close(&mut self, f: &Node<Function>, recursive: Option<Node<Var>>) -> Closure {
        if !self.free_vars.contains_key(&f.id()) {
            // Every function nested in `f` at once: closing them one by one
            // would walk `n` nested functions `n` times.
            self.free_vars.extend(free_vars_of_functions(f));
        }
        let free = self.free_vars.get(&f.id()).cloned().unwrap_or_default();
        let captured: Vec<_> = free
            .into_iter()
            .filter(|v| recursive.as_ref().is_none_or(|r| !r.same_as(v)))
            .filter_map(|v| self.env.get(&v.id()).cloned().map(|value| (v, value)))
            .collect();
        Closure {
            func: f.clone(),
            captured: Arc::new(captured),
            recursive,
        }
    }

    fn call_function(&mut self, closure: &Closure, args: Vec<Value>) -> Result<Value, String> {
        let f = &closure.func;
        if args.len() != f.params.len() {
            return Err(format!(
                "function takes {} arguments, given {}",
                f.params.len(),
                args.len()
            ));
        }
        if self.depth >= self.max_depth {
            return Err(format!(
                "calls nest deeper than {} (a recursion that does not end?)",
                self.max_depth
            ));
        }
        let mut bindings: Vec<(Id<Node<Var>>, Value)> = closure
            .captured
            .iter()
            .map(|(v, val)| (v.id(), val.clone()))
            .collect();
        if let Some(r) = &closure.recursive {
            bindings.push((r.id(), Value::Closure(closure.clone())));
        }
        bindings.extend(f.params.iter().map(|p| p.id()).zip(args));
        let saved: Vec<Hidden> = bindings
            .into_iter()
            .map(|(k, v)| (k, self.env.insert(k, v)))
            .collect();
        self.cache.push(IdMap::default());
        self.let_log.push(Vec::new());
        self.depth += 1;
        let result = self.eval(&f.body);
        self.depth -= 1;
        self.cache.pop();
        for (k, old) in self.let_log.pop().unwrap_or_default().into_iter().rev() {
            match old {
                Some(v) => self.env.insert(k, v),
                None => self.env.remove(&k),
            };
        }
        for (k, old) in saved.into_iter().rev() {
            match old {
                Some(v) => self.env.insert(k, v),
                None => self.env.remove(&k),
            };
        }
        result
    }
}
