//! The lets a sequence has read, held until its last expression is read.
//!
//! A sequence's let chain is built from the end, so its lets wait until the
//! sequence closes. They wait in chunks rather than one vector: each chunk
//! twice the last, up to a fixed size, so a short sequence (and a deep nest
//! of them, each pending while the next is read) holds little; no chunk is
//! copied as the sequence grows; a long sequence has no doubling slack (up
//! to half of a vector's memory is spare); and building the chain frees
//! each chunk as it empties, so the pending lets and the chain made from
//! them are never both whole.

use ir_core::Node;

use super::expr::{Expr, Let, Span, Var};

/// Lets in the first chunk.
const FIRST: usize = 4;

/// Lets in a full-size chunk: 32 KiB, large enough to be few, small enough
/// that an empty tail wastes little.
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
            last => {
                let capacity = last.map_or(FIRST, |chunk| (2 * chunk.capacity()).min(CHUNK));
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
        // Chunks double from the first up to the full size.
        let sizes: Vec<_> = lets.chunks.iter().map(Vec::capacity).collect();
        assert_eq!(sizes[..5], [FIRST, 8, 16, 32, 64]);
        assert!(sizes.iter().all(|&c| c <= CHUNK));
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
