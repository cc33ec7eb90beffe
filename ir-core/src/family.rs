//! What every derived family enum and node kind offers, for generic code.

use crate::Node;

/// A family of node kinds: an enum whose variants each hold one `Node<Kind>`,
/// with `#[derive(Visitable)]`. Implemented by the derive.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an IR family",
    note = "derive `Visitable` on the family enum too: `Mutable` builds on it"
)]
pub trait Family {
    /// Names of the kinds, indexed by [`Family::kind_index`].
    const KIND_NAMES: &'static [&'static str];

    /// The address of the node this value points to: an identity key.
    fn addr(&self) -> usize;

    /// How many handles share the node.
    fn strong_count(&self) -> usize;

    /// The kind's position in the family (its variant index), usable as a
    /// dispatch-table key.
    fn kind_index(&self) -> usize;

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
}

/// A node struct that is a kind of some family. Implemented by the derive.
pub trait NodeKind: Sized {
    /// The family this kind belongs to.
    type Family: Family + From<Node<Self>>;
    /// The kind's name, as in [`Family::KIND_NAMES`].
    const NAME: &'static str;
    /// The kind's index, as in [`Family::kind_index`].
    const INDEX: usize;
}

/// Marks types that may appear as child fields of a node. A derive checks
/// every non-skipped field against it, so a wrong field type is reported on
/// the field, at the definition.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a child node type",
    label = "this field is neither a child nor skipped",
    note = "children are family enums, `Node<Kind>` handles, derived structs, and Vec/Option/Box/tuples/arrays of them",
    note = "mark data that is not a child (names, spans, attributes) with `#[ir(skip)]`"
)]
pub trait ChildType {}

impl<K: NodeKind> ChildType for Node<K> {}
impl<T: ChildType> ChildType for Vec<T> {}
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
#[inline(always)]
pub fn __assert_child<T: ChildType + ?Sized>() {}

/// Compile-time check used by generated code.
#[doc(hidden)]
#[inline(always)]
pub const fn __assert_family<T: Family>() {}
