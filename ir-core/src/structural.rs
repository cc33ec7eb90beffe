//! Structural equality and hashing, alpha-equivalent and DAG-aware, with the
//! rules of TVM's `structural_equal` / `structural_hash`. `#[derive(StructuralEq)]`
//! implements [`StructuralEq`] for node structs and families.
//!
//! # Which fields count
//!
//! | field | kind of the node | compared and hashed |
//! |---|---|---|
//! | child (not `#[ir(skip)]`) | any | always, structurally |
//! | `#[ir(skip)]` data | an ordinary kind | yes, with `==` and `Hash` |
//! | `#[ir(skip)]` data | a variable kind (`#[ir(def)]` on its variant) | no: a variable is its binding site; names never matter |
//! | `#[ir(skip, eq = false)]` | any | no (spans, name hints) |
//! | `#[ir(skip, eq = true)]` | any | yes (a variable's dtype, say) |
//! | `#[ir(annotation)]` | any | always, structurally (a variable's type); never walked by passes |
//! | `#[ir(cache)]` | any | no (worked out from the other fields: a call's inferred type) |
//!
//! # Which nodes correspond
//!
//! * **Binders** (fields typed `Node<Kind>` of a `#[ir(def)]` kind: let
//!   variables, parameters) are matched by position: the first time a left
//!   binder meets a right binder they correspond, for the rest of the
//!   comparison (TVM's rule: a definition site corresponds to one definition
//!   site, so a shared subterm that *defines* variables differs from two
//!   copies of it).
//! * A **use** of a variable bound on the left must be the variable bound at
//!   the same place on the right. **Free** variables are equal only if they
//!   are the same node, unless `map_free_vars` matches them by first encounter.
//! * **`#[ir(graph)]` kinds** are tracked by identity: once a left node
//!   matched a right node it must always match that node, so sharing is
//!   observable (a DAG differs from its unfolded tree), as in TVM.
//! * **Other kinds** are compared field by field, and sharing them is not
//!   observable: a DAG of them equals its unfolded tree.
//!
//! # Cost on DAGs
//!
//! Both take time linear in the distinct nodes, not in the paths, for every
//! kind: `e = e + e` sixty-four times compares and hashes at once.
//!
//! * Equality records each pair of nodes found equal where one side is
//!   shared, and answers again from that record. This is sound for any
//!   subterm, closed or not: the correspondences above only ever grow, so a
//!   pair equal once stays equal (and the first difference ends the check).
//! * Hashing is a Merkle hash: each node's hash is computed from its fields
//!   and its children's hashes. The hash of a shared node is reused when its
//!   computation numbered nothing new (no binder, no graph node, no free
//!   variable met for the first time), i.e. for a subterm that is closed in
//!   that sense; that covers shared expressions over variables bound outside
//!   them. A shared subterm that defines variables or holds graph nodes is
//!   hashed again where it recurs (once more: the second time it numbers
//!   nothing new), so the cost stays linear for the usual DAGs.
//!
//! Hashes never depend on addresses: a program built twice hashes the same,
//! free variables included, in both modes.

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashSet, FxHasher};

use crate::Node;
use crate::driver::Spine;

/// Structural equality and hashing under [`EqState`]/[`HashState`].
pub trait StructuralEq {
    /// Whether a field of this type defines variables: a typed field of a
    /// variable (`#[ir(def)]`) kind, or a container of them.
    const DEFINES: bool = false;
    /// Whether a value of this type has fields that define variables (a
    /// binding, derived). A long sequence of them makes room for its
    /// binders in an equality's maps before comparing: the maps then never
    /// grow (and rehash) while the sequence is compared.
    const BINDS: bool = false;
    /// `true` when `self` and `other` are structurally equal.
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool;
    /// Feeds `self` into the hash.
    fn struct_hash(&self, hasher: &mut HashState<'_>);
    /// As [`StructuralEq::struct_eq`], for the node of a variable
    /// (`#[ir(def)]`) kind: data fields count only if marked `eq = true`.
    #[inline]
    fn struct_eq_var(&self, other: &Self, eq: &mut EqState) -> bool {
        self.struct_eq(other, eq)
    }
    /// As [`StructuralEq::struct_hash`], for the node of a variable kind.
    #[inline]
    fn struct_hash_var(&self, hasher: &mut HashState<'_>) {
        self.struct_hash(hasher)
    }
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
    /// Whether the kind's nodes have fields that define variables
    /// ([`StructuralEq::BINDS`] of the kind).
    const BINDS: bool = false;
    /// Compares two handles found in typed fields.
    fn node_eq(a: &Node<Self>, b: &Node<Self>, eq: &mut EqState) -> bool;
    /// Hashes a handle found in a typed field.
    fn node_hash(a: &Node<Self>, hasher: &mut HashState<'_>);
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
    hash_with(a, false)
}

/// A structural hash agreeing with [`structural_eq_map_free_vars`].
pub fn structural_hash_map_free_vars<T: StructuralEq + ?Sized>(a: &T) -> u64 {
    hash_with(a, true)
}

fn hash_with<T: StructuralEq + ?Sized>(a: &T, map_free_vars: bool) -> u64 {
    let mut ctx = HashCtx {
        map_free_vars,
        ids: AddrMap::default(),
        next_id: 0,
        pending_defs: Vec::new(),
        cache: AddrMap::default(),
        recent: [(0, 0); 4],
    };
    let mut h = HashState {
        hasher: FxHasher::default(),
        ctx: &mut ctx,
    };
    a.struct_hash(&mut h);
    h.hasher.finish()
}

/// A map keyed by node address, hashed so that nodes allocated together
/// share the table's cache lines ([`crate::IdHasher`]): a hash's numbering
/// and an equality's binder maps are as large as the program.
type AddrMap<V> = std::collections::HashMap<usize, V, crate::IdHash>;

/// The state of one equality check: which left node matched which right node.
pub struct EqState {
    map_free_vars: bool,
    left_to_right: AddrMap<usize>,
    right_to_left: AddrMap<usize>,
    /// The latest pairs recorded in both maps: in A-normal form a use reads
    /// a binder defined just before, found here without probing the maps
    /// (as large as the program, so each probe may miss the cache).
    recent: [(usize, usize); 4],
    /// Pairs of structurally compared nodes, one of them shared, found equal.
    equal_pairs: FxHashSet<(usize, usize)>,
}

impl EqState {
    /// A fresh check.
    pub fn new(map_free_vars: bool) -> Self {
        EqState {
            map_free_vars,
            left_to_right: AddrMap::default(),
            right_to_left: AddrMap::default(),
            recent: [(0, 0); 4],
            equal_pairs: FxHashSet::default(),
        }
    }

    fn mapped(&self, l: usize, r: usize) -> Option<bool> {
        if let Some(&(_, m)) = self.recent.iter().find(|p| p.0 == l) {
            return Some(m == r);
        }
        if let Some(&m) = self.left_to_right.get(&l) {
            return Some(m == r);
        }
        self.right_to_left.contains_key(&r).then_some(false)
    }

    /// Room for `n` more binders, when comparing their definitions is next.
    fn reserve_binders(&mut self, n: usize) {
        self.left_to_right.reserve(n);
        self.right_to_left.reserve(n);
    }

    fn record(&mut self, l: usize, r: usize) {
        self.left_to_right.insert(l, r);
        self.right_to_left.insert(r, l);
        self.remember_recent(l, r);
    }

    fn remember_recent(&mut self, l: usize, r: usize) {
        self.recent.rotate_right(1);
        self.recent[0] = (l, r);
    }

    /// Undoes the record of `l` and `r` (a binder whose types differ).
    fn unrecord(&mut self, l: usize, r: usize) {
        self.left_to_right.remove(&l);
        self.right_to_left.remove(&r);
        for p in &mut self.recent {
            if p.0 == l || p.1 == r {
                *p = (0, 0);
            }
        }
    }

    /// Whether a pair of structurally compared nodes is already known equal,
    /// or the same node; `None` when it must be compared.
    #[inline]
    fn known_structural<K>(&self, a: &Node<K>, b: &Node<K>) -> Option<bool> {
        if !self.map_free_vars && a.same_as(b) {
            return Some(true);
        }
        let shared = a.strong_count() > 1 || b.strong_count() > 1;
        (shared && self.equal_pairs.contains(&(a.addr(), b.addr()))).then_some(true)
    }

    #[inline]
    fn remember_structural<K>(&mut self, a: &Node<K>, b: &Node<K>) {
        if a.strong_count() > 1 || b.strong_count() > 1 {
            self.equal_pairs.insert((a.addr(), b.addr()));
        }
    }

    /// A node of a structurally compared kind.
    #[inline]
    pub fn structural<K>(
        &mut self,
        a: &Node<K>,
        b: &Node<K>,
        fields: impl FnOnce(&mut Self) -> bool,
    ) -> bool {
        if let Some(known) = self.known_structural(a, b) {
            return known;
        }
        let equal = fields(self);
        if equal {
            self.remember_structural(a, b);
        }
        equal
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
        use std::collections::hash_map::Entry;
        let (l, r) = (a.addr(), b.addr());
        // A binder is met once in a well-formed program: one probe of each
        // map both checks and records it (the maps are as large as the
        // program, so each probe may miss the cache).
        match self.left_to_right.entry(l) {
            Entry::Occupied(e) => return *e.get() == r,
            Entry::Vacant(e) => {
                e.insert(r);
            }
        }
        match self.right_to_left.entry(r) {
            Entry::Occupied(_) => {
                self.left_to_right.remove(&l);
                return false;
            }
            Entry::Vacant(e) => {
                e.insert(l);
            }
        }
        self.remember_recent(l, r);
        if fields(self) {
            return true;
        }
        self.unrecord(l, r);
        false
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

/// Numbering and cached hashes shared by every node of one hash.
struct HashCtx {
    map_free_vars: bool,
    /// Binders, graph nodes and (when mapped) free variables, by address:
    /// their number in order of first encounter.
    ids: AddrMap<u64>,
    /// The next number to give.
    next_id: u64,
    /// Binders not yet in `ids`, in order, at increasing addresses (which
    /// shows that none is here twice). In A-normal form a use reads a binder
    /// defined just before: it is found among the last of these, and a
    /// program whose uses all are, and whose binders were allocated in
    /// order, never fills `ids` at all. A use found nowhere here, or a
    /// binder not above the last, moves them all into `ids`.
    pending_defs: Vec<(usize, u64)>,
    /// Hashes of shared structural nodes whose hashing numbered nothing new.
    cache: AddrMap<u64>,
    /// The latest of them looked up: a node shared by every binding (an
    /// operator, a constant, a common struct info) is found here without a
    /// probe of `cache`.
    recent: [(usize, u64); 4],
}

impl HashCtx {
    /// Moves the waiting binders into `ids`.
    fn flush_pending_defs(&mut self) {
        if !self.pending_defs.is_empty() {
            self.ids.extend(self.pending_defs.drain(..));
        }
    }
}

/// The state of one structural hash, at one node: the hash of the node being
/// fed, and what every node of the hash shares (numbering, cached hashes).
pub struct HashState<'a> {
    hasher: FxHasher,
    ctx: &'a mut HashCtx,
}

const TAG_NODE: u8 = 1;
const TAG_REF: u8 = 2;
const TAG_DEF: u8 = 3;
const TAG_BOUND: u8 = 4;
const TAG_FREE: u8 = 5;

impl HashState<'_> {
    /// The hash of one node: `fields` fed into a fresh hasher.
    #[inline]
    fn digest(&mut self, fields: impl FnOnce(&mut HashState<'_>)) -> u64 {
        let mut sub = HashState {
            hasher: FxHasher::default(),
            ctx: &mut *self.ctx,
        };
        fields(&mut sub);
        sub.hasher.finish()
    }

    fn first_encounter(&mut self, addr: usize) -> Result<u64, u64> {
        let next = self.ctx.next_id;
        match self.ctx.ids.entry(addr) {
            std::collections::hash_map::Entry::Occupied(e) => Err(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(next);
                self.ctx.next_id += 1;
                Ok(next)
            }
        }
    }

    /// The number of the binder at `addr`, if it was met.
    fn bound_id(&mut self, addr: usize) -> Option<u64> {
        let ctx = &mut *self.ctx;
        let recent = ctx.pending_defs.len().saturating_sub(4);
        if let Some(&(_, id)) = ctx.pending_defs[recent..]
            .iter()
            .rev()
            .find(|d| d.0 == addr)
        {
            return Some(id);
        }
        ctx.flush_pending_defs();
        ctx.ids.get(&addr).copied()
    }

    /// A node of a structurally compared kind.
    #[inline]
    pub fn structural<K>(&mut self, a: &Node<K>, fields: impl FnOnce(&mut HashState<'_>)) {
        let d = self.structural_digest(a, fields);
        d.hash(self);
    }

    fn structural_digest<K>(
        &mut self,
        a: &Node<K>,
        fields: impl FnOnce(&mut HashState<'_>),
    ) -> u64 {
        let shared = a.strong_count() > 1;
        if shared {
            let addr = a.addr();
            if let Some(&(_, d)) = self.ctx.recent.iter().find(|r| r.0 == addr) {
                return d;
            }
            if let Some(&d) = self.ctx.cache.get(&addr) {
                // The oldest entry gives way.
                self.ctx.recent.rotate_right(1);
                self.ctx.recent[0] = (addr, d);
                return d;
            }
        }
        let numbered = self.ctx.next_id;
        let d = self.digest(fields);
        if shared && self.ctx.next_id == numbered {
            self.ctx.cache.insert(a.addr(), d);
        }
        d
    }

    /// A node of an identity-tracked kind: its contents once, then its number.
    pub fn graph<K>(&mut self, a: &Node<K>, fields: impl FnOnce(&mut HashState<'_>)) {
        let d = match self.first_encounter(a.addr()) {
            Ok(_) => self.digest(|h| {
                TAG_NODE.hash(h);
                fields(h)
            }),
            Err(id) => self.digest(|h| {
                TAG_REF.hash(h);
                id.hash(h)
            }),
        };
        d.hash(self);
    }

    /// A binder: numbered at its first encounter, and by that number at any
    /// later one (a shared function met twice, a parameter of two
    /// functions), exactly as if every binder went into `ids` at once.
    pub fn def<K>(&mut self, a: &Node<K>, fields: impl FnOnce(&mut HashState<'_>)) {
        let addr = a.addr();
        let ctx = &mut *self.ctx;
        if ctx
            .pending_defs
            .last()
            .is_some_and(|&(last, _)| addr <= last)
        {
            // It may be one of the waiting binders: look among all of them.
            ctx.flush_pending_defs();
        }
        let seen = if ctx.ids.is_empty() {
            None
        } else {
            ctx.ids.get(&addr).copied()
        };
        let d = match seen {
            None => {
                let id = self.ctx.next_id;
                self.ctx.next_id += 1;
                self.ctx.pending_defs.push((addr, id));
                self.digest(|h| {
                    TAG_DEF.hash(h);
                    fields(h)
                })
            }
            Some(id) => self.digest(|h| {
                TAG_BOUND.hash(h);
                id.hash(h)
            }),
        };
        d.hash(self);
    }

    /// A use of a variable: bound ones by their binder's number; free ones by
    /// their contents (and, when mapped, numbered on first encounter).
    pub fn var_use<K>(&mut self, a: &Node<K>, fields: impl FnOnce(&mut HashState<'_>)) {
        let d = if let Some(id) = self.bound_id(a.addr()) {
            self.digest(|h| {
                TAG_BOUND.hash(h);
                id.hash(h)
            })
        } else {
            if self.ctx.map_free_vars {
                let _ = self.first_encounter(a.addr());
            }
            self.digest(|h| {
                TAG_FREE.hash(h);
                fields(h)
            })
        };
        d.hash(self);
    }
}

impl Hasher for HashState<'_> {
    #[inline]
    fn finish(&self) -> u64 {
        self.hasher.finish()
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.hasher.write(bytes)
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.hasher.write_u8(i)
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
    const DEFINES: bool = matches!(K::MODE, Mode::Def);
    const BINDS: bool = K::BINDS;
    #[inline]
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        crate::stack::guarded(|| K::node_eq(self, other, eq))
    }
    #[inline]
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
        crate::stack::guarded(|| K::node_hash(self, hasher))
    }
}

/// How long a sequence of binders (or bindings) is before the equality's
/// maps make room for all of them at once.
const RESERVE_FROM: usize = 64;

impl<T: StructuralEq> StructuralEq for [T] {
    const DEFINES: bool = T::DEFINES;
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        if self.len() != other.len() {
            return false;
        }
        if (T::DEFINES || T::BINDS) && self.len() >= RESERVE_FROM {
            eq.reserve_binders(self.len());
        }
        self.iter().zip(other).all(|(a, b)| a.struct_eq(b, eq))
    }
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
        self.len().hash(hasher);
        for x in self {
            x.struct_hash(hasher);
        }
    }
}

impl<T: StructuralEq> StructuralEq for Vec<T> {
    const DEFINES: bool = T::DEFINES;
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        self.as_slice().struct_eq(other.as_slice(), eq)
    }
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
        self.as_slice().struct_hash(hasher)
    }
}

impl<T: StructuralEq> StructuralEq for crate::ShortVec<T> {
    const DEFINES: bool = T::DEFINES;
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        self.as_slice().struct_eq(other.as_slice(), eq)
    }
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
        self.as_slice().struct_hash(hasher)
    }
}

impl<T: StructuralEq, const N: usize> StructuralEq for [T; N] {
    const DEFINES: bool = T::DEFINES;
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        self.as_slice().struct_eq(other.as_slice(), eq)
    }
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
        self.as_slice().struct_hash(hasher)
    }
}

impl<T: StructuralEq> StructuralEq for Option<T> {
    const DEFINES: bool = T::DEFINES;
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.struct_eq(b, eq),
            (None, None) => true,
            _ => false,
        }
    }
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
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
    const DEFINES: bool = T::DEFINES;
    fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
        (**self).struct_eq(other, eq)
    }
    fn struct_hash(&self, hasher: &mut HashState<'_>) {
        (**self).struct_hash(hasher)
    }
}

macro_rules! tuple_eq {
    ($($t:ident $i:tt),+) => {
        impl<$($t: StructuralEq),+> StructuralEq for ($($t,)+) {
            fn struct_eq(&self, other: &Self, eq: &mut EqState) -> bool {
                $( self.$i.struct_eq(&other.$i, eq) )&&+
            }
            fn struct_hash(&self, hasher: &mut HashState<'_>) {
                $( self.$i.struct_hash(hasher); )+
            }
        }
    };
}
tuple_eq!(A 0);
tuple_eq!(A 0, B 1);
tuple_eq!(A 0, B 1, C 2);
tuple_eq!(A 0, B 1, C 2, D 3);

/// A chain node (`#[ir(tail)]`) as compared and hashed (derived): chains are
/// compared in a loop, not by recursion.
pub trait SpineEq: Spine {
    /// Compares everything but the tail.
    fn eq_head(&self, other: &Self, eq: &mut EqState) -> bool;
    /// Hashes everything but the tail.
    fn hash_head(&self, hasher: &mut HashState<'_>);
}

/// Compares two tails of kind-`K` nodes, following chains of `K` in a loop.
/// Same result as the recursive comparison: a graph pair is recorded before
/// its tail is compared rather than after, which no node can observe, since
/// a node never occurs below itself.
#[doc(hidden)]
pub fn __eq_tail<K>(a: &K::Family, b: &K::Family, eq: &mut EqState) -> bool
where
    K: SpineEq + KindEq,
    K::Family: StructuralEq,
{
    let (mut ta, mut tb) = (a, b);
    // Structural links found equal are remembered once the chain is done.
    let mut pending: Vec<(&Node<K>, &Node<K>)> = Vec::new();
    let equal = loop {
        let (Some(na), Some(nb)) = (K::downcast(ta), K::downcast(tb)) else {
            break ta.struct_eq(tb, eq);
        };
        match K::MODE {
            Mode::Def => break ta.struct_eq(tb, eq),
            Mode::Structural => {
                if let Some(known) = eq.known_structural(na, nb) {
                    break known;
                }
                pending.push((na, nb));
            }
            Mode::Graph => {
                let (l, r) = (na.addr(), nb.addr());
                if let Some(known) = eq.mapped(l, r) {
                    break known;
                }
                eq.record(l, r);
                if !eq.map_free_vars && l == r {
                    break true;
                }
            }
        }
        if !na.eq_head(nb, eq) {
            break false;
        }
        ta = na.tail();
        tb = nb.tail();
    };
    if equal {
        for (na, nb) in pending {
            eq.remember_structural(na, nb);
        }
    }
    equal
}

/// Hashes the tail of a kind-`K` node, following chains of `K` in a loop;
/// the same hash as the recursive walk.
#[doc(hidden)]
pub fn __hash_tail<K>(t: &K::Family, hasher: &mut HashState<'_>)
where
    K: SpineEq + KindEq,
    K::Family: StructuralEq,
{
    // Each link's hash needs its tail's, so the links' hashers wait on a
    // stack, filled in order (binders and graph nodes are numbered as the
    // recursion would), and finish from the bottom up. A family value feeds
    // its parent its kind's index, then its node's hash.
    struct Open<'n, K> {
        hasher: FxHasher,
        node: &'n Node<K>,
        numbered: u64,
    }
    let mut open: Vec<Open<'_, K>> = Vec::new();
    let mut t = t;
    // What ends the chain: a value hashed as usual, or a link known already.
    let end: Result<&K::Family, u64> = loop {
        let Some(n) = K::downcast(t) else { break Ok(t) };
        match K::MODE {
            Mode::Def => break Ok(t),
            Mode::Structural => {
                if n.strong_count() > 1
                    && let Some(&cached) = hasher.ctx.cache.get(&n.addr())
                {
                    break Err(cached);
                }
            }
            Mode::Graph => {
                if let Err(id) = hasher.first_encounter(n.addr()) {
                    break Err(hasher.digest(|h| {
                        TAG_REF.hash(h);
                        id.hash(h)
                    }));
                }
            }
        }
        let numbered = hasher.ctx.next_id - u64::from(K::MODE == Mode::Graph);
        let mut sub = HashState {
            hasher: FxHasher::default(),
            ctx: &mut *hasher.ctx,
        };
        if K::MODE == Mode::Graph {
            TAG_NODE.hash(&mut sub);
        }
        n.hash_head(&mut sub);
        open.push(Open {
            hasher: sub.hasher,
            node: n,
            numbered,
        });
        t = n.tail();
    };
    // The value below the deepest open link (or below the caller's node).
    let mut below = match open.pop() {
        None => {
            match end {
                Ok(t) => t.struct_hash(hasher),
                Err(d) => {
                    K::INDEX.hash(hasher);
                    d.hash(hasher);
                }
            }
            return;
        }
        Some(mut deepest) => {
            let mut state = HashState {
                hasher: deepest.hasher,
                ctx: &mut *hasher.ctx,
            };
            match end {
                Ok(t) => t.struct_hash(&mut state),
                Err(d) => {
                    K::INDEX.hash(&mut state);
                    d.hash(&mut state);
                }
            }
            deepest.hasher = state.hasher;
            deepest
        }
    };
    loop {
        let d = below.hasher.finish();
        if K::MODE == Mode::Structural
            && below.node.strong_count() > 1
            && hasher.ctx.next_id == below.numbered
        {
            hasher.ctx.cache.insert(below.node.addr(), d);
        }
        match open.pop() {
            Some(mut above) => {
                K::INDEX.hash(&mut above.hasher);
                d.hash(&mut above.hasher);
                below = above;
            }
            None => {
                K::INDEX.hash(hasher);
                d.hash(hasher);
                return;
            }
        }
    }
}
