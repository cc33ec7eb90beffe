//! Where the runtime crate is, as seen from the crate being expanded.

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::Span;
use syn::Ident;

/// `::ir_core` when the user depends on `ir-core` (under any name), else the
/// facade's re-export `::irkit::__core`, else `::ir_core`. Both crates declare
/// `extern crate self as <name>`, so the same path works inside them too.
/// `#[ir(crate = "...")]` overrides this.
pub fn resolve() -> syn::Path {
    let root = |name: &str| -> syn::Path {
        let ident = Ident::new(name, Span::call_site());
        syn::parse_quote!(::#ident)
    };
    match crate_name("ir-core") {
        Ok(FoundCrate::Itself) => return root("ir_core"),
        Ok(FoundCrate::Name(name)) => return root(&name),
        Err(_) => {}
    }
    match crate_name("irkit") {
        Ok(FoundCrate::Itself) => syn::parse_quote!(::irkit::__core),
        Ok(FoundCrate::Name(name)) => {
            let ident = Ident::new(&name, Span::call_site());
            syn::parse_quote!(::#ident::__core)
        }
        Err(_) => root("ir_core"),
    }
}
