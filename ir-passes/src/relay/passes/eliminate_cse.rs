//! EliminateCommonSubexpr: calls of the same operator on the same arguments
//! with the same attributes become one shared node, and so do projections
//! of one tuple at one index (arguments match by
//! identity, scalar constants by value, tuple arguments field by field). A post-order rewrite, so
//! arguments are deduplicated before the calls that use them.

use crate::relay::pattern::PatternRewriter;
use rustc_hash::FxHashMap as HashMap;

use ir_core::{Family, Id, Node, Transformed};

use crate::relay::attrs::Attrs;
use crate::relay::expr::{Call, Expr, ExprRewriter, TupleGetItem};
use crate::relay::tensor::Tensor;
use crate::relay::ty::TypeRewriter;

/// How arguments match (as in TVM's CSE): by identity, scalar constants by
/// value, and tuple arguments field by field.
#[derive(Hash, PartialEq, Eq)]
enum Arg {
    Node(Id<Expr>),
    Scalar(Tensor),
    Tuple(Vec<Arg>),
}

fn arg_key(a: &Expr, nested: bool) -> Arg {
    match a {
        Expr::Constant(c) if c.data.is_scalar() => Arg::Scalar(c.data.clone()),
        Expr::Tuple(t) if !nested => {
            Arg::Tuple(t.fields.iter().map(|f| arg_key(f, true)).collect())
        }
        other => Arg::Node(other.id()),
    }
}

#[derive(Default)]
struct Cse<'a> {
    seen: HashMap<(String, Vec<Arg>, Attrs), Expr>,
    /// Projections by tuple (identity) and index.
    projections: HashMap<(Id<Expr>, usize), Expr>,
    /// Operators whose calls are never shared (TVM's `fskip`).
    skip: &'a [&'a str],
}

// Types have nothing to eliminate: their hooks keep every node.
impl TypeRewriter for Cse<'_> {}
impl PatternRewriter for Cse<'_> {}
impl ExprRewriter for Cse<'_> {
    fn rewrite_tuple_get_item(
        &mut self,
        _: &Node<TupleGetItem>,
        post: &Node<TupleGetItem>,
    ) -> Transformed<Expr> {
        // As TVM's CSE: `%t.0` twice of one tuple is one node.
        match self.projections.entry((post.tuple.id(), post.index)) {
            std::collections::hash_map::Entry::Occupied(first) => {
                Transformed::Replace(first.get().clone())
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(post.clone().into());
                Transformed::Keep
            }
        }
    }

    fn rewrite_call(&mut self, _: &Node<Call>, post: &Node<Call>) -> Transformed<Expr> {
        // As TVM: only operator calls with arguments are shared. A call of
        // a function may write a reference, and two calls are two writes.
        let callee = match post.op.as_op() {
            Some(op) if self.skip.contains(&op.name.as_str()) || post.args.is_empty() => {
                return Transformed::Keep;
            }
            Some(op) => op.name.clone(),
            None => return Transformed::Keep,
        };
        let args = post.args.iter().map(|a| arg_key(a, false)).collect();
        let key = (callee, args, post.attrs.clone());
        match self.seen.get(&key) {
            Some(first) => Transformed::Replace(first.clone()),
            None => {
                self.seen.insert(key, post.clone().into());
                Transformed::Keep
            }
        }
    }
}

/// Shares repeated calls in `e`.
pub fn eliminate_common_subexpr(e: &Expr) -> Expr {
    eliminate_common_subexpr_skipping(e, &[])
}

/// Shares repeated calls in `e`, except calls of the operators in `skip`
/// (TVM's `EliminateCommonSubexpr(fskip)`; the pipeline's `cse{skip=a|b}`).
pub fn eliminate_common_subexpr_skipping(e: &Expr, skip: &[&str]) -> Expr {
    Cse {
        seen: HashMap::default(),
        projections: HashMap::default(),
        skip,
    }
    .rewrite_expr(e)
}
