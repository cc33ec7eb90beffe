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

use crate::Node;

/// A borrowed `&Node<K>` whose kind `K` is known by its type identity only.
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

#[cold]
#[inline(never)]
fn mismatch() -> ! {
    panic!(
        "a typed field's kind does not match its index: a `NodeKind` impl written by hand \
         disagrees with the family's derive"
    )
}
