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

    let spine = visit_spine(s);
    quote! {
        #spine
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

    let spine = mutate_spine(s);
    quote! {
        #spine
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

/// `Tail`, the default visitor hook, and for a struct with a tail field the
/// head/tail split the spine driver walks (`ir_core::spine`).
fn visit_spine(s: &StructModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let tail = s.tail();
    let (_, self_ty_g, _) = s.generics.split_for_impl();
    let extra: Vec<syn::GenericParam> = vec![
        syn::parse_quote!(__V),
        syn::parse_quote!(__R: #k::VisitResult),
    ];
    let tail_ty = tail.map(|t| t.ty.clone());
    let g = bounds::for_struct(s, &extra, |ty| {
        if tail_ty.as_ref() == Some(ty) {
            spanned_bound(
                ty,
                quote!(#k::Visit<__V, __R> + #k::Family + #k::spine::AsKind<#ident #self_ty_g>),
            )
        } else {
            spanned_bound(ty, quote!(#k::Visit<__V, __R>))
        }
    });
    let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);
    let (own_impl_g, own_ty_g, own_where) = s.generics.split_for_impl();
    let has_tail = tail.is_some();
    let tail_impls = tail.map(|t| {
        let tail_ty = &t.ty;
        let tail_member = &t.member;
        let heads = s.fields.iter().filter(|f| f.child && !f.tail).map(|f| {
            let member = &f.member;
            quote_spanned!(f.span=> #k::try_visit!(#k::Visit::visit(&self.#member, __visitor));)
        });
        quote! {
            #[automatically_derived]
            impl #impl_g #k::spine::SpineVisit<__V, __R> for #ident #ty_g #where_c {
                type Tail = #tail_ty;
                #[inline]
                #[allow(unused_variables)]
                fn walk_head(&self, __visitor: &mut __V) -> __R {
                    #(#heads)*
                    <__R as #k::VisitResult>::output()
                }
                #[inline]
                fn tail(&self) -> &#tail_ty {
                    &self.#tail_member
                }
            }
        }
    });
    let body = if has_tail {
        quote!(#k::spine::__visit_spine(node, visitor))
    } else {
        quote!(#k::Walk::walk(&**node, visitor))
    };
    quote! {
        #[automatically_derived]
        impl #own_impl_g #k::spine::Tail for #ident #own_ty_g #own_where {
            const HAS_TAIL: bool = #has_tail;
        }
        #[automatically_derived]
        impl #impl_g #k::spine::VisitDefault<__V, __R> for #ident #ty_g #where_c {
            #[inline]
            fn visit_default(node: &#k::Node<Self>, visitor: &mut __V) -> __R {
                #body
            }
        }
        #tail_impls
    }
}

/// The default mutator hook, and for a struct with a tail field the
/// head/tail split the spine driver rebuilds from (`ir_core::spine`).
fn mutate_spine(s: &StructModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let (_, self_ty_g, _) = s.generics.split_for_impl();
    let Some(tail) = s.tail() else {
        let extra: Vec<syn::GenericParam> = vec![syn::parse_quote!(__M), syn::parse_quote!(__F)];
        let into: syn::WherePredicate =
            syn::parse_quote!(#k::Node<#ident #self_ty_g>: ::core::convert::Into<__F>);
        let g = bounds::for_struct_with(
            s,
            &extra,
            |ty| spanned_bound(ty, quote!(#k::Mutate<__M> + ::core::clone::Clone)),
            vec![into],
        );
        let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);
        return quote! {
            #[automatically_derived]
            impl #impl_g #k::spine::MutateDefault<__M, __F> for #ident #ty_g #where_c {
                #[inline]
                fn mutate_default(node: &#k::Node<Self>, mutator: &mut __M) -> #k::Rewrite<__F> {
                    ::core::convert::Into::into(node.rebuild(mutator))
                }
            }
        };
    };
    let tail_ty = &tail.ty;
    let tail_member = &tail.member;
    let extra: Vec<syn::GenericParam> = vec![syn::parse_quote!(__M)];
    let g = bounds::for_struct(s, &extra, |ty| {
        if ty == tail_ty {
            spanned_bound(
                ty,
                quote!(#k::Mutate<__M> + ::core::clone::Clone + #k::Family
                    + #k::spine::AsKind<#ident #self_ty_g>
                    + ::core::convert::From<#k::Node<#ident #self_ty_g>>),
            )
        } else {
            spanned_bound(ty, quote!(#k::Mutate<__M> + ::core::clone::Clone))
        }
    });
    let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);
    let heads: Vec<_> = s
        .fields
        .iter()
        .enumerate()
        .filter(|(_, f)| f.child && !f.tail)
        .map(|(i, f)| (format_ident!("__f{}", i), f))
        .collect();
    let head_types = heads.iter().map(|(_, f)| {
        let ty = &f.ty;
        quote!(::core::option::Option<#ty>,)
    });
    let head_vars: Vec<_> = heads.iter().map(|(v, _)| v).collect();
    let mutate_heads = heads.iter().map(|(var, f)| {
        let member = &f.member;
        quote_spanned!(f.span=> let #var = #k::Mutate::mutate(&self.#member, __mutator);)
    });
    let nones = heads.iter().map(|_| quote!(::core::option::Option::None,));
    let inits = s.fields.iter().enumerate().map(|(i, f)| {
        let member = &f.member;
        if f.tail {
            quote_spanned!(f.span=> #member: #k::__or_clone(__tail, &self.#member))
        } else if f.child {
            let var = format_ident!("__f{}", i);
            quote_spanned!(f.span=> #member: #k::__or_clone(#var, &self.#member))
        } else {
            quote_spanned!(f.span=> #member: ::core::clone::Clone::clone(&self.#member))
        }
    });
    let unchanged = if heads.is_empty() {
        quote!(true)
    } else {
        let tests = head_vars.iter().map(|v| quote!(#v.is_none()));
        quote!(#(#tests)&&*)
    };
    quote! {
        #[automatically_derived]
        impl #impl_g #k::spine::SpineMutate<__M> for #ident #ty_g #where_c {
            type Tail = #tail_ty;
            type Head = (#(#head_types)*);
            #[inline]
            #[allow(unused_variables)]
            fn mutate_head(&self, __mutator: &mut __M) -> ::core::option::Option<Self::Head> {
                #(#mutate_heads)*
                if #unchanged {
                    return ::core::option::Option::None;
                }
                ::core::option::Option::Some((#(#head_vars,)*))
            }
            #[inline]
            fn tail(&self) -> &#tail_ty {
                &self.#tail_member
            }
            fn assemble(
                &self,
                __head: ::core::option::Option<Self::Head>,
                __tail: ::core::option::Option<#tail_ty>,
            ) -> Self {
                let (#(#head_vars,)*) = match __head {
                    ::core::option::Option::Some(__h) => __h,
                    ::core::option::Option::None => (#(#nones)*),
                };
                Self { #(#inits),* }
            }
        }
        #[automatically_derived]
        impl #impl_g #k::spine::MutateDefault<__M, #tail_ty> for #ident #ty_g #where_c {
            #[inline]
            fn mutate_default(node: &#k::Node<Self>, mutator: &mut __M) -> #k::Rewrite<#tail_ty> {
                #k::spine::__mutate_spine(node, mutator)
            }
        }
    }
}
