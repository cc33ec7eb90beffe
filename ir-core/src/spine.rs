//! Spines: chains of nodes linked through a tail field (`#[ir(tail)]`, e.g.
//! a let's body), walked in a loop instead of by recursion.
//!
//! A let chain of a million bindings is a million nested bodies. Recursing
//! through them costs a stack frame per level, and at that depth the frames
//! no longer fit in any cache: the walk becomes memory-bound on its own stack.
//! The default hook of a kind with a tail field therefore runs a *driver*: it
//! visits (or mutates) the other children of each node and moves on to the
//! tail in a loop, like RAF's `ExpandANormalForm`.
//!
//! Unlike `ExpandANormalForm`, the driver never bypasses a user's hook. It
//! still calls the tail through the pass's entry hook; only when that call
//! reaches the kind's *default* hook again with nothing but generated code in
//! between (the default entry hook and the dispatch) does the inner default
//! hook hand the node back to the driver instead of recursing. A pass that
//! overrides the entry hook or the kind's hook gets plain recursion, with its
//! code run exactly where it expects it. The hand-back is a per-thread flag
//! keyed by the node and the pass, so nested and concurrent passes never see
//! each other's.
//!
//! A visitor whose entry hook only acts *before* walking a node (counting,
//! filtering with a [`crate::VisitedSet`]) can declare it with
//! `const PREORDER_ENTRY: bool = true;` in its visitor impl, and keeps the loop.

use std::cell::Cell;

use crate::visit::{Visit, VisitResult};
use crate::{Family, Mutate, Node, Rewrite};

/// Implemented by `#[derive(Visitable)]` for every node struct: whether it has
/// a tail field.
pub trait Tail {
    /// `true` when a field is marked `#[ir(tail)]`.
    const HAS_TAIL: bool;
}

/// Implemented by `#[derive(Visitable)]` for every family: whether any of its
/// kinds has a tail field (the default entry hook takes part in the hand-back
/// only then).
pub trait HasSpine {
    /// `true` when some kind has an `#[ir(tail)]` field.
    const ANY_TAIL: bool;
}

/// Implemented by the family derive for each kind: the downcast a driver uses
/// to follow a tail.
pub trait AsKind<K> {
    /// The node, if this value is of kind `K`.
    fn as_kind(&self) -> Option<&Node<K>>;
}

/// A node struct with a tail field, as seen by a visitor (derived).
pub trait SpineVisit<V, R>: Sized {
    /// The tail field's type: the family the node belongs to.
    type Tail;
    /// Visits every child except the tail, in declaration order.
    fn walk_head(&self, visitor: &mut V) -> R;
    /// The tail field.
    fn tail(&self) -> &Self::Tail;
}

/// A node struct with a tail field, as seen by a mutator (derived).
pub trait SpineMutate<M>: Sized {
    /// The tail field's type: the family the node belongs to.
    type Tail;
    /// The new values of the children other than the tail (each `None` if unchanged).
    type Head;
    /// Mutates every child except the tail; `None` when none changed.
    fn mutate_head(&self, mutator: &mut M) -> Option<Self::Head>;
    /// The tail field.
    fn tail(&self) -> &Self::Tail;
    /// A copy of this node with the given new children (unchanged ones cloned).
    fn assemble(&self, head: Option<Self::Head>, tail: Option<Self::Tail>) -> Self;
}

/// The default visitor hook of a kind (derived): walk the children, or run
/// the spine driver for a kind with a tail field.
pub trait VisitDefault<V, R>: Sized {
    /// The default hook's body.
    fn visit_default(node: &Node<Self>, visitor: &mut V) -> R;
}

/// The default mutator hook of a kind (derived): rebuild from the children,
/// or run the spine driver for a kind with a tail field.
pub trait MutateDefault<M, F>: Sized {
    /// The default hook's body.
    fn mutate_default(node: &Node<Self>, mutator: &mut M) -> Rewrite<F>;
}

const NONE: u8 = 0;
const ARMED: u8 = 1;
const PASSED: u8 = 2;
const DEFERRED: u8 = 3;

/// A pass object: its address and its type (two zero-sized passes share an
/// address). Type names are compared by content: the same name may live at
/// several addresses, one per codegen unit.
#[derive(Clone, Copy)]
struct PassId {
    addr: usize,
    ty: &'static str,
}

impl PassId {
    #[inline(always)]
    fn of<P>(pass: &P) -> Self {
        PassId {
            addr: pass as *const P as usize,
            ty: std::any::type_name::<P>(),
        }
    }

    #[inline(always)]
    fn is(self, other: PassId) -> bool {
        self.addr == other.addr && (std::ptr::eq(self.ty, other.ty) || self.ty == other.ty)
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
    pass: PassId { addr: 0, ty: "" },
    state: NONE,
};

thread_local! {
    static FLAG: Cell<Flag> = const { Cell::new(CLEAR) };
    /// `FLAG.state != NONE`: the one byte every default entry hook reads.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
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

/// Called by a default entry hook (and by the dispatch of a visitor with a
/// pre-order entry hook) before dispatching `node`: a driver's armed tail
/// passes through; anything else clears the flag.
#[doc(hidden)]
#[inline(always)]
pub fn __entry<P, F: Family>(pass: &P, node: &F) {
    if !ACTIVE.try_with(Cell::get).unwrap_or(false) {
        return;
    }
    let flag = get();
    let ours = flag.node == node.addr() && flag.pass.is(PassId::of(pass));
    if ours && (flag.state == ARMED || flag.state == PASSED) {
        set(Flag {
            state: PASSED,
            ..flag
        });
    } else {
        set(CLEAR);
    }
}

/// In a default hook: `true` if an enclosing driver of this pass armed this
/// node and only generated code ran since, so the driver takes it over.
#[inline(always)]
fn try_defer(node: usize, pass: PassId) -> bool {
    let flag = get();
    if flag.state == PASSED && flag.node == node && flag.pass.is(pass) {
        set(Flag {
            state: DEFERRED,
            ..flag
        });
        true
    } else {
        false
    }
}

#[inline(always)]
fn arm(node: usize, pass: PassId) {
    set(Flag {
        node,
        pass,
        state: ARMED,
    });
}

/// After the driver's tail call: `true` if the tail node was handed back.
/// Clears whatever is left of this driver's flag either way.
#[inline(always)]
fn take_deferred(node: usize, pass: PassId) -> bool {
    let flag = get();
    if flag.state != NONE && flag.node == node && flag.pass.is(pass) {
        set(CLEAR);
        return flag.state == DEFERRED;
    }
    false
}

/// The default visitor hook of a kind with a tail field: visits the head of
/// each node of the chain, following tails in a loop.
#[doc(hidden)]
pub fn __visit_spine<V, R, K>(first: &Node<K>, visitor: &mut V) -> R
where
    R: VisitResult,
    K: SpineVisit<V, R>,
    K::Tail: Family + AsKind<K> + Visit<V, R>,
{
    let me = PassId::of(visitor);
    if try_defer(first.addr(), me) {
        return R::output();
    }
    let mut cur = first;
    loop {
        crate::try_visit!(cur.walk_head(visitor));
        let tail = cur.tail();
        let Some(next) = tail.as_kind() else {
            return tail.visit(visitor);
        };
        arm(next.addr(), me);
        let r = tail.visit(visitor);
        if !take_deferred(next.addr(), me) {
            return r;
        }
        cur = next;
    }
}

/// The default mutator hook of a kind with a tail field: mutates the head of
/// each node of the chain, following tails in a loop, then rebuilds the nodes
/// that changed from the bottom up. Nothing is allocated when nothing changed.
#[doc(hidden)]
pub fn __mutate_spine<M, K>(first: &Node<K>, mutator: &mut M) -> Rewrite<K::Tail>
where
    K: SpineMutate<M>,
    K::Tail: Family + AsKind<K> + Mutate<M> + From<Node<K>> + Clone,
{
    let me = PassId::of(mutator);
    if try_defer(first.addr(), me) {
        return Rewrite::Keep;
    }
    // The chain with each node's new head, allocated once, at the first change
    // (sized for the rest of the chain); never for an identity pass.
    let mut spine: Option<Spine<'_, K, K::Head>> = None;
    let mut cur = first;
    let mut depth = 0;
    let last = loop {
        let head = cur.mutate_head(mutator);
        if head.is_some() && spine.is_none() {
            spine = Some(chain_prefix::<M, K>(
                first,
                depth,
                chain_length::<M, K>(cur),
            ));
        }
        if let Some(spine) = &mut spine {
            spine.push((cur, Link::Keep(head)));
        }
        let tail = cur.tail();
        let Some(next) = tail.as_kind() else {
            break tail.mutate(mutator);
        };
        arm(next.addr(), me);
        let r = tail.mutate(mutator);
        if !take_deferred(next.addr(), me) {
            break r;
        }
        cur = next;
        depth += 1;
    };
    if last.is_none() && spine.is_none() {
        return Rewrite::Keep;
    }
    let spine = spine.unwrap_or_else(|| chain_prefix::<M, K>(first, depth + 1, 0));
    rebuild_chain(spine, last)
}

/// A chain's nodes, each with what becomes of it.
type Spine<'a, K, H> = Vec<(&'a Node<K>, Link<H>)>;

/// Rebuilds a chain from the bottom up, given what becomes of each node and
/// the new last tail (`None`: unchanged); unchanged nodes stay shared.
fn rebuild_chain<M, K>(links: Spine<'_, K, K::Head>, last: Option<K::Tail>) -> Rewrite<K::Tail>
where
    K: SpineMutate<M>,
    K::Tail: From<Node<K>> + Clone,
{
    let mut result = last;
    for (node, link) in links.into_iter().rev() {
        result = match link {
            Link::Drop => Some(result.unwrap_or_else(|| node.tail().clone())),
            Link::Keep(None) if result.is_none() => None,
            Link::Keep(head) => Some(Node::new(node.assemble(head, result)).into()),
        };
    }
    result.into()
}

/// The first `n` nodes of the chain from `first`, with unchanged heads, in a
/// vector with room for `more`.
fn chain_prefix<'a, M, K>(first: &'a Node<K>, n: usize, more: usize) -> Spine<'a, K, K::Head>
where
    K: SpineMutate<M> + 'a,
    K::Tail: AsKind<K> + 'a,
{
    let mut out = Vec::with_capacity(n + more);
    let mut node = Some(first);
    for _ in 0..n {
        let Some(n) = node else { break };
        out.push((n, Link::Keep(None)));
        node = n.tail().as_kind();
    }
    out
}

/// Nodes of the chain from `from` on (an upper bound of what a driver walks).
fn chain_length<'a, M, K>(from: &'a Node<K>) -> usize
where
    K: SpineMutate<M> + 'a,
    K::Tail: AsKind<K> + 'a,
{
    let mut n = 1;
    let mut node = from;
    while let Some(next) = node.tail().as_kind() {
        n += 1;
        node = next;
    }
    n
}

/// What a chain pass ([`mutate_chain`]) decides for one node of a spine.
pub enum Link<H> {
    /// Keep the node, with these new non-tail children (`None`: unchanged).
    Keep(Option<H>),
    /// Remove the node: its place is taken by its (rewritten) tail, as when a
    /// dead or folded let binding is replaced by its body.
    Drop,
}

/// Rewrites a whole chain of `K` nodes (a let chain) in a loop, for a pass
/// whose hook for `K` decides per node: keep it (with new children) or drop
/// it in favour of its tail. Call it from the kind's hook, e.g. `mutate_let`.
///
/// `decide` runs on every node of the chain, first to last; tails held by
/// one handle only are followed directly (a memoizing entry hook records
/// nothing for a node met once, so none is skipped that would matter), and
/// the last tail goes through the pass's entry hook as usual. The rewritten
/// nodes are then rebuilt from the bottom up: unchanged ones stay shared, and
/// nothing is allocated for the result when nothing changed.
///
/// ```
/// use ir_core::prelude::*;
/// use ir_core::spine::{Link, mutate_chain};
///
/// #[derive(Clone, Visitable, Mutable)]
/// struct Lit { #[ir(skip)] value: i64 }
/// #[derive(Clone, Visitable, Mutable)]
/// struct Let { #[ir(skip)] name: String, value: Expr, #[ir(tail)] body: Expr }
/// #[derive(Clone, Visitable, Mutable)]
/// enum Expr { Lit(Node<Lit>), Let(Node<Let>) }
///
/// /// Removes the bindings named `_`.
/// struct DropUnderscores;
/// impl ExprMutator for DropUnderscores {
///     fn mutate_let(&mut self, l: &Node<Let>) -> Rewrite<Expr> {
///         mutate_chain(l, self, |_, l| if l.name == "_" { Link::Drop } else { Link::Keep(None) })
///     }
/// }
///
/// let lit = |value| Expr::from(Lit { value });
/// let mut e = lit(0);
/// for (i, name) in ["a", "_", "b", "_"].iter().enumerate().rev() {
///     e = Let { name: name.to_string(), value: lit(i as i64), body: e }.into();
/// }
/// let out = DropUnderscores.mutate_expr(&e).unwrap_or_clone(&e);
/// let a = out.as_let().unwrap();
/// let b = a.body.as_let().unwrap();
/// assert_eq!((a.name.as_str(), b.name.as_str()), ("a", "b"));
/// assert!(b.body.is_lit());
/// ```
pub fn mutate_chain<M, K>(
    first: &Node<K>,
    mutator: &mut M,
    mut decide: impl FnMut(&mut M, &Node<K>) -> Link<K::Head>,
) -> Rewrite<K::Tail>
where
    K: SpineMutate<M>,
    K::Tail: Family + AsKind<K> + Mutate<M> + From<Node<K>> + Clone,
{
    let mut links: Spine<'_, K, K::Head> = Vec::new();
    let mut cur = first;
    let last = loop {
        let link = decide(mutator, cur);
        links.push((cur, link));
        let tail = cur.tail();
        match tail.as_kind() {
            Some(next) if next.strong_count() == 1 => cur = next,
            _ => break tail.mutate(mutator),
        }
    };
    rebuild_chain(links, last)
}
