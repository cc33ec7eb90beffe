//! Generics and where-clauses of generated impls, computed in one place.
//!
//! A struct's impls are bounded by its child field types (`Expr: Visit<V, R>`),
//! never by its kinds, and a family's impls only by the visitor trait
//! (`V: ExprVisitor<R>`): bounds through recursive kinds would send the trait
//! solver around the `Expr -> Let -> Expr` cycle.

use proc_macro2::TokenStream;

use crate::model::StructModel;

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
    for_struct_with(s, extra, bound, Vec::new())
}

/// [`for_struct`], with `more` predicates after the per-field ones.
pub fn for_struct_with(
    s: &StructModel,
    extra: &[syn::GenericParam],
    bound: impl Fn(&syn::Type) -> syn::WherePredicate,
    more: Vec<syn::WherePredicate>,
) -> ImplGenerics {
    let mut generics = s.generics.clone();
    generics.params.extend(extra.iter().cloned());
    let where_clause = generics.make_where_clause();
    where_clause.predicates.extend(more);
    let mut seen = Vec::<String>::new();
    for field in s.fields.iter().filter(|f| f.child) {
        let key = quote::ToTokens::to_token_stream(&field.ty).to_string();
        if !seen.contains(&key) {
            seen.push(key);
            where_clause.predicates.push(bound(&field.ty));
        }
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = s.generics.split_for_impl();
    ImplGenerics {
        impl_generics: quote::ToTokens::to_token_stream(&impl_generics),
        ty_generics: quote::ToTokens::to_token_stream(&ty_generics),
        where_clause: quote::ToTokens::to_token_stream(&where_clause),
    }
}

/// A bound `#ty: #trait_` spanned on the field type, so an unsatisfied
/// bound is reported on the field.
pub fn spanned_bound(ty: &syn::Type, trait_: TokenStream) -> syn::WherePredicate {
    let span = syn::spanned::Spanned::span(ty);
    syn::parse_quote_spanned!(span=> #ty: #trait_)
}
