//! [`Node`], the shared immutable handle every IR node lives behind.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering, fence};

use crate::deep_drop;

/// A shared, immutable, reference-counted handle to one IR node.
///
/// Cloning a `Node` copies a pointer; identity is pointer identity
/// ([`Node::same_as`]). Contents never change while shared: a pass that wants a
/// different node builds a new one (copy-on-write, see [`Node::rebuild`]) or
/// mutates a node it owns alone ([`Node::make_mut`], [`Node::mutate_in_place`]).
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
#[repr(transparent)]
pub struct Node<T> {
    ptr: NonNull<Inner<T>>,
    _owns: PhantomData<Inner<T>>,
}

/// A node's allocation: the count of handles, then the contents. Unlike
/// `Arc` there is no weak count: nodes are never observed weakly, so every
/// handle is 8 bytes lighter and dropping one is a single decrement.
#[repr(C)]
struct Inner<T> {
    strong: AtomicUsize,
    value: T,
}

// SAFETY: as `Arc<T>`: handles on several threads share `T` (`Sync`) and the
// last one drops it wherever it is (`Send`).
unsafe impl<T: Send + Sync> Send for Node<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for Node<T> {}

impl<T: RefUnwindSafe> UnwindSafe for Node<T> {}

/// Frees a node whose count reached zero (the per-type part of a release).
unsafe fn free<T>(ptr: *mut ()) {
    // SAFETY: `ptr` is the node's allocation, from `Box::into_raw` in
    // `Node::new`, and nothing refers to it any more.
    drop(unsafe { Box::from_raw(ptr.cast::<Inner<T>>()) });
}

impl<T> Node<T> {
    /// Allocates a new node.
    #[inline]
    pub fn new(value: T) -> Self {
        let inner = Box::new(Inner {
            strong: AtomicUsize::new(1),
            value,
        });
        Node {
            // SAFETY: `Box::into_raw` is never null.
            ptr: unsafe { NonNull::new_unchecked(Box::into_raw(inner)) },
            _owns: PhantomData,
        }
    }

    #[inline(always)]
    fn inner(&self) -> &Inner<T> {
        // SAFETY: a handle keeps its node alive.
        unsafe { self.ptr.as_ref() }
    }

    /// Pointer identity: `true` when both handles refer to the same node.
    /// One comparison, no reference-count traffic.
    #[inline]
    pub fn same_as(&self, other: &Self) -> bool {
        self.ptr == other.ptr
    }

    /// The node's address (of its allocation), usable as an identity key for
    /// the node's lifetime.
    #[inline]
    pub fn addr(&self) -> usize {
        self.ptr.as_ptr() as usize
    }

    /// How many handles share this node.
    #[inline]
    pub fn strong_count(&self) -> usize {
        self.inner().strong.load(Ordering::Acquire)
    }

    /// `true` when this handle is the only one, so nothing else can observe a mutation.
    #[inline]
    pub fn is_unique(&mut self) -> bool {
        self.strong_count() == 1
    }

    /// Mutable access when this handle is the only one (no copy, no allocation).
    #[inline]
    pub fn get_mut(&mut self) -> Option<&mut T> {
        if self.is_unique() {
            // SAFETY: the only handle, borrowed mutably: nothing else can see the node.
            Some(unsafe { &mut (*self.ptr.as_ptr()).value })
        } else {
            None
        }
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
        if !self.is_unique() {
            *self = Node::new((**self).clone());
        }
        // SAFETY: unique now: either it was, or it is a fresh copy.
        unsafe { &mut (*self.ptr.as_ptr()).value }
    }

    /// The raw pointer to the node's allocation (no count change).
    #[inline]
    pub(crate) fn raw(&self) -> NonNull<()> {
        self.ptr.cast()
    }

    /// The handle as a raw pointer to its allocation, without releasing it.
    #[inline]
    pub(crate) fn into_raw(self) -> NonNull<()> {
        let ptr = self.ptr.cast();
        std::mem::forget(self);
        ptr
    }

    /// A handle from [`Node::into_raw`]'s pointer, taking over its count.
    ///
    /// # Safety
    /// `ptr` came from `Node::<T>::into_raw` and its count is given back once.
    #[inline]
    pub(crate) unsafe fn from_raw(ptr: NonNull<()>) -> Self {
        Node {
            ptr: ptr.cast(),
            _owns: PhantomData,
        }
    }

    /// The count of handles at an allocation from [`Node::into_raw`], for
    /// type-erased handles (the count comes first whatever `T` is).
    ///
    /// # Safety
    /// `ptr` is a live allocation from `Node::into_raw`.
    #[inline]
    pub(crate) unsafe fn raw_count<'a>(ptr: NonNull<()>) -> &'a AtomicUsize {
        // SAFETY: `Inner` is `repr(C)` with the count first.
        unsafe { &*ptr.cast::<AtomicUsize>().as_ptr() }
    }

    /// Replaces the contents in place when unique, or allocates a new node when shared.
    /// Returns `true` when the existing allocation was reused.
    pub fn replace(&mut self, value: T) -> bool {
        match self.get_mut() {
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
        &self.inner().value
    }
}

impl<T> AsRef<T> for Node<T> {
    #[inline]
    fn as_ref(&self) -> &T {
        self
    }
}

impl<T> Clone for Node<T> {
    #[inline]
    fn clone(&self) -> Self {
        let old = self.inner().strong.fetch_add(1, Ordering::Relaxed);
        if old > isize::MAX as usize {
            // As `Arc`: billions of handles to one node mean a leak loop; a
            // wrapped count would free a node still in use.
            std::process::abort();
        }
        Node {
            ptr: self.ptr,
            _owns: PhantomData,
        }
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
        if self.inner().strong.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        // The last handle: see every other thread's writes before freeing.
        fence(Ordering::Acquire);
        deep_drop::release_raw(deep_drop::Parked {
            ptr: self.ptr.as_ptr().cast(),
            release: free::<T>,
        });
    }
}
