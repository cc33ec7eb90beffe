//! The lets a sequence has read, held until its last expression is read.
//!
//! A sequence's let chain is built from the end, so its lets wait until the
//! sequence closes. They wait in fixed-size chunks rather than one vector:
//! no doubling slack (up to half of a vector's memory is spare), no copy
//! when it grows, and building the chain frees each chunk as it empties, so
//! the pending lets and the chain made from them are never both whole.

use ir_core::Node;

use super::expr::{Expr, Let, Span, Var};

/// Lets per chunk: 32 KiB chunks, large enough to be few, small enough that
/// an empty tail wastes little.
const CHUNK: usize = 1024;

/// A let waiting for its body.
type Pending = (Node<Var>, Expr, Span);

/// The lets of one sequence, in order.
#[derive(Default)]
pub(super) struct PendingLets {
    chunks: Vec<Vec<Pending>>,
}

impl PendingLets {
    /// Adds the next let.
    pub(super) fn push(&mut self, var: Node<Var>, value: Expr, span: Span) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < chunk.capacity() => chunk.push((var, value, span)),
            _ => {
                // Short sequences (most) get a small first chunk.
                let capacity = if self.chunks.is_empty() { 4 } else { CHUNK };
                let mut chunk = Vec::with_capacity(capacity);
                chunk.push((var, value, span));
                self.chunks.push(chunk);
            }
        }
    }

    /// The lets around `last`, the first outermost.
    pub(super) fn chain(mut self, last: Expr) -> Expr {
        let mut body = last;
        while let Some(mut chunk) = self.chunks.pop() {
            while let Some((var, value, span)) = chunk.pop() {
                body = Let {
                    var,
                    value,
                    body,
                    span,
                }
                .into();
            }
        }
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lets_chain_in_order_across_chunks() {
        let n = 3 * CHUNK + 7;
        let vars: Vec<_> = (0..n).map(|i| Expr::var(&format!("v{i}"), None)).collect();
        let mut lets = PendingLets::default();
        for v in &vars {
            lets.push(v.clone(), Expr::tuple(vec![]), Span::default());
        }
        let mut e = lets.chain(Expr::tuple(vec![]));
        for v in &vars {
            let Expr::Let(l) = e else {
                panic!("expected a let for {}", v.name)
            };
            assert!(l.var.same_as(v));
            e = l.body.clone();
        }
        assert!(matches!(e, Expr::Tuple(_)));
    }
}
