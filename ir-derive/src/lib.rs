//! `#[derive(Visitable)]` and `#[derive(Mutable)]` for irkit. The generation
//! itself is in `ir-derive-codegen`.

use proc_macro::TokenStream;

use ir_derive_codegen::{Derive, expand};

/// Generates read-only traversal.
///
/// * On a node struct: `Visit` (visit children in declaration order) and the
///   marker `DerivedStruct`, from which ir-core gives it `Walk`.
/// * On a family enum (variants holding `Node<Kind>`): the `<Family>Visitor`
///   trait with `visit_<family>` and one `visit_<kind>` hook per kind,
///   `From<Node<Kind>>`, typed downcasts `as_<kind>`/`is_<kind>`, the kind's
///   name and index.
///
/// Attributes: `#[ir(skip)]` on a field (not a child, carried over on
/// rebuild); `#[ir(cache)]` on a field (worked out from the others: not a
/// child, not compared, reset to `Default` by a rebuild that changes a
/// child); `#[ir(def)]` on a family variant (the kind has definition sites:
/// typed fields of it reach `visit_<kind>_def`); `#[ir(uses(Other, ...))]`
/// on a family (its kinds contain children of those families);
/// `#[ir(crate = "path")]` (where the runtime crate is).
#[proc_macro_derive(Visitable, attributes(ir))]
pub fn derive_visitable(input: TokenStream) -> TokenStream {
    run(input, Derive::Visitable)
}

/// Generates copy-on-write mutation.
///
/// * On a node struct: `Mutate` (mutate children, rebuild only if one
///   changed, carry other fields over, reset `#[ir(cache)]` fields), from
///   which ir-core gives it
///   `RebuildFields`.
/// * On a family enum: the `<Family>Mutator` trait with `mutate_<family>` and
///   one `mutate_<kind>` hook per kind; with `#[ir(rewriter)]` on the family,
///   also the `<Family>Rewriter` trait of `(pre, post)` hooks for
///   `ir_core::post_order::rewrite` (the families it `uses` need the mark too).
/// * With `#[ir(in_place)]` on the family, its default hooks take part in
///   in-place mode (`Node::mutate_in_place`): new children are written into
///   uniquely owned nodes. Without it, in-place mode rebuilds the family's
///   nodes copy-on-write, and its default hooks have no check for the mode.
///
/// Takes the same attributes as `Visitable`; a family must derive both.
#[proc_macro_derive(Mutable, attributes(ir))]
pub fn derive_mutable(input: TokenStream) -> TokenStream {
    run(input, Derive::Mutable)
}

/// Generates alpha-equivalent, DAG-aware structural equality and hashing
/// (`ir_core::structural`), agreeing with each other.
///
/// Attributes: on a family variant, `#[ir(graph)]` tracks nodes of that kind by
/// identity (sharing is observable, TVM's graph nodes) and `#[ir(def)]` makes
/// typed fields of the kind binders matched by position; on a skipped field,
/// `#[ir(skip, eq = false)]` leaves it out (spans, name hints). Other skipped
/// fields are compared with `==` and hashed with `Hash`; `#[ir(cache)]`
/// fields are ignored.
#[proc_macro_derive(StructuralEq, attributes(ir))]
pub fn derive_structural_eq(input: TokenStream) -> TokenStream {
    run(input, Derive::StructuralEq)
}

fn run(input: TokenStream, which: Derive) -> TokenStream {
    match syn::parse::<syn::DeriveInput>(input) {
        Ok(input) => expand(&input, which).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
