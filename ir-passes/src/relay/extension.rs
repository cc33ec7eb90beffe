//! What node kinds added to Relay by other crates offer Relay's own passes.
//!
//! Relay's `Expr` is an open family (`#[ir(extensible)]`): a downstream crate
//! adds kinds with `#[ir(extends(Expr))]`, and each implements
//! [`RelayExtension`], Relay's interface for them (as MLIR ops implement
//! interfaces). The printer, type inference, constant folding and the
//! interpreter ask it what they need; a kind that says nothing keeps the
//! defaults: printed as `Kind(<children>)`, no type of its own, not a constant.

use std::fmt::Write as _;

use super::expr::Expr;
use super::tensor::Tensor;
use super::ty::Type;

/// Relay's interface for a node kind added by another crate.
pub trait RelayExtension: Send + Sync {
    /// Writes the node in Relay's text format, its children through `out`.
    /// Default: the kind's name and its Relay children, as a call.
    fn print(&self, out: &mut ExtPrinter<'_>) {
        let _ = out;
    }

    /// The node's type, for type inference. `None` (the default): inference
    /// reports that it cannot type the node.
    fn ty(&self) -> Option<Type> {
        None
    }

    /// The constant the node stands for, if any: `fold-constant` folds calls
    /// over it. Default: none.
    fn constant(&self) -> Option<Tensor> {
        None
    }
}

/// Where a downstream node prints itself: text, and its children printed by
/// the host printer (so that shared subexpressions and names stay consistent).
pub struct ExtPrinter<'a> {
    pub(crate) text: &'a mut String,
    pub(crate) expr: &'a mut dyn FnMut(&mut String, &Expr),
}

impl ExtPrinter<'_> {
    /// Writes text.
    pub fn write(&mut self, s: &str) {
        self.text.push_str(s);
    }

    /// Writes a child expression.
    pub fn expr(&mut self, e: &Expr) {
        (self.expr)(self.text, e)
    }

    /// Writes a type.
    pub fn ty(&mut self, t: &Type) {
        let _ = write!(self.text, "{}", super::printer::print_type(t));
    }
}
