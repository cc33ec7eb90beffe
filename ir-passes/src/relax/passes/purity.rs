//! Which calls may have effects (what DCE must keep and CSE must not merge).

use crate::relax::expr::Expr;
use crate::relax::sinfo::StructInfo;

/// Whether evaluating `e` may have an effect: a call to something not
/// known to be pure (an operator registered impure, or a callee whose
/// struct info is not a pure function).
pub fn impure(e: &Expr) -> bool {
    let Expr::Call(c) = e else { return false };
    match c.op() {
        Expr::Op(op) => !op.def().is_some_and(|d| d.pure),
        callee => !matches!(
            crate::relax::sinfo_of(callee),
            Ok(StructInfo::FuncStructInfo(f)) if f.pure
        ),
    }
}

/// Finds a call that may have effects, outside nested functions (defining
/// a function has none).
struct FindImpure(bool);

impl crate::relax::prim::PrimExprVisitor for FindImpure {}
impl crate::relax::sinfo::StructInfoVisitor for FindImpure {}
impl crate::relax::expr::ExprVisitor for FindImpure {
    fn visit_call(&mut self, c: &ir_core::Node<crate::relax::expr::Call>) {
        if !self.0 && impure(&Expr::Call(c.clone())) {
            self.0 = true;
        }
        if !self.0 {
            ir_core::Walk::walk(&**c, self);
        }
    }
    fn visit_function(&mut self, _: &ir_core::Node<crate::relax::expr::Function>) {}
}

/// Whether `e` contains a call that may have effects, its `if` branches
/// included and nested functions not (TVM's `ContainsImpureCall`).
pub fn contains_impure_call(e: &Expr) -> bool {
    let mut find = FindImpure(false);
    ir_core::Walk::walk(e, &mut find);
    find.0
}
