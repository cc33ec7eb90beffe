//! `convert-to-dataflow`: runs of pure bindings in ordinary blocks become
//! dataflow blocks (TVM's `ConvertToDataflow`), in every sequence, nested
//! ones included.
//!
//! A binding can join a dataflow block unless its value is an `if` or a
//! call that may have effects. A run shorter than `min_size` stays where it
//! is, unless it continues a dataflow block of the input. Variables keep
//! their kind; `canonicalize-bindings`, which the registered pipeline runs
//! after (as TVM does), turns those used only inside their new block into
//! dataflow variables.

use ir_core::{Node, Transformed};

use super::purity::impure;
use crate::relax::BuilderError;
use crate::relax::expr::{Binding, BindingBlock, Expr, ExprMutator, Function, SeqExpr};
use crate::relax::mutator::{self, MutatorState, run_mutator};
use crate::relax::prim::PrimExprMutator;
use crate::relax::sinfo::StructInfoMutator;

struct ConvertToDataflow {
    state: MutatorState,
    min_size: usize,
}

impl PrimExprMutator for ConvertToDataflow {}
impl StructInfoMutator for ConvertToDataflow {}

impl ExprMutator for ConvertToDataflow {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.state
    }

    fn mutate_seq_expr(&mut self, seq: &Node<SeqExpr>) -> Transformed<Expr> {
        let inner = mutator::seq_expr(self, seq);
        let now = match &inner {
            Transformed::Replace(Expr::SeqExpr(s)) => s.clone(),
            _ => seq.clone(),
        };
        match regroup(&now.blocks, self.min_size) {
            Some(blocks) => Transformed::Replace(
                SeqExpr {
                    blocks,
                    body: now.body.clone(),
                }
                .into(),
            ),
            None => inner,
        }
    }
}

/// The blocks regrouped, or `None` when they stay as they are.
fn regroup(blocks: &[Node<BindingBlock>], min_size: usize) -> Option<Vec<Node<BindingBlock>>> {
    let mut out: Vec<Node<BindingBlock>> = Vec::new();
    let mut plain: Vec<Node<Binding>> = Vec::new();
    let mut run: Vec<Node<Binding>> = Vec::new();
    // The input dataflow block the current run continues, if any.
    let mut input_block: Option<&Node<BindingBlock>> = None;
    let mut changed = false;
    let flush = |plain: &mut Vec<Node<Binding>>,
                 run: &mut Vec<Node<Binding>>,
                 input_block: &mut Option<&Node<BindingBlock>>,
                 out: &mut Vec<Node<BindingBlock>>,
                 changed: &mut bool| {
        if run.is_empty() {
            return;
        }
        if run.len() < min_size && input_block.is_none() {
            plain.append(run);
        } else {
            if !plain.is_empty() {
                out.push(Node::new(BindingBlock {
                    bindings: std::mem::take(plain),
                    dataflow: false,
                }));
            }
            match input_block {
                Some(b) if b.bindings.len() == run.len() => {
                    out.push((*b).clone());
                    run.clear();
                }
                _ => {
                    *changed = true;
                    out.push(Node::new(BindingBlock {
                        bindings: std::mem::take(run),
                        dataflow: true,
                    }));
                }
            }
        }
        *input_block = None;
    };
    for block in blocks {
        if block.dataflow {
            run.extend(block.bindings.iter().cloned());
            input_block = Some(block);
            continue;
        }
        for b in &block.bindings {
            let joins = !matches!(b.value, Expr::If(_)) && !impure(&b.value);
            if joins {
                run.push(b.clone());
            } else {
                flush(
                    &mut plain,
                    &mut run,
                    &mut input_block,
                    &mut out,
                    &mut changed,
                );
                plain.push(b.clone());
            }
        }
    }
    flush(
        &mut plain,
        &mut run,
        &mut input_block,
        &mut out,
        &mut changed,
    );
    if !plain.is_empty() {
        out.push(Node::new(BindingBlock {
            bindings: plain,
            dataflow: false,
        }));
    }
    // Unchanged unless a dataflow block was made or grew; plain blocks that
    // merged are the normal form anyway.
    changed.then_some(out)
}

/// `f` with runs of at least `min_size` pure bindings in dataflow blocks
/// (before `canonicalize-bindings`, which the registered pass runs after).
pub fn convert_to_dataflow(
    f: &Node<Function>,
    min_size: usize,
) -> Result<Transformed<Node<Function>>, BuilderError> {
    let mut pass = ConvertToDataflow {
        state: MutatorState::default(),
        min_size,
    };
    match run_mutator(&mut pass, &Expr::Function(f.clone()))? {
        Expr::Function(g) if !g.same_as(f) => Ok(Transformed::Replace(g)),
        _ => Ok(Transformed::Keep),
    }
}
