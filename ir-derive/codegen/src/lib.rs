//! The code generation behind `#[derive(Visitable)]` and `#[derive(Mutable)]`.
//!
//! Organized like serde_derive: [`parse`] reads the input and its `#[ir(...)]`
//! attributes, [`check`] validates them into an internal [`model`] while
//! collecting every error with its span, and the `expand_*` modules generate
//! code. Shared logic lives in generic functions in `ir-core`, so each
//! expansion is a handful of small impls. The proc-macro crate `ir-derive`
//! is a thin wrapper; `cargo xtask expand` calls this crate directly.

mod bounds;
mod check;
mod crate_path;
mod expand_family;
mod expand_struct;
mod model;
mod naming;
mod parse;

use proc_macro2::TokenStream;

/// Which derive is expanded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Derive {
    /// `#[derive(Visitable)]`
    Visitable,
    /// `#[derive(Mutable)]`
    Mutable,
}

/// Expands one derive on `input`; errors come back as `compile_error!`s
/// spanned on the offending tokens.
pub fn expand(input: &syn::DeriveInput, which: Derive) -> TokenStream {
    let result = parse::parse(input)
        .and_then(|parsed| check::check(parsed, which))
        .map(|model| match model {
            model::Model::Struct(s) => expand_struct::expand(&s, which),
            model::Model::Family(f) => expand_family::expand(&f, which),
        });
    match result {
        Ok(tokens) => tokens,
        Err(errors) => errors.write_errors(),
    }
}
