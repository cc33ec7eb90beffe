//! What every derived family enum and node kind offers, for generic code.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

use crate::Node;
use crate::kind_ref::{KindMut, KindRef};

/// A family of node kinds: an enum whose variants each hold one `Node<Kind>`,
/// with `#[derive(Visitable)]`. Implemented by the derive.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an IR family",
    note = "derive `Visitable` on the family enum too: `Mutable` builds on it"
)]
pub trait Family: Sized {
    /// Names of the kinds, indexed by [`Family::kind_index`].
    const KIND_NAMES: &'static [&'static str];

    /// `true` when some kind of the family has an `#[ir(tail)]` field, so
    /// default hooks take part in walking chains in a loop ([`crate::driver`]).
    const ANY_TAIL: bool = false;

    /// `true` when the family is declared `#[ir(in_place)]`: its default hooks
    /// take part in in-place mode ([`crate::Node::mutate_in_place`]), writing
    /// new children into uniquely owned nodes. Without it, in-place mode
    /// rebuilds the family's nodes copy-on-write (chains aside) and its
    /// default hooks carry no check for it.
    const IN_PLACE: bool = false;

    /// The address of the node this value points to: an identity key.
    #[inline]
    fn addr(&self) -> usize {
        self.kind_ref().addr()
    }

    /// How many handles share the node.
    #[inline]
    fn strong_count(&self) -> usize {
        self.kind_ref().strong_count()
    }

    /// The kind's position in the family (its variant index), usable as a
    /// dispatch-table key.
    fn kind_index(&self) -> usize;

    /// The node's handle with its kind erased: what [`NodeKind::downcast`]
    /// casts back, and where the node's address and count are read, so that
    /// one method per family serves every kind.
    fn kind_ref(&self) -> KindRef<'_>;

    /// [`Family::kind_ref`], mutably: what [`NodeKind::downcast_mut`] casts back.
    fn kind_mut(&mut self) -> KindMut<'_>;

    /// Pointer identity: one comparison, no reference-count traffic.
    #[inline]
    fn same_as(&self, other: &Self) -> bool {
        self.addr() == other.addr()
    }

    /// The kind's name, e.g. `"Call"`.
    #[inline]
    fn kind_name(&self) -> &'static str {
        Self::KIND_NAMES[self.kind_index()]
    }

    /// A typed identity key for maps and sets ([`crate::IdMap`]).
    #[inline]
    fn id(&self) -> Id<Self> {
        Id::from_addr(self.addr())
    }
}

/// A node struct that is a kind of some family. Implemented by the derive.
pub trait NodeKind: Sized + 'static {
    /// The family this kind belongs to.
    type Family: Family + From<Node<Self>>;
    /// The kind's name, as in [`Family::KIND_NAMES`].
    const NAME: &'static str = <Self::Family as Family>::KIND_NAMES[Self::INDEX];
    /// The kind's index, as in [`Family::kind_index`].
    const INDEX: usize;
    /// `true` for a kind with definition sites (`#[ir(def)]`): a field typed
    /// `Node<Self>` reaches its definition hooks.
    const DEF: bool = false;
    /// The node, if `value` is of this kind.
    #[inline]
    fn downcast(value: &Self::Family) -> Option<&Node<Self>> {
        value.kind_ref().cast()
    }
    /// The node, if `value` is of this kind, mutably (in-place mode).
    #[inline]
    fn downcast_mut(value: &mut Self::Family) -> Option<&mut Node<Self>> {
        value.kind_mut().cast()
    }
}

/// Marks types that may appear as child fields of a node. A derive checks
/// every non-skipped field against it, so a wrong field type is reported on
/// the field, at the definition.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a child node type",
    label = "this field is neither a child nor skipped",
    note = "children are family enums, `Node<Kind>` handles, derived structs, and Vec/ShortVec/Option/Box/tuples/arrays of them",
    note = "mark data that is not a child (names, spans, attributes) with `#[ir(skip)]`"
)]
pub trait ChildType {
    /// `true` for a node struct with an `#[ir(tail)]` field (a let's body):
    /// its chains are walked in a loop ([`crate::driver`]).
    const HAS_TAIL: bool = false;
}

impl<K: ChildType> ChildType for Node<K> {}
impl<T: ChildType> ChildType for Vec<T> {}
impl<T: ChildType> ChildType for crate::ShortVec<T> {}
impl<T: ChildType> ChildType for [T] {}
impl<T: ChildType, const N: usize> ChildType for [T; N] {}
impl<T: ChildType> ChildType for Option<T> {}
impl<T: ChildType> ChildType for Box<T> {}
impl<A: ChildType> ChildType for (A,) {}
impl<A: ChildType, B: ChildType> ChildType for (A, B) {}
impl<A: ChildType, B: ChildType, C: ChildType> ChildType for (A, B, C) {}
impl<A: ChildType, B: ChildType, C: ChildType, D: ChildType> ChildType for (A, B, C, D) {}

/// Compile-time check used by generated code.
#[doc(hidden)]
pub const fn __assert_child<T: ChildType + ?Sized>() {}

/// The identity of one node, typed by what it is (a family value or a
/// `Node<Kind>`): a key for [`IdMap`] and [`IdSet`] that cannot be mixed up
/// with an integer or with a key of another family.
///
/// It is the node's address, so it identifies the node only while the node
/// is alive: keep the node (or the program holding it) alive as long as the key.
pub struct Id<T: ?Sized> {
    addr: usize,
    _of: PhantomData<fn() -> *const T>,
}

impl<T: ?Sized> Id<T> {
    #[inline]
    pub(crate) fn from_addr(addr: usize) -> Self {
        Id {
            addr,
            _of: PhantomData,
        }
    }
}

impl<T> Node<T> {
    /// A typed identity key for maps and sets ([`IdMap`]).
    #[inline]
    pub fn id(&self) -> Id<Node<T>> {
        Id::from_addr(self.addr())
    }
}

impl<T: ?Sized> Clone for Id<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: ?Sized> Copy for Id<T> {}
impl<T: ?Sized> PartialEq for Id<T> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.addr == other.addr
    }
}
impl<T: ?Sized> Eq for Id<T> {}
impl<T: ?Sized> Hash for Id<T> {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.addr.hash(state)
    }
}
impl<T: ?Sized> fmt::Debug for Id<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({:#x})", self.addr)
    }
}

/// A map keyed by node identity, hashed by [`IdHasher`].
pub type IdMap<T, V> = std::collections::HashMap<Id<T>, V, IdHash>;

/// A set of node identities, hashed by [`IdHasher`].
pub type IdSet<T> = std::collections::HashSet<Id<T>, IdHash>;

/// Builds [`IdHasher`]s: the hasher of [`IdMap`] and [`IdSet`].
pub type IdHash = std::hash::BuildHasherDefault<IdHasher>;

/// Hashes a node's address so that nodes allocated near each other land in
/// buckets near each other, while the bits the table uses to tell keys
/// apart within a bucket group are scrambled.
///
/// Passes insert and look up nodes in the order they were built, which is
/// mostly the order of their addresses. A scrambling hash (Fx) sends each
/// to a random bucket, so that a map of a million nodes costs a cache miss
/// per access; here consecutive nodes share cache lines of the table. Within
/// each 64 KiB of address space the bucket follows the address; each such
/// region starts at a scrambled offset, so that regions spread over the
/// table. The top seven bits (hashbrown's per-bucket tag) are scrambled per
/// address, so that neighbours in a group are still told apart by their tag.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Not used by `Id`; any other key still hashes correctly.
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    #[inline]
    fn write_usize(&mut self, addr: usize) {
        const TAG: u64 = 0xfe00_0000_0000_0000;
        let addr = addr as u64;
        // Every node is at least 16 bytes (a reference-count header and a value).
        let local = (addr >> 4).wrapping_add((addr >> 16).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let tag = addr.wrapping_mul(0x2545_f491_4f6c_dd1d);
        self.0 = (local & !TAG) | (tag & TAG);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}
