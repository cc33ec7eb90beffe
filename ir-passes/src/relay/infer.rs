//! Type inference: a type for every expression, from annotations, constants
//! and the operators' rules. Forward only: an unannotated parameter has an
//! incomplete type, and what depends on it stays incomplete (never wrong).

use ir_core::stack::guarded;
use ir_core::structural::structural_eq;
use ir_core::{Family, Id, IdMap, Node};
use rustc_hash::FxHashMap;

use super::exhaustive::exhaustive;
use super::expr::{Constructor, Expr, Function, Span, Var};
use super::module::RelayModule;
use super::ops::op;
use super::pattern::Pattern;
use super::printer::print_type_brief;
use super::ty::{FuncType, Type};

/// A type error with the position of the offending node.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeError {
    /// Where (0:0 for nodes made by passes).
    pub span: Span,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for TypeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.span.line, self.span.col, self.message)
    }
}

impl std::error::Error for TypeError {}

/// The inferred type of every expression and variable of a function, by node identity.
#[derive(Default)]
pub struct TypeMap {
    /// Types of expressions other than variables.
    types: IdMap<Expr, Type>,
    /// Types of variables (an `Expr::Var` is recorded and looked up here too).
    var_types: IdMap<Node<Var>, Type>,
    /// Keeps the typed nodes alive, so an address is never reused while the map lives.
    keep: Vec<Expr>,
}

impl TypeMap {
    /// The type of an expression, if inferred.
    pub fn of(&self, e: &Expr) -> Option<&Type> {
        match e {
            Expr::Var(v) => self.of_var(v),
            _ => self.types.get(&e.id()),
        }
    }

    /// The type of a variable.
    pub fn of_var(&self, v: &Node<Var>) -> Option<&Type> {
        self.var_types.get(&v.id())
    }
}

/// `true` when the type has no incomplete part and no unknown dimension is required.
/// Each distinct type node is looked at once, so a type shared in many
/// places (types are DAGs) costs its size, not the number of its paths.
pub fn is_complete(t: &Type) -> bool {
    CompleteTypes::default().check(t)
}

/// [`is_complete`] with a memory kept between calls: each distinct type
/// node is looked at once across them, so that checking the types of nested
/// functions or tuples, each holding the next, costs time linear in the
/// types, not in their depth at every level.
#[derive(Default)]
pub struct CompleteTypes {
    memo: IdMap<Type, bool>,
    /// Keeps the checked nodes alive, so an address is never reused while the memo lives.
    keep: Vec<Type>,
}

impl CompleteTypes {
    /// Whether `t` has no incomplete part, remembered per node.
    pub fn check(&mut self, t: &Type) -> bool {
        guarded(|| match t {
            Type::TensorType(_) | Type::TypeVar(_) => true,
            Type::IncompleteType(_) => false,
            Type::TupleType(_) | Type::FuncType(_) | Type::TypeCall(_) | Type::RefType(_) => {
                if let Some(&complete) = self.memo.get(&t.id()) {
                    return complete;
                }
                let complete = match t {
                    Type::TupleType(tuple) => tuple.fields.iter().all(|f| self.check(f)),
                    Type::FuncType(f) => {
                        f.params.iter().all(|p| self.check(p)) && self.check(&f.ret)
                    }
                    Type::TypeCall(c) => c.args.iter().all(|a| self.check(a)),
                    Type::RefType(r) => self.check(&r.value),
                    _ => unreachable!("matched above"),
                };
                self.memo.insert(t.id(), complete);
                self.keep.push(t.clone());
                complete
            }
        })
    }
}

/// Structural equality of types, at once for one node (types are shared:
/// comparing a type with itself must not walk it).
fn same_type(a: &Type, b: &Type) -> bool {
    if a.same_as(b) || structural_eq(a, b) {
        return true;
    }
    // A generic function (`@id`, a constructor) where a concrete function
    // is expected: equal if it instantiates to it.
    let (generic, concrete) = match (is_generic(a), is_generic(b)) {
        (true, false) => (a, b),
        (false, true) => (b, a),
        _ => return false,
    };
    instantiate_against(generic, concrete).is_ok_and(|t| structural_eq(&t, concrete))
}

/// Infers the types in one function of `module`; returns them and the function's type.
pub fn infer_function(
    module: &RelayModule,
    f: &Node<Function>,
) -> Result<(TypeMap, Type), TypeError> {
    let mut cx = Infer {
        module,
        map: TypeMap::default(),
        globals: FxHashMap::default(),
        complete: CompleteTypes::default(),
        differ_memo: FxHashMap::default(),
        differ_keep: Vec::new(),
    };
    let t = cx.function(f, Span::default())?;
    Ok((cx.map, t))
}

/// Checks every function of a module.
pub fn check_module(module: &RelayModule) -> Result<(), String> {
    for (name, f) in module.functions() {
        infer_function(module, f).map_err(|e| format!("in @{name}: {e}"))?;
    }
    Ok(())
}

struct Infer<'m> {
    module: &'m RelayModule,
    map: TypeMap,
    globals: FxHashMap<String, Type>,
    complete: CompleteTypes,
    /// [`Infer::differ`]'s answers by pair of type nodes: types share
    /// parts, and comparing them as trees takes time exponential in the
    /// sharing. The nodes are kept alive, so an address is never reused.
    differ_memo: FxHashMap<(Id<Type>, Id<Type>), bool>,
    differ_keep: Vec<Type>,
}

impl Infer<'_> {
    /// Whether `a` and `b` cannot be one type: they differ where both are
    /// known. An incomplete part stands for any type, so `(int32, _)` and
    /// `int32` differ though neither is complete, and `(int32, _)` and
    /// `(int32, bool)` do not.
    fn differ(&mut self, a: &Type, b: &Type) -> bool {
        if a.same_as(b) {
            return false;
        }
        if self.complete.check(a) && self.complete.check(b) {
            return !same_type(a, b);
        }
        let key = (a.id(), b.id());
        if let Some(&answer) = self.differ_memo.get(&key) {
            return answer;
        }
        let answer = self.differ_uncached(a, b);
        self.differ_memo.insert(key, answer);
        self.differ_keep.extend([a.clone(), b.clone()]);
        answer
    }

    fn differ_uncached(&mut self, a: &Type, b: &Type) -> bool {
        guarded(|| match (a, b) {
            (Type::IncompleteType(_), _) | (_, Type::IncompleteType(_)) => false,
            (Type::TupleType(x), Type::TupleType(y)) => self.differ_pairwise(&x.fields, &y.fields),
            // A generic function may instantiate to the other: only
            // complete types are compared against one (`same_type`).
            (Type::FuncType(x), Type::FuncType(y))
                if !x.type_params.is_empty() || !y.type_params.is_empty() =>
            {
                false
            }
            (Type::FuncType(x), Type::FuncType(y)) => {
                self.differ_pairwise(&x.params, &y.params) || self.differ(&x.ret, &y.ret)
            }
            (Type::TypeCall(x), Type::TypeCall(y)) => {
                x.name != y.name || self.differ_pairwise(&x.args, &y.args)
            }
            (Type::RefType(x), Type::RefType(y)) => self.differ(&x.value, &y.value),
            // Of different kinds: no filling in makes them one.
            _ => true,
        })
    }

    /// [`Infer::differ`] on lists: of different lengths, or differing at
    /// some position.
    fn differ_pairwise(&mut self, a: &[Type], b: &[Type]) -> bool {
        a.len() != b.len() || a.iter().zip(b).any(|(p, q)| self.differ(p, q))
    }
}

fn err<T>(span: Span, message: impl Into<String>) -> Result<T, TypeError> {
    Err(TypeError {
        span,
        message: message.into(),
    })
}

fn span_of(e: &Expr) -> Span {
    match e {
        Expr::Constant(n) => n.span,
        Expr::Var(n) => n.span,
        Expr::GlobalVar(n) => n.span,
        Expr::Op(n) => n.span,
        Expr::Tuple(n) => n.span,
        Expr::TupleGetItem(n) => n.span,
        Expr::Function(n) => n.span,
        Expr::Call(n) => n.span,
        Expr::Let(n) => n.span,
        Expr::If(n) => n.span,
        Expr::Constructor(n) => n.span,
        Expr::Match(n) => n.span,
        Expr::RefCreate(n) => n.span,
        Expr::RefRead(n) => n.span,
        Expr::RefWrite(n) => n.span,
        Expr::Ext(_) => Span::default(),
    }
}

/// The signature type from annotations, if complete.
fn signature(f: &Function) -> Option<Type> {
    let params: Option<Vec<Type>> = f
        .params
        .iter()
        .map(|p| p.annotation.clone().filter(is_complete))
        .collect();
    let ret = f.ret_type.clone().filter(is_complete)?;
    Some(
        FuncType {
            type_params: f.type_params.clone(),
            params: params?,
            ret,
        }
        .into(),
    )
}

/// A constructor's type: generic over its type definition's parameters,
/// `fn [A](A, List[A]) -> List[A]`.
fn constructor_type(c: &Constructor) -> Type {
    let def = &c.adt;
    FuncType {
        type_params: def.params.clone(),
        params: def.constructors[c.tag].inputs.clone(),
        ret: def.self_type(),
    }
    .into()
}

/// Binds the type parameters `params` where `formal` mentions them, from
/// what `actual` has in the same place (an incomplete part binds nothing;
/// a mismatch is left for the comparison after substitution).
fn bind_params(
    formal: &Type,
    actual: &Type,
    params: &[String],
    subst: &mut FxHashMap<String, Type>,
) -> Result<(), String> {
    guarded(|| {
        match (formal, actual) {
            (_, Type::IncompleteType(_)) => {}
            (Type::TypeVar(v), _) if params.contains(&v.name) => match subst.get(&v.name) {
                Some(bound)
                    if is_complete(bound) && is_complete(actual) && !same_type(bound, actual) =>
                {
                    return Err(format!(
                        "type parameter {} is both {} and {}",
                        v.name,
                        print_type_brief(bound),
                        print_type_brief(actual)
                    ));
                }
                Some(bound) if is_complete(bound) => {}
                _ => {
                    subst.insert(v.name.clone(), actual.clone());
                }
            },
            (Type::TupleType(f), Type::TupleType(a)) if f.fields.len() == a.fields.len() => {
                for (f, a) in f.fields.iter().zip(&a.fields) {
                    bind_params(f, a, params, subst)?;
                }
            }
            (Type::FuncType(f), Type::FuncType(a)) if f.params.len() == a.params.len() => {
                for (f, a) in f.params.iter().zip(&a.params) {
                    bind_params(f, a, params, subst)?;
                }
                bind_params(&f.ret, &a.ret, params, subst)?;
            }
            (Type::TypeCall(f), Type::TypeCall(a))
                if f.name == a.name && f.args.len() == a.args.len() =>
            {
                for (f, a) in f.args.iter().zip(&a.args) {
                    bind_params(f, a, params, subst)?;
                }
            }
            (Type::RefType(f), Type::RefType(a)) => bind_params(&f.value, &a.value, params, subst)?,
            _ => {}
        }
        Ok(())
    })
}

fn is_generic(t: &Type) -> bool {
    matches!(t, Type::FuncType(f) if !f.type_params.is_empty())
}

/// A generic function type made concrete where `expected` says what it must
/// be: `fn [A](A, List[A]) -> List[A]` against `fn (int32, List[int32]) -> _`
/// is `fn (int32, List[int32]) -> List[int32]`. Other types are returned as
/// they are.
fn instantiate_against(t: &Type, expected: &Type) -> Result<Type, String> {
    let Type::FuncType(f) = t else {
        return Ok(t.clone());
    };
    if f.type_params.is_empty() {
        return Ok(t.clone());
    }
    let plain: Type = FuncType {
        type_params: Vec::new(),
        params: f.params.clone(),
        ret: f.ret.clone(),
    }
    .into();
    let mut subst = FxHashMap::default();
    bind_params(&plain, expected, &f.type_params, &mut subst)?;
    Ok(substitute(&plain, &f.type_params, &subst))
}

/// `t` with the type parameters `params` replaced by their bindings, and
/// by `_` where unbound.
fn substitute(t: &Type, params: &[String], subst: &FxHashMap<String, Type>) -> Type {
    Substitution {
        params,
        subst,
        memo: IdMap::default(),
    }
    .apply(t)
}

/// A substitution of type parameters, remembered per type node: types
/// share parts, and substituting them as trees would take time exponential
/// in the sharing. A part without the parameters is kept as it is.
struct Substitution<'a> {
    params: &'a [String],
    subst: &'a FxHashMap<String, Type>,
    memo: IdMap<Type, Type>,
}

impl Substitution<'_> {
    fn apply(&mut self, t: &Type) -> Type {
        match t {
            Type::TypeVar(v) if self.params.contains(&v.name) => {
                return self
                    .subst
                    .get(&v.name)
                    .cloned()
                    .unwrap_or_else(Type::incomplete);
            }
            Type::TensorType(_) | Type::IncompleteType(_) | Type::TypeVar(_) => return t.clone(),
            _ => {}
        }
        if let Some(done) = self.memo.get(&t.id()) {
            return done.clone();
        }
        let out = guarded(|| {
            let list = |this: &mut Self, items: &[Type]| -> Option<Vec<Type>> {
                let new: Vec<Type> = items.iter().map(|x| this.apply(x)).collect();
                (!new.iter().zip(items).all(|(a, b)| a.same_as(b))).then_some(new)
            };
            match t {
                Type::TupleType(tuple) => list(self, &tuple.fields).map(Type::tuple),
                Type::FuncType(f) => {
                    let params = list(self, &f.params);
                    let ret = self.apply(&f.ret);
                    (params.is_some() || !ret.same_as(&f.ret)).then(|| {
                        FuncType {
                            type_params: f.type_params.clone(),
                            params: params.unwrap_or_else(|| f.params.clone()),
                            ret,
                        }
                        .into()
                    })
                }
                Type::TypeCall(c) => list(self, &c.args).map(|args| Type::call(&c.name, args)),
                Type::RefType(r) => {
                    let value = self.apply(&r.value);
                    (!value.same_as(&r.value)).then(|| Type::reference(value))
                }
                _ => None,
            }
            .unwrap_or_else(|| t.clone())
        });
        self.memo.insert(t.id(), out.clone());
        out
    }
}

impl Infer<'_> {
    fn record(&mut self, e: &Expr, t: Type) -> Type {
        match e {
            Expr::Var(v) => self.map.var_types.insert(v.id(), t.clone()),
            _ => self.map.types.insert(e.id(), t.clone()),
        };
        self.map.keep.push(e.clone());
        t
    }

    fn record_var(&mut self, v: &Node<Var>, t: Type) {
        self.map.var_types.insert(v.id(), t.clone());
        self.map.keep.push(v.clone().into());
    }

    fn declare(&mut self, v: &Node<Var>, value: Option<Type>, span: Span) -> Result<(), TypeError> {
        let t = match (&v.annotation, value) {
            (Some(a), Some(t)) if self.differ(a, &t) => {
                return err(
                    span,
                    format!(
                        "%{} is annotated {} but bound to a value of type {}",
                        v.name,
                        print_type_brief(a),
                        print_type_brief(&t)
                    ),
                );
            }
            (Some(a), _) if self.complete.check(a) => a.clone(),
            (_, Some(t)) => t,
            (Some(a), None) => a.clone(),
            (None, None) => Type::incomplete(),
        };
        self.record_var(v, t);
        Ok(())
    }

    fn function(&mut self, f: &Node<Function>, span: Span) -> Result<Type, TypeError> {
        let mut params = Vec::with_capacity(f.params.len());
        for p in &f.params {
            self.declare(p, None, span)?;
            params.push(p.annotation.clone().unwrap_or_else(Type::incomplete));
        }
        let body = self.expr(&f.body)?;
        let ret = match &f.ret_type {
            Some(r) if self.differ(r, &body) => {
                return err(
                    span,
                    format!(
                        "the function returns {} but its body has type {}",
                        print_type_brief(r),
                        print_type_brief(&body)
                    ),
                );
            }
            Some(r) if self.complete.check(r) => r.clone(),
            _ => body,
        };
        Ok(FuncType {
            type_params: f.type_params.clone(),
            params,
            ret,
        }
        .into())
    }

    /// Types the variables of pattern `p` matched against a value of type `t`.
    fn bind_pattern(&mut self, p: &Pattern, t: &Type, span: Span) -> Result<(), TypeError> {
        guarded(|| {
            let fields: Vec<Type> = match (p, t) {
                (Pattern::PatternWildcard(_), _) => return Ok(()),
                (Pattern::PatternVar(v), _) => return self.declare(&v.var, Some(t.clone()), span),
                (Pattern::PatternConstructor(c), Type::TypeCall(call))
                    if call.name == c.constructor.adt.name =>
                {
                    let def = &c.constructor.adt;
                    let subst: FxHashMap<String, Type> = def
                        .params
                        .iter()
                        .cloned()
                        .zip(call.args.iter().cloned())
                        .collect();
                    def.constructors[c.constructor.tag]
                        .inputs
                        .iter()
                        .map(|i| substitute(i, &def.params, &subst))
                        .collect()
                }
                (Pattern::PatternTuple(tp), Type::TupleType(tt))
                    if tp.patterns.len() == tt.fields.len() =>
                {
                    tt.fields.clone()
                }
                (Pattern::PatternConstructor(c), Type::IncompleteType(_)) => {
                    vec![Type::incomplete(); c.patterns.len()]
                }
                (Pattern::PatternTuple(tp), Type::IncompleteType(_)) => {
                    vec![Type::incomplete(); tp.patterns.len()]
                }
                _ => {
                    let mut text = String::new();
                    let what = match p {
                        Pattern::PatternConstructor(c) => {
                            text.push_str(&c.constructor.name);
                            &text
                        }
                        _ => "a tuple pattern",
                    };
                    return err(
                        span,
                        format!(
                            "{what} cannot match a value of type {}",
                            print_type_brief(t)
                        ),
                    );
                }
            };
            let subs = match p {
                Pattern::PatternConstructor(c) => &c.patterns,
                Pattern::PatternTuple(t) => &t.patterns,
                _ => return Ok(()),
            };
            for (sub, field) in subs.iter().zip(&fields) {
                self.bind_pattern(sub, field, span)?;
            }
            Ok(())
        })
    }

    /// The result type of calling a function of type `f` on `args`: a
    /// generic function's parameters are bound from the arguments first.
    fn apply(&mut self, f: &FuncType, args: &[Type], span: Span) -> Result<Type, TypeError> {
        if f.params.len() != args.len() {
            return err(
                span,
                format!(
                    "the function takes {} arguments, given {}",
                    f.params.len(),
                    args.len()
                ),
            );
        }
        let generic = !f.type_params.is_empty();
        let mut subst = FxHashMap::default();
        if generic {
            // A generic argument (a constructor, a generic global) is
            // instantiated below, against what the others made of its parameter.
            for (p, a) in f.params.iter().zip(args).filter(|(_, a)| !is_generic(a)) {
                bind_params(p, a, &f.type_params, &mut subst).or_else(|m| err(span, m))?;
            }
        }
        let instance = |t: &Type| {
            if generic {
                substitute(t, &f.type_params, &subst)
            } else {
                t.clone()
            }
        };
        for (i, (p, a)) in f.params.iter().zip(args).enumerate() {
            let p = instance(p);
            let a = &instantiate_against(a, &p).or_else(|m| err(span, m))?;
            if self.differ(&p, a) {
                return err(
                    span,
                    format!(
                        "argument {i} has type {}, expected {}",
                        print_type_brief(a),
                        print_type_brief(&p)
                    ),
                );
            }
        }
        Ok(instance(&f.ret))
    }

    fn expr(&mut self, e: &Expr) -> Result<Type, TypeError> {
        guarded(|| {
            if let Some(t) = self.map.of(e) {
                return Ok(t.clone());
            }
            let t = self.expr_uncached(e)?;
            Ok(self.record(e, t))
        })
    }

    fn expr_uncached(&mut self, e: &Expr) -> Result<Type, TypeError> {
        let span = span_of(e);
        Ok(match e {
            // A kind added by another crate types itself, or cannot be typed.
            Expr::Ext(x) => match x.interface().ty() {
                Some(t) => t,
                None => {
                    return err(
                        span,
                        format!("cannot infer the type of a `{}` node", x.kind_name()),
                    );
                }
            },
            Expr::Constant(c) => c.data.ty(),
            Expr::Var(v) => match self.map.of_var(v) {
                Some(t) => t.clone(),
                // A free variable: its annotation, or unknown.
                None => v.annotation.clone().unwrap_or_else(Type::incomplete),
            },
            Expr::GlobalVar(g) => self.global(&g.name, span)?,
            Expr::Op(o) => {
                if op(&o.name).is_none() {
                    return err(span, format!("unknown operator `{}`", o.name));
                }
                Type::incomplete()
            }
            Expr::Tuple(t) => {
                let fields = t
                    .fields
                    .iter()
                    .map(|f| self.expr(f))
                    .collect::<Result<_, _>>()?;
                Type::tuple(fields)
            }
            Expr::TupleGetItem(g) => match self.expr(&g.tuple)? {
                Type::TupleType(t) => match t.fields.get(g.index) {
                    Some(f) => f.clone(),
                    None => {
                        return err(
                            span,
                            format!("index {} of a {}-tuple", g.index, t.fields.len()),
                        );
                    }
                },
                Type::IncompleteType(_) => Type::incomplete(),
                other => {
                    return err(
                        span,
                        format!(
                            "projection .{} of a non-tuple of type {}",
                            g.index,
                            print_type_brief(&other)
                        ),
                    );
                }
            },
            Expr::Function(f) => self.function(f, span)?,
            Expr::Call(c) => {
                let args: Vec<Type> = c
                    .args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<_, _>>()?;
                match &c.op {
                    Expr::Op(o) => {
                        let Some(def) = op(&o.name) else {
                            return err(span, format!("unknown operator `{}`", o.name));
                        };
                        if args.len() != def.arity {
                            return err(
                                span,
                                format!(
                                    "`{}` takes {} arguments, given {}",
                                    o.name,
                                    def.arity,
                                    args.len()
                                ),
                            );
                        }
                        if !args.iter().all(|a| self.complete.check(a)) {
                            Type::incomplete()
                        } else {
                            (def.infer)(&args, &c.attrs)
                                .or_else(|m| err(span, format!("{}: {m}", o.name)))?
                        }
                    }
                    callee => match self.expr(callee)? {
                        Type::FuncType(f) => self.apply(&f, &args, span)?,
                        Type::IncompleteType(_) => Type::incomplete(),
                        other => {
                            return err(
                                span,
                                format!("calling a value of type {}", print_type_brief(&other)),
                            );
                        }
                    },
                }
            }
            Expr::Let(_) => {
                let mut e = e.clone();
                let mut chain = Vec::new();
                while let Expr::Let(l) = &e {
                    // A recursive function is visible in its own body with its signature.
                    let pre = match &l.value {
                        Expr::Function(f) => signature(f),
                        _ => None,
                    };
                    if let Some(sig) = pre {
                        self.declare(&l.var, Some(sig), l.span)?;
                    }
                    let value = self.expr(&l.value)?;
                    self.declare(&l.var, Some(value), l.span)?;
                    chain.push(e.clone());
                    e = l.body.clone();
                }
                let t = self.expr(&e)?;
                for link in chain.iter().skip(1) {
                    self.record(link, t.clone());
                }
                t
            }
            Expr::If(i) => {
                let cond = self.expr(&i.cond)?;
                if let Type::TensorType(c) = &cond
                    && (!c.shape.is_empty() || c.dtype != super::dtype::DType::BOOL)
                {
                    return err(
                        span,
                        format!(
                            "the condition of if must be a scalar bool, found {}",
                            print_type_brief(&cond)
                        ),
                    );
                }
                let (a, b) = (self.expr(&i.then_branch)?, self.expr(&i.else_branch)?);
                if self.differ(&a, &b) {
                    return err(
                        span,
                        format!(
                            "the branches of if differ: {} and {}",
                            print_type_brief(&a),
                            print_type_brief(&b)
                        ),
                    );
                }
                if self.complete.check(&a) { a } else { b }
            }
            Expr::Constructor(c) => constructor_type(c),
            Expr::RefCreate(r) => Type::reference(self.expr(&r.value)?),
            Expr::RefRead(r) => match self.expr(&r.reference)? {
                Type::RefType(t) => t.value.clone(),
                Type::IncompleteType(_) => Type::incomplete(),
                other => {
                    return err(
                        span,
                        format!(
                            "ref_read of a non-reference of type {}",
                            print_type_brief(&other)
                        ),
                    );
                }
            },
            Expr::RefWrite(w) => {
                let value = self.expr(&w.value)?;
                match self.expr(&w.reference)? {
                    Type::RefType(t) if self.differ(&t.value, &value) => {
                        return err(
                            span,
                            format!(
                                "ref_write of a value of type {} into a ref({})",
                                print_type_brief(&value),
                                print_type_brief(&t.value)
                            ),
                        );
                    }
                    Type::RefType(_) | Type::IncompleteType(_) => {}
                    other => {
                        return err(
                            span,
                            format!(
                                "ref_write to a non-reference of type {}",
                                print_type_brief(&other)
                            ),
                        );
                    }
                }
                Type::tuple(Vec::new())
            }
            Expr::Match(m) => {
                let data = self.expr(&m.data)?;
                let mut result: Option<Type> = None;
                for c in &m.clauses {
                    self.bind_pattern(&c.lhs, &data, span)?;
                    let t = self.expr(&c.rhs)?;
                    match &result {
                        Some(r) if self.differ(r, &t) => {
                            return err(
                                span,
                                format!(
                                    "the clauses of match differ: {} and {}",
                                    print_type_brief(r),
                                    print_type_brief(&t)
                                ),
                            );
                        }
                        Some(r) if self.complete.check(r) => {}
                        _ => result = Some(t),
                    }
                }
                if m.complete {
                    match exhaustive(m.clauses.iter().map(|c| &c.lhs)) {
                        Some(true) => {}
                        Some(false) => {
                            return err(
                                span,
                                "match is not exhaustive: some values match no clause \
                                 (`match?` allows that)",
                            );
                        }
                        None => {
                            return err(span, "match is too complex to check for exhaustiveness");
                        }
                    }
                }
                result.unwrap_or_else(Type::incomplete)
            }
        })
    }

    fn global(&mut self, name: &str, span: Span) -> Result<Type, TypeError> {
        if let Some(t) = self.globals.get(name) {
            return Ok(t.clone());
        }
        let Some(f) = self.module.get(name) else {
            return err(span, format!("unknown global @{name}"));
        };
        // The signature if annotated; otherwise incomplete (no inference across globals).
        let t = signature(f).unwrap_or_else(Type::incomplete);
        self.globals.insert(name.to_owned(), t.clone());
        Ok(t)
    }
}
