//! The variables an expression uses.

use ir_core::{IdSet, Node, Walk};

use crate::relax::expr::{Expr, ExprVisitor, Var};
use crate::relax::prim::PrimExprVisitor;
use crate::relax::sinfo::StructInfoVisitor;

/// Collects variable uses (by node) into a set.
struct Uses<'a>(&'a mut IdSet<Node<Var>>);

impl PrimExprVisitor for Uses<'_> {}
impl StructInfoVisitor for Uses<'_> {}
impl ExprVisitor for Uses<'_> {
    fn visit_var(&mut self, v: &Node<Var>) {
        self.0.insert(v.id());
    }
    // A definition's struct info mentions no variables of this family.
    fn visit_var_def(&mut self, _: &Node<Var>) {}
}

/// Adds every variable `e` uses (nested functions included) to `into`.
pub fn used_vars(e: &Expr, into: &mut IdSet<Node<Var>>) {
    e.walk(&mut Uses(into));
}
