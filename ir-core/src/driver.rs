//! Drivers: the loops and in-place writes that take over a pass's *default*
//! hooks, and the one mechanism that tells them when they may.
//!
//! Two jobs are better done by a loop in the framework than by the recursion
//! of default hooks:
//!
//! * **Chains.** A let chain of a million bindings is a million nested bodies
//!   (`#[ir(tail)]` marks the field, e.g. `Let::body`). Recursing through them
//!   costs a stack frame per level, and at that depth the frames no longer fit
//!   in any cache. The derived walk and rebuild of a tail kind follow the chain
//!   in a loop instead ([`walk_chain`], [`rebuild_chain`], [`tail_in_place`]).
//! * **In-place mode.** Run over a uniquely owned tree ([`Node::mutate_in_place`],
//!   `Mutate::mutate_in_place`), a mutator writes new children into the nodes on
//!   the path of a change instead of copying them ([`slot_in_place`]). Only
//!   families declared `#[ir(in_place)]` ([`crate::Family::IN_PLACE`]) take
//!   part: the default hooks of the others have no hand-back check for it, so
//!   the driver gets their hooks' copy-on-write result and stores it.
//!
//! Neither may bypass a user's hook. So a driver still calls the pass's entry
//! hook for the next link (or slot) as copy-on-write mode would, after
//! *arming* a hand-back for that node. If the call reaches the kind's default
//! hook with nothing but generated code in between (the default entry hook and
//! the dispatch), that default hook hands the node back: it returns at once and
//! the driver does the default work itself, in its loop or in place. Any user
//! code on the way (an overridden entry hook or kind hook) disarms it, and
//! that code runs exactly where it expects, with plain recursion below it.
//!
//! ```text
//! driver (walk_chain / rebuild_chain / slot_in_place / tail_in_place)
//!   │ arm(node, pass) ─────────────────────────────────────────────┐ per-thread flag
//!   └─▶ pass.visit_expr(node)          entry hook                 │  ARMED
//!         default: pass_through(node)  ────────────────────────────┤  PASSED
//!         overridden: user code; anything it visits disarms ───────┤  (cleared)
//!         └─▶ dispatch (generated match on the kind)
//!               └─▶ pass.visit_let(node)   kind hook
//!                     default: hand_back(node) ────────────────────┤  DEFERRED: return at once
//!                     overridden: user code runs ──────────────────┘  (cleared)
//!   disarm: DEFERRED? ── yes ─▶ the driver does the default work (next loop turn / in place)
//!                     └─ no ──▶ the hook's result is used as in copy-on-write mode
//! ```
//!
//! The flag lives in one per-thread cell, keyed by the node's address and the
//! pass (its address and its type's id), so nested passes and other threads never see
//! each other's. Memo helpers that only act *before* walking a node
//! ([`crate::memoized`], [`crate::visited`]) let a node met once pass through
//! like a default entry hook, since they record nothing for it.
//!
//! Per-binding passes over a chain (dead-code elimination, constant folding
//! of let-bound values) decide per node in a loop with [`mutate_chain`].

use std::any::TypeId;
use std::cell::Cell;

use crate::mutate::{Mutate, Rebuild, RebuildFields};
use crate::visit::{Visit, VisitResult};
use crate::{Node, NodeKind, Transformed};

// ---------------------------------------------------------------------------
// The hand-back flag.

const NONE: u8 = 0;
const ARMED: u8 = 1;
const PASSED: u8 = 2;
const DEFERRED: u8 = 3;

/// A pass object: its address and its type (two zero-sized passes may share
/// an address, and so may a pass and the pass it holds as its first field).
/// Passes borrow, so they are not `'static` and have no `std::any::TypeId`:
/// `typeid` gives one that ignores lifetimes, compared as one 128-bit value
/// (type names compared by content cost a string comparison per link, as
/// their addresses differ between codegen units).
#[derive(Clone, Copy)]
struct PassId {
    addr: usize,
    /// `None` only in the cleared flag (`TypeId::of` is not `const` at this
    /// crate's minimum Rust version).
    ty: Option<TypeId>,
}

impl PassId {
    #[inline(always)]
    fn of<P: ?Sized>(pass: &P) -> Self {
        PassId {
            addr: pass as *const P as *const () as usize,
            ty: Some(typeid::of::<P>()),
        }
    }

    #[inline(always)]
    fn is(self, other: PassId) -> bool {
        self.addr == other.addr && self.ty == other.ty
    }
}

#[derive(Clone, Copy)]
struct Flag {
    node: usize,
    pass: PassId,
    state: u8,
}

const CLEAR: Flag = Flag {
    node: 0,
    pass: PassId { addr: 0, ty: None },
    state: NONE,
};

thread_local! {
    static FLAG: Cell<Flag> = const { Cell::new(CLEAR) };
    /// `FLAG.state != NONE`: the one byte every default hook reads.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
}

#[inline(always)]
fn active() -> bool {
    ACTIVE.try_with(Cell::get).unwrap_or(false)
}

#[inline(always)]
fn get() -> Flag {
    FLAG.try_with(Cell::get).unwrap_or(CLEAR)
}

#[inline(always)]
fn set(flag: Flag) {
    let _ = FLAG.try_with(|f| f.set(flag));
    let _ = ACTIVE.try_with(|a| a.set(flag.state != NONE));
}

/// Called by default entry hooks (and memo helpers, for nodes met once)
/// before dispatching the node at `node`: an armed node of this pass passes
/// through; anything else disarms.
#[inline(always)]
pub(crate) fn pass_through<P: ?Sized>(pass: &P, node: impl FnOnce() -> usize) {
    if active() {
        pass_through_at(PassId::of(pass), node());
    }
}

/// [`pass_through`] for mutators' entry hooks, which generated code inlines
/// into the default hook of every kind: only the activity check is inlined.
#[inline(always)]
pub(crate) fn pass_through_outlined<P: ?Sized>(pass: &P, node: impl FnOnce() -> usize) {
    if active() {
        pass_through_slow(PassId::of(pass), node());
    }
}

#[inline(never)]
fn pass_through_slow(pass: PassId, node: usize) {
    pass_through_at(pass, node);
}

#[inline(always)]
fn pass_through_at(pass: PassId, node: usize) {
    let flag = get();
    if flag.node == node && flag.state == ARMED && flag.pass.is(pass) {
        set(Flag {
            state: PASSED,
            ..flag
        });
    } else if flag.node != node || flag.state != PASSED {
        set(CLEAR);
    }
}

/// Called by default kind hooks: `true` if a driver of this pass armed this
/// node and only generated code ran since, so the driver takes it over.
/// Inlined whole: visitors call it for tail kinds only, where a chain's
/// driver takes this path on every link.
#[inline(always)]
pub(crate) fn hand_back<P: ?Sized>(pass: &P, node: usize) -> bool {
    active() && hand_back_at(PassId::of(pass), node)
}

/// [`hand_back`] for the default hook of *every* mutator kind: only the
/// check that no driver is active is inlined, the rest is compiled once here
/// instead of once per kind and pass (a third of a derived crate's code).
#[inline(always)]
pub(crate) fn hand_back_outlined<P: ?Sized>(pass: &P, node: usize) -> bool {
    active() && hand_back_slow(PassId::of(pass), node)
}

#[inline(never)]
fn hand_back_slow(pass: PassId, node: usize) -> bool {
    hand_back_at(pass, node)
}

#[inline(always)]
fn hand_back_at(pass: PassId, node: usize) -> bool {
    let flag = get();
    if flag.state == PASSED && flag.node == node && flag.pass.is(pass) {
        set(Flag {
            state: DEFERRED,
            ..flag
        });
        true
    } else {
        set(CLEAR);
        false
    }
}

/// A hand-back a driver armed; [`Armed::disarm`] says whether it came back.
#[must_use]
struct Armed {
    node: usize,
    pass: PassId,
}

/// Arms a hand-back of `node` for `pass`; `entry` when the call goes through
/// the pass's entry hook first (a family-typed slot), not straight to a kind
/// hook (a field typed `Node<Kind>`).
#[inline(always)]
fn arm<P: ?Sized>(pass: &P, node: usize, entry: bool) -> Armed {
    let pass = PassId::of(pass);
    set(Flag {
        node,
        pass,
        state: if entry { ARMED } else { PASSED },
    });
    Armed { node, pass }
}

impl Armed {
    /// `true` when the node was handed back. Clears what is left of this flag.
    #[inline(always)]
    fn disarm(self) -> bool {
        let flag = get();
        if flag.state != NONE && flag.node == self.node && flag.pass.is(self.pass) {
            set(CLEAR);
            return flag.state == DEFERRED;
        }
        false
    }
}

// ---------------------------------------------------------------------------
// Chains.

/// A node struct with an `#[ir(tail)]` field: the field that continues a chain
/// of nodes of the same kind (a let's body). Implemented by the derive.
pub trait Spine: NodeKind {
    /// The tail field.
    fn tail(&self) -> &Self::Family;
    /// The tail field, mutably (in-place mode and chain rebuilds).
    fn tail_mut(&mut self) -> &mut Self::Family;
}

/// A chain node as seen by a visitor (derived).
pub trait SpineVisit<V: ?Sized, R>: Spine {
    /// Visits every child except the tail, in declaration order.
    fn walk_head(&self, visitor: &mut V) -> R;
}

/// A chain node as seen by a mutator (derived).
pub trait SpineMutate<M: ?Sized>: Spine + Clone {
    /// This node with every child but the tail mutated (the tail is kept):
    /// [`Transformed::Keep`] when none changed. The default work a
    /// per-binding pass ([`mutate_chain`]) does for a binding it keeps.
    fn rebuild_head(&self, mutator: &mut M) -> Transformed<Self>;
    /// In-place mode: mutates every child but the tail in place.
    fn rebuild_head_in_place(&mut self, mutator: &mut M) -> bool;
}

/// The derived walk of a chain node: visits the head of each link, following
/// tails in a loop while they are handed back.
#[doc(hidden)]
pub fn walk_chain<V, R, K>(first: &K, visitor: &mut V) -> R
where
    V: ?Sized,
    R: VisitResult,
    K: SpineVisit<V, R>,
    K::Family: Visit<V, R>,
{
    let mut cur = first;
    loop {
        crate::try_visit!(cur.walk_head(visitor));
        let tail = cur.tail();
        let Some(next) = K::downcast(tail) else {
            return tail.visit(visitor);
        };
        let armed = arm(visitor, next.addr(), true);
        let r = tail.visit(visitor);
        if !armed.disarm() {
            return r;
        }
        cur = next;
    }
}

/// The derived copy-on-write rebuild of a chain node: mutates the head of
/// each link, following tails in a loop while they are handed back, then
/// rebuilds the links that changed from the bottom up. Nothing is allocated
/// when nothing changed.
#[doc(hidden)]
pub fn rebuild_chain<M, K>(first: &K, mutator: &mut M) -> Transformed<K>
where
    M: ?Sized,
    K: SpineMutate<M>,
    K::Family: Mutate<M> + Clone,
{
    let first_head = first.rebuild_head(mutator);
    // The links below `first` with their new heads; filled from the first
    // change on (the unchanged prefix is re-walked then), never for an
    // identity pass.
    let mut links: Option<Vec<Link<'_, K>>> = None;
    let mut depth = 0;
    let mut tail = first.tail();
    let last = loop {
        let Some(next) = K::downcast(tail) else {
            break tail.mutate(mutator);
        };
        let armed = arm(mutator, next.addr(), true);
        let r = tail.mutate(mutator);
        if !armed.disarm() {
            break r;
        }
        let head = next.rebuild_head(mutator);
        if head.is_replace() && links.is_none() {
            links = Some(prefix(first, depth, chain_length(next)));
        }
        if let Some(links) = &mut links {
            links.push((next, Some(head)));
        }
        depth += 1;
        tail = next.tail();
    };
    if last.is_keep() && links.is_none() && first_head.is_keep() {
        return Transformed::Keep;
    }
    let links = links.unwrap_or_else(|| prefix(first, depth, 0));
    let tail = rebuild_links(links, last);
    finish_first(first, first_head, tail)
}

/// A link of a chain with what becomes of it: kept with a new head
/// (`Some(Replace)`), kept as it is (`Some(Keep)`), or removed (`None`).
type Link<'a, K> = (&'a Node<K>, Option<Transformed<K>>);

/// The first `n` links below `first`, unchanged, in a vector with room for
/// `more` (so that a chain rebuild allocates one vector, once).
fn prefix<K: Spine>(first: &K, n: usize, more: usize) -> Vec<Link<'_, K>> {
    let mut out = Vec::with_capacity(n + more);
    let mut tail = first.tail();
    for _ in 0..n {
        let Some(next) = K::downcast(tail) else { break };
        out.push((next, Some(Transformed::Keep)));
        tail = next.tail();
    }
    out
}

/// Links of the chain from `from` on (an upper bound of what a driver walks).
fn chain_length<K: Spine>(from: &Node<K>) -> usize {
    let mut n = 1;
    let mut node = from;
    while let Some(next) = K::downcast(node.tail()) {
        n += 1;
        node = next;
    }
    n
}

/// Rebuilds links from the bottom up, given the new last tail; unchanged
/// links stay shared. Returns the new tail of the node above them.
fn rebuild_links<K>(links: Vec<Link<'_, K>>, last: Transformed<K::Family>) -> Transformed<K::Family>
where
    K: Spine + Clone,
    K::Family: Clone,
{
    let mut result = last;
    for (node, link) in links.into_iter().rev() {
        result = match link {
            // Removed: its place is taken by its (rewritten) tail.
            None => Transformed::Replace(result.unwrap_or_clone(node.tail())),
            Some(Transformed::Keep) if result.is_keep() => Transformed::Keep,
            Some(head) => {
                let mut contents = head.unwrap_or_else(|| (**node).clone());
                result.assign_to(contents.tail_mut());
                Transformed::Replace(Node::new(contents).into())
            }
        };
    }
    result
}

fn finish_first<K: Spine + Clone>(
    first: &K,
    head: Transformed<K>,
    tail: Transformed<K::Family>,
) -> Transformed<K> {
    match (head, tail) {
        (Transformed::Keep, Transformed::Keep) => Transformed::Keep,
        (head, tail) => {
            let mut contents = head.unwrap_or_else(|| first.clone());
            tail.assign_to(contents.tail_mut());
            Transformed::Replace(contents)
        }
    }
}

/// The derived in-place mutation of a chain node's tail: links that are
/// handed back and uniquely owned are mutated in place in a loop.
#[doc(hidden)]
pub fn tail_in_place<M, K>(tail: &mut K::Family, mutator: &mut M) -> bool
where
    M: ?Sized,
    K: SpineMutate<M>,
    K::Family: Mutate<M> + Rebuild<M>,
{
    let mut changed = false;
    let mut slot = tail;
    loop {
        let handle = slot.node_handle();
        if K::downcast(slot).is_none() || handle.strong_count != 1 {
            return slot.mutate_in_place(mutator) | changed;
        }
        let armed = arm(mutator, handle.addr, true);
        let r = slot.mutate(mutator);
        if !armed.disarm() {
            return r.assign_to(slot) | changed;
        }
        if K::downcast(slot).is_none_or(|n| n.strong_count() != 1) {
            // Not unique any more (the default path never clones, but be safe).
            return slot.mutate(mutator).assign_to(slot) | changed;
        }
        let Some(contents) = K::downcast_mut(slot).and_then(Node::get_mut) else {
            return changed; // just checked: unique
        };
        changed |= contents.rebuild_head_in_place(mutator);
        slot = contents.tail_mut();
    }
}

// ---------------------------------------------------------------------------
// In-place mode.

/// In-place mode for one family-typed slot (a field, a vector element):
/// through the pass's hooks as in copy-on-write mode, but if they hand the
/// node back and it is uniquely owned, its fields are mutated in place.
/// Below a shared node everything is copy-on-write (TIR's rule): its other
/// owners see no change. Returns `true` when something changed.
#[doc(hidden)]
pub fn slot_in_place<M: ?Sized, F: Mutate<M> + Rebuild<M>>(slot: &mut F, mutator: &mut M) -> bool {
    let handle = slot.node_handle();
    if handle.strong_count != 1 {
        return slot.mutate(mutator).assign_to(slot);
    }
    let armed = arm(mutator, handle.addr, true);
    let r = slot.mutate(mutator);
    if armed.disarm() {
        return slot.rebuild_in_place(mutator);
    }
    r.assign_to(slot)
}

/// In-place mode for a field typed `Node<Kind>` whose hook is `hook` (a
/// definition hook): as [`slot_in_place`], without an entry hook.
pub(crate) fn kind_slot_in_place<M: ?Sized, K: RebuildFields<M>>(
    slot: &mut Node<K>,
    mutator: &mut M,
    hook: impl FnOnce(&mut M, &Node<K>) -> Transformed<Node<K>>,
) -> bool {
    if slot.strong_count() != 1 {
        return hook(mutator, slot).assign_to(slot);
    }
    let armed = arm(mutator, slot.addr(), false);
    let r = hook(mutator, slot);
    if armed.disarm() {
        return node_in_place(slot, mutator);
    }
    r.assign_to(slot)
}

/// The default work on a node in in-place mode: its fields, in place when
/// the node is uniquely owned, else a copy-on-write rebuild.
#[doc(hidden)]
#[inline]
pub fn node_in_place<M: ?Sized, K: RebuildFields<M>>(node: &mut Node<K>, mutator: &mut M) -> bool {
    match node.get_mut() {
        Some(contents) => contents.rebuild_fields_in_place(mutator),
        None => match node.rebuild_fields(mutator) {
            Transformed::Keep => false,
            Transformed::Replace(contents) => {
                *node = Node::new(contents);
                true
            }
        },
    }
}

impl<K> Node<K> {
    /// In-place mode (oneDNN's in-place visitor, TIR's copy-on-write): runs
    /// the default recursion of `mutator` on this node, writing new children
    /// into every uniquely owned node on the path of a change, this one
    /// included; a shared node met on the way is copied instead, and its
    /// other owners see no change. Hooks the pass overrides run as in
    /// copy-on-write mode. Returns `true` when something changed.
    ///
    /// The family must be declared `#[ir(in_place)]` for its nodes to be
    /// written into; other families are rebuilt copy-on-write (the result is
    /// the same).
    ///
    /// ```
    /// use ir_core::prelude::*;
    ///
    /// #[derive(Clone, Visitable, Mutable)]
    /// struct Lit { #[ir(skip)] value: i64 }
    /// #[derive(Clone, Visitable, Mutable)]
    /// struct Add { lhs: Expr, rhs: Expr }
    /// #[derive(Clone, Visitable, Mutable)]
    /// #[ir(in_place)]
    /// enum Expr { Lit(Node<Lit>), Add(Node<Add>) }
    ///
    /// struct Double;
    /// impl ExprMutator for Double {
    ///     fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<Expr> {
    ///         Lit { value: 2 * n.value }.into()
    ///     }
    /// }
    ///
    /// let lit = |value| Expr::from(Lit { value });
    /// let mut root = Node::new(Add { lhs: Add { lhs: lit(1), rhs: lit(2) }.into(), rhs: lit(3) });
    /// let inner = root.lhs.addr();
    /// let before = root.addr();
    /// assert!(root.mutate_in_place(&mut Double));
    /// assert_eq!((root.addr(), root.lhs.addr()), (before, inner)); // no ancestor reallocated
    /// ```
    pub fn mutate_in_place<M: ?Sized>(&mut self, mutator: &mut M) -> bool
    where
        K: RebuildFields<M>,
    {
        node_in_place(self, mutator)
    }
}

// ---------------------------------------------------------------------------
// Per-binding chain passes.

/// Rewrites a whole chain of `K` nodes (a let chain) in a loop, for a pass
/// whose hook for `K` decides per link. Call it from the kind's hook, e.g.
/// `mutate_let`.
///
/// `decide` runs on every link, first to last, and answers `None` to remove
/// the link (its place is taken by its rewritten tail, as when a dead let is
/// replaced by its body) or `Some(t)` to keep it, with new contents when
/// `t` is [`Transformed::Replace`] (their tail is replaced by the rewritten
/// tail; `node.rebuild_head(pass)` is the default). Every tail goes through
/// the pass's entry hook, as a child would; a link that reaches the kind's
/// hook and `mutate_chain` with only the default entry hook on the way (or a
/// memo helper meeting it for the first time) is handed back and decided in
/// this loop instead of in a nested call, so a chain of any length takes one
/// frame. An overridden entry hook runs for every link, and the links below
/// it are then rewritten by the nested call. So call `mutate_chain` as the
/// kind hook's last step, returning its result as it is: a handed-back call
/// returns a placeholder ([`Transformed::Keep`]) that only the loop reads,
/// and the loop checks it got it back (a hook that turns it into a
/// replacement panics, naming the kind). Work per link belongs in `decide`;
/// what the hook does with the result applies to the whole chain. Links are rebuilt from
/// the bottom up: unchanged ones stay shared, and nothing is allocated when
/// nothing changed.
///
/// ```
/// use ir_core::prelude::*;
/// use ir_core::driver::mutate_chain;
///
/// #[derive(Clone, Visitable, Mutable)]
/// struct Lit { #[ir(skip)] value: i64 }
/// #[derive(Clone, Visitable, Mutable)]
/// struct Let { #[ir(skip)] name: String, value: Expr, #[ir(tail)] body: Expr }
/// #[derive(Clone, Visitable, Mutable)]
/// enum Expr { Lit(Node<Lit>), Let(Node<Let>) }
///
/// /// Removes the bindings named `_`, renames the others to upper case.
/// struct Tidy;
/// impl ExprMutator for Tidy {
///     fn mutate_let(&mut self, l: &Node<Let>) -> Transformed<Expr> {
///         mutate_chain(l, self, |_, l| {
///             (l.name != "_").then(|| Transformed::Replace(Let { name: l.name.to_uppercase(), ..(**l).clone() }))
///         })
///     }
/// }
///
/// let lit = |value| Expr::from(Lit { value });
/// let mut e = lit(0);
/// for (i, name) in ["a", "_", "b", "_"].iter().enumerate().rev() {
///     e = Let { name: name.to_string(), value: lit(i as i64), body: e }.into();
/// }
/// let out = Tidy.mutate_expr(&e).unwrap_or_clone(&e);
/// let a = out.as_let().unwrap();
/// let b = a.body.as_let().unwrap();
/// assert_eq!((a.name.as_str(), b.name.as_str()), ("A", "B"));
/// assert!(b.body.is_lit());
/// ```
pub fn mutate_chain<M, K>(
    first: &Node<K>,
    mutator: &mut M,
    mut decide: impl FnMut(&mut M, &Node<K>) -> Option<Transformed<K>>,
) -> Transformed<K::Family>
where
    M: ?Sized,
    K: Spine + Clone,
    K::Family: Mutate<M> + Clone,
{
    // A link reached from an enclosing `mutate_chain`'s loop through the
    // pass's default entry hook: that loop does the work.
    if hand_back(mutator, first.addr()) {
        return Transformed::Keep;
    }
    let mut links: Vec<Link<'_, K>> = Vec::new();
    let mut cur = first;
    let last = loop {
        let link = decide(mutator, cur);
        links.push((cur, link));
        let tail = cur.tail();
        let Some(next) = K::downcast(tail) else {
            break tail.mutate(mutator);
        };
        // The tail goes through the pass's entry hook as any child would; it
        // comes back here (to be decided in this loop) only when nothing but
        // generated code ran on the way to the kind's hook.
        let armed = arm(mutator, next.addr(), true);
        let r = tail.mutate(mutator);
        if !armed.disarm() {
            break r;
        }
        // The link came back through a kind hook that called `mutate_chain`:
        // what that hook returned is the placeholder, unless it changed it.
        assert!(
            r.is_keep(),
            "the hook that called `mutate_chain` for a `{}` changed what it returned; \
             return `mutate_chain`'s result as it is (decide each link in its closure)",
            std::any::type_name::<K>()
        );
        cur = next;
    };
    rebuild_links(links, last)
}

impl<K> Node<K> {
    /// The name in-place mode had when it reused only this node's allocation.
    #[deprecated(
        since = "0.2.0",
        note = "use `mutate_in_place`, which now reaches the whole tree"
    )]
    pub fn rebuild_in_place<M: ?Sized>(&mut self, mutator: &mut M) -> bool
    where
        K: RebuildFields<M>,
    {
        node_in_place(self, mutator)
    }
}
