//! Constant folding, the full version of the oneDNN Graph Compiler's
//! `constant_folder_t`: constants are evaluated, constants move to the right
//! of commutative operators and combine across them (`((1 + a) + 2)` becomes
//! `(a + 3)`), algebraic identities apply (`x * 1`, `x + 0`, `x * 0`,
//! `x - x`), comparisons and logic fold, `if` with a constant condition keeps
//! one branch, and loops of zero or one iteration disappear.
//!
//! As oneDNN's non-fast folder does, the outermost binary, comparison or
//! logic node of an expression first puts its integer chains in canonical
//! order (`canonical.rs`: flattened, sorted, constants summed, `+x`/`-x`
//! cancelled), then folds, and repeats until neither changes anything.
//!
//! With the non-fast folder's range analysis (`ranges.rs`), a loop variable
//! and a variable that holds one value (`bindings.rs`) have ranges that fold
//! what they decide: in `for i in (0, 10, 1)`, `(i < 100)` is `true` and
//! `(i % 10)` is `i`. A loop whose bounds differ by a known amount through
//! such variables (`for i in (n, m, 1)` after `m = (n + 1)`) has a known trip
//! count (oneDNN's `loop_len_hint`).
//!
//! The folder is a copy-on-write mutator that overrides the category hooks:
//! one `mutate_binary` for the seven arithmetic kinds. It returns the very
//! same node when nothing folds.

use std::cmp::Ordering;

use ir_core::structural::structural_eq;
use ir_core::{IdMap, Node, Transformed};

use crate::tensor_ir::build::{boolean, constant_of, stmts};
use crate::tensor_ir::dtype::{DType, Value};
use crate::tensor_ir::expr::{
    Arith, Binary, Cast, Cmp, Expr, ExprMutator, ExprVisitor, Logic, Select, Var,
};
use crate::tensor_ir::ops::{AddOp, ArithOp, MaxOp, MinOp, MulOp, RelOp, compare, eval_arith};
use crate::tensor_ir::passes::bindings::Bindings;
use crate::tensor_ir::passes::canonical::{Canonicalizer, Operand};
use crate::tensor_ir::passes::ranges::{Info, Range, RangeFolder};
use crate::tensor_ir::passes::trip_count::{single_iteration, trip_count_with};
use crate::tensor_ir::stmt::{Assign, Define, ForLoop, IfElse, Stmt, StmtMutator, Stmts};

/// The constant folder. `fold` and `fold_stmt` return the input itself
/// (same handles) when nothing folds. `fold_stmt` first finds the variables
/// that hold one value; the mutator hooks called directly fold without
/// their ranges.
///
/// ```
/// use ir_passes::tensor_ir::{ConstantFolder, parse_expr};
///
/// let e = parse_expr("((2 + a) + ((b + a) - (((a + b) - 10) - (a - b))))").unwrap();
/// assert_eq!(ConstantFolder::new().fold(&e).to_string(), "(((a - b) + a) + 12)");
/// ```
#[derive(Default)]
pub struct ConstantFolder {
    /// How many binary, comparison or logic nodes enclose the one being
    /// folded: the outermost one canonicalizes its whole expression.
    nesting: u32,
    /// The loop depth of each enclosing loop's variable (outermost 1).
    loop_depth: IdMap<Node<Var>, u32>,
    /// Scratch space for the operands of the chains being canonicalized.
    operands: Vec<Operand>,
    /// The variables of the statement being folded that hold one value.
    bindings: Bindings,
    /// The known ranges of variables in scope.
    ranges: IdMap<Node<Var>, Range>,
    /// Scratch space for the ranges of the operands being folded.
    infos: Vec<Info>,
}

impl std::fmt::Debug for ConstantFolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ConstantFolder")
    }
}

impl ConstantFolder {
    /// A folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds the outermost binary-like expression `e` as oneDNN's
    /// `fold_binary` does: canonicalize the chains, fold one level (`step`,
    /// its operands folded first), and repeat until nothing changes. Nested
    /// ones only fold.
    fn fold_outermost(
        &mut self,
        e: &Expr,
        step: impl Fn(&mut Self, &Expr) -> Transformed<Expr>,
    ) -> Transformed<Expr> {
        if self.nesting > 0 {
            self.nesting += 1;
            let out = step(self, e);
            self.nesting -= 1;
            return out;
        }
        self.nesting = 1;
        let mut current = e.clone();
        for _ in 0..100 {
            let canonical =
                match Canonicalizer::new(&self.loop_depth, &mut self.operands).run(&current) {
                    Transformed::Replace(c) => carry_attrs(&current, c),
                    Transformed::Keep => current.clone(),
                };
            let next = step(self, &canonical).unwrap_or(canonical);
            let next = match RangeFolder::new(&self.ranges, &mut self.infos).run(&next).0 {
                Transformed::Replace(r) => carry_attrs(&next, r),
                Transformed::Keep => next,
            };
            if next.same_as(&current) {
                break;
            }
            current = next;
        }
        self.nesting = 0;
        if current.same_as(e) {
            Transformed::Keep
        } else {
            Transformed::Replace(current)
        }
    }

    /// Folds an expression.
    pub fn fold(&mut self, e: &Expr) -> Expr {
        self.mutate_expr(e).unwrap_or_clone(e)
    }

    /// Folds every expression and statement in a statement.
    ///
    /// Folding can remove the assignment or read that kept a variable from
    /// holding one value (in a branch or loop it proved dead); the folder
    /// then runs again with the variables it found, as oneDNN's repeats
    /// while a variable's value changed, so a folded statement folds to
    /// itself. A chain of such discoveries longer than [`Self::MAX_ROUNDS`]
    /// stops there (the result is correct, only less folded), which keeps
    /// folding linear.
    pub fn fold_stmt(&mut self, s: &Stmt) -> Stmt {
        let mut bindings = Bindings::of(s);
        let mut current = s.clone();
        for _ in 0..Self::MAX_ROUNDS {
            self.bindings = bindings;
            let out = self.mutate_stmt(&current);
            self.ranges.clear();
            let Transformed::Replace(out) = out else {
                break;
            };
            current = out;
            bindings = Bindings::of(&current);
            if !bindings.gained_over(&self.bindings) {
                break;
            }
        }
        self.bindings = Bindings::default();
        current
    }

    /// The most times [`Self::fold_stmt`] folds a statement again.
    pub const MAX_ROUNDS: usize = 8;

    /// The range of the folded expression `e` with the ranges in scope.
    fn range_of(&mut self, e: &Expr) -> Option<Range> {
        RangeFolder::new(&self.ranges, &mut self.infos).run(e).1
    }

    /// A folded loop bound: a variable with one known value becomes it.
    fn bound(&mut self, e: &Expr) -> Transformed<Expr> {
        let folded = self.mutate_expr(e);
        if let Expr::Var(v) = folded.as_ref_or(e)
            && let Some(c) = self.ranges.get(&v.id()).and_then(|r| r.constant(v.dtype))
        {
            return Transformed::Replace(c);
        }
        folded
    }

    /// Records the range of the stable variable `v` holding `value`.
    fn record(&mut self, v: &Node<Var>, value: &Expr) {
        // A value of another type is converted (definition) or stored as
        // its bits (assignment): its range is not the variable's.
        if self.bindings.is_stable(v)
            && value.dtype() == v.dtype
            && let Some(range) = self.range_of(value)
        {
            self.ranges.insert(v.id(), range);
        }
    }
}

/// Applies `rule` to the node rebuilt from its folded children, repeating
/// while it rewrites the node (each step makes the expression smaller or
/// moves constants right, so this ends).
fn settle(
    rebuilt: Transformed<Expr>,
    original: impl FnOnce() -> Expr,
    rule: fn(&Expr) -> Option<Expr>,
) -> Transformed<Expr> {
    let mut current = match &rebuilt {
        Transformed::Replace(e) => e.clone(),
        Transformed::Keep => original(),
    };
    let mut changed = rebuilt.is_replace();
    if let Some(next) = rule(&current) {
        current = carry_attrs(&current, settled(next, rule));
        changed = true;
    }
    if changed {
        Transformed::Replace(current)
    } else {
        Transformed::Keep
    }
}

impl ExprMutator for ConstantFolder {
    // A tensor is one node at its definition and every use: rebuilding it
    // at a use would make a second tensor. Shapes are left as written.
    fn mutate_tensor(&mut self, _: &Node<crate::tensor_ir::Tensor>) -> Transformed<Expr> {
        Transformed::Keep
    }

    fn mutate_tensor_def(
        &mut self,
        _: &Node<crate::tensor_ir::Tensor>,
    ) -> Transformed<Node<crate::tensor_ir::Tensor>> {
        Transformed::Keep
    }

    fn mutate_binary(&mut self, b: Binary<'_>) -> Transformed<Expr> {
        self.fold_outermost(&b.to_family(), |this, e| match e.as_binary() {
            Some(b) => settle(b.rebuild(this), || e.clone(), fold_binary),
            None => this.mutate_expr(e),
        })
    }

    fn mutate_cmp(&mut self, c: Cmp<'_>) -> Transformed<Expr> {
        self.fold_outermost(&c.to_family(), |this, e| match e.as_cmp() {
            Some(c) => settle(c.rebuild(this), || e.clone(), fold_cmp),
            None => this.mutate_expr(e),
        })
    }

    fn mutate_logic(&mut self, l: Logic<'_>) -> Transformed<Expr> {
        self.fold_outermost(&l.to_family(), |this, e| match e.as_logic() {
            Some(l) => settle(l.rebuild(this), || e.clone(), fold_logic),
            None => this.mutate_expr(e),
        })
    }

    fn mutate_select(&mut self, s: &Node<Select>) -> Transformed<Expr> {
        let rebuilt: Transformed<Expr> = s.rebuild(self).into();
        settle(rebuilt, || Expr::Select(s.clone()), fold_select)
    }

    fn mutate_cast(&mut self, c: &Node<Cast>) -> Transformed<Expr> {
        let rebuilt: Transformed<Expr> = c.rebuild(self).into();
        settle(rebuilt, || Expr::Cast(c.clone()), fold_cast)
    }
}

impl StmtMutator for ConstantFolder {
    fn mutate_if_else(&mut self, s: &Node<IfElse>) -> Transformed<Stmt> {
        let cond = self.mutate_expr(&s.cond).unwrap_or_clone(&s.cond);
        match s.taken(&cond) {
            Some(branch) => Transformed::Replace(self.mutate_stmt(&branch).unwrap_or(branch)),
            None => s.rebuild(self).into(),
        }
    }

    fn mutate_for_loop(&mut self, l: &Node<ForLoop>) -> Transformed<Stmt> {
        let begin = self.bound(&l.begin);
        let end = self.bound(&l.end);
        let step = self.bound(&l.step);
        let (b, e, st) = (
            begin.as_ref_or(&l.begin),
            end.as_ref_or(&l.end),
            step.as_ref_or(&l.step),
        );
        // In the body, a variable the body never assigns lies between the
        // first and the last value it takes.
        let dtype = l.var.dtype;
        let range = if self.bindings.is_stable(&l.var) && b.dtype() == dtype && e.dtype() == dtype {
            let step = st.as_value().and_then(|v| Range::of_value(v, dtype));
            match (
                self.range_of(b),
                self.range_of(e),
                step.and_then(Range::single),
            ) {
                (Some(b), Some(e), Some(s)) => Range::of_loop(b, e, s, dtype),
                _ => None,
            }
        } else {
            None
        };
        // Canonical order sorts operands of deeper loops after the others.
        let depth = self.loop_depth.len() as u32 + 1;
        self.loop_depth.insert(l.var.id(), depth);
        if let Some(range) = range {
            self.ranges.insert(l.var.id(), range);
        }
        let body = self.mutate_stmt(&l.body);
        self.ranges.remove(&l.var.id());
        self.loop_depth.remove(&l.var.id());
        let changed =
            begin.is_replace() || end.is_replace() || step.is_replace() || body.is_replace();
        let lp = if changed {
            Node::new(ForLoop {
                var: l.var.clone(),
                begin: begin.unwrap_or_clone(&l.begin),
                end: end.unwrap_or_clone(&l.end),
                step: step.unwrap_or_clone(&l.step),
                body: body.unwrap_or_clone(&l.body),
                kind: l.kind,
                attrs: l.attrs.clone(),
            })
        } else {
            l.clone()
        };
        match trip_count_with(&lp, &self.bindings) {
            Some(0) => Transformed::Replace(stmts(Vec::new())),
            Some(1) => {
                let body = single_iteration(&lp);
                Transformed::Replace(self.mutate_stmt(&body).unwrap_or(body))
            }
            _ if changed => Transformed::Replace(Stmt::ForLoop(lp)),
            _ => Transformed::Keep,
        }
    }

    fn mutate_define(&mut self, d: &Node<Define>) -> Transformed<Stmt> {
        let out: Transformed<Stmt> = d.rebuild(self).into();
        let init = match &out {
            Transformed::Replace(Stmt::Define(n)) => n.init.clone(),
            _ => d.init.clone(),
        };
        if let Some(init) = init {
            self.record(&d.var, &init);
        }
        out
    }

    fn mutate_assign(&mut self, a: &Node<Assign>) -> Transformed<Stmt> {
        let out: Transformed<Stmt> = a.rebuild(self).into();
        if let Expr::Var(v) = &a.lhs {
            let rhs = match &out {
                Transformed::Replace(Stmt::Assign(n)) => n.rhs.clone(),
                _ => a.rhs.clone(),
            };
            self.record(v, &rhs);
        }
        out
    }

    fn mutate_stmts(&mut self, s: &Node<Stmts>) -> Transformed<Stmt> {
        // Blocks left empty by folding disappear from their enclosing block.
        let rebuilt: Transformed<Stmt> = s.rebuild(self).into();
        let Transformed::Replace(Stmt::Stmts(new)) = &rebuilt else {
            return rebuilt;
        };
        if new.seq.iter().any(Stmt::is_empty_block) {
            let seq = new
                .seq
                .iter()
                .filter(|s| !s.is_empty_block())
                .cloned()
                .collect();
            let mut kept = (**new).clone();
            kept.seq = seq;
            return Transformed::Replace(kept.into());
        }
        rebuilt
    }
}

/// `new`, which a rewrite built in place of `original`, with `original`'s
/// attributes merged in (oneDNN's `copy_attr`). A node the rewrite took
/// from inside `original` (`x` for `x + 0`) is shared with it, and keeps its
/// own attributes.
fn carry_attrs(original: &Expr, mut new: Expr) -> Expr {
    if !original.attrs().is_empty() && new.is_unique() {
        let merged = new.attrs().merged(original.attrs());
        *new.attrs_mut() = merged;
    }
    new
}

/// `e` rewritten by `rule` until it no longer applies (each step makes the
/// expression smaller or moves constants right; the bound only guards
/// against a rule pair that would undo each other).
fn settled(mut e: Expr, rule: fn(&Expr) -> Option<Expr>) -> Expr {
    for _ in 0..64 {
        match rule(&e) {
            Some(next) => e = next,
            None => break,
        }
    }
    e
}

fn int_const(v: i64, dtype: DType) -> Expr {
    constant_of(Value::Int(dtype.wrap(v)), dtype)
}

/// Free of calls: evaluating it twice or not at all changes nothing.
pub(crate) fn is_pure(e: &Expr) -> bool {
    struct FindCall;
    impl ExprVisitor<std::ops::ControlFlow<()>> for FindCall {
        fn visit_call(&mut self, _: &Node<crate::tensor_ir::Call>) -> std::ops::ControlFlow<()> {
            std::ops::ControlFlow::Break(())
        }
    }
    FindCall.visit_expr(e).is_continue()
}

fn same(a: &Expr, b: &Expr) -> bool {
    (a.same_as(b) || structural_eq(a, b)) && is_pure(a)
}

fn fold_binary(e: &Expr) -> Option<Expr> {
    let b = e.as_binary()?;
    let (l, r) = (b.l(), b.r());
    let dtype = l.dtype();
    macro_rules! eval {
        ($($v:ident $op:ty),*) => {
            match b { $(Binary::$v(_) => eval_arith::<$op>(l.as_value()?, r.as_value()?, dtype),)* }
        };
    }
    if l.as_value().is_some() && r.as_value().is_some() {
        use crate::tensor_ir::ops::{DivOp, ModOp, SubOp};
        let v = eval!(Add AddOp, Sub SubOp, Mul MulOp, Div DivOp, Mod ModOp, Min MinOp, Max MaxOp)?;
        return Some(constant_of(v, dtype));
    }
    let zero = || constant_of(Value::zero(dtype), dtype);
    let one = || {
        constant_of(
            if dtype == DType::F32 {
                Value::Float(1.0)
            } else {
                Value::Int(1)
            },
            dtype,
        )
    };
    let is = |e: &Expr, test: fn(Value) -> bool| e.as_value().is_some_and(test);
    // Identities, for every type as oneDNN applies them (its floats are
    // fast-math: `x * 0` is 0 and `x - x` is 0).
    match b {
        Binary::Add(_) if is(r, Value::is_zero) => return Some(l.clone()),
        Binary::Add(_) if is(l, Value::is_zero) => return Some(r.clone()),
        Binary::Sub(_) if is(r, Value::is_zero) => return Some(l.clone()),
        Binary::Sub(_) if same(l, r) => return Some(zero()),
        Binary::Mul(_) if is(r, Value::is_one) => return Some(l.clone()),
        Binary::Mul(_) if is(l, Value::is_one) => return Some(r.clone()),
        Binary::Mul(_) if is(r, Value::is_zero) && is_pure(l) => return Some(zero()),
        Binary::Mul(_) if is(l, Value::is_zero) && is_pure(r) => return Some(zero()),
        Binary::Div(_) if is(r, Value::is_one) => return Some(l.clone()),
        Binary::Div(_) if same(l, r) => return Some(one()),
        Binary::Mod(_) if dtype.is_int() && (is(r, Value::is_one) && is_pure(l) || same(l, r)) => {
            return Some(zero());
        }
        Binary::Min(_) | Binary::Max(_) if same(l, r) => return Some(l.clone()),
        _ => {}
    }
    // `(x / c1) / c2` is `x / (c1 * c2)` (floats too: the product in f32),
    // for integers only while the product does not wrap.
    if let (Binary::Div(_), Some(c2), Expr::Div(inner)) = (b, r.as_value(), l)
        && let Some(c1) = inner.r.as_value()
        && let Some(c) = eval_arith::<MulOp>(c1, c2, dtype)
        && (!dtype.is_int() || exact_product(c1, c2, dtype))
    {
        return Some(inner.l.clone() / constant_of(c, dtype));
    }
    if !dtype.is_int() {
        return None;
    }
    match b {
        Binary::Add(_) => {
            // `x + (-c)` is `x - c`.
            if let Some(Value::Int(c)) = r.as_value()
                && is_negative(c, dtype)
                && !matches!(l, Expr::Constant(_))
            {
                return Some(l.clone() - int_const(c.wrapping_neg(), dtype));
            }
            // `(x - c1) + c2` is `x + (c2 - c1)`, and `c2 + (x - c1)` too.
            let (sub, other) = if l.as_value().is_some() {
                (r, l)
            } else {
                (l, r)
            };
            if let (Expr::Sub(inner), Some(Value::Int(c2))) = (sub, other.as_value())
                && let Some(Value::Int(c1)) = inner.r.as_value()
            {
                let c = c2.wrapping_sub(c1);
                return Some(if c == 0 {
                    inner.l.clone()
                } else {
                    inner.l.clone() + int_const(c, dtype)
                });
            }
            // `x + (y - c)` is `(x + y) - c` (exact under wrapping too).
            if let Expr::Sub(inner) = r
                && inner.r.as_value().is_some()
                && l.as_value().is_none()
            {
                let sum = settled(l.clone() + inner.l.clone(), fold_binary);
                return Some(sum - inner.r.clone());
            }
            reassociate::<AddOp>(l, r)
        }
        Binary::Sub(_) => {
            // `(x + c1) - c2` is `x + (c1 - c2)`; `(x - c1) - c2` is `x - (c1 + c2)`.
            if let Some(Value::Int(c2)) = r.as_value() {
                if let Expr::Add(inner) = l
                    && let Some(Value::Int(c1)) = inner.r.as_value()
                {
                    return Some(inner.l.clone() + int_const(c1.wrapping_sub(c2), dtype));
                }
                if let Expr::Sub(inner) = l
                    && let Some(Value::Int(c1)) = inner.r.as_value()
                {
                    return Some(inner.l.clone() - int_const(c1.wrapping_add(c2), dtype));
                }
            }
            // `(x + y) - x` is `y`, `(y + x) - x` is `y`.
            if let Expr::Add(inner) = l {
                if same(&inner.l, r) && is_pure(r) {
                    return Some(inner.r.clone());
                }
                if same(&inner.r, r) && is_pure(r) {
                    return Some(inner.l.clone());
                }
            }
            None
        }
        Binary::Mul(_) => {
            // `(x + c1) * c2` is `x * c2 + c1 * c2`: multiplication distributes
            // over addition modulo 2^n as well, so this holds when it wraps.
            if let (Expr::Add(inner), Some(c2)) = (l, r.as_value())
                && let Some(c1) = inner.r.as_value()
                && let Some(c) = eval_arith::<MulOp>(c1, c2, dtype)
            {
                let scaled = settled(inner.l.clone() * r.clone(), fold_binary);
                return Some(scaled + constant_of(c, dtype));
            }
            reassociate::<MulOp>(l, r)
        }
        // The next two rules hold when `x * c1` does not wrap, which only
        // `index` arithmetic is assumed never to do (as TVM and oneDNN assume
        // of index expressions); `s32` and `s64` wrap, so they keep the division.
        Binary::Div(_) if dtype == DType::Index => {
            // `(x * c1) / c2` is `x * (c1 / c2)` when `c2` divides `c1`.
            if let (Some(Value::Int(c2)), Expr::Mul(inner)) = (r.as_value(), l)
                && let Some(Value::Int(c1)) = inner.r.as_value()
                && c2 != 0
                && c1 % c2 == 0
            {
                return Some(inner.l.clone() * int_const(c1 / c2, dtype));
            }
            None
        }
        Binary::Div(_) => None,
        Binary::Mod(_) => {
            let c = r.as_value()?.as_int()?;
            // `(x * k) % c` is 0 when `c` divides `k` (for a wrapping type,
            // only a power of two divides the wrapped product as well);
            // `(x % c) % c` is `x % c`.
            match l {
                Expr::Mul(inner)
                    if c != 0 && (dtype == DType::Index || c.unsigned_abs().is_power_of_two()) =>
                {
                    let k = inner.r.as_value()?.as_int()?;
                    (k % c == 0 && is_pure(&inner.l)).then(|| int_const(0, dtype))
                }
                Expr::Mod(inner) if inner.r.as_value()?.as_int()? == c => Some(l.clone()),
                _ => None,
            }
        }
        Binary::Min(_) => reassociate::<MinOp>(l, r),
        Binary::Max(_) => reassociate::<MaxOp>(l, r),
    }
}

/// Whether `c1 * c2` fits `dtype` without wrapping.
fn exact_product(c1: Value, c2: Value, dtype: DType) -> bool {
    let (Value::Int(a), Value::Int(b)) = (c1, c2) else {
        return false;
    };
    let p = i128::from(a) * i128::from(b);
    match dtype {
        DType::S32 => i32::try_from(p).is_ok(),
        DType::S64 => i64::try_from(p).is_ok(),
        // Unsigned: the bit patterns as u64.
        _ => (u128::from(a as u64))
            .checked_mul(u128::from(b as u64))
            .is_some_and(|p| p <= u128::from(u64::MAX)),
    }
}

/// A negative constant, for the signed types.
fn is_negative(c: i64, dtype: DType) -> bool {
    c < 0 && dtype != DType::Index || (dtype == DType::Index && c < 0 && c > -(1 << 32))
}

/// For an associative, commutative `Op`: constants to the right, and
/// constants of nested applications combined: `(c + x)` is `(x + c)`,
/// `((x + c1) + c2)` is `(x + (c1 + c2))`, `((x + c) + y)` is `((x + y) + c)`.
fn reassociate<Op: ArithOp>(l: &Expr, r: &Expr) -> Option<Expr>
where
    Arith<Op>: Into<Expr>,
{
    let dtype = l.dtype();
    let make = |a: Expr, b: Expr| -> Expr { Arith::<Op>::new(a, b).into() };
    let split = |e: &Expr| -> Option<(Expr, Value)> {
        let b = e.as_binary()?;
        if b.symbol() != Op::SYMBOL {
            return None;
        }
        Some((b.l().clone(), b.r().as_value()?))
    };
    if l.as_value().is_some() {
        return Some(make(r.clone(), l.clone()));
    }
    if let Some(c2) = r.as_value() {
        let (x, c1) = split(l)?;
        let c = eval_arith::<Op>(c1, c2, dtype)?;
        return Some(make(x, constant_of(c, dtype)));
    }
    // The inner node is new: it is folded here, or a second run of the
    // folder would find work left in it.
    if let Some((x, c)) = split(l) {
        let inner = settled(make(x, r.clone()), fold_binary);
        return Some(make(inner, constant_of(c, dtype)));
    }
    if let Some((y, c)) = split(r) {
        let inner = settled(make(l.clone(), y), fold_binary);
        return Some(make(inner, constant_of(c, dtype)));
    }
    None
}

fn fold_cmp(e: &Expr) -> Option<Expr> {
    let c = e.as_cmp()?;
    let (l, r) = (c.l(), c.r());
    let holds = |ord: Ordering| -> bool {
        use crate::tensor_ir::ops::{EqOp, GeOp, GtOp, LeOp, LtOp, NeOp};
        match c {
            Cmp::Eq(_) => EqOp::holds(ord),
            Cmp::Ne(_) => NeOp::holds(ord),
            Cmp::Lt(_) => LtOp::holds(ord),
            Cmp::Le(_) => LeOp::holds(ord),
            Cmp::Gt(_) => GtOp::holds(ord),
            Cmp::Ge(_) => GeOp::holds(ord),
        }
    };
    if let (Some(a), Some(b)) = (l.as_value(), r.as_value()) {
        return match compare(a, b, l.dtype()) {
            Some(ord) => Some(boolean(holds(ord))),
            // NaN: every comparison but `!=` is false.
            None => Some(boolean(matches!(c, Cmp::Ne(_)))),
        };
    }
    // As oneDNN: no NaN check for floats.
    if same(l, r) {
        return Some(boolean(holds(Ordering::Equal)));
    }
    None
}

fn fold_logic(e: &Expr) -> Option<Expr> {
    match e.as_logic()? {
        Logic::Not(n) => match &n.value {
            Expr::Constant(c) => Some(boolean(!c.value.as_bool()?)),
            Expr::Not(inner) => Some(inner.value.clone()),
            _ => None,
        },
        Logic::And(n) => logical(&n.l, &n.r, false),
        Logic::Or(n) => logical(&n.l, &n.r, true),
    }
}

/// `&&` (`absorbing` false) or `||` (true) with a constant operand.
fn logical(l: &Expr, r: &Expr, absorbing: bool) -> Option<Expr> {
    let lc = l.as_value().and_then(Value::as_bool);
    let rc = r.as_value().and_then(Value::as_bool);
    match (lc, rc) {
        (Some(a), _) if a == absorbing => Some(boolean(absorbing)),
        (Some(_), _) => Some(r.clone()),
        (_, Some(b)) if b == absorbing && is_pure(l) => Some(boolean(absorbing)),
        (_, Some(b)) if b != absorbing => Some(l.clone()),
        _ if same(l, r) => Some(l.clone()),
        _ => None,
    }
}

fn fold_select(e: &Expr) -> Option<Expr> {
    let Expr::Select(s) = e else { return None };
    match s.cond.as_value()? {
        Value::Bool(true) => Some(s.then_value.clone()),
        Value::Bool(false) => Some(s.else_value.clone()),
        _ => None,
    }
}

fn fold_cast(e: &Expr) -> Option<Expr> {
    let Expr::Cast(c) = e else { return None };
    let v = c.value.as_value()?;
    Some(constant_of(v.convert(c.dtype)?, c.dtype))
}
