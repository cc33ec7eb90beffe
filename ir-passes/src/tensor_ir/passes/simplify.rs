//! The statement simplifier (oneDNN's `ir_simplifier_t`), with facts scoped
//! to branches: expressions are constant-folded, and inside `if (i == 5)`
//! the comparison `i != 5` is `false`; nested blocks are flattened into
//! their parent and empty ones dropped; an `if` with an empty branch is
//! turned around or dropped; loops of zero or one iteration, and loops with
//! an empty body, disappear. Inside a loop with a known trip count, its
//! variable lies in `[begin, end)`.
//!
//! A fact holds only inside its branch, and only about variables the program
//! never assigns (so a fact cannot be invalidated inside the branch); tensor
//! elements are never facts.

use ir_core::{Node, Transformed};

use crate::tensor_ir::build::{boolean, cmp_ge, cmp_lt, logic_not, stmts};
use crate::tensor_ir::expr::{Cmp, Expr, ExprMutator, Tensor, Var};
use crate::tensor_ir::passes::ConstantFolder;
use crate::tensor_ir::passes::bindings::Bindings;
use crate::tensor_ir::passes::facts::Facts;
use crate::tensor_ir::passes::fold::is_pure;
use crate::tensor_ir::passes::trip_count::{single_iteration, trip_count, trip_count_with};
use crate::tensor_ir::stmt::{ForLoop, Func, IfElse, Stmt, StmtMutator, Stmts};

/// The simplifier. The very same statement comes back when nothing
/// simplifies.
///
/// ```
/// use ir_passes::tensor_ir::parse_stmt;
/// use ir_passes::tensor_ir::passes::Simplify;
///
/// let s = parse_stmt("{ tensor A: [s32 * 8]  for i in (0, 8, 1) {
///     if ((i == 5)) { A[i] = ((i != 5) ? 1 : 2) } } }").unwrap();
/// assert_eq!(
///     Simplify::default().run(&s).to_string(),
///     "{\n  tensor A: [s32 * 8]\n  for i in (0, 8, 1) {\n    if ((i == 5)) {\n      A[i] = 2\n    }\n  }\n}"
/// );
/// ```
#[derive(Default)]
pub struct Simplify {
    facts: Facts,
    /// The variables of the program that hold one value: loops bounded
    /// through them can have a known trip count.
    bindings: Bindings,
}

impl Simplify {
    /// Simplifies a statement.
    pub fn run(&mut self, s: &Stmt) -> Stmt {
        self.facts = Facts::for_program(s);
        self.bindings = Bindings::of(s);
        let out = self.mutate_stmt(s).unwrap_or_clone(s);
        self.facts = Facts::default();
        self.bindings = Bindings::default();
        out
    }

    /// Simplifies a function's body.
    pub fn run_func(&mut self, f: &Func) -> Func {
        f.map_body(|body| self.run(body))
    }

    /// `s` simplified with `cond` assumed to evaluate to `holds`.
    fn branch(&mut self, s: &Stmt, cond: &Expr, holds: bool) -> Transformed<Stmt> {
        let mark = self.facts.mark();
        self.facts.assume(cond, holds);
        let out = self.mutate_stmt(s);
        self.facts.restore(mark);
        out
    }
}

fn empty() -> Transformed<Stmt> {
    Transformed::Replace(stmts(Vec::new()))
}

/// Replaces the comparisons the facts decide.
struct Decide<'a>(&'a Facts);

impl ExprMutator for Decide<'_> {
    fn mutate_cmp(&mut self, c: Cmp<'_>) -> Transformed<Expr> {
        match self.0.decide(c) {
            Some(b) => Transformed::Replace(boolean(b)),
            None => c.rebuild(self),
        }
    }
    fn mutate_tensor(&mut self, _: &Node<Tensor>) -> Transformed<Expr> {
        Transformed::Keep
    }
}

impl ExprMutator for Simplify {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        let decided = if self.facts.is_empty() {
            Transformed::Keep
        } else {
            Decide(&self.facts).mutate_expr(e)
        };
        match decided {
            Transformed::Keep => ConstantFolder::new().mutate_expr(e),
            Transformed::Replace(d) => {
                Transformed::Replace(ConstantFolder::new().mutate_expr(&d).unwrap_or(d))
            }
        }
    }
    fn mutate_var_def(&mut self, _: &Node<Var>) -> Transformed<Node<Var>> {
        Transformed::Keep
    }
    fn mutate_tensor_def(&mut self, _: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        Transformed::Keep
    }
}

impl StmtMutator for Simplify {
    fn mutate_stmts(&mut self, s: &Node<Stmts>) -> Transformed<Stmt> {
        // Nested blocks join their parent; empty ones vanish.
        let mut seq: Option<Vec<Stmt>> = None;
        for (i, st) in s.seq.iter().enumerate() {
            let outcome = self.mutate_stmt(st);
            let now = match &outcome {
                Transformed::Keep => st,
                Transformed::Replace(new) => new,
            };
            let splice = matches!(now, Stmt::Stmts(_));
            if seq.is_none() && !splice && outcome.is_keep() {
                continue;
            }
            let seq = seq.get_or_insert_with(|| s.seq[..i].to_vec());
            match now {
                Stmt::Stmts(inner) => seq.extend(inner.seq.iter().cloned()),
                other => seq.push(other.clone()),
            }
        }
        match seq {
            None => Transformed::Keep,
            Some(seq) => Transformed::Replace(Stmt::Stmts(Node::new(Stmts {
                seq,
                attrs: s.attrs.clone(),
            }))),
        }
    }

    fn mutate_if_else(&mut self, s: &Node<IfElse>) -> Transformed<Stmt> {
        let cond = self.mutate_expr(&s.cond).unwrap_or_clone(&s.cond);
        if let Some(branch) = s.taken(&cond) {
            return Transformed::Replace(self.mutate_stmt(&branch).unwrap_or(branch));
        }
        let then_out = self.branch(&s.then_case, &cond, true);
        let else_out = s.else_case.as_ref().map(|e| self.branch(e, &cond, false));
        let then_case = then_out.as_ref_or(&s.then_case);
        let else_case = match (&else_out, &s.else_case) {
            (Some(out), Some(e)) => Some(out.as_ref_or(e)).filter(|e| !e.is_empty_block()),
            _ => None,
        };
        let changed = !cond.same_as(&s.cond)
            || then_out.is_replace()
            || else_out.as_ref().is_some_and(|o| o.is_replace())
            || else_case.is_none() != s.else_case.is_none();
        let (cond, then_case, else_case) = match (then_case.is_empty_block(), else_case) {
            (true, None) if is_pure(&cond) => return empty(),
            (true, Some(e)) => (logic_not(cond), e.clone(), None),
            (_, e) if changed => (cond, then_case.clone(), e.cloned()),
            _ => return Transformed::Keep,
        };
        Transformed::Replace(Stmt::IfElse(Node::new(IfElse {
            cond,
            then_case,
            else_case,
            attrs: s.attrs.clone(),
        })))
    }

    fn mutate_for_loop(&mut self, l: &Node<ForLoop>) -> Transformed<Stmt> {
        // In the body, `begin <= var < end` (a positive step is checked by
        // `trip_count`, which also needs it; with no known trip count no
        // range is assumed).
        let mark = self.facts.mark();
        if trip_count(l).is_some() {
            let var = Expr::Var(l.var.clone());
            self.facts
                .assume(&cmp_ge(var.clone(), l.begin.clone()), true);
            self.facts.assume(&cmp_lt(var, l.end.clone()), true);
        }
        let rebuilt = l.rebuild_fields(self);
        self.facts.restore(mark);
        let current = rebuilt.as_ref_or(l);
        let bounds_pure =
            is_pure(&current.begin) && is_pure(&current.end) && is_pure(&current.step);
        match trip_count_with(current, &self.bindings) {
            Some(0) if bounds_pure => return empty(),
            Some(1) => {
                let body = single_iteration(current);
                return Transformed::Replace(self.mutate_stmt(&body).unwrap_or(body));
            }
            _ => {}
        }
        if current.body.is_empty_block() && bounds_pure {
            return empty();
        }
        rebuilt.map(Stmt::from)
    }
}
