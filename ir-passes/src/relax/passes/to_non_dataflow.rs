//! `to-non-dataflow`: dataflow blocks become ordinary blocks and dataflow
//! variables ordinary variables (TVM's `ToNonDataflow`), written as a
//! normalizing mutator that overrides two hooks.

use ir_core::{Node, Transformed};

use crate::relax::BuilderError;
use crate::relax::expr::{BindingBlock, Expr, ExprMutator, Var};
use crate::relax::mutator::{self, MutatorState, run_mutator};
use crate::relax::prim::PrimExprMutator;
use crate::relax::sinfo::StructInfoMutator;

#[derive(Default)]
struct ToNonDataflow(MutatorState);

impl PrimExprMutator for ToNonDataflow {}
impl StructInfoMutator for ToNonDataflow {}

impl ExprMutator for ToNonDataflow {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.0
    }

    /// A dataflow block's bindings go into an ordinary block.
    fn mutate_binding_block(&mut self, block: &Node<BindingBlock>) -> Transformed<Expr> {
        if !block.dataflow {
            return mutator::binding_block(self, block);
        }
        self.0.builder.begin_sized(false, block.bindings.len());
        // Every binding's variable is replaced: the remap grows by as many.
        self.0.var_remap.reserve(block.bindings.len());
        for b in &block.bindings {
            let _ = self.mutate_binding(b);
        }
        match self.0.builder.end_block() {
            Ok(b) => Transformed::Replace(Expr::BindingBlock(b)),
            Err(e) => {
                self.0.fail(e);
                Transformed::Keep
            }
        }
    }

    /// A dataflow variable is defined as an ordinary one; the binding hook
    /// remaps its uses.
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        if v.dataflow {
            Transformed::Replace(Var::with_dataflow(v, false))
        } else {
            Transformed::Keep
        }
    }
}

/// `e` without dataflow blocks.
pub fn to_non_dataflow(e: &Expr) -> Result<Expr, BuilderError> {
    run_mutator(&mut ToNonDataflow::default(), e)
}
