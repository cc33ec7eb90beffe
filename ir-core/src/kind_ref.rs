//! Typed fields (`Node<Kind>`) and their hooks, through one dispatch method
//! per family rather than one trait impl per kind.
//!
//! A field typed `Node<Var>` reaches the kind's hook (`visit_var`, or
//! `visit_var_def` for a kind with definition sites) without going through
//! the family's entry hook. Generic code in ir-core
//! ([`VisitKind`](crate::VisitKind), [`MutateKind`](crate::MutateKind)) does
//! not know the hook's name, so it hands the node to a hidden method of the
//! family's pass trait (`__visit_kind`, `__mutate_kind`) as a [`KindRef`]:
//! the kind's index selects the hook, and the kind's type identity, checked
//! on the way back to `&Node<Var>`, keeps the cast sound whatever a
//! hand-written `NodeKind` claims. For a concrete kind the compiler knows
//! both the index and the type, so after inlining the dispatch is a direct
//! call.
//!
//! Being methods of the pass trait, the dispatch also crosses the trait
//! object a downstream node is walked with: the adapter that turns a pass
//! into that object forwards this one method, not one method per kind.

use std::any::TypeId;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::Ordering;

use crate::Node;
use crate::ext_tag::{Tagged, untag};

/// The "kind" of a downstream node's handle (`Ext`): private, so that no
/// cast ever matches it.
struct Downstream;

/// A borrowed `&Node<K>` whose kind `K` is known by its type identity only.
///
/// Every handle, whatever its kind, is one pointer to the node's allocation
/// (`Node` is `repr(transparent)`, `Ext` stores the same pointer, tagged), whose
/// count comes first: so the address and count are read without the kind.
#[derive(Clone, Copy)]
pub struct KindRef<'a> {
    node: NonNull<()>,
    kind: TypeId,
    _borrow: PhantomData<&'a ()>,
}

impl<'a> KindRef<'a> {
    /// Erases the kind of `node`.
    #[inline(always)]
    pub fn new<K: 'static>(node: &'a Node<K>) -> Self {
        KindRef {
            node: NonNull::from(node).cast(),
            kind: TypeId::of::<K>(),
            _borrow: PhantomData,
        }
    }

    /// A downstream node's handle (`Ext`), which no kind casts back.
    #[inline(always)]
    pub(crate) fn downstream(handle: &'a Tagged) -> Self {
        KindRef {
            node: NonNull::from(handle).cast(),
            kind: TypeId::of::<Downstream>(),
            _borrow: PhantomData,
        }
    }

    /// The allocation the handle points to.
    #[inline(always)]
    fn allocation(self) -> NonNull<()> {
        // SAFETY: `node` points to a live handle: a `Node<K>` (one
        // `NonNull<Inner<K>>`, `repr(transparent)`) or an `Ext`'s handle,
        // whose first word is the address with its kind in the top bits
        // (cleared here; a `Node`'s are clear already).
        untag(unsafe { *self.node.cast::<NonNull<()>>().as_ref() })
    }

    /// The node's address ([`Node::addr`]).
    #[inline(always)]
    pub fn addr(self) -> usize {
        self.allocation().as_ptr() as usize
    }

    /// How many handles share the node ([`Node::strong_count`]).
    #[inline(always)]
    pub fn strong_count(self) -> usize {
        // SAFETY: the handle keeps its allocation alive.
        unsafe { Node::<()>::raw_count(self.allocation()) }.load(Ordering::Acquire)
    }

    /// The node, if it is of kind `K`.
    #[inline(always)]
    pub fn cast<K: 'static>(self) -> Option<&'a Node<K>> {
        // SAFETY: `node` was a `&'a Node<K2>` with `TypeId::of::<K2>() ==
        // kind`; equal type ids mean `K == K2`.
        (self.kind == TypeId::of::<K>()).then(|| unsafe { self.node.cast::<Node<K>>().as_ref() })
    }

    /// The node as kind `K`, which the generated dispatch chose by the
    /// kind's index: a mismatch means a `NodeKind` impl written by hand
    /// disagrees with the family's derive.
    #[doc(hidden)]
    #[inline(always)]
    pub fn get<K: 'static>(self) -> &'a Node<K> {
        match self.cast() {
            Some(node) => node,
            None => mismatch(),
        }
    }

    /// An index no kind of the family has (see [`KindRef::get`]).
    #[doc(hidden)]
    #[cold]
    pub fn mismatch(self) -> ! {
        mismatch()
    }
}

/// A mutably borrowed `&mut Node<K>` whose kind `K` is known by its type
/// identity only: what a family hands [`NodeKind::downcast_mut`](crate::NodeKind::downcast_mut).
pub struct KindMut<'a> {
    node: NonNull<()>,
    kind: TypeId,
    _borrow: PhantomData<&'a mut ()>,
}

impl<'a> KindMut<'a> {
    /// Erases the kind of `node`.
    #[inline(always)]
    pub fn new<K: 'static>(node: &'a mut Node<K>) -> Self {
        KindMut {
            node: NonNull::from(node).cast(),
            kind: TypeId::of::<K>(),
            _borrow: PhantomData,
        }
    }

    /// A downstream node's handle (`Ext`), which no kind casts back.
    #[inline(always)]
    pub(crate) fn downstream(handle: &'a mut Tagged) -> Self {
        KindMut {
            node: NonNull::from(handle).cast(),
            kind: TypeId::of::<Downstream>(),
            _borrow: PhantomData,
        }
    }

    /// The node, if it is of kind `K`.
    #[inline(always)]
    pub fn cast<K: 'static>(self) -> Option<&'a mut Node<K>> {
        // SAFETY: `node` was a `&'a mut Node<K2>` with `TypeId::of::<K2>() ==
        // kind`, and `self` is consumed, so the borrow is handed on once.
        (self.kind == TypeId::of::<K>()).then(|| unsafe { self.node.cast::<Node<K>>().as_mut() })
    }
}

/// An owned `Node<K>` whose kind `K` is known by its type identity only: a
/// typed field's new value on its way back from the family's dispatch.
pub struct KindNode {
    raw: NonNull<()>,
    kind: TypeId,
    release: unsafe fn(NonNull<()>),
}

impl KindNode {
    /// Erases the kind of `node`.
    #[inline(always)]
    pub fn new<K: 'static>(node: Node<K>) -> Self {
        KindNode {
            raw: node.into_raw(),
            kind: TypeId::of::<K>(),
            release: release::<K>,
        }
    }

    /// The node as kind `K` (see [`KindRef::get`]).
    #[doc(hidden)]
    #[inline(always)]
    pub fn get<K: 'static>(self) -> Node<K> {
        if self.kind != TypeId::of::<K>() {
            mismatch()
        }
        let raw = self.raw;
        std::mem::forget(self);
        // SAFETY: `raw` came from `Node::<K>::into_raw` (same type id), and
        // `self` is forgotten, so its count is given back once, here.
        unsafe { Node::from_raw(raw) }
    }
}

impl Drop for KindNode {
    fn drop(&mut self) {
        // SAFETY: `raw` and `release` were made for the same kind, and a
        // `KindNode` is consumed by `get` (which forgets it) or dropped here.
        unsafe { (self.release)(self.raw) }
    }
}

unsafe fn release<K>(raw: NonNull<()>) {
    // SAFETY: see `KindNode::drop`.
    drop(unsafe { Node::<K>::from_raw(raw) });
}

/// `node` as a `Node<T>`, for a family's `From<Node<K>>`: the generated
/// match on `K`'s index picks the variant of kind `T`, so the kinds agree
/// unless a hand-written `NodeKind` claims another kind's index.
#[doc(hidden)]
#[inline(always)]
pub fn cast_node<K: 'static, T: 'static>(node: Node<K>) -> Node<T> {
    if TypeId::of::<K>() != TypeId::of::<T>() {
        mismatch()
    }
    // SAFETY: equal type ids: `K == T`; the count moves from `node` to the result.
    unsafe { Node::from_raw(node.into_raw()) }
}

/// An index no kind of the family has (see [`cast_node`]).
#[doc(hidden)]
#[cold]
pub fn cast_node_mismatch<F>() -> F {
    mismatch()
}

#[cold]
#[inline(never)]
fn mismatch() -> ! {
    panic!(
        "a typed field's kind does not match its index: a `NodeKind` impl written by hand \
         disagrees with the family's derive"
    )
}
