//! The runtime of irkit: node handles, the traits derived visitors and
//! mutators are built on, memo tables, and stack safety.
//!
//! Most users write IR node types with `#[derive(Visitable, Mutable)]` and
//! passes against the traits those derives generate; see the `irkit` crate's
//! README for the overview. This crate holds what the generated code calls,
//! so the expansion stays small.
//!
//! | concept | item |
//! |---|---|
//! | shared immutable handle, pointer identity | [`Node`], [`Node::same_as`], [`Id`], [`IdMap`] |
//! | default recursion of a visitor | [`Walk`] |
//! | early exit | [`VisitResult`], [`try_visit!`] |
//! | changed or not | [`Transformed`] |
//! | default recursion of a mutator, copy-on-write | [`Node::rebuild`], [`RebuildFields::rebuild_fields`] |
//! | in-place mode | [`Node::mutate_in_place`], [`Mutate::mutate_in_place`], [`Node::make_mut`] |
//! | chains walked in a loop, hand-back to drivers | [`driver`] |
//! | kinds added to a family by another crate | [`ext`] |
//! | memoization, per pass | [`VisitedSet`], [`MemoMap`], [`memoized`], [`visited`], [`visit_preorder`] |
//! | post-order rewriting across families | [`post_order`] |
//! | a replacement at a definition carried to later uses | [`ReplaceMap`] |
//! | stack safety | [`stack::guarded`], deep-safe `Drop` of [`Node`] |
//! | alpha-equivalent structural equality and hashing | [`structural`] |
//! | modules and passes | [`pass`] |

#![warn(missing_docs)]

extern crate self as ir_core;

#[cfg(feature = "mimalloc")]
pub mod alloc;
mod deep_drop;
pub mod driver;
pub mod ext;
mod ext_tag;
mod family;
pub mod kind_ref;
mod memo;
mod mutate;
mod node;
pub mod pass;
pub mod post_order;
mod rare;
mod replace_map;
mod short_vec;
pub mod stack;
pub mod structural;
mod transformed;
mod visit;

pub use family::{__assert_child, ChildType, Family, Id, IdHash, IdHasher, IdMap, IdSet, NodeKind};
pub use ir_derive::{Mutable, StructuralEq, Visitable};
pub use memo::{MemoMap, VisitedSet, memoized, visited};
#[doc(hidden)]
pub use mutate::{__mutate_default, __mutate_default_def, __mutate_entry, __or_clone};
pub use mutate::{HandleInfo, Mutate, MutateKind, MutateTyped, Rebuild, RebuildFields};
pub use node::Node;
pub use rare::Rare;
pub use replace_map::ReplaceMap;
pub use short_vec::ShortVec;
pub use structural::StructuralEq;
#[allow(deprecated)]
pub use transformed::{Rewrite, Transformed};
#[doc(hidden)]
pub use visit::{__visit_default, __visit_entry};
pub use visit::{DerivedStruct, Visit, VisitKind, VisitResult, VisitTyped, Walk, visit_preorder};

/// The module chains were driven from before [`driver`] took over in-place
/// mode too; its items are there now.
pub mod spine {
    pub use crate::driver::{Spine, SpineMutate, SpineVisit, mutate_chain};
}

/// Everything a pass author needs in scope.
pub mod prelude {
    pub use crate::structural::{
        structural_eq, structural_eq_map_free_vars, structural_hash, structural_hash_map_free_vars,
    };
    pub use crate::{
        Family, Id, IdMap, IdSet, MemoMap, Mutable, Mutate, Node, NodeKind, Rebuild, RebuildFields,
        ReplaceMap, StructuralEq, Transformed, VisitResult, Visitable, VisitedSet, Walk,
    };
    pub use std::ops::ControlFlow;
}
