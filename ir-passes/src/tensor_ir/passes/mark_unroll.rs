//! Marks small loops for unrolling with the [`UNROLL_ATTR`] attribute: the
//! decision is made here, the expansion by [`Unroll`](super::Unroll) later,
//! after whatever rewrites run in between (they keep the attribute, since a
//! rebuilt node keeps its original's attributes).

use ir_core::{Node, Transformed};

use crate::tensor_ir::attrs::AttrValue;
use crate::tensor_ir::expr::{Expr, ExprMutator};
use crate::tensor_ir::passes::trip_count::trip_count;
use crate::tensor_ir::passes::unroll::UNROLL_ATTR;
use crate::tensor_ir::stmt::{ForKind, ForLoop, Stmt, StmtMutator};

/// Sets `unroll = true` on every serial loop known to run at most
/// `max_extent` times.
///
/// ```
/// use ir_passes::tensor_ir::{parse_stmt, AttrValue, ConstantFolder, Stmt};
/// use ir_passes::tensor_ir::passes::{MarkUnroll, Unroll, UnrollConfig};
///
/// let s = parse_stmt("{ tensor A: [s32 * 2]  for i in (0, 2, 1) { A[i] = (i + (1 + 1)) } }").unwrap();
/// let marked = MarkUnroll { max_extent: 4 }.run(&s);
/// // An unrelated rewrite rebuilds the loop; the attribute stays.
/// let folded = ConstantFolder::new().fold_stmt(&marked);
/// let Stmt::Stmts(block) = &folded else { unreachable!() };
/// let Stmt::ForLoop(l) = &block.seq[1] else { unreachable!() };
/// assert_eq!(l.attrs.get("unroll"), Some(&AttrValue::Bool(true)));
/// // The unroller, left to its defaults, expands only loops asked for.
/// let out = Unroll::new(UnrollConfig::default()).run(&folded);
/// assert_eq!(
///     out.to_string(),
///     "{\n  tensor A: [s32 * 2]\n  A[0] = (0 + 2)\n  A[1] = (1 + 2)\n}"
/// );
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MarkUnroll {
    /// The most iterations a marked loop runs.
    pub max_extent: u64,
}

impl MarkUnroll {
    /// Marks the loops of `s`; the very same statement when none qualifies.
    pub fn run(&mut self, s: &Stmt) -> Stmt {
        self.mutate_stmt(s).unwrap_or_clone(s)
    }
}

impl ExprMutator for MarkUnroll {
    fn mutate_expr(&mut self, _: &Expr) -> Transformed<Expr> {
        Transformed::Keep
    }
    fn mutate_var_def(
        &mut self,
        _: &Node<crate::tensor_ir::Var>,
    ) -> Transformed<Node<crate::tensor_ir::Var>> {
        Transformed::Keep
    }
    fn mutate_tensor_def(
        &mut self,
        _: &Node<crate::tensor_ir::Tensor>,
    ) -> Transformed<Node<crate::tensor_ir::Tensor>> {
        Transformed::Keep
    }
}

impl StmtMutator for MarkUnroll {
    fn mutate_for_loop(&mut self, l: &Node<ForLoop>) -> Transformed<Stmt> {
        let rebuilt = l.rebuild_fields(self);
        let current = rebuilt.as_ref_or(l);
        let wanted = current.kind == ForKind::Serial
            && current.attrs.get(UNROLL_ATTR).is_none()
            && trip_count(current).is_some_and(|t| t <= self.max_extent);
        if !wanted {
            return rebuilt.map(Stmt::from);
        }
        let mut marked = current.clone();
        marked.attrs.set(UNROLL_ATTR, AttrValue::Bool(true));
        Transformed::Replace(marked.into())
    }
}
