//! Copy-on-write mutation: the traits `#[derive(Mutable)]` implements.
//!
//! A generated `<Family>Mutator` trait has one hook per node kind returning a
//! [`Rewrite`]: [`Rewrite::Keep`] means "the original node, unchanged". Nothing
//! is allocated and no reference count is touched for unchanged subtrees; a
//! node is rebuilt only when one of its children changed, and its unchanged
//! siblings stay shared.

use std::ops::Deref;

use crate::Node;

/// The outcome of mutating one value: keep the original, or replace it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a Rewrite::Replace that is dropped loses the rewrite"]
pub enum Rewrite<T> {
    /// The original value is kept, unchanged and shared.
    Keep,
    /// The value is replaced by this one.
    Replace(T),
}

impl<T> Rewrite<T> {
    /// `true` for [`Rewrite::Replace`].
    #[inline]
    pub fn is_replace(&self) -> bool {
        matches!(self, Rewrite::Replace(_))
    }

    /// `None` for [`Rewrite::Keep`].
    #[inline]
    pub fn into_option(self) -> Option<T> {
        match self {
            Rewrite::Keep => None,
            Rewrite::Replace(x) => Some(x),
        }
    }

    /// The resulting value: the replacement, or a clone of `original`.
    #[inline]
    pub fn unwrap_or_clone(self, original: &T) -> T
    where
        T: Clone,
    {
        match self {
            Rewrite::Keep => original.clone(),
            Rewrite::Replace(x) => x,
        }
    }

    /// Converts the replacement, e.g. a `Node<Kind>` into its family.
    #[inline]
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Rewrite<U> {
        match self {
            Rewrite::Keep => Rewrite::Keep,
            Rewrite::Replace(x) => Rewrite::Replace(f(x)),
        }
    }
}

impl<T> From<Option<T>> for Rewrite<T> {
    #[inline]
    fn from(o: Option<T>) -> Self {
        match o {
            None => Rewrite::Keep,
            Some(x) => Rewrite::Replace(x),
        }
    }
}

/// A family value converts into a replacement.
impl<F: crate::Family> From<F> for Rewrite<F> {
    #[inline]
    fn from(value: F) -> Self {
        Rewrite::Replace(value)
    }
}

/// A replacement node of one kind converts into a rewrite of its family.
impl<F, K> From<Node<K>> for Rewrite<F>
where
    Node<K>: Into<F>,
{
    #[inline]
    fn from(node: Node<K>) -> Self {
        Rewrite::Replace(node.into())
    }
}

/// A node after the default recursion of a mutator ([`Node::rebuild`]): the
/// same handle when no child changed, or the new contents otherwise. It
/// dereferences to the node either way; the new contents are allocated only
/// when it is turned into a handle or a [`Rewrite`], so a hook that replaces
/// the node altogether allocates nothing for it.
pub enum Rebuilt<'a, T> {
    /// No child changed: this is the original node.
    Same(&'a Node<T>),
    /// Some child changed: the rebuilt contents, not yet allocated.
    New(T),
}

impl<T> Rebuilt<'_, T> {
    /// `true` when some child changed.
    #[inline]
    pub fn is_new(&self) -> bool {
        matches!(self, Rebuilt::New(_))
    }

    /// A handle to the result: the original handle, or a new node.
    #[inline]
    pub fn into_node(self) -> Node<T> {
        match self {
            Rebuilt::Same(n) => n.clone(),
            Rebuilt::New(t) => Node::new(t),
        }
    }

    /// As a rewrite of the node itself (for typed fields and definition hooks).
    #[inline]
    pub fn into_rewrite(self) -> Rewrite<Node<T>> {
        match self {
            Rebuilt::Same(_) => Rewrite::Keep,
            Rebuilt::New(t) => Rewrite::Replace(Node::new(t)),
        }
    }
}

impl<T> Deref for Rebuilt<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        match self {
            Rebuilt::Same(n) => n,
            Rebuilt::New(t) => t,
        }
    }
}

impl<F, K> From<Rebuilt<'_, K>> for Rewrite<F>
where
    Node<K>: Into<F>,
{
    #[inline]
    fn from(r: Rebuilt<'_, K>) -> Self {
        match r {
            Rebuilt::Same(_) => Rewrite::Keep,
            Rebuilt::New(t) => Rewrite::Replace(Node::new(t).into()),
        }
    }
}

/// Default recursion of a mutator on a node struct (derived): mutate every
/// child in field declaration order and return the new contents if any
/// changed. Non-child fields are cloned into the new contents unchanged.
pub trait RebuildFields<M>: Sized {
    /// `None` when no child changed.
    fn rebuild_fields(&self, mutator: &mut M) -> Option<Self>;
}

/// Default recursion of a mutator on a family (derived): dispatch to the hook
/// of the node's kind. Hooks that override the family entry call it explicitly.
pub trait Rebuild<M>: Sized {
    /// Dispatches to the kind hook.
    fn rebuild(&self, mutator: &mut M) -> Rewrite<Self>;
}

/// How a value is mutated where it appears as a *field*: `None` when unchanged.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be mutated as a child by `{M}`",
    label = "not a child node type for this mutator",
    note = "children are family enums, `Node<Kind>` handles, derived structs, and Vec/Option/Box/tuples/arrays of them",
    note = "a family whose kinds contain other families needs `#[ir(uses(...))]` so its mutator trait requires theirs"
)]
pub trait Mutate<M>: Sized {
    /// Mutates `self` in child position.
    fn mutate(&self, mutator: &mut M) -> Option<Self>;
}

/// Implemented by `#[derive(Mutable)]` on a family for each of its kinds: what
/// mutating a field typed `Node<Kind>` means. The result keeps the kind.
pub trait MutateKind<M>: Sized {
    /// Mutates a handle to this kind found in a typed field.
    fn mutate_node(node: &Node<Self>, mutator: &mut M) -> Option<Node<Self>>;
}

impl<T> Node<T> {
    /// The default recursion of a mutator: mutates the children and rebuilds
    /// this node only if one changed ([`Rebuilt::Same`] otherwise).
    #[inline]
    pub fn rebuild<M>(&self, mutator: &mut M) -> Rebuilt<'_, T>
    where
        T: RebuildFields<M>,
    {
        match self.rebuild_fields(mutator) {
            None => Rebuilt::Same(self),
            Some(t) => Rebuilt::New(t),
        }
    }

    /// In-place mode (oneDNN's in-place visitor, TIR's copy-on-write): mutates
    /// the children and, if one changed, stores the result in this node's own
    /// allocation when this handle is the only one, or in a new node when shared.
    /// Returns `true` when something changed.
    pub fn rebuild_in_place<M>(&mut self, mutator: &mut M) -> bool
    where
        T: RebuildFields<M>,
    {
        match self.rebuild_fields(mutator) {
            None => false,
            Some(t) => {
                self.replace(t);
                true
            }
        }
    }
}

impl<M, K: MutateKind<M>> Mutate<M> for Node<K> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Option<Self> {
        crate::stack::guarded(|| K::mutate_node(self, mutator))
    }
}

/// Keeps `old` unless `new` replaced it (used by generated rebuilds).
#[doc(hidden)]
#[inline(always)]
pub fn __or_clone<T: Clone>(new: Option<T>, old: &T) -> T {
    match new {
        Some(x) => x,
        None => old.clone(),
    }
}

/// Mutates a slice; the result vector is allocated only from the first changed
/// element on (earlier elements are cloned handles).
fn mutate_slice<M, T: Mutate<M> + Clone>(items: &[T], mutator: &mut M) -> Option<Vec<T>> {
    let mut iter = items.iter().enumerate();
    let (first, replacement) = iter.find_map(|(i, x)| x.mutate(mutator).map(|y| (i, y)))?;
    let mut out = Vec::with_capacity(items.len());
    out.extend_from_slice(&items[..first]);
    out.push(replacement);
    for (_, x) in iter {
        out.push(__or_clone(x.mutate(mutator), x));
    }
    Some(out)
}

impl<M, T: Mutate<M> + Clone> Mutate<M> for Vec<T> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Option<Self> {
        mutate_slice(self, mutator)
    }
}

impl<M, T: Mutate<M> + Clone, const N: usize> Mutate<M> for [T; N] {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Option<Self> {
        let v = mutate_slice(self, mutator)?;
        v.try_into().ok()
    }
}

impl<M, T: Mutate<M>> Mutate<M> for Option<T> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Option<Self> {
        match self {
            Some(x) => x.mutate(mutator).map(Some),
            None => None,
        }
    }
}

impl<M, T: Mutate<M>> Mutate<M> for Box<T> {
    #[inline]
    fn mutate(&self, mutator: &mut M) -> Option<Self> {
        (**self).mutate(mutator).map(Box::new)
    }
}

macro_rules! tuple_mutate {
    ($($t:ident $i:tt $n:ident),+) => {
        impl<M, $($t: Mutate<M> + Clone),+> Mutate<M> for ($($t,)+) {
            #[inline]
            #[allow(clippy::question_mark)]
            fn mutate(&self, mutator: &mut M) -> Option<Self> {
                $( let $n = self.$i.mutate(mutator); )+
                if $( $n.is_none() )&&+ {
                    return None;
                }
                Some(($( __or_clone($n, &self.$i), )+))
            }
        }
    };
}
tuple_mutate!(A 0 a);
tuple_mutate!(A 0 a, B 1 b);
tuple_mutate!(A 0 a, B 1 b, C 2 c);
tuple_mutate!(A 0 a, B 1 b, C 2 c, D 3 d);
