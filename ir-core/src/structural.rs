//! Structural equality and hashing, alpha-equivalent and DAG-aware, with the
//! rules of TVM's `structural_equal` / `structural_hash`. `#[derive(StructuralEq)]`
//! implements [`StructuralEq`] for node structs and families.
//!
//! * Binders (fields typed `Node<Kind>` of a `#[ir(def)]` kind: let variables,
//!   parameters) are matched by position; names never matter.
//! * A use of a variable bound on the left must be the variable bound at the
//!   same place on the right. Free variables are equal only if they are the
//!   same node, unless `map_free_vars` matches them by first encounter.
//! * `#[ir(graph)]` kinds are tracked by identity: once a left node matched a
//!   right node it must always match that node, so sharing is observable (a DAG
//!   is not equal to its unfolded tree), and a shared node is compared once.
//! * Other kinds are compared field by field; skipped fields with `==`, unless
//!   marked `#[ir(skip, eq = false)]` (spans, name hints).
//!
//! Hashing agrees with equality: binders and graph nodes hash by their
//! position of first encounter, never by address (free variables without
//! `map_free_vars` excepted, as their equality is identity).

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};

use crate::spine::AsKind;
use crate::{Family, Node};

/// Structural equality and hashing under [`EqState`]/[`HashState`].
pub trait StructuralEq {
    /// `true` when `self` and `other` are structurally equal.
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool;
    /// Feeds `self` into the hash.
    fn struct_hash(&self, hasher: &mut HashState);
}

/// How a kind's nodes are compared (its `#[ir(...)]` on the family variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Field by field; sharing is not observable.
    Structural,
    /// Tracked by identity (`#[ir(graph)]`): sharing must correspond.
    Graph,
    /// A binder in typed fields, a use elsewhere (`#[ir(def)]`).
    Def,
}

/// How a field typed `Node<Kind>` is compared; implemented by the family derive.
pub trait KindEq: Sized {
    /// The kind's mode.
    const MODE: Mode;
    /// Compares two handles found in typed fields.
    fn node_eq(a: &Node<Self>, b: &Node<Self>, eq: &mut EqState) -> bool;
    /// Hashes a handle found in a typed field.
    fn node_hash(a: &Node<Self>, hasher: &mut HashState);
}

/// Whether `a` and `b` are structurally equal; free variables must be the same nodes.
pub fn structural_eq<T: StructuralEq + ?Sized>(a: &T, b: &T) -> bool {
    a.struct_eq(b, &mut EqState::new(false))
}

/// Like [`structural_eq`], but free variables are matched by first encounter
/// (TVM's `map_free_vars=True`).
pub fn structural_eq_map_free_vars<T: StructuralEq + ?Sized>(a: &T, b: &T) -> bool {
    a.struct_eq(b, &mut EqState::new(true))
}

/// A structural hash: equal under [`structural_eq`] implies equal hashes.
pub fn structural_hash<T: StructuralEq + ?Sized>(a: &T) -> u64 {
    let mut h = HashState::new(false);
    a.struct_hash(&mut h);
    h.finish()
}

/// A structural hash agreeing with [`structural_eq_map_free_vars`].
pub fn structural_hash_map_free_vars<T: StructuralEq + ?Sized>(a: &T) -> u64 {
    let mut h = HashState::new(true);
    a.struct_hash(&mut h);
    h.finish()
}

/// The state of one equality check: which left node matched which right node.
pub struct EqState {
    map_free_vars: bool,
    left_to_right: FxHashMap<usize, usize>,
    right_to_left: FxHashMap<usize, usize>,
}

impl EqState {
    /// A fresh check.
    pub fn new(map_free_vars: bool) -> Self {
        EqState {
            map_free_vars,
            left_to_right: FxHashMap::default(),
            right_to_left: FxHashMap::default(),
        }
    }

    fn mapped(&self, l: usize, r: usize) -> Option<bool> {
        match (self.left_to_right.get(&l), self.right_to_left.get(&r)) {
            (Some(&m), _) => Some(m == r),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    }

    fn record(&mut self, l: usize, r: usize) {
        self.left_to_right.insert(l, r);
        self.right_to_left.insert(r, l);
    }

    /// A node of a structurally compared kind.
    #[inline]
    pub fn structural<K>(
        &mut self,
        a: &Node<K>,
        b: &Node<K>,
        fields: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        (!self.map_free_vars && a.same_as(b)) || fields(self)
    }

    /// A node of an identity-tracked (`#[ir(graph)]`) kind.
    pub fn graph<K>(
        &mut self,
        a: &Node<K>,
        b: &Node<K>,
        fields: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        let (l, r) = (a.addr(), b.addr());
        if let Some(known) = self.mapped(l, r) {
            return known;
        }
        let equal = (!self.map_free_vars && l == r) || fields(self);
        if equal {
            self.record(l, r);
        }
        equal
    }

    /// A binder: the two definitions correspond from now on.
    pub fn def<K>(
        &mut self,
        a: &Node<K>,
        b: &Node<K>,
        fields: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        let (l, r) = (a.addr(), b.addr());
        if let Some(known) = self.mapped(l, r) {
            return known;
        }
        if !fields(self) {
            return false;
        }
        self.record(l, r);
        true
    }

    /// A use of a variable: bound ones must correspond, free ones be the same
    /// node (or be matched on first encounter with `map_free_vars`).
    pub fn var_use<K>(
        &mut self,
        a: &Node<K>,
        b: &Node<K>,
        fields: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        let (l, r) = (a.addr(), b.addr());
        if let Some(known) = self.mapped(l, r) {
            return known;
        }
        if !self.map_free_vars {
            return l == r;
        }
        if !fields(self) {
            return false;
        }
        self.record(l, r);
        true
    }
}

/// The state of one structural hash.
pub struct HashState {
    map_free_vars: bool,
    hasher: FxHasher,
    ids: FxHashMap<usize, u64>,
}

const TAG_NODE: u8 = 1;
const TAG_REF: u8 = 2;
const TAG_DEF: u8 = 3;
const TAG_BOUND: u8 = 4;
const TAG_FREE: u8 = 5;

impl HashState {
    /// A fresh hash.
    pub fn new(map_free_vars: bool) -> Self {
        HashState {
            map_free_vars,
            hasher: FxHasher::default(),
            ids: FxHashMap::default(),
        }
    }

    fn first_encounter(&mut self, addr: usize) -> Result<u64, u64> {
        let next = self.ids.len() as u64;
        match self.ids.entry(addr) {
            std::collections::hash_map::Entry::Occupied(e) => Err(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(next);
                Ok(next)
            }
        }
    }

    /// A node of a structurally compared kind.
    #[inline]
    pub fn structural<K>(&mut self, _: &Node<K>, fields: impl FnOnce(&mut Self)) {
        fields(self)
    }

    /// A node of an identity-tracked kind: its contents once, then its position.
    pub fn graph<K>(&mut self, a: &Node<K>, fields: impl FnOnce(&mut Self)) {
        match self.first_encounter(a.addr()) {
            Ok(_) => {
                TAG_NODE.hash(self);
                fields(self);
            }
            Err(id) => {
                TAG_REF.hash(self);
                id.hash(self);
            }
        }
    }

    /// A binder.
    pub fn def<K>(&mut self, a: &Node<K>, fields: impl FnOnce(&mut Self)) {
        match self.first_encounter(a.addr()) {
            Ok(_) => {
                TAG_DEF.hash(self);
                fields(self);
            }
            Err(id) => {
                TAG_BOUND.hash(self);
                id.hash(self);
            }
        }
    }

    /// A use of a variable.
    pub fn var_use<K>(&mut self, a: &Node<K>, fields: impl FnOnce(&mut Self)) {
        if let Some(&id) = self.ids.get(&a.addr()) {
            TAG_BOUND.hash(self);
            id.hash(self);
            return;
        }
        TAG_FREE.hash(self);
        if self.map_free_vars {
            let _ = self.first_encounter(a.addr());
            fields(self);
        } else {
            a.addr().hash(self);
        }
    }
}

impl Hasher for HashState {
    #[inline]
    fn finish(&self) -> u64 {
        self.hasher.finish()
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.hasher.write(bytes)
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.hasher.write_u64(i)
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.hasher.write_usize(i)
    }
}

impl<K: KindEq> StructuralEq for Node<K> {
    #[inline]
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        crate::stack::guarded(|| K::node_eq(self, other, eq))
    }
    #[inline]
    fn struct_hash(&self, hasher: &mut HashState) {
        crate::stack::guarded(|| K::node_hash(self, hasher))
    }
}

impl<T: StructuralEq> StructuralEq for [T] {
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.struct_eq(b, eq))
    }
    fn struct_hash(&self, hasher: &mut HashState) {
        self.len().hash(hasher);
        for x in self {
            x.struct_hash(hasher);
        }
    }
}

impl<T: StructuralEq> StructuralEq for Vec<T> {
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        self.as_slice().struct_eq(other.as_slice(), eq)
    }
    fn struct_hash(&self, hasher: &mut HashState) {
        self.as_slice().struct_hash(hasher)
    }
}

impl<T: StructuralEq, const N: usize> StructuralEq for [T; N] {
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        self.as_slice().struct_eq(other.as_slice(), eq)
    }
    fn struct_hash(&self, hasher: &mut HashState) {
        self.as_slice().struct_hash(hasher)
    }
}

impl<T: StructuralEq> StructuralEq for Option<T> {
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.struct_eq(b, eq),
            (None, None) => true,
            _ => false,
        }
    }
    fn struct_hash(&self, hasher: &mut HashState) {
        match self {
            Some(x) => {
                1u8.hash(hasher);
                x.struct_hash(hasher)
            }
            None => 0u8.hash(hasher),
        }
    }
}

impl<T: StructuralEq> StructuralEq for Box<T> {
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        (**self).struct_eq(other, eq)
    }
    fn struct_hash(&self, hasher: &mut HashState) {
        (**self).struct_hash(hasher)
    }
}

macro_rules! tuple_eq {
    ($($t:ident $i:tt),+) => {
        impl<$($t: StructuralEq),+> StructuralEq for ($($t,)+) {
            fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
                $( self.$i.struct_eq(&other.$i, eq) )&&+
            }
            fn struct_hash(&self, hasher: &mut HashState) {
                $( self.$i.struct_hash(hasher); )+
            }
        }
    };
}
tuple_eq!(A 0);
tuple_eq!(A 0, B 1);
tuple_eq!(A 0, B 1, C 2);
tuple_eq!(A 0, B 1, C 2, D 3);

/// A node struct with a tail field (`#[ir(tail)]`), as compared and hashed
/// (derived): chains of it are compared in a loop, not by recursion.
pub trait SpineEq: Sized {
    /// The tail field's type: the family.
    type Tail;
    /// Compares everything but the tail.
    fn eq_head(&self, other: &Self, eq: &mut EqState) -> bool;
    /// Hashes everything but the tail.
    fn hash_head(&self, hasher: &mut HashState);
    /// The tail field.
    fn tail(&self) -> &Self::Tail;
}

/// Compares two tails of kind-`K` nodes, following chains of `K` in a loop.
/// Same result as the recursive comparison: a graph pair is recorded before
/// its tail is compared rather than after, which no node can observe, since
/// a node never occurs below itself.
#[doc(hidden)]
pub fn __eq_tail<K>(a: &K::Tail, b: &K::Tail, eq: &mut EqState) -> bool
where
    K: SpineEq + KindEq,
    K::Tail: StructuralEq + Family + AsKind<K>,
{
    let (mut ta, mut tb) = (a, b);
    loop {
        let (Some(na), Some(nb)) = (ta.as_kind(), tb.as_kind()) else {
            return ta.struct_eq(tb, eq);
        };
        match K::MODE {
            Mode::Def => return ta.struct_eq(tb, eq),
            Mode::Structural => {
                if !eq.map_free_vars && na.same_as(nb) {
                    return true;
                }
            }
            Mode::Graph => {
                let (l, r) = (na.addr(), nb.addr());
                if let Some(known) = eq.mapped(l, r) {
                    return known;
                }
                eq.record(l, r);
                if !eq.map_free_vars && l == r {
                    return true;
                }
            }
        }
        if !na.eq_head(nb, eq) {
            return false;
        }
        ta = na.tail();
        tb = nb.tail();
    }
}

/// Hashes the tail of a kind-`K` node, following chains of `K` in a loop;
/// the same hash as the recursive walk.
#[doc(hidden)]
pub fn __hash_tail<K>(t: &K::Tail, hasher: &mut HashState)
where
    K: SpineEq + KindEq,
    K::Tail: StructuralEq + Family + AsKind<K>,
{
    let mut t = t;
    loop {
        let Some(n) = t.as_kind() else {
            return t.struct_hash(hasher);
        };
        match K::MODE {
            Mode::Def => return t.struct_hash(hasher),
            Mode::Structural => t.kind_index().hash(hasher),
            Mode::Graph => {
                t.kind_index().hash(hasher);
                match hasher.first_encounter(n.addr()) {
                    Ok(_) => TAG_NODE.hash(hasher),
                    Err(id) => {
                        TAG_REF.hash(hasher);
                        id.hash(hasher);
                        return;
                    }
                }
            }
        }
        n.hash_head(hasher);
        t = n.tail();
    }
}
