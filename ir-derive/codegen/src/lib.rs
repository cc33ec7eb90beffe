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
mod expand_category;
mod expand_eq;
mod expand_extension;
mod expand_family;
mod expand_struct;
mod model;
mod naming;
mod parse;
mod stub;

use proc_macro2::TokenStream;

/// Which derive is expanded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Derive {
    /// `#[derive(Visitable)]`
    Visitable,
    /// `#[derive(Mutable)]`
    Mutable,
    /// `#[derive(StructuralEq)]`
    StructuralEq,
}

/// Expands one derive on `input`; errors come back as `compile_error!`s
/// spanned on the offending tokens. A struct still gets its impls (from the
/// model, or shape-only stubs when its attributes could not be read), so one
/// mistake does not cascade into "trait not implemented" errors elsewhere.
pub fn expand(input: &syn::DeriveInput, which: Derive) -> TokenStream {
    let (model, errors) = match parse::parse(input) {
        Ok(parsed) => {
            let (model, errors) = check::check(parsed);
            (Some(model), errors)
        }
        // A family whose attributes could not all be read still gets its
        // traits, from what could be read (its checks' errors would be about
        // attributes left out, so only the parse error is reported).
        Err(error) => (
            parse::parse_leniently(input).map(|parsed| check::check(parsed).0),
            vec![error],
        ),
    };
    let errors_empty = errors.is_empty();
    let mut out = if errors_empty {
        TokenStream::new()
    } else {
        darling::Error::multiple(errors).write_errors()
    };
    out.extend(match model {
        Some(model::Model::Struct(s)) => match which {
            Derive::StructuralEq => expand_eq::for_struct(&s),
            _ => expand_struct::expand(&s, which),
        },
        // A family with errors still generates its traits for its valid
        // kinds (the invalid ones are left out of the model), so passes that
        // use it do not fail as well.
        // A generic family cannot be named in the generated items at all.
        Some(model::Model::Family(f)) if f.generic => TokenStream::new(),
        Some(model::Model::Family(f)) if f.extends.is_some() => {
            let open = f.extends.clone().unwrap_or_else(|| f.krate.clone());
            expand_extension::expand(&f, &open, which)
        }
        Some(model::Model::Family(f)) => match which {
            Derive::StructuralEq => expand_eq::for_family(&f),
            _ => expand_family::expand(&f, which),
        },
        None => stub::expand(input, which),
    });
    out
}
