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
    let mut r = Regroup {
        min_size,
        out: Vec::new(),
        plain: Vec::new(),
        run: Vec::new(),
        input_block: None,
        changed: false,
    };
    for block in blocks {
        if block.dataflow {
            r.run.extend(block.bindings.iter().cloned());
            r.input_block = Some(block);
            continue;
        }
        for b in &block.bindings {
            if matches!(b.value, Expr::If(_)) || impure(&b.value) {
                r.flush();
                r.plain.push(b.clone());
            } else {
                r.run.push(b.clone());
            }
        }
    }
    r.flush();
    if !r.plain.is_empty() {
        r.out.push(Node::new(BindingBlock {
            bindings: r.plain,
            dataflow: false,
        }));
    }
    // Unchanged unless a dataflow block was made or grew; plain blocks that
    // merged are the normal form anyway.
    r.changed.then_some(r.out)
}

/// The regrouping of one sequence's blocks, binding by binding.
struct Regroup<'a> {
    min_size: usize,
    out: Vec<Node<BindingBlock>>,
    /// Bindings that stay in an ordinary block, before `run`.
    plain: Vec<Node<Binding>>,
    /// The current run of bindings that may form a dataflow block.
    run: Vec<Node<Binding>>,
    /// The input dataflow block the run continues, if any.
    input_block: Option<&'a Node<BindingBlock>>,
    changed: bool,
}

impl Regroup<'_> {
    /// Ends the run: a dataflow block if it is long enough (or continues
    /// one of the input), else its bindings join the ordinary ones.
    fn flush(&mut self) {
        if self.run.is_empty() {
            return;
        }
        let input_block = self.input_block.take();
        if self.run.len() < self.min_size && input_block.is_none() {
            self.plain.append(&mut self.run);
            return;
        }
        if !self.plain.is_empty() {
            self.out.push(Node::new(BindingBlock {
                bindings: std::mem::take(&mut self.plain),
                dataflow: false,
            }));
        }
        match input_block {
            Some(b) if b.bindings.len() == self.run.len() => {
                self.out.push(b.clone());
                self.run.clear();
            }
            _ => {
                self.changed = true;
                self.out.push(Node::new(BindingBlock {
                    bindings: std::mem::take(&mut self.run),
                    dataflow: true,
                }));
            }
        }
    }
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
