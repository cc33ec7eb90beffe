//! Generated code for a node struct: default recursion of visitors and mutators.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::Derive;
use crate::bounds::{self, spanned_bound};
use crate::model::StructModel;

pub fn expand(s: &StructModel, which: Derive) -> TokenStream {
    let body = match which {
        Derive::Visitable => visitable(s),
        Derive::Mutable | Derive::StructuralEq => mutable(s),
    };
    quote! { const _: () = { #body }; }
}

fn visitable(s: &StructModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let extra: Vec<syn::GenericParam> = vec![
        syn::parse_quote!(__V),
        syn::parse_quote!(__R: #k::VisitResult),
    ];
    let g = bounds::for_struct(s, &extra, |ty| {
        spanned_bound(ty, quote!(#k::Visit<__V, __R>))
    });
    let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);

    let children: Vec<_> = s.fields.iter().filter(|f| f.child).collect();
    let visits = children.iter().enumerate().map(|(i, f)| {
        let member = &f.member;
        let call = quote_spanned!(f.span=> #k::Visit::visit(&self.#member, __visitor));
        if i + 1 == children.len() {
            call
        } else {
            quote!(#k::try_visit!(#call);)
        }
    });
    let body = if children.is_empty() {
        quote!(<__R as #k::VisitResult>::output())
    } else {
        quote!(#(#visits)*)
    };
    let visitor_param = if children.is_empty() {
        quote!(_)
    } else {
        quote!(__visitor)
    };

    // Non-generic child types are checked at the definition, on the field.
    let mut asserted = Vec::new();
    let asserts = children.iter().filter(|f| !f.generic).filter_map(|f| {
        let ty = &f.ty;
        let key = quote!(#ty).to_string();
        if asserted.contains(&key) {
            return None;
        }
        asserted.push(key);
        Some(quote_spanned!(f.span=> #k::__assert_child::<#ty>();))
    });
    let asserts: TokenStream = asserts.collect();
    let (own_impl_g, own_ty_g, own_where) = s.generics.split_for_impl();

    quote! {
        #[automatically_derived]
        impl #impl_g #k::Walk<__V, __R> for #ident #ty_g #where_c {
            #[inline]
            fn walk(&self, #visitor_param: &mut __V) -> __R {
                #body
            }
        }
        #[automatically_derived]
        impl #impl_g #k::Visit<__V, __R> for #ident #ty_g #where_c {
            #[inline]
            fn visit(&self, visitor: &mut __V) -> __R {
                #k::Walk::walk(self, visitor)
            }
        }
        #[automatically_derived]
        impl #own_impl_g #k::ChildType for #ident #own_ty_g #own_where {}
        #[allow(dead_code)]
        fn __ir_assert_children() {
            #asserts
        }
    }
}

fn mutable(s: &StructModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let extra: Vec<syn::GenericParam> = vec![syn::parse_quote!(__M)];
    let g = bounds::for_struct(s, &extra, |ty| {
        spanned_bound(ty, quote!(#k::Mutate<__M> + ::core::clone::Clone))
    });
    let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);

    let children: Vec<_> = s
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.child)
        .map(|(i, f)| (format_ident!("__f{}", i), f))
        .collect();

    let body = if children.is_empty() {
        quote!(::core::option::Option::None)
    } else {
        let mutate = children.iter().map(|(var, f)| {
            let member = &f.member;
            quote_spanned!(f.span=> let #var = #k::Mutate::mutate(&self.#member, __mutator);)
        });
        // With one child, `?` on its result is the whole "unchanged" test.
        let single = children.len() == 1;
        let unchanged = children.iter().map(|(var, _)| quote!(#var.is_none()));
        let early_return = if single {
            let var = &children[0].0;
            quote!(let #var = ::core::option::Option::Some(#var?);)
        } else {
            quote! {
                if #(#unchanged)&&* {
                    return ::core::option::Option::None;
                }
            }
        };
        let inits = s.fields.iter().enumerate().map(|(i, f)| {
            let member = &f.member;
            if f.child {
                let var = format_ident!("__f{}", i);
                quote_spanned!(f.span=> #member: #k::__or_clone(#var, &self.#member))
            } else {
                quote_spanned!(f.span=> #member: ::core::clone::Clone::clone(&self.#member))
            }
        });
        quote! {
            #(#mutate)*
            #early_return
            ::core::option::Option::Some(Self { #(#inits),* })
        }
    };
    let mutator_param = if children.is_empty() {
        quote!(_)
    } else {
        quote!(__mutator)
    };

    quote! {
        #[automatically_derived]
        impl #impl_g #k::RebuildFields<__M> for #ident #ty_g #where_c {
            #[inline]
            fn rebuild_fields(&self, #mutator_param: &mut __M) -> ::core::option::Option<Self> {
                #body
            }
        }
        #[automatically_derived]
        impl #impl_g #k::Mutate<__M> for #ident #ty_g #where_c {
            #[inline]
            fn mutate(&self, mutator: &mut __M) -> ::core::option::Option<Self> {
                #k::RebuildFields::rebuild_fields(self, mutator)
            }
        }
    }
}
