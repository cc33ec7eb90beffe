//! Identity-keyed memo tables, for passes that choose to memoize.
//!
//! A node with a single handle has a single parent, so a walk from the root
//! cannot reach it twice: only shared nodes (more than one handle) get an
//! entry. Entries hold a handle to their key, so an address is never reused
//! while the table lives; drop the table with the pass.

use rustc_hash::FxHashMap;

use crate::{Family, Rebuild, Transformed, Walk};

/// Which shared nodes a visitor has already seen (Relay's `visit_counter_`).
///
/// Note that every use of a variable is typically the variable's own node, so
/// a pass that counts uses should not skip variables that were seen before.
///
/// ```
/// use ir_core::{Mutable, Node, VisitedSet, Visitable};
///
/// #[derive(Clone, Visitable, Mutable)]
/// struct Leaf {}
/// #[derive(Clone, Visitable, Mutable)]
/// struct Add { lhs: Expr, rhs: Expr }
/// #[derive(Clone, Visitable, Mutable)]
/// enum Expr { Leaf(Node<Leaf>), Add(Node<Add>) }
///
/// #[derive(Default)]
/// struct CountAdds { adds: usize, seen: VisitedSet<Expr> }
/// impl ExprVisitor for CountAdds {
///     fn visit_expr(&mut self, e: &Expr) {
///         ir_core::visited(self, e, |pass| &mut pass.seen);
///     }
///     fn visit_add(&mut self, n: &Node<Add>) {
///         self.adds += 1;
///         n.walk(self);
///     }
/// }
///
/// // e = e + e, 100 times: 2^100 paths, 100 additions.
/// let mut e = Expr::from(Leaf {});
/// for _ in 0..100 {
///     e = Add { lhs: e.clone(), rhs: e }.into();
/// }
/// let mut pass = CountAdds::default();
/// pass.visit_expr(&e);
/// assert_eq!(pass.adds, 100);
/// ```
pub struct VisitedSet<F> {
    seen: FxHashMap<usize, F>,
}

impl<F: Family + Clone> VisitedSet<F> {
    /// An empty set.
    pub fn new() -> Self {
        VisitedSet {
            seen: FxHashMap::default(),
        }
    }

    /// `true` the first time a node is offered; `false` for a shared node
    /// that was offered before.
    #[inline]
    pub fn first_visit(&mut self, node: &F) -> bool {
        if node.strong_count() == 1 {
            return true;
        }
        match self.seen.entry(node.addr()) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(node.clone());
                true
            }
        }
    }

    /// Number of shared nodes recorded.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// `true` when no shared node was recorded.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

impl<F: Family + Clone> Default for VisitedSet<F> {
    fn default() -> Self {
        Self::new()
    }
}

/// The result of mutating each shared node (Relay's `memo_`): a shared node is
/// rewritten once and its result stays shared.
///
/// ```
/// use ir_core::{MemoMap, Mutable, Node, Transformed, Visitable};
///
/// #[derive(Clone, Visitable, Mutable)]
/// struct Leaf { #[ir(skip)] value: i64 }
/// #[derive(Clone, Visitable, Mutable)]
/// struct Add { lhs: Expr, rhs: Expr }
/// #[derive(Clone, Visitable, Mutable)]
/// enum Expr { Leaf(Node<Leaf>), Add(Node<Add>) }
///
/// /// Increments every leaf, once per shared leaf.
/// #[derive(Default)]
/// struct Increment { memo: MemoMap<Expr> }
/// impl ExprMutator for Increment {
///     fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
///         ir_core::memoized(self, e, |pass| &mut pass.memo)
///     }
///     fn mutate_leaf(&mut self, n: &Node<Leaf>) -> Transformed<Expr> {
///         Leaf { value: n.value + 1 }.into()
///     }
/// }
///
/// let mut e = Expr::from(Leaf { value: 0 });
/// for _ in 0..100 {
///     e = Add { lhs: e.clone(), rhs: e }.into();
/// }
/// let new = Increment::default().mutate_expr(&e).unwrap_or_clone(&e);
/// let top = new.as_add().unwrap();
/// assert!(top.lhs.same_as(&top.rhs)); // still shared
/// ```
pub struct MemoMap<F> {
    done: FxHashMap<usize, (F, Transformed<F>)>,
}

impl<F: Family + Clone> MemoMap<F> {
    /// An empty table.
    pub fn new() -> Self {
        MemoMap {
            done: FxHashMap::default(),
        }
    }

    /// The recorded result for `node`, if it is shared and was mutated before.
    #[inline]
    pub fn get(&self, node: &F) -> Option<Transformed<F>> {
        if node.strong_count() == 1 {
            return None;
        }
        self.done.get(&node.addr()).map(|(_, r)| r.clone())
    }

    /// Records `result` for `node` (if shared) and returns it.
    #[inline]
    pub fn insert(&mut self, node: &F, result: Transformed<F>) -> Transformed<F> {
        if node.strong_count() != 1 {
            self.done
                .insert(node.addr(), (node.clone(), result.clone()));
        }
        result
    }

    /// Number of shared nodes recorded.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// `true` when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }
}

impl<F: Family + Clone> Default for MemoMap<F> {
    fn default() -> Self {
        Self::new()
    }
}

/// The body of a memoized family entry hook: the recorded result for a shared
/// node seen before, else the default dispatch (`node.rebuild(mutator)`),
/// recorded. `memo` picks the table out of the mutator; the [`MemoMap`]
/// example shows the one-line entry hook.
///
/// A node met once (one handle) is passed through like a default entry hook
/// does, so chains stay loops and in-place mode reaches it (see
/// [`crate::driver`]): nothing is recorded for it, so nothing is skipped.
#[inline]
pub fn memoized<M, F>(
    mutator: &mut M,
    node: &F,
    memo: impl Fn(&mut M) -> &mut MemoMap<F>,
) -> Transformed<F>
where
    M: ?Sized,
    F: Family + Clone + Rebuild<M>,
{
    if node.strong_count() == 1 {
        crate::driver::pass_through(mutator, || node.addr());
        return node.rebuild(mutator);
    }
    if let Some(done) = memo(mutator).get(node) {
        return done;
    }
    let result = node.rebuild(mutator);
    memo(mutator).insert(node, result)
}

/// The body of a visitor's entry hook that visits every shared node once
/// (Relay's `visit_counter_`): the default dispatch the first time a node is
/// offered, nothing after. `seen` picks the set out of the visitor.
///
/// It acts before walking only, so let chains are still walked in a loop
/// (see [`crate::visit_preorder`]).
#[inline]
pub fn visited<V, R, F>(visitor: &mut V, node: &F, seen: impl Fn(&mut V) -> &mut VisitedSet<F>) -> R
where
    V: ?Sized,
    R: crate::VisitResult,
    F: Family + Clone + Walk<V, R>,
{
    crate::visit_preorder(visitor, node, |visitor, node| {
        if seen(visitor).first_visit(node) {
            std::ops::ControlFlow::Continue(())
        } else {
            std::ops::ControlFlow::Break(R::output())
        }
    })
}
