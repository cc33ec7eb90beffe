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
//! | shared immutable handle, pointer identity | [`Node`], [`Node::same_as`] |
//! | default recursion of a visitor | [`Walk`] |
//! | early exit | [`VisitResult`], [`try_visit!`] |
//! | default recursion of a mutator, copy-on-write | [`Node::rebuild`], [`Rebuilt`], [`Rewrite`] |
//! | in-place mode | [`Node::rebuild_in_place`], [`Node::make_mut`] |
//! | memoization, per pass | [`VisitedSet`], [`MemoMap`] |
//! | post-order rewriting without recursion | [`post_order::rewrite`] |
//! | stack safety | [`stack::guarded`], deep-safe `Drop` of [`Node`] |
//! | alpha-equivalent structural equality and hashing | [`structural`] |
//! | modules and passes | [`pass`] |

#![warn(missing_docs)]

extern crate self as ir_core;

mod deep_drop;
mod family;
mod memo;
mod mutate;
mod node;
pub mod pass;
pub mod post_order;
pub mod spine;
pub mod stack;
pub mod structural;
mod visit;

pub use family::{__assert_child, __assert_family, ChildType, Family, NodeKind};
pub use ir_derive::{Mutable, StructuralEq, Visitable};
pub use memo::{MemoMap, VisitedSet, memoized};
pub use mutate::{__or_clone, Mutate, MutateKind, Rebuild, RebuildFields, Rebuilt, Rewrite};
pub use node::Node;
pub use structural::StructuralEq;
pub use visit::{Visit, VisitKind, VisitResult, Walk};

/// Everything a pass author needs in scope.
pub mod prelude {
    pub use crate::structural::{
        structural_eq, structural_eq_map_free_vars, structural_hash, structural_hash_map_free_vars,
    };
    pub use crate::{
        Family, MemoMap, Mutable, Node, NodeKind, Rebuild, Rebuilt, Rewrite, StructuralEq,
        VisitResult, Visitable, VisitedSet, Walk,
    };
    pub use std::ops::ControlFlow;
}
