//! DeadCodeElimination: removes let bindings whose variable is not used by
//! live code, and with `inline_once` substitutes variables used exactly once.
//! Uses are counted from the result backwards (TVM's `CalcDep`), so a chain
//! of dead bindings goes in one run.

use crate::relay::pattern::{PatternMutator, PatternVisitor};
use ir_core::driver::{SpineMutate, mutate_chain};

use ir_core::{IdMap, IdSet, MemoMap, Node, Transformed, VisitedSet, Walk};

use super::effects::{Effects, writes_somewhere};
use super::rebind::rebuild_definition;
use crate::relay::expr::{Expr, ExprMutator, ExprVisitor, Function, Let, Var};
use crate::relay::ty::{Type, TypeMutator, TypeVisitor};

/// Counts uses of variables by live code only, and notes variables never
/// inlined: those used inside a function nested deeper than their binding
/// (that would move the computation into every call), and those named by
/// what a downstream dialect attached to a variable (`Var::ext`, such as
/// RAF's `may_share`: a computation there would mean something else).
struct LiveUses {
    effects: Effects,
    uses: IdMap<Node<Var>, usize>,
    seen: VisitedSet<Expr>,
    depth: usize,
    bound_at: IdMap<Node<Var>, usize>,
    captured: IdSet<Node<Var>>,
    /// Inside a variable's definition.
    in_definition: bool,
}

impl TypeVisitor for LiveUses {
    // Types hold no expressions, and are shared: walking each would cost
    // the depth of nested function types at every function.
    fn visit_type(&mut self, _: &Type) {}
}
impl PatternVisitor for LiveUses {}
impl ExprVisitor for LiveUses {
    fn visit_expr(&mut self, e: &Expr) {
        // Every use of a variable is the variable's own node: count them all;
        // other shared nodes are graph nodes, evaluated (and counted) once.
        if e.is_var() || self.seen.first_visit(e) {
            e.walk(self);
        }
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        *self.uses.entry(v.id()).or_default() += 1;
        if self.in_definition || self.bound_at.get(&v.id()).is_some_and(|&d| d < self.depth) {
            self.captured.insert(v.id());
        }
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        let outer = std::mem::replace(&mut self.in_definition, true);
        v.walk(self);
        self.in_definition = outer;
    }
    fn visit_function(&mut self, f: &Node<Function>) {
        self.depth += 1;
        f.walk(self);
        self.depth -= 1;
    }
    fn visit_let(&mut self, l: &Node<Let>) {
        // The body first: a value counts only if its variable is live. A chain
        // of lets held once each is walked in a loop, then its values backwards.
        let mut chain = vec![l];
        let mut cur = l;
        loop {
            self.bound_at.insert(cur.var.id(), self.depth);
            match cur.body.as_let() {
                Some(next) if next.strong_count() == 1 => {
                    chain.push(next);
                    cur = next;
                }
                _ => break,
            }
        }
        self.visit_expr(&cur.body);
        for l in chain.into_iter().rev() {
            // A binding whose value writes a reference runs though unused.
            if self.uses.get(&l.var.id()).copied().unwrap_or(0) > 0
                || self.effects.of(&l.value).writes
            {
                self.visit_var_def(&l.var);
                self.visit_expr(&l.value);
            }
        }
    }
}

struct Eliminate {
    effects: Effects,
    uses: IdMap<Node<Var>, usize>,
    captured: IdSet<Node<Var>>,
    inline_once: bool,
    inlined: IdMap<Node<Var>, Expr>,
    memo: MemoMap<Expr>,
}

impl TypeMutator for Eliminate {
    // Types hold no expressions, and are shared: rebuilding each would cost
    // the depth of nested function types at every function.
    fn mutate_type(&mut self, _: &Type) -> Transformed<Type> {
        Transformed::Keep
    }
}
impl PatternMutator for Eliminate {}
impl ExprMutator for Eliminate {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        ir_core::memoized(self, e, |pass| &mut pass.memo)
    }

    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.inlined.get(&v.id()).cloned().into()
    }

    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        // The variable's data (`Var::ext`) named an inlined variable: every
        // use follows the rebuilt variable.
        rebuild_definition(self, v, |pass| &mut pass.inlined)
    }

    fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
        mutate_chain(l, self, |pass, l| {
            let uses = pass.uses.get(&l.var.id()).copied().unwrap_or(0);
            let effect = pass.effects.of(&l.value);
            if uses == 0 && effect.writes {
                return Some(l.rebuild_head(pass));
            }
            let recursive = matches!(&l.value, Expr::Function(_)) && uses > 0;
            // A binding that carries a downstream dialect's data stays, and
            // so does one whose value touches a reference (moving it to its
            // use could move it past a write).
            let inlinable = !recursive
                && !pass.captured.contains(&l.var.id())
                && l.var.ext.is_none()
                && effect.is_pure();
            if uses == 0 || (pass.inline_once && uses == 1 && inlinable) {
                if uses == 1 {
                    let value = pass.mutate_expr(&l.value).unwrap_or_clone(&l.value);
                    pass.inlined.insert(l.var.id(), value);
                }
                return None;
            }
            Some(l.rebuild_head(pass))
        })
    }
}

/// Removes dead let bindings from `e`; with `inline_once`, also inlines
/// variables used once (not recursive functions, and not into a nested
/// function). A binding whose value may write a reference stays, and one
/// that reads or writes is never moved. Calls of unknown functions count as
/// writes when `e` writes a reference anywhere; for a function of a module,
/// [`dead_code_elimination_with`] says whether the module does.
pub fn dead_code_elimination(e: &Expr, inline_once: bool) -> Expr {
    dead_code_elimination_with(e, inline_once, writes_somewhere(e))
}

/// [`dead_code_elimination`], with calls of unknown functions taken to
/// write references when `unknown_calls_write` ([`module_writes`](super::module_writes)).
pub fn dead_code_elimination_with(e: &Expr, inline_once: bool, unknown_calls_write: bool) -> Expr {
    let mut live = LiveUses {
        effects: Effects::new(unknown_calls_write),
        uses: IdMap::default(),
        seen: VisitedSet::default(),
        depth: 0,
        bound_at: IdMap::default(),
        captured: IdSet::default(),
        in_definition: false,
    };
    live.visit_expr(e);
    let mut pass = Eliminate {
        effects: live.effects,
        uses: live.uses,
        captured: live.captured,
        inline_once,
        inlined: IdMap::default(),
        memo: MemoMap::new(),
    };
    pass.mutate_expr(e).unwrap_or_clone(e)
}
