//! Post-order rewriting driven by an explicit stack (TVM's `PostOrderRewrite`
//! and `MixedModeMutator`): suited to dataflow graphs of any depth.
//!
//! A generated `<Family>Rewriter` has one hook per kind receiving
//! `(pre, post)`: `pre` is the original node and `post` the node rebuilt from
//! its already rewritten children (the same handle as `pre` when none
//! changed). Each node, shared or not, is rewritten once. Only children of the
//! rewriter's own family are rewritten first; children of other families are
//! carried over unchanged.

use std::any::Any;

use rustc_hash::FxHashMap;

use crate::{Family, Rebuild, Rewrite, Walk};

/// Collects the direct children of one family (a visitor adapter; the
/// family derives implement their visitor traits for it).
pub struct Collect<'a, F> {
    out: &'a mut Vec<F>,
}

impl<F: Family + Clone + 'static> Collect<'_, F> {
    /// Called by generated visitor impls for every child of family `G`.
    #[doc(hidden)]
    #[inline]
    pub fn offer<G: Any>(&mut self, child: &G) {
        if let Some(child) = (child as &dyn Any).downcast_ref::<F>() {
            self.out.push(child.clone());
        }
    }
}

/// Replaces each direct child of one family by its already computed rewrite
/// (a mutator adapter; the family derives implement their mutator traits for it).
pub struct Substitute<'a, F> {
    done: &'a FxHashMap<usize, F>,
}

impl<F: Family + Clone + 'static> Substitute<'_, F> {
    /// Called by generated mutator impls for every child of family `G`.
    #[doc(hidden)]
    #[inline]
    pub fn lookup<G: Any + Clone>(&mut self, child: &G) -> Rewrite<G> {
        let Some(child_f) = (child as &dyn Any).downcast_ref::<F>() else {
            return Rewrite::Keep;
        };
        match self.done.get(&child_f.addr()) {
            Some(new) if !new.same_as(child_f) => {
                let new: &dyn Any = new;
                match new.downcast_ref::<G>() {
                    Some(g) => Rewrite::Replace(g.clone()),
                    None => Rewrite::Keep,
                }
            }
            _ => Rewrite::Keep,
        }
    }
}

/// A family whose kinds have `(pre, post)` rewrite hooks in `W`. Implemented
/// by `#[derive(Mutable)]` for every `W: <Family>Rewriter`.
pub trait PostOrder<W>: Family + Clone + 'static {
    /// Calls `W`'s hook for the kind of `pre`; `post` has the same kind.
    fn rewrite_node(pre: &Self, post: &Self, rewriter: &mut W) -> Rewrite<Self>;
}

/// Rewrites `root` bottom-up with the hooks of `rewriter`, without recursion.
///
/// Every node reachable through children of this family is rewritten once,
/// children before parents; shared nodes stay shared.
pub fn rewrite<F, W>(root: &F, rewriter: &mut W) -> F
where
    F: PostOrder<W>,
    for<'a, 'b> F: Walk<Collect<'a, F>, ()> + Rebuild<Substitute<'b, F>>,
{
    // Results by the address of the original node; the originals stay alive
    // because `root` is borrowed for the whole call.
    let mut done: FxHashMap<usize, F> = FxHashMap::default();
    let mut stack: Vec<(F, bool)> = vec![(root.clone(), false)];
    let mut children = Vec::new();
    while let Some((node, expanded)) = stack.pop() {
        if done.contains_key(&node.addr()) {
            continue;
        }
        if !expanded {
            children.clear();
            node.walk(&mut Collect { out: &mut children });
            stack.push((node, true));
            for child in children.drain(..).rev() {
                if !done.contains_key(&child.addr()) {
                    stack.push((child, false));
                }
            }
            continue;
        }
        let post = node
            .rebuild(&mut Substitute { done: &done })
            .unwrap_or_clone(&node);
        let result = F::rewrite_node(&node, &post, rewriter).unwrap_or_clone(&post);
        done.insert(node.addr(), result);
    }
    done.remove(&root.addr()).unwrap_or_else(|| root.clone())
}
