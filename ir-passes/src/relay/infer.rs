//! Type inference: a type for every expression, from annotations, constants
//! and the operators' rules. Forward only: an unannotated parameter has an
//! incomplete type, and what depends on it stays incomplete (never wrong).

use ir_core::stack::guarded;
use ir_core::structural::structural_eq;
use ir_core::{Family, IdMap, Node};
use rustc_hash::FxHashMap;

use super::expr::{Expr, Function, Span, Var};
use super::module::RelayModule;
use super::ops::op;
use super::printer::print_type;
use super::ty::{Dim, FuncType, Type};

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
            Type::TensorType(_) => true,
            Type::IncompleteType(_) => false,
            Type::TupleType(_) | Type::FuncType(_) => {
                if let Some(&complete) = self.memo.get(&t.id()) {
                    return complete;
                }
                let complete = match t {
                    Type::TupleType(tuple) => tuple.fields.iter().all(|f| self.check(f)),
                    Type::FuncType(f) => {
                        f.params.iter().all(|p| self.check(p)) && self.check(&f.ret)
                    }
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
    a.same_as(b) || structural_eq(a, b)
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
            params: params?,
            ret,
        }
        .into(),
    )
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
            (Some(a), Some(t))
                if self.complete.check(a) && self.complete.check(&t) && !same_type(a, &t) =>
            {
                return err(
                    span,
                    format!(
                        "%{} is annotated {} but bound to a value of type {}",
                        v.name,
                        print_type(a),
                        print_type(&t)
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
            Some(r)
                if self.complete.check(r) && self.complete.check(&body) && !same_type(r, &body) =>
            {
                return err(
                    span,
                    format!(
                        "the function returns {} but its body has type {}",
                        print_type(r),
                        print_type(&body)
                    ),
                );
            }
            Some(r) if self.complete.check(r) => r.clone(),
            _ => body,
        };
        Ok(FuncType { params, ret }.into())
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
            Expr::Constant(c) => Type::tensor(
                c.data
                    .shape()
                    .iter()
                    .map(|&d| Dim::Known(d as i64))
                    .collect(),
                c.data.dtype(),
            ),
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
                            print_type(&other)
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
                        Type::FuncType(f) => {
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
                            for (i, (p, a)) in f.params.iter().zip(&args).enumerate() {
                                if self.complete.check(p)
                                    && self.complete.check(a)
                                    && !same_type(p, a)
                                {
                                    return err(
                                        span,
                                        format!(
                                            "argument {i} has type {}, expected {}",
                                            print_type(a),
                                            print_type(p)
                                        ),
                                    );
                                }
                            }
                            f.ret.clone()
                        }
                        Type::IncompleteType(_) => Type::incomplete(),
                        other => {
                            return err(
                                span,
                                format!("calling a value of type {}", print_type(&other)),
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
                            print_type(&cond)
                        ),
                    );
                }
                let (a, b) = (self.expr(&i.then_branch)?, self.expr(&i.else_branch)?);
                if self.complete.check(&a) && self.complete.check(&b) && !same_type(&a, &b) {
                    return err(
                        span,
                        format!(
                            "the branches of if differ: {} and {}",
                            print_type(&a),
                            print_type(&b)
                        ),
                    );
                }
                if self.complete.check(&a) { a } else { b }
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
