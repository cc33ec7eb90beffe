//! Generated code for a node struct: the default recursion of visitors and
//! mutators (copy-on-write and in place), and for a struct with an
//! `#[ir(tail)]` field the head/tail split its chains are driven by.
//!
//! A struct implements `Visit` and `Mutate` (its fields, in order) and the
//! marker `DerivedStruct`; ir-core derives `Walk` and `RebuildFields` from
//! those once, for every derived struct, instead of one more impl per struct.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::Derive;
use crate::bounds::{self, spanned_bound};
use crate::model::{FieldModel, StructModel};

pub fn expand(s: &StructModel, which: Derive) -> TokenStream {
    // Impls only, with full paths: nothing to scope in a `const _` block
    // (each would be one more item per struct).
    match which {
        Derive::Visitable => visitable(s),
        Derive::Mutable | Derive::StructuralEq => mutable(s),
    }
}

fn children(s: &StructModel) -> impl Iterator<Item = (usize, &FieldModel)> {
    s.fields.iter().enumerate().filter(|(_, f)| f.child)
}

/// `try_visit!(visit(field))` for each child of `fields` but the last, which
/// gives the result.
fn visit_sequence<'a>(
    k: &syn::Path,
    fields: impl Iterator<Item = &'a FieldModel>,
    last_is_result: bool,
) -> TokenStream {
    let fields: Vec<_> = fields.collect();
    let n = fields.len();
    let visits = fields.iter().enumerate().map(|(i, f)| {
        let member = &f.member;
        let call = quote_spanned!(f.span=> #k::Visit::visit(&self.#member, __visitor));
        if last_is_result && i + 1 == n {
            call
        } else {
            quote!(#k::try_visit!(#call);)
        }
    });
    if n == 0 || !last_is_result {
        quote!(#(#visits)* <__R as #k::VisitResult>::output())
    } else {
        quote!(#(#visits)*)
    }
}

fn visitable(s: &StructModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let (own_impl_g, own_ty_g, own_where) = s.generics.split_for_impl();
    let extra: Vec<syn::GenericParam> = vec![
        syn::parse_quote!(__V: ?::core::marker::Sized),
        syn::parse_quote!(__R: #k::VisitResult),
    ];
    let visit_bound = |ty: &syn::Type| spanned_bound(ty, quote!(#k::Visit<__V, __R>));
    let any_child = children(s).next().is_some();
    let param = if any_child {
        quote!(__visitor)
    } else {
        quote!(_)
    };

    let (visit_impl, tail_items) = match s.tail() {
        None => {
            let g = bounds::for_struct(s, &extra, visit_bound);
            let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);
            let body = visit_sequence(k, s.fields.iter().filter(|f| f.child), true);
            let visit_impl = quote! {
                #[automatically_derived]
                impl #impl_g #k::Visit<__V, __R> for #ident #ty_g #where_c {
                    #[inline]
                    fn visit(&self, #param: &mut __V) -> __R {
                        #body
                    }
                }
            };
            (visit_impl, TokenStream::new())
        }
        Some(tail) => {
            let heads = s.fields.iter().filter(|f| f.child && !f.tail);
            let head_g = bounds::for_struct_filtered(s, &extra, |f| !f.tail, visit_bound, vec![]);
            let (impl_g, ty_g, head_where) = (
                &head_g.impl_generics,
                &head_g.ty_generics,
                &head_g.where_clause,
            );
            let head_body = visit_sequence(k, heads, false);
            let tail_member = &tail.member;
            let walk_where = bounds::where_clause(
                s,
                vec![
                    syn::parse_quote!(Self: #k::driver::SpineVisit<__V, __R>),
                    syn::parse_quote!(<Self as #k::NodeKind>::Family: #k::Visit<__V, __R>),
                ],
            );
            let visit_impl = quote! {
                #[automatically_derived]
                impl #impl_g #k::Visit<__V, __R> for #ident #ty_g #walk_where {
                    #[inline]
                    fn visit(&self, visitor: &mut __V) -> __R {
                        #k::driver::walk_chain(self, visitor)
                    }
                }
            };
            let items = quote! {
                #[automatically_derived]
                impl #impl_g #k::driver::SpineVisit<__V, __R> for #ident #ty_g #head_where {
                    #[allow(unused_variables)]
                    #[inline]
                    fn walk_head(&self, __visitor: &mut __V) -> __R {
                        #head_body
                    }
                }
                #[automatically_derived]
                impl #own_impl_g #k::driver::Spine for #ident #own_ty_g #own_where {
                    #[inline]
                    fn tail(&self) -> &<Self as #k::NodeKind>::Family {
                        &self.#tail_member
                    }
                    #[inline]
                    fn tail_mut(&mut self) -> &mut <Self as #k::NodeKind>::Family {
                        &mut self.#tail_member
                    }
                }
            };
            (visit_impl, items)
        }
    };

    // Non-generic child types are checked at the definition, on the field.
    let mut asserted = Vec::new();
    let asserts: TokenStream = children(s)
        .map(|(_, f)| f)
        .filter(|f| !f.generic)
        .filter_map(|f| {
            let ty = &f.ty;
            let key = quote!(#ty).to_string();
            if asserted.contains(&key) {
                return None;
            }
            asserted.push(key);
            Some(quote_spanned!(f.span=> #k::__assert_child::<#ty>();))
        })
        .collect();
    let has_tail = s.tail().map(|_| {
        quote!(
            const HAS_TAIL: bool = true;
        )
    });
    // Evaluated at compile time: no function to generate code for.
    let asserts = (!asserts.is_empty()).then(|| quote!(const _: () = { #asserts };));
    quote! {
        #visit_impl
        #tail_items
        #[automatically_derived]
        impl #own_impl_g #k::DerivedStruct for #ident #own_ty_g #own_where {}
        #[automatically_derived]
        impl #own_impl_g #k::ChildType for #ident #own_ty_g #own_where {
            #has_tail
        }
        #asserts
    }
}

/// `let __fN = Mutate::mutate(&self.field, __mutator);` for each child of
/// `fields`, the test that none changed, and the new contents from them,
/// with `tail` for the tail field if it is excluded.
fn rebuild_parts(
    k: &syn::Path,
    s: &StructModel,
    include: impl Fn(&FieldModel) -> bool,
) -> (TokenStream, TokenStream, TokenStream) {
    let mutated: Vec<_> = children(s)
        .filter(|(_, f)| include(f))
        .map(|(i, f)| (format_ident!("__f{}", i), f))
        .collect();
    let lets = mutated.iter().map(|(var, f)| {
        let member = &f.member;
        quote_spanned!(f.span=> let #var = #k::Mutate::mutate(&self.#member, __mutator);)
    });
    let unchanged = if mutated.is_empty() {
        quote!(true)
    } else {
        let tests = mutated.iter().map(|(var, _)| quote!(#var.is_keep()));
        quote!(#(#tests)&&*)
    };
    let inits = s.fields.iter().enumerate().map(|(i, f)| {
        let member = &f.member;
        if f.child && include(f) {
            let var = format_ident!("__f{}", i);
            quote_spanned!(f.span=> #member: #k::__or_clone(#var, &self.#member))
        } else if f.cache {
            // Worked out from children that just changed.
            quote_spanned!(f.span=> #member: ::core::default::Default::default())
        } else {
            quote_spanned!(f.span=> #member: ::core::clone::Clone::clone(&self.#member))
        }
    });
    (quote!(#(#lets)*), unchanged, quote!(Self { #(#inits),* }))
}

/// `__changed |= Mutate::mutate_in_place(&mut self.field, __mutator);` for
/// each child of `fields`.
fn in_place_parts<'a>(k: &syn::Path, fields: impl Iterator<Item = &'a FieldModel>) -> TokenStream {
    let steps = fields.map(|f| {
        let member = &f.member;
        quote_spanned!(f.span=> __changed |= #k::Mutate::mutate_in_place(&mut self.#member, __mutator);)
    });
    quote!(#(#steps)*)
}

fn mutable(s: &StructModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let extra: Vec<syn::GenericParam> = vec![syn::parse_quote!(__M: ?::core::marker::Sized)];
    let mutate_bound =
        |ty: &syn::Type| spanned_bound(ty, quote!(#k::Mutate<__M> + ::core::clone::Clone));
    let any_child = children(s).next().is_some();
    let param = if any_child {
        quote!(__mutator)
    } else {
        quote!(_)
    };

    let (mutate_impl, tail_items) = match s.tail() {
        None => {
            let g = bounds::for_struct(s, &extra, mutate_bound);
            let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);
            let (lets, unchanged, contents) = rebuild_parts(k, s, |_| true);
            let in_place = in_place_parts(k, s.fields.iter().filter(|f| f.child));
            let caches = s.fields.iter().filter(|f| f.cache).map(|f| {
                let member = &f.member;
                quote_spanned!(f.span=> self.#member = ::core::default::Default::default();)
            });
            let reset = quote!(#(#caches)*);
            let reset = if reset.is_empty() {
                reset
            } else {
                // Worked out from children that just changed.
                quote!(if __changed { #reset })
            };
            let (rebuild_body, in_place_body) = if any_child {
                (
                    quote! {
                        #lets
                        if #unchanged {
                            return #k::Transformed::Keep;
                        }
                        #k::Transformed::Replace(#contents)
                    },
                    quote! {
                        let mut __changed = false;
                        #in_place
                        #reset
                        __changed
                    },
                )
            } else {
                (quote!(#k::Transformed::Keep), quote!(false))
            };
            let mutate_impl = quote! {
                #[automatically_derived]
                impl #impl_g #k::Mutate<__M> for #ident #ty_g #where_c {
                    #[inline]
                    fn mutate(&self, #param: &mut __M) -> #k::Transformed<Self> {
                        #rebuild_body
                    }
                    #[inline]
                    fn mutate_in_place(&mut self, #param: &mut __M) -> bool {
                        #in_place_body
                    }
                }
            };
            (mutate_impl, TokenStream::new())
        }
        Some(tail) => {
            let head_g = bounds::for_struct_filtered(s, &extra, |f| !f.tail, mutate_bound, vec![]);
            let (impl_g, ty_g, head_where) = (
                &head_g.impl_generics,
                &head_g.ty_generics,
                &head_g.where_clause,
            );
            let (lets, unchanged, contents) = rebuild_parts(k, s, |f| !f.tail);
            let heads_in_place = in_place_parts(k, s.fields.iter().filter(|f| f.child && !f.tail));
            let tail_member = &tail.member;
            let chain_where = bounds::where_clause(
                s,
                vec![
                    syn::parse_quote!(Self: #k::driver::SpineMutate<__M>),
                    syn::parse_quote!(<Self as #k::NodeKind>::Family:
                        #k::Mutate<__M> + #k::Rebuild<__M> + ::core::clone::Clone),
                ],
            );
            let mutate_impl = quote! {
                #[automatically_derived]
                impl #impl_g #k::Mutate<__M> for #ident #ty_g #chain_where {
                    #[inline]
                    fn mutate(&self, mutator: &mut __M) -> #k::Transformed<Self> {
                        #k::driver::rebuild_chain(self, mutator)
                    }
                    #[inline]
                    fn mutate_in_place(&mut self, mutator: &mut __M) -> bool {
                        let head = #k::driver::SpineMutate::rebuild_head_in_place(self, mutator);
                        #k::driver::tail_in_place::<__M, Self>(&mut self.#tail_member, mutator) | head
                    }
                }
            };
            let items = quote! {
                #[automatically_derived]
                impl #impl_g #k::driver::SpineMutate<__M> for #ident #ty_g #head_where {
                    #[allow(unused_variables)]
                    #[inline(always)]
                    fn rebuild_head(&self, __mutator: &mut __M) -> #k::Transformed<Self> {
                        #lets
                        if #unchanged {
                            return #k::Transformed::Keep;
                        }
                        #k::Transformed::Replace(#contents)
                    }
                    #[allow(unused_variables, unused_mut)]
                    #[inline]
                    fn rebuild_head_in_place(&mut self, __mutator: &mut __M) -> bool {
                        let mut __changed = false;
                        #heads_in_place
                        __changed
                    }
                }
            };
            (mutate_impl, items)
        }
    };
    quote! {
        #mutate_impl
        #tail_items
    }
}
