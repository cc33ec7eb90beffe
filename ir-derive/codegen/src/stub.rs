//! What a struct whose attributes could not be read expands to besides its
//! errors: impls with the right shape and no behaviour, so that code using
//! the struct reports no follow-on errors. They never run: the crate does not
//! compile while the errors stand.

use proc_macro2::TokenStream;
use quote::quote;

use crate::Derive;
use crate::crate_path;

pub fn expand(input: &syn::DeriveInput, which: Derive) -> TokenStream {
    if !matches!(input.data, syn::Data::Struct(_)) {
        return TokenStream::new();
    }
    let k = crate_path::resolve();
    let ident = &input.ident;
    let (impl_g, ty_g, where_c) = input.generics.split_for_impl();
    let with = |extra: TokenStream| {
        let params = &input.generics.params;
        if params.is_empty() {
            quote!(<#extra>)
        } else {
            quote!(<#params, #extra>)
        }
    };
    match which {
        Derive::Visitable => {
            let g = with(quote!(__V: ?::core::marker::Sized, __R: #k::VisitResult));
            quote! {
                impl #g #k::Visit<__V, __R> for #ident #ty_g #where_c {
                    fn visit(&self, _: &mut __V) -> __R { <__R as #k::VisitResult>::output() }
                }
                impl #impl_g #k::DerivedStruct for #ident #ty_g #where_c {}
                impl #impl_g #k::ChildType for #ident #ty_g #where_c {}
            }
        }
        Derive::Mutable => {
            let g = with(quote!(__M: ?::core::marker::Sized));
            quote! {
                impl #g #k::Mutate<__M> for #ident #ty_g #where_c {
                    fn mutate(&self, _: &mut __M) -> #k::Transformed<Self> { #k::Transformed::Keep }
                    fn mutate_in_place(&mut self, _: &mut __M) -> bool { false }
                }
            }
        }
        Derive::StructuralEq => {
            quote! {
                impl #impl_g #k::StructuralEq for #ident #ty_g #where_c {
                    fn struct_eq(&self, _: &Self, _: &mut #k::structural::EqState) -> bool { false }
                    fn struct_hash(&self, _: &mut #k::structural::HashState<'_>) {}
                }
            }
        }
    }
}
