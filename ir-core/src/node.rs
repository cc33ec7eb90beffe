//! [`Node`], the shared immutable handle every IR node lives behind.

use std::fmt;
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::sync::Arc;

use crate::deep_drop;

/// A shared, immutable, reference-counted handle to one IR node.
///
/// Cloning a `Node` copies a pointer; identity is pointer identity
/// ([`Node::same_as`]). Contents never change while shared: a pass that wants a
/// different node builds a new one (copy-on-write, see [`Node::rebuild`]) or
/// mutates a node it owns alone ([`Node::make_mut`], [`Node::rebuild_in_place`]).
///
/// Dropping the last handle to a million-deep chain does not overflow the stack:
/// past a fixed nesting depth the release of inner nodes is deferred to a
/// loop in the outermost drop.
///
/// ```
/// use ir_core::Node;
///
/// let a = Node::new(String::from("x"));
/// let b = a.clone();
/// let c = Node::new(String::from("x"));
/// assert!(a.same_as(&b));
/// assert!(!a.same_as(&c)); // equal contents, different nodes
/// assert_eq!(*a, *c);
/// ```
pub struct Node<T>(ManuallyDrop<Arc<T>>);

impl<T> Node<T> {
    /// Allocates a new node.
    #[inline]
    pub fn new(value: T) -> Self {
        Node(ManuallyDrop::new(Arc::new(value)))
    }

    /// Pointer identity: `true` when both handles refer to the same node.
    /// One comparison, no reference-count traffic.
    #[inline]
    pub fn same_as(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The node's address, usable as an identity key for the node's lifetime.
    #[inline]
    pub fn addr(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// How many handles share this node.
    #[inline]
    pub fn strong_count(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// `true` when this handle is the only one, so nothing else can observe a mutation.
    #[inline]
    pub fn is_unique(&mut self) -> bool {
        Arc::get_mut(&mut self.0).is_some()
    }

    /// Mutable access when this handle is the only one (no copy, no allocation).
    #[inline]
    pub fn get_mut(&mut self) -> Option<&mut T> {
        Arc::get_mut(&mut self.0)
    }

    /// Copy-on-write access (TIR's `CopyOnWrite`): mutates in place when this
    /// handle is the only one, otherwise first replaces it with a private copy.
    ///
    /// ```
    /// use ir_core::Node;
    ///
    /// let mut a = Node::new(vec![1]);
    /// let before = a.addr();
    /// a.make_mut().push(2); // unique: same allocation
    /// assert_eq!(a.addr(), before);
    ///
    /// let shared = a.clone();
    /// a.make_mut().push(3); // shared: copied first, `shared` is untouched
    /// assert_eq!(*shared, vec![1, 2]);
    /// assert_eq!(*a, vec![1, 2, 3]);
    /// ```
    #[inline]
    pub fn make_mut(&mut self) -> &mut T
    where
        T: Clone,
    {
        Arc::make_mut(&mut self.0)
    }

    /// Replaces the contents in place when unique, or allocates a new node when shared.
    /// Returns `true` when the existing allocation was reused.
    pub fn replace(&mut self, value: T) -> bool {
        match Arc::get_mut(&mut self.0) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => {
                *self = Node::new(value);
                false
            }
        }
    }
}

impl<T> Deref for Node<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> AsRef<T> for Node<T> {
    #[inline]
    fn as_ref(&self) -> &T {
        &self.0
    }
}

impl<T> Clone for Node<T> {
    #[inline]
    fn clone(&self) -> Self {
        Node(self.0.clone())
    }
}

impl<T> From<T> for Node<T> {
    #[inline]
    fn from(value: T) -> Self {
        Node::new(value)
    }
}

impl<T: fmt::Debug> fmt::Debug for Node<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: fmt::Display> fmt::Display for Node<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T> Drop for Node<T> {
    #[inline]
    fn drop(&mut self) {
        if Arc::strong_count(&self.0) != 1 {
            // Not the last handle: only a counter decrement, never recursion.
            // SAFETY: `self.0` is not used again.
            unsafe { ManuallyDrop::drop(&mut self.0) };
            return;
        }
        // SAFETY: `self.0` is not used again.
        let arc = unsafe { ManuallyDrop::take(&mut self.0) };
        deep_drop::release(arc);
    }
}
