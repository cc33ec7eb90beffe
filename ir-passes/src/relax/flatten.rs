//! Flattening a function's blocks (TVM's `FlattenBlocks` and
//! `NormalizeBlocks`): a binding whose value is a sequence becomes the
//! sequence's blocks followed by a binding of its result, splitting the
//! block it was in. The builder flattens a sequence as it is emitted when
//! its blocks are of the enclosing block's kind; one that would split a
//! block is bound as it is and flattened here, when the function ends.

use ir_core::Node;

use super::builder::BuilderError;
use super::expr::{Binding, BindingBlock, Expr, SeqExpr};
use super::free_vars::free_vars;

/// `blocks` with every sequence-valued binding flattened, empty blocks
/// dropped and adjacent blocks of one kind merged. A plain block lifted out
/// of a dataflow block may not use its dataflow variables: "Malformed AST".
pub(crate) fn flatten_blocks(
    blocks: Vec<Node<BindingBlock>>,
) -> Result<Vec<Node<BindingBlock>>, BuilderError> {
    let nested = |b: &Node<BindingBlock>| {
        b.bindings
            .iter()
            .any(|x| matches!(x.value, Expr::SeqExpr(_)))
    };
    if !blocks.iter().any(nested) {
        return Ok(blocks);
    }
    let mut out: Vec<Node<BindingBlock>> = Vec::new();
    for block in blocks {
        if !nested(&block) {
            push_merged(&mut out, block.bindings.clone(), block.dataflow);
            continue;
        }
        let mut current: Vec<Node<Binding>> = Vec::new();
        for binding in &block.bindings {
            let Expr::SeqExpr(seq) = &binding.value else {
                current.push(binding.clone());
                continue;
            };
            push_merged(&mut out, std::mem::take(&mut current), block.dataflow);
            for inner in &seq.blocks {
                if block.dataflow && !inner.dataflow {
                    check_no_dataflow_uses(inner, binding)?;
                }
                push_merged(&mut out, inner.bindings.clone(), inner.dataflow);
            }
            current.push(Node::new(Binding {
                value: seq.body.clone(),
                cast: binding.cast.clone(),
                var: binding.var.clone(),
            }));
        }
        push_merged(&mut out, current, block.dataflow);
    }
    Ok(out)
}

/// Appends `bindings` as a block of that kind, into the last block when it
/// is of the same kind; nothing when there are none.
fn push_merged(out: &mut Vec<Node<BindingBlock>>, bindings: Vec<Node<Binding>>, dataflow: bool) {
    if bindings.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.dataflow == dataflow => {
            let mut merged = last.bindings.clone();
            merged.extend(bindings);
            *last = Node::new(BindingBlock {
                bindings: merged,
                dataflow,
            });
        }
        _ => out.push(Node::new(BindingBlock { bindings, dataflow })),
    }
}

/// A plain block about to leave the dataflow block `binding` is in uses no
/// dataflow variable: those are defined only within their block.
fn check_no_dataflow_uses(
    inner: &Node<BindingBlock>,
    binding: &Binding,
) -> Result<(), BuilderError> {
    let alone = Expr::SeqExpr(Node::new(SeqExpr {
        blocks: vec![inner.clone()],
        body: Expr::tuple(Vec::new()),
    }));
    let used: Vec<String> = free_vars(&alone)
        .into_iter()
        .filter(|v| v.dataflow)
        .map(|v| v.name.to_string())
        .collect();
    if used.is_empty() {
        return Ok(());
    }
    Err(BuilderError(format!(
        "Malformed AST: a dataflow variable may only be used within a dataflow block. \
         `{}` is defined within a dataflow block, but is bound to a sequence whose plain \
         blocks use the dataflow variables {}",
        binding.var.name,
        used.join(", ")
    )))
}
