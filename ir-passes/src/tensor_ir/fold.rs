//! The constant folder of the Tensor IR tutorial: folds `s32` additions and
//! subtractions of two constants, rebuilding only what changed.

use ir_core::{Node, Transformed};

use super::build::constant;
use super::expr::{AddOp, Binary, BinaryOp, DType, Expr, ExprMutator, SubOp};
use super::stmt::{Stmt, StmtMutator};

/// Folds `s32` `+` and `-` of constants: `((1 + 2) - 3)` becomes `0`, and
/// `((1 + 2) + var_b)` becomes `(3 + var_b)`.
#[derive(Debug, Default, Clone, Copy)]
pub struct ConstantFolder;

impl ConstantFolder {
    /// Folds an expression.
    pub fn fold(&mut self, e: &Expr) -> Expr {
        self.mutate_expr(e).unwrap_or_clone(e)
    }

    /// Folds every expression in a statement.
    pub fn fold_stmt(&mut self, s: &Stmt) -> Stmt {
        self.mutate_stmt(s).unwrap_or_clone(s)
    }
}

/// The folded constant, when both operands are `s32` constants and the result fits.
fn fold_s32<Op: BinaryOp>(b: &Binary<Op>) -> Option<Expr> {
    let (l, r) = (b.l.as_constant()?, b.r.as_constant()?);
    if l.dtype != DType::S32 || r.dtype != DType::S32 {
        return None;
    }
    let value = Op::eval(l.value, r.value)?;
    i32::try_from(value).ok()?;
    Some(constant(value))
}

impl ExprMutator for ConstantFolder {
    fn mutate_add(&mut self, v: &Node<Binary<AddOp>>) -> Transformed<Expr> {
        let v = v.rebuild(self);
        match fold_s32(&v) {
            Some(folded) => Transformed::Replace(folded),
            None => v.into(),
        }
    }

    fn mutate_sub(&mut self, v: &Node<Binary<SubOp>>) -> Transformed<Expr> {
        let v = v.rebuild(self);
        match fold_s32(&v) {
            Some(folded) => Transformed::Replace(folded),
            None => v.into(),
        }
    }
}

impl StmtMutator for ConstantFolder {}
