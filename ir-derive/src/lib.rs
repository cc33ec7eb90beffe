//! `#[derive(Visitable)]` and `#[derive(Mutable)]` for irkit.
//!
//! The derives are organized like serde_derive: [`parse`] reads the input and
//! its `#[ir(...)]` attributes, [`check`] validates them into an internal
//! [`model`] while collecting every error with its span, and the `expand_*`
//! modules generate code. Shared logic lives in generic functions in
//! `ir-core`, so each expansion is a handful of small impls.
//!
//! See the `ir_core` crate docs for what the generated items mean.

mod bounds;
mod check;
mod crate_path;
mod expand_family;
mod expand_struct;
mod model;
mod naming;
mod parse;

use proc_macro::TokenStream;

/// Generates read-only traversal.
///
/// * On a node struct: `Walk` (visit children in declaration order) and
///   `Visit` for the struct.
/// * On a family enum (variants holding `Node<Kind>`): the `<Family>Visitor`
///   trait with `visit_<family>` and one `visit_<kind>` hook per kind,
///   `From<Node<Kind>>`, typed downcasts `as_<kind>`/`is_<kind>`, the kind's
///   name and index.
///
/// Attributes: `#[ir(skip)]` on a field (not a child, carried over on
/// rebuild); `#[ir(def)]` on a family variant (the kind has definition sites:
/// typed fields of it reach `visit_<kind>_def`); `#[ir(uses(Other, ...))]`
/// on a family (its kinds contain children of those families);
/// `#[ir(crate = "path")]` (where the runtime crate is).
#[proc_macro_derive(Visitable, attributes(ir))]
pub fn derive_visitable(input: TokenStream) -> TokenStream {
    expand(input, Derive::Visitable)
}

/// Generates copy-on-write mutation.
///
/// * On a node struct: `RebuildFields` (mutate children, rebuild only if one
///   changed, carry other fields over) and `Mutate` for the struct.
/// * On a family enum: the `<Family>Mutator` trait with `mutate_<family>` and
///   one `mutate_<kind>` hook per kind, and the `<Family>Rewriter` trait of
///   `(pre, post)` hooks for `ir_core::post_order::rewrite`.
///
/// Takes the same attributes as `Visitable`; a family must derive both.
#[proc_macro_derive(Mutable, attributes(ir))]
pub fn derive_mutable(input: TokenStream) -> TokenStream {
    expand(input, Derive::Mutable)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Derive {
    Visitable,
    Mutable,
}

fn expand(input: TokenStream, which: Derive) -> TokenStream {
    let input = match syn::parse::<syn::DeriveInput>(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error().into(),
    };
    let result = parse::parse(&input)
        .and_then(|parsed| check::check(parsed, which))
        .map(|model| match model {
            model::Model::Struct(s) => expand_struct::expand(&s, which),
            model::Model::Family(f) => expand_family::expand(&f, which),
        });
    match result {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.write_errors().into(),
    }
}
