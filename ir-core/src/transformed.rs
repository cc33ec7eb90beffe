//! [`Transformed`]: the one answer to "did this rewrite change anything?".

use crate::{Node, NodeKind};

/// The outcome of mutating one value: keep the original, or replace it.
///
/// Every hook of a generated mutator returns it, child mutation returns it
/// (`Mutate::mutate`), and so do definition hooks, post-order rewrite hooks and
/// per-binding chain passes. [`Transformed::Keep`] carries nothing: the caller
/// still holds the original, so an unchanged subtree costs no copy and no
/// reference-count traffic.
///
/// ```
/// use ir_core::Transformed;
///
/// let unchanged: Transformed<i32> = Transformed::Keep;
/// assert_eq!(unchanged.unwrap_or_clone(&7), 7);
/// let changed = Transformed::Replace(8);
/// assert!(changed.is_replace());
/// assert_eq!(changed.map(|x| x * 2), Transformed::Replace(16));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a Transformed::Replace that is dropped loses the rewrite"]
pub enum Transformed<T> {
    /// The original value is kept, unchanged and shared.
    Keep,
    /// The value is replaced by this one.
    Replace(T),
}

/// The name this type had before it served every "changed or not" answer.
#[deprecated(since = "0.2.0", note = "renamed to `Transformed`")]
pub type Rewrite<T> = Transformed<T>;

impl<T> Transformed<T> {
    /// `true` for [`Transformed::Replace`].
    #[inline]
    pub fn is_replace(&self) -> bool {
        matches!(self, Transformed::Replace(_))
    }

    /// `true` for [`Transformed::Keep`].
    #[inline]
    pub fn is_keep(&self) -> bool {
        matches!(self, Transformed::Keep)
    }

    /// `None` for [`Transformed::Keep`].
    #[inline]
    pub fn into_option(self) -> Option<T> {
        match self {
            Transformed::Keep => None,
            Transformed::Replace(x) => Some(x),
        }
    }

    /// The resulting value: the replacement, or a clone of `original`.
    #[inline]
    pub fn unwrap_or_clone(self, original: &T) -> T
    where
        T: Clone,
    {
        match self {
            Transformed::Keep => original.clone(),
            Transformed::Replace(x) => x,
        }
    }

    /// The resulting value: the replacement, or `original` itself.
    #[inline]
    pub fn unwrap_or(self, original: T) -> T {
        match self {
            Transformed::Keep => original,
            Transformed::Replace(x) => x,
        }
    }

    /// The resulting value: the replacement, or `original()`.
    #[inline]
    pub fn unwrap_or_else(self, original: impl FnOnce() -> T) -> T {
        match self {
            Transformed::Keep => original(),
            Transformed::Replace(x) => x,
        }
    }

    /// A view of the result: the replacement, or `original`.
    #[inline]
    pub fn as_ref_or<'a>(&'a self, original: &'a T) -> &'a T {
        match self {
            Transformed::Keep => original,
            Transformed::Replace(x) => x,
        }
    }

    /// Converts the replacement, e.g. a `Node<Kind>` into its family.
    #[inline]
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Transformed<U> {
        match self {
            Transformed::Keep => Transformed::Keep,
            Transformed::Replace(x) => Transformed::Replace(f(x)),
        }
    }

    /// Writes a replacement into `slot`; `true` when there was one.
    #[inline]
    pub fn assign_to(self, slot: &mut T) -> bool {
        match self {
            Transformed::Keep => false,
            Transformed::Replace(x) => {
                *slot = x;
                true
            }
        }
    }
}

impl<T> From<Option<T>> for Transformed<T> {
    #[inline]
    fn from(o: Option<T>) -> Self {
        match o {
            None => Transformed::Keep,
            Some(x) => Transformed::Replace(x),
        }
    }
}

/// A node of some kind converts into a replacement in its family (a hook
/// returns `Lit { .. }.into()`). A family value converts too, through the
/// impl its derive generates.
impl<K: NodeKind> From<K> for Transformed<K::Family> {
    #[inline]
    fn from(node: K) -> Self {
        Transformed::Replace(Node::new(node).into())
    }
}

/// A replacement node of one kind converts into a replacement in its family.
impl<F, K> From<Node<K>> for Transformed<F>
where
    Node<K>: Into<F>,
{
    #[inline]
    fn from(node: Node<K>) -> Self {
        Transformed::Replace(node.into())
    }
}

impl<F: crate::Family, K> From<Transformed<crate::Node<K>>> for Transformed<F>
where
    crate::Node<K>: Into<F>,
{
    #[inline]
    fn from(t: Transformed<crate::Node<K>>) -> Self {
        t.map(Into::into)
    }
}
