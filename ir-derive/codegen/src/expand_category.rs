//! Category hooks: `#[ir(category = Binary)]` on several variants of a family
//! gives each pass trait one more hook, `visit_binary` / `mutate_binary` /
//! `rewrite_binary`, taking a view enum `Binary<'_>` of the category's kinds.
//!
//! The kind hooks of the category default to the category hook, and the
//! category hook defaults to the kind's own default. So the most specific hook
//! a pass overrides wins, as in oneDNN, where overriding `visit(add_c)` means
//! `visit(binary_c)` is not called for `a + b`; and a pass that overrides
//! neither pays one inlined call.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{CategoryModel, FamilyModel, KindModel};

/// The category's kinds, in variant order.
fn kinds<'a>(f: &'a FamilyModel, c: &'a CategoryModel) -> impl Iterator<Item = &'a KindModel> {
    c.kinds.iter().map(|&i| &f.kinds[i])
}

/// The body of a kind hook in a category: `self.<prefix>_<category>(View::Kind(..))`.
pub fn kind_default(f: &FamilyModel, kind: &KindModel, prefix: &str) -> Option<TokenStream> {
    let c = &f.categories[kind.category?];
    let (view, variant) = (&c.ident, &kind.variant);
    let hook = format_ident!("{prefix}_{}", c.snake);
    Some(if prefix == "rewrite" {
        quote!(self.#hook(#view::#variant(pre), #view::#variant(post)))
    } else {
        quote!(self.#hook(#view::#variant(node)))
    })
}

/// The visitor trait's category hooks.
pub fn visit_hooks(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let hooks = f.categories.iter().map(|c| {
        let view = &c.ident;
        let hook = format_ident!("visit_{}", c.snake);
        let arms = kinds(f, c).map(|kind| {
            let (v, ty) = (&kind.variant, &kind.ty);
            let call = quote_spanned!(ty.span()=> #k::__visit_default(self, n));
            quote!(#view::#v(n) => #call,)
        });
        let doc = format!(
            "Category hook for the [`{view}`] kinds: their hooks call it unless overridden. \
             Default: visit the node's children (`node.walk(self)`)."
        );
        quote! {
            #[doc = #doc]
            #[inline]
            fn #hook(&mut self, node: #view<'_>) -> R {
                match node { #(#arms)* }
            }
        }
    });
    quote!(#(#hooks)*)
}

/// The mutator trait's category hooks.
pub fn mutate_hooks(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let hooks = f.categories.iter().map(|c| {
        let view = &c.ident;
        let hook = format_ident!("mutate_{}", c.snake);
        let arms = kinds(f, c).map(|kind| {
            let (v, ty) = (&kind.variant, &kind.ty);
            let call = quote_spanned!(ty.span()=> #k::__mutate_default(self, n, #fam::#v));
            quote!(#view::#v(n) => #call,)
        });
        let doc = format!(
            "Category hook for the [`{view}`] kinds: their hooks call it unless overridden. \
             Default: mutate the node's children and rebuild it only if one changed \
             (`node.rebuild(self)`)."
        );
        quote! {
            #[doc = #doc]
            #[inline]
            fn #hook(&mut self, node: #view<'_>) -> #k::Transformed<#fam> {
                match node { #(#arms)* }
            }
        }
    });
    quote!(#(#hooks)*)
}

/// The rewriter trait's category hooks.
pub fn rewrite_hooks(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let hooks = f.categories.iter().map(|c| {
        let view = &c.ident;
        let hook = format_ident!("rewrite_{}", c.snake);
        let doc = format!(
            "Post-order category hook for the [`{view}`] kinds: their hooks call it unless \
             overridden (`pre` and `post` are the same kind). Default: `Transformed::Keep`."
        );
        quote! {
            #[doc = #doc]
            #[inline]
            fn #hook(&mut self, pre: #view<'_>, post: #view<'_>) -> #k::Transformed<#fam> {
                let _ = (pre, post);
                #k::Transformed::Keep
            }
        }
    });
    quote!(#(#hooks)*)
}

/// The view enums, their conversions, and `as_<category>` on the family
/// (with `#[derive(Visitable)]`).
pub fn views(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let (vis, fam) = (&f.vis, &f.ident);
    let items = f.categories.iter().map(|c| {
        let view = &c.ident;
        let variants = kinds(f, c).map(|kind| {
            let (v, ty) = (&kind.variant, &kind.ty);
            let doc = format!("A `{fam}::{v}` node.");
            quote!(#[doc = #doc] #v(&'a #k::Node<#ty>),)
        });
        let names: Vec<&syn::Ident> = kinds(f, c).map(|kind| &kind.variant).collect();
        let tys: Vec<&syn::Type> = kinds(f, c).map(|kind| &kind.ty).collect();
        let name_strs = names.iter().map(|n| n.to_string());
        let doc = format!(
            "The `{view}` category of [`{fam}`]: a borrowed node of one of its kinds, as the \
             `{}` hooks receive it. Generated by `#[derive(Visitable)]` from \
             `#[ir(category = {view})]`.",
            c.snake
        );
        let to_family_doc = format!("The node as a [`{fam}`] (a handle clone).");
        quote! {
            #[doc = #doc]
            #[derive(Clone, Copy)]
            #vis enum #view<'a> {
                #(#variants)*
            }
            #[automatically_derived]
            impl<'a> #view<'a> {
                #[doc = #to_family_doc]
                #[inline]
                pub fn to_family(self) -> #fam {
                    match self { #(#view::#names(n) => #fam::#names(::core::clone::Clone::clone(n)),)* }
                }
                /// The kind's name, e.g. `"Add"`.
                #[inline]
                pub fn kind_name(self) -> &'static str {
                    match self { #(#view::#names(_) => #name_strs,)* }
                }
                /// The node's address, as `same_as` compares it.
                #[inline]
                pub fn addr(self) -> usize {
                    match self { #(#view::#names(n) => n.addr(),)* }
                }
                /// Visits the node's children (the default of the category hook).
                #[inline]
                pub fn walk<__V: ?::core::marker::Sized, __R>(self, visitor: &mut __V) -> __R
                where
                    #(#tys: #k::Walk<__V, __R>,)*
                {
                    match self { #(#view::#names(n) => #k::Walk::walk(&**n, visitor),)* }
                }
            }
            #[automatically_derived]
            impl ::core::convert::From<#view<'_>> for #fam {
                #[inline]
                fn from(node: #view<'_>) -> Self {
                    node.to_family()
                }
            }
            #[automatically_derived]
            impl ::core::fmt::Debug for #view<'_>
            where
                #(#k::Node<#tys>: ::core::fmt::Debug,)*
            {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    match self { #(#view::#names(n) => ::core::fmt::Debug::fmt(n, f),)* }
                }
            }
        }
    });
    let accessors = f.categories.iter().map(|c| {
        let view = &c.ident;
        let as_fn = format_ident!("as_{}", c.snake);
        let is_fn = format_ident!("is_{}", c.snake);
        let names: Vec<&syn::Ident> = kinds(f, c).map(|kind| &kind.variant).collect();
        let as_doc = format!("The node as a [`{view}`], if its kind is in that category.");
        let is_doc = format!("`true` if the node's kind is in the `{view}` category.");
        quote! {
            #[doc = #as_doc]
            #[inline]
            #[allow(unreachable_patterns)]
            pub fn #as_fn(&self) -> ::core::option::Option<#view<'_>> {
                match self {
                    #(#fam::#names(n) => ::core::option::Option::Some(#view::#names(n)),)*
                    _ => ::core::option::Option::None,
                }
            }
            #[doc = #is_doc]
            #[inline]
            pub fn #is_fn(&self) -> bool {
                ::core::matches!(self, #(#fam::#names(_))|*)
            }
        }
    });
    if f.categories.is_empty() {
        return TokenStream::new();
    }
    let rebuild = view_rebuild(f);
    quote! {
        #(#items)*
        #rebuild
        impl #fam {
            #(#accessors)*
        }
    }
}

/// `rebuild` on the view enums. It needs only `ir-core`'s `RebuildFields`,
/// so it comes with the view, whether the family is `Mutable` or not.
fn view_rebuild(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let items = f.categories.iter().map(|c| {
        let view = &c.ident;
        let names: Vec<&syn::Ident> = kinds(f, c).map(|kind| &kind.variant).collect();
        let tys: Vec<&syn::Type> = kinds(f, c).map(|kind| &kind.ty).collect();
        let doc = format!(
            "The default recursion of a mutator on the node: mutates its children and \
             rebuilds it only if one changed, as a [`{fam}`]."
        );
        quote! {
            #[automatically_derived]
            impl #view<'_> {
                #[doc = #doc]
                #[inline]
                pub fn rebuild<__M: ?::core::marker::Sized>(self, mutator: &mut __M) -> #k::Transformed<#fam>
                where
                    #(#tys: #k::RebuildFields<__M>,)*
                {
                    match self {
                        #(#view::#names(n) => #k::RebuildFields::rebuild_fields(&**n, mutator)
                            .map(|__k| #fam::#names(#k::Node::new(__k))),)*
                    }
                }
            }
        }
    });
    quote!(#(#items)*)
}
