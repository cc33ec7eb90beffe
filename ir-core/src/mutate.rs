//! Copy-on-write mutation, and in-place mode: the traits `#[derive(Mutable)]`
//! implements.
//!
//! A generated `<Family>Mutator` trait has one hook per node kind returning a
//! [`Transformed`]: [`Transformed::Keep`] means "the original node,
//! unchanged". Nothing is allocated and no reference count is touched for
//! unchanged subtrees; a node is rebuilt only when one of its children
//! changed, and its unchanged siblings stay shared.
//!
//! The same pass runs in place when the caller asks for it
//! ([`Mutate::mutate_in_place`], [`Node::mutate_in_place`]): new children are
//! then written into the uniquely owned nodes on the path of a change (see
//! [`crate::driver`]).

use crate::kind_ref::{KindNode, KindRef};
use crate::{Family, Node, NodeKind, Transformed};

/// Default recursion of a mutator on a node struct (derived): mutate every
/// child in field declaration order and return the new contents if any
/// changed. Non-child fields are cloned into the new contents unchanged,
/// except `#[ir(cache)]` fields, which start again from `Default`.
pub trait RebuildFields<M: ?Sized>: Sized {
    /// [`Transformed::Keep`] when no child changed.
    fn rebuild_fields(&self, mutator: &mut M) -> Transformed<Self>;
    /// In-place mode: mutates the children in place; `true` when one changed.
    fn rebuild_fields_in_place(&mut self, mutator: &mut M) -> bool;
}

/// A derived struct's default recursion is its [`Mutate`] (its fields, in
/// order): see [`DerivedStruct`](crate::visit::DerivedStruct).
impl<M: ?Sized, T: Mutate<M> + crate::visit::DerivedStruct> RebuildFields<M> for T {
    #[inline(always)]
    fn rebuild_fields(&self, mutator: &mut M) -> Transformed<Self> {
        self.mutate(mutator)
    }
    #[inline(always)]
    fn rebuild_fields_in_place(&mut self, mutator: &mut M) -> bool {
        self.mutate_in_place(mutator)
    }
}

/// Where a family value's node is and how many handles share it; what the
/// drivers of in-place mode and the memo tables need of a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandleInfo {
    /// The node's address.
    pub addr: usize,
    /// How many handles share it.
    pub strong_count: usize,
}

/// Default recursion of a mutator on a family (derived): dispatch to the hook
/// of the node's kind. Hooks that override the family entry call it explicitly.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an IR family",
    note = "derive `Visitable` on the family enum too: `Mutable` builds on it"
)]
pub trait Rebuild<M: ?Sized>: Family {
    /// Dispatches to the kind hook.
    fn rebuild(&self, mutator: &mut M) -> Transformed<Self>;
    /// In-place mode, once the hooks handed the node back: the kind's default
    /// work on the node, in place (the node is uniquely owned). Generated for
    /// families declared `#[ir(in_place)]`, whose hooks hand nodes back; the
    /// default rebuilds copy-on-write.
    #[inline]
    fn rebuild_in_place(&mut self, mutator: &mut M) -> bool {
        self.rebuild(mutator).assign_to(self)
    }
    /// The node's address and reference count.
    #[inline(always)]
    fn node_handle(&self) -> HandleInfo {
        HandleInfo {
            addr: self.addr(),
            strong_count: self.strong_count(),
        }
    }
}

/// How a value is mutated where it appears as a *field*.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be mutated as a child by `{M}`",
    label = "not a child node type for this mutator",
    note = "children are family enums, `Node<Kind>` handles, derived structs, and Vec/Option/Box/tuples/arrays of them",
    note = "a family whose kinds contain other families needs `#[ir(uses(...))]` so its mutator trait requires theirs"
)]
pub trait Mutate<M: ?Sized>: Sized {
    /// Mutates `self` in child position, copy-on-write.
    fn mutate(&self, mutator: &mut M) -> Transformed<Self>;
    /// Mutates `self` in child position in in-place mode: writes into the
    /// uniquely owned nodes on the path of a change (see [`crate::driver`]).
    /// Returns `true` when something changed anywhere below `self`, whether
    /// it was written in place or replaced. (oneDNN's in-place visitor sets
    /// `changed_` only when a *direct* child was replaced, so it reports
    /// `false` for a node whose children were all updated in place.)
    fn mutate_in_place(&mut self, mutator: &mut M) -> bool;
}

/// What mutating a field typed `Node<Kind>` means; the result keeps the kind.
/// Implemented for every kind of a derived family (see [`crate::kind_ref`])
/// and by the derive for kinds added to an open family.
pub trait MutateKind<M: ?Sized>: Sized {
    /// Mutates a handle to this kind found in a typed field.
    fn mutate_node(node: &Node<Self>, mutator: &mut M) -> Transformed<Node<Self>>;
    /// The same in in-place mode.
    fn mutate_node_in_place(node: &mut Node<Self>, mutator: &mut M) -> bool;
}

impl<T> Node<T> {
    /// The default recursion of a mutator: mutates the children and rebuilds
    /// this node only if one changed ([`Transformed::Keep`] otherwise).
    /// `.into()` turns the result into the family's `Transformed`.
    ///
    /// A hook that looks at the rebuilt node and may then replace it
    /// altogether asks for the new contents unallocated instead,
    /// [`Node::rebuild_fields`].
    #[inline]
    pub fn rebuild<M: ?Sized>(&self, mutator: &mut M) -> Transformed<Node<T>>
    where
        T: RebuildFields<M>,
    {
        RebuildFields::rebuild_fields(&**self, mutator).map(Node::new)
    }

    /// [`Node::rebuild`] without allocating the node: the new contents, if a
    /// child changed. Read the result with [`Transformed::as_ref_or`], and
    /// allocate it only if the node stays:
    ///
    /// ```text
    /// fn mutate_call(&mut self, c: &Node<Call>) -> Transformed<Expr> {
    ///     let new = c.rebuild_fields(self);
    ///     let call = new.as_ref_or(c); // the rebuilt call, or the original
    ///     match fold(call) {
    ///         Some(k) => Transformed::Replace(k), // no call node was allocated
    ///         None => new.map(Expr::from),
    ///     }
    /// }
    /// ```
    #[inline]
    pub fn rebuild_fields<M: ?Sized>(&self, mutator: &mut M) -> Transformed<T>
    where
        T: RebuildFields<M>,
    {
        RebuildFields::rebuild_fields(&**self, mutator)
    }
}

/// The body of every generated default kind hook of a mutator: the node's
/// default recursion, unless a driver takes the node back (see
/// [`crate::driver`]). `wrap` is the family's variant for the kind.
#[doc(hidden)]
#[inline]
pub fn __mutate_default<M: ?Sized, K: RebuildFields<M> + crate::ChildType, F: Rebuild<M>>(
    mutator: &mut M,
    node: &Node<K>,
    wrap: fn(Node<K>) -> F,
) -> Transformed<F> {
    // A chain's driver hands back a tail kind on every link: its check is
    // inlined whole. Other kinds are handed back in in-place mode only, so
    // a family that does not take part in it has no check at all.
    let handed_back = if K::HAS_TAIL {
        crate::driver::hand_back(mutator, node.addr())
    } else {
        F::IN_PLACE && crate::driver::hand_back_outlined(mutator, node.addr())
    };
    if handed_back {
        return Transformed::Keep;
    }
    node.rebuild_fields(mutator).map(|k| wrap(Node::new(k)))
}

/// The body of every generated default definition hook of a mutator
/// (always inlined, as those hooks are: few kinds, on every binding's path).
#[doc(hidden)]
#[inline(always)]
pub fn __mutate_default_def<M: ?Sized, K: RebuildFields<M>, F: Rebuild<M>>(
    mutator: &mut M,
    node: &Node<K>,
    _family: fn(Node<K>) -> F,
) -> Transformed<Node<K>> {
    if F::IN_PLACE && crate::driver::hand_back_outlined(mutator, node.addr()) {
        return Transformed::Keep;
    }
    mutate_typed_default(node, mutator)
}

/// The body of every generated default entry hook of a mutator: dispatch to
/// the kind's hook, letting a driver's node through (see [`crate::driver`]).
#[doc(hidden)]
#[inline]
pub fn __mutate_entry<M: ?Sized, F: Rebuild<M>>(mutator: &mut M, node: &F) -> Transformed<F> {
    if F::ANY_TAIL {
        crate::driver::pass_through(mutator, || node.addr());
    } else if F::IN_PLACE {
        crate::driver::pass_through_outlined(mutator, || node.addr());
    }
    node.rebuild(mutator)
}

/// A typed field of a kind without definition hooks: its default recursion.
#[inline]
fn mutate_typed_default<M: ?Sized, K: RebuildFields<M>>(
    node: &Node<K>,
    mutator: &mut M,
) -> Transformed<Node<K>> {
    node.rebuild_fields(mutator).map(Node::new)
}

/// Every kind of a derived family: a kind without definition sites gets its
/// default recursion (a hook could return another kind); a kind with them,
/// its definition hook, through the family's dispatch.
impl<M: ?Sized, K: NodeKind + RebuildFields<M> + 'static> MutateKind<M> for K
where
    K::Family: MutateTyped<M>,
{
    #[inline]
    fn mutate_node(node: &Node<K>, mutator: &mut M) -> Transformed<Node<K>> {
        if K::DEF {
            K::Family::mutate_typed(mutator, K::INDEX, KindRef::new(node)).map(KindNode::get)
        } else {
            mutate_typed_default(node, mutator)
        }
    }
    #[inline]
    fn mutate_node_in_place(node: &mut Node<K>, mutator: &mut M) -> bool {
        if K::DEF {
            crate::driver::kind_slot_in_place(node, mutator, |m, n| Self::mutate_node(n, m))
        } else {
            crate::driver::node_in_place(node, mutator)
        }
    }
}

/// A family's dispatch of typed fields to its kinds' definition hooks (see
/// [`crate::kind_ref`]). Implemented by `#[derive(Mutable)]` on the family,
/// through the hidden `__mutate_kind` method of its mutator trait.
#[doc(hidden)]
pub trait MutateTyped<M: ?Sized> {
    /// Calls the definition hook of the kind at `index` on `node`.
    fn mutate_typed(mutator: &mut M, index: usize, node: KindRef<'_>) -> Transformed<KindNode>;
}

impl<M: ?Sized, K: MutateKind<M>> Mutate<M> for Node<K> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Transformed<Self> {
        crate::stack::guarded(|| K::mutate_node(self, mutator))
    }
    #[inline]
    fn mutate_in_place(&mut self, mutator: &mut M) -> bool {
        crate::stack::guarded(|| K::mutate_node_in_place(self, mutator))
    }
}

/// Keeps `old` unless `new` replaced it (used by generated rebuilds).
#[doc(hidden)]
#[inline(always)]
pub fn __or_clone<T: Clone>(new: Transformed<T>, old: &T) -> T {
    new.unwrap_or_clone(old)
}

/// A list a mutated slice is collected into.
trait ListOut<T> {
    fn with_capacity(n: usize) -> Self;
    fn push(&mut self, item: T);
}

impl<T> ListOut<T> for Vec<T> {
    #[inline]
    fn with_capacity(n: usize) -> Self {
        Vec::with_capacity(n)
    }
    #[inline]
    fn push(&mut self, item: T) {
        Vec::push(self, item)
    }
}

impl<T> ListOut<T> for crate::ShortVec<T> {
    #[inline]
    fn with_capacity(n: usize) -> Self {
        crate::ShortVec::with_capacity(n)
    }
    #[inline]
    fn push(&mut self, item: T) {
        crate::ShortVec::push(self, item)
    }
}

/// Mutates a slice; the result list is made only from the first changed
/// element on (earlier elements are cloned handles).
fn mutate_slice<M: ?Sized, T: Mutate<M> + Clone, L: ListOut<T>>(
    items: &[T],
    mutator: &mut M,
) -> Transformed<L> {
    let mut iter = items.iter().enumerate();
    let Some((first, replacement)) =
        iter.find_map(|(i, x)| x.mutate(mutator).into_option().map(|y| (i, y)))
    else {
        return Transformed::Keep;
    };
    let mut out = L::with_capacity(items.len());
    for x in &items[..first] {
        out.push(x.clone());
    }
    out.push(replacement);
    for (_, x) in iter {
        out.push(x.mutate(mutator).unwrap_or_clone(x));
    }
    Transformed::Replace(out)
}

fn mutate_slice_in_place<M: ?Sized, T: Mutate<M>>(items: &mut [T], mutator: &mut M) -> bool {
    let mut changed = false;
    for x in items {
        changed |= x.mutate_in_place(mutator);
    }
    changed
}

impl<M: ?Sized, T: Mutate<M> + Clone> Mutate<M> for Vec<T> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Transformed<Self> {
        mutate_slice(self, mutator)
    }
    #[inline]
    fn mutate_in_place(&mut self, mutator: &mut M) -> bool {
        mutate_slice_in_place(self, mutator)
    }
}

impl<M: ?Sized, T: Mutate<M> + Clone> Mutate<M> for crate::ShortVec<T> {
    /// A list of one or two items (a call's arguments, most often) is
    /// rebuilt into an inline list directly, without the push path.
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Transformed<Self> {
        match self.as_slice() {
            [a] => a.mutate(mutator).map(crate::ShortVec::one),
            [a, b] => {
                let (x, y) = (a.mutate(mutator), b.mutate(mutator));
                if x.is_keep() && y.is_keep() {
                    return Transformed::Keep;
                }
                Transformed::Replace(crate::ShortVec::two(
                    x.unwrap_or_clone(a),
                    y.unwrap_or_clone(b),
                ))
            }
            items => mutate_slice(items, mutator),
        }
    }
    #[inline]
    fn mutate_in_place(&mut self, mutator: &mut M) -> bool {
        mutate_slice_in_place(self, mutator)
    }
}

impl<M: ?Sized, T: Mutate<M> + Clone, const N: usize> Mutate<M> for [T; N] {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Transformed<Self> {
        match mutate_slice::<M, T, Vec<T>>(self, mutator) {
            Transformed::Keep => Transformed::Keep,
            Transformed::Replace(v) => v.try_into().ok().into(),
        }
    }
    #[inline]
    fn mutate_in_place(&mut self, mutator: &mut M) -> bool {
        mutate_slice_in_place(self, mutator)
    }
}

impl<M: ?Sized, T: Mutate<M>> Mutate<M> for Option<T> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Transformed<Self> {
        match self {
            Some(x) => x.mutate(mutator).map(Some),
            None => Transformed::Keep,
        }
    }
    #[inline]
    fn mutate_in_place(&mut self, mutator: &mut M) -> bool {
        match self {
            Some(x) => x.mutate_in_place(mutator),
            None => false,
        }
    }
}

impl<M: ?Sized, T: Mutate<M>> Mutate<M> for Box<T> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Transformed<Self> {
        (**self).mutate(mutator).map(Box::new)
    }
    #[inline]
    fn mutate_in_place(&mut self, mutator: &mut M) -> bool {
        (**self).mutate_in_place(mutator)
    }
}

macro_rules! tuple_mutate {
    ($($t:ident $i:tt $n:ident),+) => {
        impl<M: ?Sized, $($t: Mutate<M> + Clone),+> Mutate<M> for ($($t,)+) {
            #[inline]
            fn mutate(&self, mutator: &mut M) -> Transformed<Self> {
                $( let $n = self.$i.mutate(mutator); )+
                if $( $n.is_keep() )&&+ {
                    return Transformed::Keep;
                }
                Transformed::Replace(($( $n.unwrap_or_clone(&self.$i), )+))
            }
            #[inline]
            fn mutate_in_place(&mut self, mutator: &mut M) -> bool {
                let mut changed = false;
                $( changed |= self.$i.mutate_in_place(mutator); )+
                changed
            }
        }
    };
}
tuple_mutate!(A 0 a);
tuple_mutate!(A 0 a, B 1 b);
tuple_mutate!(A 0 a, B 1 b, C 2 c);
tuple_mutate!(A 0 a, B 1 b, C 2 c, D 3 d);
