//! ToGraphNormalForm: removes let bindings by putting each bound value at its
//! uses, as one shared node (graph bindings, when printed). A let that binds a
//! recursive function stays.

use crate::relay::pattern::PatternMutator;

use ir_core::{IdMap, IdSet, MemoMap, Node, Transformed};

use super::effects::{Effects, writes_somewhere};
use super::rebind::rebuild_definition;
use crate::relay::expr::{Expr, ExprMutator, Let, Var};
use crate::relay::ty::{Type, TypeMutator};

struct Gnf {
    values: IdMap<Node<Var>, Expr>,
    memo: MemoMap<Expr>,
    effects: Effects,
    /// Let variables whose values are being rewritten: a use of one is a
    /// use in its own value (a recursive function, or a value that reads
    /// the variable it defines), and that let must stay.
    open: IdSet<Node<Var>>,
    /// Open let variables met in their own values.
    self_used: IdSet<Node<Var>>,
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
        if self.open.contains(&v.id()) {
            self.self_used.insert(v.id());
        }
        self.values.get(&v.id()).cloned().into()
    }

    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        // A parameter whose `Var::ext` names a substituted variable is
        // rebuilt: its uses follow it.
        rebuild_definition(self, v, |pass| &mut pass.values)
    }

    fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
        // A value that reads or writes a reference must run where the let
        // puts it, in order.
        if !self.effects.of(&l.value).is_pure() {
            return l.rebuild(self).into();
        }
        // Found while the value is rewritten (once: rewrites are memoized):
        // a recursive function needs its name, and a value that reads its
        // own variable needs the let that binds it.
        self.open.insert(l.var.id());
        let value = self.mutate_expr(&l.value).unwrap_or_clone(&l.value);
        self.open.remove(&l.var.id());
        if self.self_used.remove(&l.var.id()) {
            // The value is rewritten already (memoized): this is the rest.
            return l.rebuild(self).into();
        }
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
        open: IdSet::default(),
        self_used: IdSet::default(),
    }
    .mutate_expr(e)
    .unwrap_or_clone(e)
}
