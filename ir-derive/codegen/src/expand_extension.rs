//! Generated code for an extension family: kinds a downstream crate adds to
//! an open family (`#[ir(extends(Expr))] enum RafExpr { RtConstant(Node<RtConstant>) }`).
//!
//! Each kind gets its runtime description (`ir_core::ext::ExtKind`) and
//! conversions into the open family; the extension family gets visitor and
//! mutator traits with one hook per kind, extending the open family's traits,
//! and an entry hook (`visit_raf_expr`) that a pass's `visit_ext` calls.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::Derive;
use crate::model::FamilyModel;

pub fn expand(f: &FamilyModel, open: &syn::Path, which: Derive) -> TokenStream {
    match which {
        Derive::Visitable => {
            let kinds = kinds(f, open);
            let visitor = visitor_trait(f, open);
            let fam = &f.ident;
            let k = &f.krate;
            let arms = f.kinds.iter().map(|kind| {
                let v = &kind.variant;
                quote!(#fam::#v(node) => <#open as #k::ext::Extensible>::from_ext(#k::ext::Ext::new(node)),)
            });
            // The one check that the family is open: every other item compiles
            // either way, so extending a closed family is one error.
            let assert = respan(
                quote!(const _: () = #k::ext::__assert_open::<#open>();),
                open.span(),
            );
            quote! {
                #assert
                #kinds
                #visitor
                #[automatically_derived]
                impl ::core::convert::From<#fam> for #open {
                    fn from(value: #fam) -> Self {
                        match value { #(#arms)* }
                    }
                }
            }
        }
        Derive::Mutable => mutator_trait(f, open),
        // Downstream kinds are compared through their own derives.
        Derive::StructuralEq => TokenStream::new(),
    }
}

/// `tokens`, all with `span` (so that an error in them points there).
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                return proc_macro2::TokenTree::Group(group);
            }
            tt.set_span(span);
            tt
        })
        .collect()
}

/// `Expr` -> `ExprVisitor` (same path prefix).
fn sibling(path: &syn::Path, suffix: &str) -> syn::Path {
    let mut path = path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.ident = format_ident!("{}{}", last.ident, suffix);
        last.arguments = syn::PathArguments::None;
    }
    path
}

fn kinds(f: &FamilyModel, open: &syn::Path) -> TokenStream {
    let k = &f.krate;
    let visitor = sibling(open, "Visitor");
    let items = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let name = kind.variant.to_string();
        let mode = if kind.graph {
            quote!(#k::structural::Mode::Graph)
        } else {
            quote!(#k::structural::Mode::Structural)
        };
        // Spanned on the kind: a kind without the derives is reported there, once.
        let vtable = quote_spanned! {ty.span()=>
            static VTABLE: #k::ext::ExtVtable<#open> = #k::ext::ExtVtable::of::<#ty>(#name, #mode);
        };
        quote! {
            #[automatically_derived]
            impl #k::ext::ExtKind<#open> for #ty {
                #[inline]
                fn vtable() -> &'static #k::ext::ExtVtable<#open> {
                    #vtable
                    &VTABLE
                }
                #[inline]
                fn interface(&self) -> &<#open as #k::ext::Extensible>::Interface {
                    self
                }
            }
            #[automatically_derived]
            impl ::core::convert::From<#ty> for #open {
                #[inline]
                fn from(node: #ty) -> Self {
                    <#open as #k::ext::Extensible>::from_ext(#k::ext::Ext::new(#k::Node::new(node)))
                }
            }
            #[automatically_derived]
            impl<__V: #visitor<__R> + ?::core::marker::Sized, __R: #k::VisitResult>
                #k::VisitKind<__V, __R> for #ty
            {
                fn visit_node(node: &#k::Node<Self>, visitor: &mut __V) -> __R {
                    <__V as #visitor<__R>>::visit_ext(visitor, &#k::ext::ExtRef::of(node))
                }
            }
        }
    });
    quote! { const _: () = { #(#items)* }; }
}

fn visitor_trait(f: &FamilyModel, open: &syn::Path) -> TokenStream {
    let k = &f.krate;
    let (vis, fam) = (&f.vis, &f.ident);
    let trait_name = format_ident!("{}Visitor", fam);
    let open_trait = sibling(open, "Visitor");
    let entry = format_ident!("visit_{}", f.snake);
    let dispatch = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let hook = format_ident!("visit_{}", kind.snake);
        quote! {
            if let ::core::option::Option::Some(n) = node.downcast::<#ty>() {
                return <Self as #trait_name<R>>::#hook(self, &n);
            }
        }
    });
    let hooks = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let hook = format_ident!("visit_{}", kind.snake);
        let doc = format!(
            "Hook for `{}` nodes (added to the open family). Default: visit its children.",
            kind.variant
        );
        quote! {
            #[doc = #doc]
            fn #hook(&mut self, node: &#k::Node<#ty>) -> R {
                let node = #k::ext::ExtRef::<#open>::of(node);
                #k::ext::__walk(self, |adapter| node.walk_dyn(adapter))
            }
        }
    });
    let trait_doc = format!(
        "Hooks for the kinds `{fam}` adds to an open family: a pass implements this \
         trait and, in its visitor of the open family, routes `visit_ext` here with \
         `self.{entry}(node)`.\n\nGenerated by `#[derive(Visitable)]`."
    );
    let entry_doc = "Dispatches a node of a kind other crates added: to its hook if it is one \
                     of this extension's kinds, else to the default walk.";
    quote! {
        #[doc = #trait_doc]
        #vis trait #trait_name<R: #k::VisitResult = ()>: #open_trait<R> {
            #[doc = #entry_doc]
            fn #entry(&mut self, node: &#k::ext::Ext<#open>) -> R {
                #(#dispatch)*
                #k::ext::__walk(self, |adapter| node.walk_dyn(adapter))
            }
            #(#hooks)*
        }
    }
}

fn mutator_trait(f: &FamilyModel, open: &syn::Path) -> TokenStream {
    let k = &f.krate;
    let (vis, fam) = (&f.vis, &f.ident);
    let trait_name = format_ident!("{}Mutator", fam);
    let open_trait = sibling(open, "Mutator");
    let entry = format_ident!("mutate_{}", f.snake);
    let dispatch = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let hook = format_ident!("mutate_{}", kind.snake);
        quote! {
            if let ::core::option::Option::Some(n) = node.downcast::<#ty>() {
                return <Self as #trait_name>::#hook(self, &n);
            }
        }
    });
    let hooks = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let hook = format_ident!("mutate_{}", kind.snake);
        let doc = format!(
            "Hook for `{}` nodes (added to the open family). Default: rebuild it from its \
             mutated children, carrying over its other fields.",
            kind.variant
        );
        quote! {
            #[doc = #doc]
            fn #hook(&mut self, node: &#k::Node<#ty>) -> #k::Transformed<#open> {
                let node = #k::ext::ExtRef::<#open>::of(node);
                #k::ext::__rebuild(self, &node, |adapter| node.rebuild_dyn(adapter))
                    .map(<#open as #k::ext::Extensible>::from_ext)
            }
        }
    });
    let kind_impls = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        quote! {
            #[automatically_derived]
            impl ::core::convert::From<#ty> for #k::Transformed<#open> {
                #[inline]
                fn from(node: #ty) -> Self {
                    #k::Transformed::Replace(<#open as #k::ext::Extensible>::from_ext(
                        #k::ext::Ext::new(#k::Node::new(node)),
                    ))
                }
            }
            #[automatically_derived]
            impl<__M: #open_trait + ?::core::marker::Sized> #k::MutateKind<__M> for #ty {
                fn mutate_node(node: &#k::Node<Self>, mutator: &mut __M) -> #k::Transformed<#k::Node<Self>> {
                    #k::ext::__mutate_kind(mutator, node, |adapter, ext: &#k::ext::Ext<#open>| {
                        ext.rebuild_dyn(adapter)
                    })
                }
                fn mutate_node_in_place(node: &mut #k::Node<Self>, mutator: &mut __M) -> bool {
                    #k::ext::__mutate_kind_in_place(
                        mutator,
                        node,
                        |adapter, ext: &#k::ext::Ext<#open>| ext.rebuild_dyn(adapter),
                        |adapter, ext: &mut #k::ext::Ext<#open>| ext.rebuild_in_place_dyn(adapter),
                    )
                }
            }
        }
    });
    let trait_doc = format!(
        "Hooks for the kinds `{fam}` adds to an open family: a pass implements this \
         trait and, in its mutator of the open family, routes `mutate_ext` here with \
         `self.{entry}(node)`.\n\nGenerated by `#[derive(Mutable)]`."
    );
    let entry_doc = "Dispatches a node of a kind other crates added: to its hook if it is one \
                     of this extension's kinds, else to the default rebuild.";
    quote! {
        #[doc = #trait_doc]
        #vis trait #trait_name: #open_trait {
            #[doc = #entry_doc]
            fn #entry(&mut self, node: &#k::ext::Ext<#open>) -> #k::Transformed<#open> {
                #(#dispatch)*
                #k::ext::__rebuild(self, node, |adapter| node.rebuild_dyn(adapter))
                    .map(<#open as #k::ext::Extensible>::from_ext)
            }
            #(#hooks)*
        }
        const _: () = { #(#kind_impls)* };
    }
}
