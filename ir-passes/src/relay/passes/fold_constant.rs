//! FoldConstant, as the Relay tutorial describes it: a `ConstantChecker`
//! visitor with a memo, and a `ConstantFolder` mutator that evaluates calls
//! of constants, propagates let-bound constants, folds projections of tuple
//! literals and picks the branch of an `if` with a constant condition.

use crate::relay::pattern::{PatternMutator, PatternVisitor};
use ir_core::driver::mutate_chain;

use ir_core::{Family, IdMap, MemoMap, Node, Transformed};

use super::effects::Effects;
use super::fold_budget::FoldBudget;
use super::rebind::rebuild_definition;
use crate::relay::expr::{
    Call, Constant, Expr, ExprMutator, ExprVisitor, If, Let, TupleGetItem, Var,
};
use crate::relay::infer::is_complete;
use crate::relay::ops::{
    Limits, MAX_WORK, OpValue, SHAPE_ONLY, STATEFUL, op, shape_only_value, value_type,
};
use crate::relay::tensor::Tensor;
use crate::relay::ty::{Type, TypeMutator, TypeVisitor};
use std::sync::Arc;

/// Whether an expression is constant: a `Constant`, or a `Tuple` of constants.
#[derive(Default)]
pub struct ConstantChecker {
    memo: IdMap<Expr, bool>,
}

impl ConstantChecker {
    /// `true` for a constant or a tuple of constants (memoized).
    pub fn check(&mut self, e: &Expr) -> bool {
        if let Some(&known) = self.memo.get(&e.id()) {
            return known;
        }
        self.visit_expr(e);
        self.memo.get(&e.id()).copied().unwrap_or(false)
    }
}

impl TypeVisitor for ConstantChecker {
    // Types hold no expressions, and are shared: walking each would cost
    // the depth of nested function types at every function.
    fn visit_type(&mut self, _: &Type) {}
}
impl PatternVisitor for ConstantChecker {}
impl ExprVisitor for ConstantChecker {
    fn visit_expr(&mut self, e: &Expr) {
        let constant = match e {
            Expr::Constant(_) => true,
            Expr::Tuple(t) => t.fields.iter().all(|f| self.check(f)),
            // A kind added by another crate that stands for a constant.
            Expr::Ext(x) => x.interface().constant().is_some(),
            _ => false,
        };
        self.memo.insert(e.id(), constant);
    }
}

/// What folding one call would cost.
enum Cost {
    /// The elements its result spans and the kernel's work, within the
    /// per-call bounds.
    Within(u64, u64),
    /// Its arguments, result or work pass the per-call bounds.
    OverBound,
    /// The call is ill-typed.
    Invalid,
}

/// Folds constant subexpressions (see the module docs).
pub struct ConstantFolder {
    memo: MemoMap<Expr>,
    checker: ConstantChecker,
    /// The largest result, in elements, a call is folded to.
    max_elements: u64,
    /// What replaces a let-bound variable at every use: the constant its
    /// value folded to, or its rebuilt definition.
    substitute: IdMap<Node<Var>, Expr>,
    /// Whether the other fields of a projected tuple literal may be dropped.
    effects: Effects,
    /// What folding may still spend in all, shared by the folders of one
    /// run over a module.
    budget: Arc<FoldBudget>,
    /// [`ConstantFolder::static_type`]'s answers, and their nodes kept alive.
    static_types: IdMap<Expr, Option<Type>>,
    /// [`ConstantFolder::value_size`]'s answers.
    value_sizes: IdMap<Expr, Option<(u64, u64)>>,
    /// The nodes both memos answered for, kept alive so that no address
    /// is reused while they live.
    answered: Vec<Expr>,
    /// Calls of constants left unfolded because their result would have
    /// more elements than `max_elements` or the budget allows.
    over_bound: usize,
}

impl Default for ConstantFolder {
    fn default() -> Self {
        ConstantFolder {
            memo: MemoMap::default(),
            checker: ConstantChecker::default(),
            max_elements: DEFAULT_MAX_ELEMENTS,
            substitute: IdMap::default(),
            // Without the module, any call of a function may write.
            effects: Effects::new(true),
            budget: Arc::new(FoldBudget::default()),
            static_types: IdMap::default(),
            value_sizes: IdMap::default(),
            answered: Vec::new(),
            over_bound: 0,
        }
    }
}

/// The largest tensor, in elements, folding materializes by default: a
/// call whose result would be larger (`multiply` of a `[100000, 1]` and a
/// `[1, 100000]` constant) stays a call.
pub const DEFAULT_MAX_ELEMENTS: u64 = 1 << 24;

/// The most tensors in a tuple argument of a folded call: past it the call
/// stays.
const MAX_TUPLE_LEAVES: u64 = 1 << 16;

/// The most elements in the arguments of a folded call (a kernel's inputs
/// are copied out of the program): past it the call stays.
const MAX_ARGUMENT_ELEMENTS: u64 = 1 << 26;

impl ConstantFolder {
    /// A folder that materializes no result above `max_elements` elements
    /// (default [`DEFAULT_MAX_ELEMENTS`]).
    pub fn with_max_elements(max_elements: u64) -> Self {
        ConstantFolder {
            max_elements,
            ..ConstantFolder::default()
        }
    }

    /// This folder, drawing what it materializes and computes from `budget`
    /// (shared with other folders of the same run), not from a default
    /// budget of its own.
    pub fn with_budget(mut self, budget: Arc<FoldBudget>) -> Self {
        self.budget = budget;
        self
    }

    /// Folds `e`.
    pub fn fold(&mut self, e: &Expr) -> Expr {
        self.mutate_expr(e).unwrap_or_clone(e)
    }

    /// How many calls of constants this folder left unfolded because their
    /// result would have had more elements than its bound, or than its
    /// budget had left (each counted once, however often it is shared).
    ///
    /// ```
    /// use ir_passes::relay::{parse_expr, passes::ConstantFolder};
    ///
    /// let e = parse_expr("add(zeros(shape=[4, 4], dtype=\"float32\"), 1f)").unwrap();
    /// let mut small = ConstantFolder::with_max_elements(8);
    /// let kept = small.fold(&e);
    /// assert!(kept.same_as(&e));
    /// assert_eq!(small.left_over_bound(), 1); // `zeros` would make 16 elements
    /// ```
    pub fn left_over_bound(&self) -> usize {
        self.over_bound
    }

    /// Whether a call of these constants failed only for its size.
    /// What folding a call of `def` on `args` would cost: the elements
    /// its result spans and the kernel's estimated work.
    fn cost(&self, def: &crate::relay::ops::OpDef, args: &[OpValue], c: &Call, bound: u64) -> Cost {
        use crate::relay::ops::extent_span;
        // Inference indexes its arguments: only a call of the right arity
        // gets that far.
        if args.len() != def.arity {
            return Cost::Invalid;
        }
        let types: Vec<Type> = args.iter().map(value_type).collect();
        let within = |t: &Type| extent_span(t).filter(|&n| n <= bound);
        if types.iter().any(|t| within(t).is_none()) {
            return Cost::OverBound;
        }
        let Ok(result) = (def.infer)(&types, &c.attrs) else {
            return Cost::Invalid;
        };
        match (within(&result), def.work(&types, &c.attrs, &result)) {
            (Some(elements), Some(work)) if work <= MAX_WORK => Cost::Within(elements, work),
            _ => Cost::OverBound,
        }
    }

    /// The value of a constant or a tuple of constants, if it has at most
    /// [`MAX_ARGUMENT_ELEMENTS`] elements and [`MAX_TUPLE_LEAVES`] tensors,
    /// counting shared parts each time they occur: a tuple that holds
    /// another twice, forty deep, is a small program and a value of 2^40
    /// tensors. The sizes are counted first, once per node.
    fn value(&mut self, e: &Expr) -> Option<OpValue> {
        let (elements, leaves) = self.value_size(e)?;
        if elements > MAX_ARGUMENT_ELEMENTS || leaves > MAX_TUPLE_LEAVES {
            return None;
        }
        self.build_value(e)
    }

    /// Elements and tensors of `e`'s value, saturating; `None` if it is not
    /// a constant or a tuple of constants.
    fn value_size(&mut self, e: &Expr) -> Option<(u64, u64)> {
        if let Some(size) = self.value_sizes.get(&e.id()) {
            return *size;
        }
        let size = ir_core::stack::guarded(|| match e {
            Expr::Constant(c) => Some((c.data.element_count() as u64, 1)),
            Expr::Ext(x) => x
                .interface()
                .constant()
                .map(|t| (t.element_count() as u64, 1)),
            Expr::Tuple(t) => t.fields.iter().try_fold((0u64, 0u64), |(n, k), f| {
                let (fn_, fk) = self.value_size(f)?;
                Some((n.saturating_add(fn_), k.saturating_add(fk)))
            }),
            _ => None,
        });
        self.value_sizes.insert(e.id(), size);
        self.answered.push(e.clone());
        size
    }

    fn build_value(&self, e: &Expr) -> Option<OpValue> {
        ir_core::stack::guarded(|| match e {
            Expr::Constant(c) => Some(OpValue::Tensor(c.data.clone())),
            Expr::Ext(x) => x.interface().constant().map(OpValue::Tensor),
            Expr::Tuple(t) => t
                .fields
                .iter()
                .map(|f| self.build_value(f))
                .collect::<Option<_>>()
                .map(OpValue::Tuple),
            _ => None,
        })
    }

    /// The type of `e` where it is known without inference: constants,
    /// annotated variables, and operator calls of such; remembered per
    /// node, as calls share arguments.
    fn static_type(&mut self, e: &Expr) -> Option<Type> {
        if let Some(t) = self.static_types.get(&e.id()) {
            return t.clone();
        }
        let t = ir_core::stack::guarded(|| match e {
            Expr::Constant(c) => Some(c.data.ty()),
            Expr::Var(v) => v.annotation.clone().filter(is_complete),
            Expr::Call(c) => {
                let def = op(&c.op.as_op()?.name)?;
                let args: Vec<Type> = c
                    .args
                    .iter()
                    .map(|a| self.static_type(a))
                    .collect::<Option<_>>()?;
                (def.infer)(&args, &c.attrs).ok().filter(is_complete)
            }
            Expr::Tuple(t) => t
                .fields
                .iter()
                .map(|f| self.static_type(f))
                .collect::<Option<_>>()
                .map(Type::tuple),
            _ => None,
        });
        self.static_types.insert(e.id(), t.clone());
        self.answered.push(e.clone());
        t
    }
}

fn to_expr(v: OpValue) -> Expr {
    match v {
        OpValue::Tensor(t) => Expr::constant(t),
        OpValue::Tuple(items) => Expr::tuple(items.into_iter().map(to_expr).collect()),
    }
}

impl TypeMutator for ConstantFolder {
    // Types hold no expressions, and are shared: rebuilding each would cost
    // the depth of nested function types at every function.
    fn mutate_type(&mut self, _: &Type) -> Transformed<Type> {
        Transformed::Keep
    }
}
impl PatternMutator for ConstantFolder {}
impl ExprMutator for ConstantFolder {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        ir_core::memoized(self, e, |pass| &mut pass.memo)
    }

    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.substitute.get(&v.id()).cloned().into()
    }

    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        // What a downstream dialect attached to the variable (`Var::ext`)
        // may name folded variables: a rebuilt variable (a let's, or a
        // parameter's) replaces the old one at every use.
        rebuild_definition(self, v, |pass| &mut pass.substitute)
    }

    fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
        mutate_chain(l, self, |pass, l| {
            let var = pass.mutate_var_def(&l.var).unwrap_or_clone(&l.var);
            let value = pass.mutate_expr(&l.value).unwrap_or_clone(&l.value);
            if pass.checker.check(&value) {
                // Substituted into every use: the binding goes.
                pass.substitute.insert(l.var.id(), value);
                return None;
            }
            Some(if value.same_as(&l.value) && var.same_as(&l.var) {
                Transformed::Keep
            } else {
                Transformed::Replace(Let {
                    var,
                    value,
                    ..(**l).clone()
                })
            })
        })
    }

    fn mutate_tuple_get_item(&mut self, g: &Node<TupleGetItem>) -> Transformed<Expr> {
        // A projection of a tuple literal is its field, constant or not (as
        // TVM does), unless dropping the other fields would drop a reference
        // write.
        let new = g.rebuild_fields(self);
        let g = new.as_ref_or(g);
        let Some(tuple) = g.tuple.as_tuple() else {
            return new.map(Expr::from);
        };
        let others_drop = tuple
            .fields
            .iter()
            .enumerate()
            .all(|(i, f)| i == g.index || !self.effects.of(f).writes);
        match tuple.fields.get(g.index) {
            Some(field) if others_drop => Transformed::Replace(field.clone()),
            _ => new.map(Expr::from),
        }
    }

    fn mutate_call(&mut self, c: &Node<Call>) -> Transformed<Expr> {
        // The new contents, allocated only if the call stays.
        let new = c.rebuild_fields(self);
        let c = new.as_ref_or(c);
        let Some(def) = c.op.as_op().and_then(|o| op(&o.name)) else {
            return new.map(Expr::from);
        };
        if STATEFUL.contains(&def.name) {
            return new.map(Expr::from);
        }
        if SHAPE_ONLY.contains(&def.name) {
            // The argument's value does not matter, only its static type.
            let folded = c
                .args
                .first()
                .and_then(|a| self.static_type(a))
                .and_then(|t| shape_only_value(def.name, &t, &c.attrs).ok());
            if let Some(v) = folded {
                return Transformed::Replace(to_expr(v));
            }
        }
        let bound = self.max_elements.min(self.budget.elements_left());
        // The arguments' values are copied out of the program before the
        // kernel sees them: that copy is bounded and paid for first.
        let mut copied = 0u64;
        for a in &c.args {
            match self.value_size(a) {
                Some((elements, _)) if elements <= bound => copied += elements,
                Some(_) => {
                    self.over_bound += 1;
                    return new.map(Expr::from);
                }
                None => return new.map(Expr::from),
            }
        }
        if !self.budget.try_take(0, copied) {
            self.over_bound += 1;
            return new.map(Expr::from);
        }
        let args: Option<Vec<OpValue>> = c.args.iter().map(|a| self.value(a)).collect();
        let Some(args) = args else {
            return new.map(Expr::from);
        };
        // Only a result whose size the types bound, within the limit, is
        // computed (the kernel allocates it whole), and only once the run
        // has paid for it and for the kernel's work.
        match self.cost(def, &args, c, bound) {
            Cost::Within(elements, work) if self.budget.try_take(elements, work) => {
                let limits = Limits {
                    max_elements: bound,
                    max_work: work,
                };
                match def.apply(&args, &c.attrs, limits) {
                    Ok((v, _)) => Transformed::Replace(to_expr(v)),
                    // The kernel refused (division by zero, a value its
                    // dtype cannot hold): the call stays, its cost paid.
                    Err(_) => new.map(Expr::from),
                }
            }
            Cost::Within(..) | Cost::OverBound => {
                self.over_bound += 1;
                new.map(Expr::from)
            }
            Cost::Invalid => new.map(Expr::from),
        }
    }

    fn mutate_if(&mut self, i: &Node<If>) -> Transformed<Expr> {
        let new = i.rebuild_fields(self);
        let i = new.as_ref_or(i);
        if let Some(Constant {
            data: Tensor::Bool(b),
            ..
        }) = i.cond.as_constant().map(|c| &**c)
            && b.len() == 1
        {
            let taken = if b.iter().next() == Some(&true) {
                &i.then_branch
            } else {
                &i.else_branch
            };
            return Transformed::Replace(taken.clone());
        }
        new.map(Expr::from)
    }
}

/// Folds constants in `e` (a fresh folder).
pub fn fold_constant(e: &Expr) -> Expr {
    ConstantFolder::default().fold(e)
}
