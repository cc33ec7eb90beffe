//! ToGraphNormalForm: removes let bindings by putting each bound value at its
//! uses, as one shared node (graph bindings, when printed). A let that binds a
//! recursive function stays.

use crate::relay::pattern::{PatternMutator, PatternVisitor};
use std::ops::ControlFlow;

use ir_core::{IdMap, MemoMap, Node, Transformed, VisitedSet};

use super::effects::{Effects, writes_somewhere};
use super::rebind::rebuild_definition;
use crate::relay::expr::{Expr, ExprMutator, ExprVisitor, Let, Var};
use crate::relay::ty::{Type, TypeMutator, TypeVisitor};

/// `true` if `v` is used inside `e`.
fn uses(e: &Expr, v: &Node<Var>) -> bool {
    struct Find<'a> {
        var: &'a Node<Var>,
        found: bool,
        seen: VisitedSet<Expr>,
    }
    impl TypeVisitor for Find<'_> {
        // Types hold no expressions, and are shared: walking each would cost
        // the depth of nested function types at every function.
        fn visit_type(&mut self, _: &Type) {}
    }
    impl PatternVisitor for Find<'_> {}
    impl ExprVisitor for Find<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            ir_core::visit_preorder(self, e, |pass, e| {
                if !pass.found && (e.is_var() || pass.seen.first_visit(e)) {
                    ControlFlow::Continue(())
                } else {
                    ControlFlow::Break(())
                }
            })
        }
        fn visit_var(&mut self, u: &Node<Var>) {
            self.found |= u.same_as(self.var);
        }
    }
    let mut f = Find {
        var: v,
        found: false,
        seen: VisitedSet::new(),
    };
    f.visit_expr(e);
    f.found
}

struct Gnf {
    values: IdMap<Node<Var>, Expr>,
    memo: MemoMap<Expr>,
    effects: Effects,
}

impl TypeMutator for Gnf {
    // Types hold no expressions, and are shared: rebuilding each would cost
    // the depth of nested function types at every function.
    fn mutate_type(&mut self, _: &Type) -> Transformed<Type> {
        Transformed::Keep
    }
}
impl PatternMutator for Gnf {}
impl ExprMutator for Gnf {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        ir_core::memoized(self, e, |pass| &mut pass.memo)
    }

    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.values.get(&v.id()).cloned().into()
    }

    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        // A parameter whose `Var::ext` names a substituted variable is
        // rebuilt: its uses follow it.
        rebuild_definition(self, v, |pass| &mut pass.values)
    }

    fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
        // A recursive function needs its name; a value that reads or writes a
        // reference must run where the let puts it, in order.
        if (matches!(l.value, Expr::Function(_)) && uses(&l.value, &l.var))
            || !self.effects.of(&l.value).is_pure()
        {
            return l.rebuild(self).into();
        }
        let value = self.mutate_expr(&l.value).unwrap_or_clone(&l.value);
        self.values.insert(l.var.id(), value);
        Transformed::Replace(self.mutate_expr(&l.body).unwrap_or_clone(&l.body))
    }
}

/// Converts `e` to graph normal form. Lets whose values touch references
/// stay; calls of unknown functions count as writes when `e` writes a
/// reference anywhere ([`to_gnf_with`] takes the module's word for it).
pub fn to_gnf(e: &Expr) -> Expr {
    to_gnf_with(e, writes_somewhere(e))
}

/// [`to_gnf`], with calls of unknown functions taken to write references
/// when `unknown_calls_write`.
pub fn to_gnf_with(e: &Expr, unknown_calls_write: bool) -> Expr {
    Gnf {
        values: IdMap::default(),
        memo: MemoMap::new(),
        effects: Effects::new(unknown_calls_write),
    }
    .mutate_expr(e)
    .unwrap_or_clone(e)
}
