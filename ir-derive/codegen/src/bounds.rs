//! Generics and where-clauses of generated impls, computed in one place.
//!
//! A struct's impls are bounded by its child field types (`Expr: Visit<V, R>`),
//! never by its kinds, and a family's impls only by the visitor trait
//! (`V: ExprVisitor<R>`): bounds through recursive kinds would send the trait
//! solver around the `Expr -> Let -> Expr` cycle.

use proc_macro2::TokenStream;
use quote::ToTokens;

use crate::model::{FieldModel, StructModel};

/// `impl<...user generics..., extra>` and the user's own type generics.
pub struct ImplGenerics {
    pub impl_generics: TokenStream,
    pub ty_generics: TokenStream,
    pub where_clause: TokenStream,
}

/// Adds `extra` parameters (e.g. `__V, __R: VisitResult`) to the struct's
/// generics, and one bound per distinct child field type.
pub fn for_struct(
    s: &StructModel,
    extra: &[syn::GenericParam],
    bound: impl Fn(&syn::Type) -> syn::WherePredicate,
) -> ImplGenerics {
    for_struct_filtered(s, extra, |_| true, bound, Vec::new())
}

/// [`for_struct`] over the children `keep` accepts, with `more` predicates.
pub fn for_struct_filtered(
    s: &StructModel,
    extra: &[syn::GenericParam],
    keep: impl Fn(&FieldModel) -> bool,
    bound: impl Fn(&syn::Type) -> syn::WherePredicate,
    more: Vec<syn::WherePredicate>,
) -> ImplGenerics {
    let mut generics = s.generics.clone();
    generics.params.extend(extra.iter().cloned());
    let where_clause = generics.make_where_clause();
    where_clause.predicates.extend(more);
    let mut seen = Vec::<String>::new();
    for field in s.fields.iter().filter(|f| f.child && keep(f)) {
        let key = field.ty.to_token_stream().to_string();
        if !seen.contains(&key) {
            seen.push(key);
            where_clause.predicates.push(bound(&field.ty));
        }
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = s.generics.split_for_impl();
    ImplGenerics {
        impl_generics: impl_generics.to_token_stream(),
        ty_generics: ty_generics.to_token_stream(),
        where_clause: where_clause.to_token_stream(),
    }
}

/// The struct's own where-clause with `more` predicates.
pub fn where_clause(s: &StructModel, more: Vec<syn::WherePredicate>) -> TokenStream {
    let mut generics = s.generics.clone();
    generics.make_where_clause().predicates.extend(more);
    generics.where_clause.to_token_stream()
}

/// A bound `#ty: #trait_` spanned on the field type, so an unsatisfied
/// bound is reported on the field.
pub fn spanned_bound(ty: &syn::Type, trait_: TokenStream) -> syn::WherePredicate {
    let span = syn::spanned::Spanned::span(ty);
    syn::parse_quote_spanned!(span=> #ty: #trait_)
}
