//! Generated code for a family enum: the visitor, mutator and rewriter traits
//! with one hook per kind, their dispatch, and the conveniences on the enum.
//!
//! Every hook's default body is one call into a generic function of
//! `ir-core`, so the expansion is a list of small items per kind.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::Derive;
use crate::expand_category;
use crate::model::{ExtModel, FamilyModel, KindModel};

pub fn expand(f: &FamilyModel, which: Derive) -> TokenStream {
    match which {
        Derive::Visitable => {
            let visitor = visitor_trait(f);
            let conveniences = conveniences(f);
            let views = expand_category::views(f);
            quote!(#visitor #conveniences #views)
        }
        Derive::Mutable | Derive::StructuralEq => {
            let mutator = mutator_trait(f);
            // Only a family that asks for one (`#[ir(rewriter)]`) has a
            // post-order rewriter: it is a trait and a dispatch per family.
            let rewriter = f.rewriter.then(|| rewriter_trait(f));
            quote!(#mutator #rewriter)
        }
    }
}

/// `Type` -> `TypeVisitor` (same path prefix).
fn sibling_trait(path: &syn::Path, suffix: &str) -> syn::Path {
    let mut path = path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.ident = format_ident!("{}{}", last.ident, suffix);
        last.arguments = syn::PathArguments::None;
    }
    path
}

fn kind_doc(f: &FamilyModel, k: &KindModel, what: &str) -> String {
    format!(
        "Hook for `{}::{}` nodes; default: {what}.",
        f.ident, k.variant
    )
}

fn def_hook_doc(k: &KindModel, what: &str) -> String {
    let ty = &k.ty;
    format!(
        "Hook for definition sites of `{}` (fields typed `Node<{}>`, such as a let-bound \
         variable or a parameter), distinct from uses. Default: {what}.",
        k.variant,
        quote!(#ty)
    )
}

fn visitor_trait(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fallback = f.fallback_arm();
    let (vis, fam) = (&f.vis, &f.ident);
    let trait_name = format_ident!("{}Visitor", fam);
    let entry = format_ident!("visit_{}", f.snake);
    let supers = f.uses.iter().map(|p| {
        let t = sibling_trait(p, "Visitor");
        quote!(#t<R>)
    });
    let hooks = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let hook = format_ident!("visit_{}", kind.snake);
        let doc = kind_doc(f, kind, "`node.walk(self)`");
        // Spanned on the kind, where an unsatisfied child bound is reported.
        let default_body = match &kind.visit_with {
            Some(path) => quote_spanned!(path.span()=> #path(self, node)),
            None => expand_category::kind_default(f, kind, "visit")
                .unwrap_or_else(|| quote_spanned!(ty.span()=> #k::__visit_default(self, node))),
        };
        let def = kind.def.then(|| {
            let def_hook = format_ident!("visit_{}_def", kind.snake);
            let doc = def_hook_doc(kind, "visit its children");
            quote! {
                #[doc = #doc]
                #[inline]
                fn #def_hook(&mut self, node: &#k::Node<#ty>) -> R {
                    #k::Walk::walk(&**node, self)
                }
            }
        });
        quote! {
            #[doc = #doc]
            #[inline]
            fn #hook(&mut self, node: &#k::Node<#ty>) -> R {
                #default_body
            }
            #def
        }
    });
    let mut arms: Vec<TokenStream> = f
        .kinds
        .iter()
        .map(|kind| {
            let (variant, hook) = (&kind.variant, format_ident!("visit_{}", kind.snake));
            quote!(#fam::#variant(n) => <__V as #trait_name<__R>>::#hook(visitor, n),)
        })
        .collect();
    if let Some(ext) = &f.ext {
        let variant = &ext.variant;
        arms.push(quote!(#fam::#variant(n) => <__V as #trait_name<__R>>::visit_ext(visitor, n),));
    }
    // Every family has the hook (a closed one never calls it), so that code
    // naming it compiles whether the family is open or not.
    let ext_hook = {
        let doc = "Hook for nodes of kinds other crates add to the family (its `Ext` variant, \
                   if it is `#[ir(extensible)]`). Default: visit their children. A downstream \
                   pass routes it to its own hooks: `self.visit_<extension family>(node)`.";
        quote! {
            #[doc = #doc]
            #[inline]
            fn visit_ext(&mut self, node: &#k::ext::Ext<#fam>) -> R {
                #k::ext::__walk(self, |adapter| node.walk_dyn(adapter))
            }
        }
    };
    let category_hooks = expand_category::visit_hooks(f);
    let adapter = visit_adapter(f, &trait_name);
    // Typed fields (`Node<Kind>`) reach the kind's hook (its definition hook
    // if it has one) through one hidden method, by the kind's index.
    let kind_arms = f.kinds.iter().enumerate().map(|(i, kind)| {
        let i = f.kind_position(i);
        let hook = if kind.def {
            format_ident!("visit_{}_def", kind.snake)
        } else {
            format_ident!("visit_{}", kind.snake)
        };
        quote!(#i => self.#hook(node.get()),)
    });
    let trait_doc = format!(
        "A read-only pass over [`{fam}`] nodes: one hook per kind, each defaulting to \
         visiting the node's children in field order (`node.walk(self)`). Override only the kinds you care about; call \
         `node.walk(self)` in an override to visit the children.\n\n`R` is the result: \
         `()` by default, or `ControlFlow<B>` / `Result<(), E>` to stop early.\n\n\
         Generated by `#[derive(Visitable)]`."
    );
    let entry_doc = format!(
        "Entry hook for every [`{fam}`]: dispatches to the kind's hook (`node.walk(self)`). \
         Override it to act on every node (visit shared nodes once with \
         `ir_core::visited`, trace), calling `node.walk(self)` for the dispatch."
    );
    let not_impl = format!("`{{Self}}` is not a `{trait_name}`");
    let not_impl_note = format!(
        "a pass implements the visitor trait of every family it walks: add `impl {trait_name} for {{Self}} {{{{}}}}`"
    );
    let uses_note =
        format!("a family whose kinds hold `{fam}` children declares it with `#[ir(uses({fam}))]`");
    let supers = if f.uses.is_empty() {
        TokenStream::new()
    } else {
        quote!(: #(#supers)+*)
    };
    quote! {
        #[doc = #trait_doc]
        #[diagnostic::on_unimplemented(message = #not_impl, note = #not_impl_note, note = #uses_note)]
        #vis trait #trait_name<R: #k::VisitResult = ()> #supers {
            #[doc = #entry_doc]
            #[inline]
            fn #entry(&mut self, node: &#fam) -> R {
                #k::__visit_entry(self, node)
            }
            #(#hooks)*
            #category_hooks
            #ext_hook
            /// Typed fields' dispatch (`ir_core::kind_ref`).
            #[doc(hidden)]
            #[inline]
            fn __visit_kind(&mut self, index: usize, node: #k::kind_ref::KindRef<'_>) -> R {
                match index {
                    #(#kind_arms)*
                    _ => node.mismatch(),
                }
            }
        }

        const _: () = {
            #[automatically_derived]
            impl<__V: #trait_name<__R> + ?::core::marker::Sized, __R: #k::VisitResult>
                #k::Walk<__V, __R> for #fam
            {
                // Not `#[inline]`: the dispatch is one function per pass, not a copy at every child.
                fn walk(&self, visitor: &mut __V) -> __R {
                    if let ::core::option::Option::Some(r) = #k::stack::reenter(|| <Self as #k::Walk<__V, __R>>::walk(self, visitor)) {
                        return r;
                    }
                    match self { #(#arms)* #fallback }
                }
            }
            #[automatically_derived]
            impl<__V: #trait_name<__R> + ?::core::marker::Sized, __R: #k::VisitResult>
                #k::Visit<__V, __R> for #fam
            {
                #[inline]
                fn visit(&self, visitor: &mut __V) -> __R {
                    <__V as #trait_name<__R>>::#entry(visitor, self)
                }
            }
            #[automatically_derived]
            impl<__V: #trait_name<__R> + ?::core::marker::Sized, __R: #k::VisitResult>
                #k::VisitTyped<__V, __R> for #fam
            {
                #[inline]
                fn visit_typed(visitor: &mut __V, index: usize, node: #k::kind_ref::KindRef<'_>) -> __R {
                    <__V as #trait_name<__R>>::__visit_kind(visitor, index, node)
                }
            }
            #adapter
        };
    }
}

/// The family's visitor trait for `ir_core::ext::VisitAdapter`, a pass seen
/// as the trait object that downstream nodes' derived walks take. Those walks
/// reach the pass through three methods only: the entry hook (fields typed as
/// the family), `visit_ext`, and `__visit_kind` (typed fields); these forward
/// to the pass, whose own dispatch then calls its kind hooks.
fn visit_adapter(f: &FamilyModel, trait_name: &syn::Ident) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let entry = format_ident!("visit_{}", f.snake);
    quote! {
        #[automatically_derived]
        impl<__V: #trait_name<__R> + ?::core::marker::Sized, __R: #k::VisitResult>
            #trait_name<::core::ops::ControlFlow<()>> for #k::ext::VisitAdapter<'_, __V, __R>
        {
            #[inline]
            fn #entry(&mut self, node: &#fam) -> ::core::ops::ControlFlow<()> {
                self.forward_to(node, <__V as #trait_name<__R>>::#entry)
            }
            #[inline]
            fn visit_ext(&mut self, node: &#k::ext::Ext<#fam>) -> ::core::ops::ControlFlow<()> {
                self.forward_to(node, <__V as #trait_name<__R>>::visit_ext)
            }
            #[inline]
            fn __visit_kind(
                &mut self,
                index: usize,
                node: #k::kind_ref::KindRef<'_>,
            ) -> ::core::ops::ControlFlow<()> {
                self.forward_to(&node, |visitor, node| {
                    <__V as #trait_name<__R>>::__visit_kind(visitor, index, *node)
                })
            }
        }
    }
}

fn conveniences(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let fallback = f.fallback_arm();
    // Variant order: the index of a kind is its variant's position.
    let mut names: Vec<String> = f
        .kinds
        .iter()
        .map(|kind| kind.variant.to_string())
        .collect();
    if let Some(ext) = &f.ext {
        names.insert(ext.index.min(names.len()), ext.variant.to_string());
    }
    // Every handle erases to a `KindRef` (a downstream one too, which no
    // kind casts back): the address, count and downcasts are read from it.
    let erase_arms = |erase: TokenStream, ext_erase: TokenStream| {
        let arms = f
            .kinds
            .iter()
            .map(|kind| &kind.variant)
            .map(move |v| quote!(#fam::#v(n) => #erase(n),))
            .chain(f.ext.as_ref().map(|e| {
                let v = &e.variant;
                quote!(#fam::#v(n) => n.#ext_erase(),)
            }));
        let fallback = &fallback;
        quote!(match self { #(#arms)* #fallback })
    };
    let kind_ref = erase_arms(quote!(#k::kind_ref::KindRef::new), quote!(kind_ref));
    let kind_mut = erase_arms(quote!(#k::kind_ref::KindMut::new), quote!(kind_mut));
    let ext_index = f.ext.as_ref().map(|e| e.index.min(f.kinds.len()));
    let index_arms = f
        .kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| {
            let (v, i) = (&kind.variant, f.kind_position(i));
            quote!(#fam::#v(_) => #i,)
        })
        .chain(f.ext.as_ref().map(|ext| {
            let (v, i) = (&ext.variant, ext_index.unwrap_or(0));
            quote!(#fam::#v(_) => #i,)
        }));
    let tails = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        quote!(|| <#ty as #k::ChildType>::HAS_TAIL)
    });
    let in_place = f.in_place.then(|| {
        quote!(
            const IN_PLACE: bool = true;
        )
    });
    // `From<Node<Kind>>`: one impl for the whole family, whose match on the
    // kind's index keeps only the kind's arm after monomorphization (the
    // type-id check of the cast folds away too). `From<Kind>` stays one impl
    // per kind: a blanket one would overlap with it (and with users' own
    // `From` impls), as `Node<_>` might be made a kind upstream.
    let from_arms = f.kinds.iter().enumerate().map(|(i, kind)| {
        let (v, i) = (&kind.variant, f.kind_position(i));
        quote!(#i => #fam::#v(#k::kind_ref::cast_node(node)),)
    });
    // An open family already has a blanket `From<Node<K>>` for downstream
    // kinds (`ExtKind`), which this one would overlap: it keeps one impl per kind.
    let from_impls = if f.ext.is_some() {
        let per_kind = f.kinds.iter().map(|kind| {
            let (v, ty) = (&kind.variant, &kind.ty);
            quote! {
                #[automatically_derived]
                impl ::core::convert::From<#k::Node<#ty>> for #fam {
                    #[inline]
                    fn from(node: #k::Node<#ty>) -> Self {
                        #fam::#v(node)
                    }
                }
            }
        });
        quote!(#(#per_kind)*)
    } else {
        quote! {
            #[automatically_derived]
            impl<__K: #k::NodeKind<Family = #fam>> ::core::convert::From<#k::Node<__K>> for #fam {
                #[inline]
                fn from(node: #k::Node<__K>) -> Self {
                    match <__K as #k::NodeKind>::INDEX {
                        #(#from_arms)*
                        _ => #k::kind_ref::cast_node_mismatch(),
                    }
                }
            }
        }
    };
    let per_kind = f.kinds.iter().enumerate().map(|(i, kind)| {
        let (v, ty) = (&kind.variant, &kind.ty);
        let i = f.kind_position(i);
        let def = kind.def.then(|| {
            quote!(
                const DEF: bool = true;
            )
        });
        quote! {
            #[automatically_derived]
            impl ::core::convert::From<#ty> for #fam {
                #[inline]
                fn from(node: #ty) -> Self {
                    #fam::#v(#k::Node::new(node))
                }
            }
            #[automatically_derived]
            impl #k::NodeKind for #ty {
                type Family = #fam;
                const INDEX: usize = #i;
                #def
            }
        }
    });
    let downcasts = f.kinds.iter().map(|kind| {
        let (v, ty) = (&kind.variant, &kind.ty);
        let as_fn = format_ident!("as_{}", kind.snake);
        let is_fn = format_ident!("is_{}", kind.snake);
        let as_doc = format!("The `{v}` node, if this is one.");
        let is_doc = format!("`true` if this is a `{v}` node.");
        quote! {
            #[doc = #as_doc]
            #[inline]
            pub fn #as_fn(&self) -> ::core::option::Option<&#k::Node<#ty>> {
                <#ty as #k::NodeKind>::downcast(self)
            }
            #[doc = #is_doc]
            #[inline]
            pub fn #is_fn(&self) -> bool {
                ::core::matches!(self, #fam::#v(_))
            }
        }
    });
    let ext_items = f.ext.as_ref().map(|ext| extensible_items(f, ext));
    let extensible = extensible_impl(f);
    let kind_name = f.ext.as_ref().map(|ext| {
        let v = &ext.variant;
        quote! {
            #[inline]
            fn kind_name(&self) -> &'static str {
                match self {
                    #fam::#v(n) => n.kind_name(),
                    _ => <Self as #k::Family>::KIND_NAMES[#k::Family::kind_index(self)],
                }
            }
        }
    });
    let ext_downcasts = f.ext.as_ref().map(|ext| {
        let v = &ext.variant;
        quote! {
            /// The node of a kind added by another crate, if this is one.
            #[inline]
            pub fn as_ext(&self) -> ::core::option::Option<&#k::ext::Ext<#fam>> {
                match self {
                    #fam::#v(n) => ::core::option::Option::Some(n),
                    _ => ::core::option::Option::None,
                }
            }
        }
    });
    quote! {
        const _: () = {
            #ext_items
            #extensible
            #[automatically_derived]
            impl #k::Family for #fam {
                const KIND_NAMES: &'static [&'static str] = &[#(#names),*];
                const ANY_TAIL: bool = false #(#tails)*;
                #in_place
                #[inline]
                fn kind_index(&self) -> usize {
                    match self { #(#index_arms)* #fallback }
                }
                #[inline]
                fn kind_ref(&self) -> #k::kind_ref::KindRef<'_> {
                    #kind_ref
                }
                #[inline]
                fn kind_mut(&mut self) -> #k::kind_ref::KindMut<'_> {
                    #kind_mut
                }
                #kind_name
            }
            #[automatically_derived]
            impl #k::ChildType for #fam {}
            #from_impls
            #(#per_kind)*
        };
        impl #fam {
            /// Pointer identity: one comparison, no reference-count traffic.
            #[inline]
            pub fn same_as(&self, other: &Self) -> bool {
                #k::Family::same_as(self, other)
            }
            /// The kind's name, e.g. `"Call"`.
            #[inline]
            pub fn kind_name(&self) -> &'static str {
                #k::Family::kind_name(self)
            }
            /// The kind's index in this family, usable as a dispatch-table key.
            #[inline]
            pub fn kind_index(&self) -> usize {
                #k::Family::kind_index(self)
            }
            #(#downcasts)*
            #ext_downcasts
        }
    }
}

/// How other crates see the family: open or closed, and its visitor as a
/// trait object (every family, so that extending a closed one is one error).
fn extensible_impl(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let visitor = format_ident!("{}Visitor", fam);
    let (open, interface, from_ext) = match &f.ext {
        Some(ext) => {
            let v = &ext.variant;
            let interface = match &ext.interface {
                Some(path) => quote!(dyn #path),
                None => quote!(dyn #k::ext::NoInterface),
            };
            (quote!(true), interface, quote!(#fam::#v(node)))
        }
        None => (
            quote!(false),
            quote!(dyn #k::ext::NoInterface),
            quote! {{
                let _ = node;
                ::core::unreachable!("a closed family has no downstream kinds")
            }},
        ),
    };
    quote! {
        #[automatically_derived]
        impl #k::ext::Extensible for #fam {
            const OPEN: bool = #open;
            type DynVisitor<'a> = dyn #visitor<::core::ops::ControlFlow<()>> + 'a;
            type Interface = #interface;
            #[inline]
            fn from_ext(node: #k::ext::Ext<Self>) -> Self {
                #from_ext
            }
        }
    }
}

/// What an extensible family offers other crates: its trait objects and
/// interface, and conversions from their kinds.
fn extensible_items(f: &FamilyModel, ext: &ExtModel) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let v = &ext.variant;
    quote! {
        #[automatically_derived]
        impl<__K: #k::ext::ExtKind<#fam>> ::core::convert::From<#k::Node<__K>> for #fam {
            #[inline]
            fn from(node: #k::Node<__K>) -> Self {
                #fam::#v(#k::ext::Ext::new(node))
            }
        }
        #[automatically_derived]
        impl ::core::convert::From<#k::ext::Ext<#fam>> for #fam {
            #[inline]
            fn from(node: #k::ext::Ext<#fam>) -> Self {
                #fam::#v(node)
            }
        }
    }
}

fn mutator_trait(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fallback = f.fallback_arm();
    let (vis, fam) = (&f.vis, &f.ident);
    let trait_name = format_ident!("{}Mutator", fam);
    let entry = format_ident!("mutate_{}", f.snake);
    let supers = f.uses.iter().map(|p| {
        let t = sibling_trait(p, "Mutator");
        quote!(#t)
    });
    let hooks = f.kinds.iter().map(|kind| {
        let (ty, v) = (&kind.ty, &kind.variant);
        let hook = format_ident!("mutate_{}", kind.snake);
        let doc = kind_doc(f, kind, "`node.rebuild(self).into()`");
        let default_body = match &kind.mutate_with {
            Some(path) => quote_spanned!(path.span()=> #path(self, node)),
            None => expand_category::kind_default(f, kind, "mutate").unwrap_or_else(
                || quote_spanned!(ty.span()=> #k::__mutate_default(self, node, #fam::#v)),
            ),
        };
        let def = kind.def.then(|| {
            let def_hook = format_ident!("mutate_{}_def", kind.snake);
            let doc = def_hook_doc(
                kind,
                "mutate its children, rebuilding only if one changed; the result keeps the kind",
            );
            let body = match &kind.mutate_def_with {
                Some(path) => quote_spanned!(path.span()=> #path(self, node)),
                None => quote!(#k::__mutate_default_def(self, node, #fam::#v)),
            };
            // Definition kinds are few; their default sits on every
            // binding's path (a let's variable), so it is always inlined.
            quote! {
                #[doc = #doc]
                #[inline(always)]
                fn #def_hook(&mut self, node: &#k::Node<#ty>) -> #k::Transformed<#k::Node<#ty>> {
                    #body
                }
            }
        });
        quote! {
            #[doc = #doc]
            #[inline]
            fn #hook(&mut self, node: &#k::Node<#ty>) -> #k::Transformed<#fam> {
                #default_body
            }
            #def
        }
    });
    let mut arms: Vec<TokenStream> = f
        .kinds
        .iter()
        .map(|kind| {
            let (variant, hook) = (&kind.variant, format_ident!("mutate_{}", kind.snake));
            quote!(#fam::#variant(n) => <__M as #trait_name>::#hook(mutator, n),)
        })
        .collect();
    let mut in_place_arms: Vec<TokenStream> = f
        .kinds
        .iter()
        .map(|kind| {
            let variant = &kind.variant;
            quote!(#fam::#variant(n) => #k::driver::node_in_place(n, mutator),)
        })
        .collect();
    let ext_hook = f.ext.as_ref().map(|ext| {
        let variant = &ext.variant;
        arms.push(quote!(#fam::#variant(n) => <__M as #trait_name>::mutate_ext(mutator, n),));
        in_place_arms.push(quote! {
            #fam::#variant(n) => #k::ext::__rebuild_in_place(mutator, |adapter| n.rebuild_in_place_dyn(adapter)),
        });
        let doc = format!(
            "Hook for `{fam}::{variant}` nodes, of kinds other crates add to the family. \
             Default: rebuild them from their mutated children, carrying over their other \
             fields. A downstream pass routes it to its own hooks: \
             `self.mutate_<extension family>(node)`."
        );
        quote! {
            #[doc = #doc]
            #[inline]
            fn mutate_ext(&mut self, node: &#k::ext::Ext<#fam>) -> #k::Transformed<#fam> {
                #k::ext::__rebuild(self, node, |adapter| node.rebuild_dyn(adapter)).map(#fam::#variant)
            }
        }
    });
    let category_hooks = expand_category::mutate_hooks(f);
    let adapter = mutate_adapter(f, &trait_name);
    // Only a family's own hooks hand a node back for in-place work, and only
    // in a family declared `#[ir(in_place)]`: the others keep the trait's
    // copy-on-write default.
    let rebuild_in_place = f.in_place.then(|| {
        let fallback = f.fallback_arm();
        quote! {
            #[inline]
            fn rebuild_in_place(&mut self, mutator: &mut __M) -> bool {
                match self { #(#in_place_arms)* #fallback }
            }
        }
    });
    // Typed fields of kinds with definition sites reach the definition hook
    // through one hidden method, by the kind's index (`ir_core::kind_ref`).
    let kind_arms = f
        .kinds
        .iter()
        .enumerate()
        .filter(|(_, kind)| kind.def)
        .map(|(i, kind)| {
            let i = f.kind_position(i);
            let hook = format_ident!("mutate_{}_def", kind.snake);
            quote!(#i => self.#hook(node.get()).map(#k::kind_ref::KindNode::new),)
        });
    let trait_doc = format!(
        "A copy-on-write pass over [`{fam}`] nodes: one hook per kind, each defaulting to \
         mutating the node's children and rebuilding it only if one changed \
         (`node.rebuild(self).into()`). A hook returns \
         `Transformed::Keep` for \"unchanged\", so an identity pass returns the very same handles \
         and allocates nothing. The same pass runs in place when the caller asks for it \
         (`Mutate::mutate_in_place`, `Node::mutate_in_place`).\n\nGenerated by `#[derive(Mutable)]`."
    );
    let entry_doc = format!(
        "Entry hook for every [`{fam}`]: dispatches to the kind's hook (`node.rebuild(self)`). \
         Override it to act on every node, e.g. to memoize with `ir_core::memoized`."
    );
    let not_impl = format!("`{{Self}}` is not a `{trait_name}`");
    let not_impl_note = format!(
        "a pass implements the mutator trait of every family it rewrites: add `impl {trait_name} for {{Self}} {{{{}}}}`"
    );
    let uses_note =
        format!("a family whose kinds hold `{fam}` children declares it with `#[ir(uses({fam}))]`");
    let supers = if f.uses.is_empty() {
        TokenStream::new()
    } else {
        quote!(: #(#supers)+*)
    };
    let entry_body = match &f.mutate_entry {
        Some(path) => quote_spanned!(path.span()=> #path(self, node)),
        None => quote!(#k::__mutate_entry(self, node)),
    };
    let state_method = f.mutator_state.as_ref().map(|state| {
        quote! {
            /// The state this family's default hooks work with
            /// (`#[ir(mutator(state = ..))]`): every pass holds one.
            fn mutator_state(&mut self) -> &mut #state;
        }
    });
    quote! {
        #[doc = #trait_doc]
        #[diagnostic::on_unimplemented(message = #not_impl, note = #not_impl_note, note = #uses_note)]
        #vis trait #trait_name #supers {
            #state_method
            #[doc = #entry_doc]
            #[inline]
            fn #entry(&mut self, node: &#fam) -> #k::Transformed<#fam> {
                #entry_body
            }
            #(#hooks)*
            #category_hooks
            #ext_hook
            /// Typed fields' dispatch (`ir_core::kind_ref`): a match on a
            /// constant index at every call site, so always inlined.
            #[doc(hidden)]
            #[inline(always)]
            fn __mutate_kind(
                &mut self,
                index: usize,
                node: #k::kind_ref::KindRef<'_>,
            ) -> #k::Transformed<#k::kind_ref::KindNode> {
                match index {
                    #(#kind_arms)*
                    _ => node.mismatch(),
                }
            }
        }

        const _: () = {
            // The dispatch: one function per pass, not a copy at every child
            // (so not `#[inline]`), which calls itself back on a new stack
            // segment. A free function, so that it needs no `Rebuild` (and
            // a family without `Visitable` has one error, at `Rebuild`).
            fn __rebuild<__M: #trait_name + ?::core::marker::Sized>(
                node: &#fam,
                mutator: &mut __M,
            ) -> #k::Transformed<#fam> {
                if let ::core::option::Option::Some(r) = #k::stack::reenter(|| __rebuild(node, mutator)) {
                    return r;
                }
                match node { #(#arms)* #fallback }
            }
            #[automatically_derived]
            impl<__M: #trait_name + ?::core::marker::Sized> #k::Rebuild<__M> for #fam {
                #[inline]
                fn rebuild(&self, mutator: &mut __M) -> #k::Transformed<Self> {
                    __rebuild(self, mutator)
                }
                #rebuild_in_place
            }
            #[automatically_derived]
            impl<__M: #trait_name + ?::core::marker::Sized> #k::Mutate<__M> for #fam {
                #[inline]
                fn mutate(&self, mutator: &mut __M) -> #k::Transformed<Self> {
                    <__M as #trait_name>::#entry(mutator, self)
                }
                #[inline]
                fn mutate_in_place(&mut self, mutator: &mut __M) -> bool {
                    if let ::core::option::Option::Some(r) = #k::stack::reenter(|| <Self as #k::Mutate<__M>>::mutate_in_place(self, mutator)) {
                        return r;
                    }
                    #k::driver::slot_in_place(self, mutator)
                }
            }
            #[automatically_derived]
            impl<__M: #trait_name + ?::core::marker::Sized> #k::MutateTyped<__M> for #fam {
                #[inline]
                fn mutate_typed(
                    mutator: &mut __M,
                    index: usize,
                    node: #k::kind_ref::KindRef<'_>,
                ) -> #k::Transformed<#k::kind_ref::KindNode> {
                    <__M as #trait_name>::__mutate_kind(mutator, index, node)
                }
            }
            #adapter
            #[automatically_derived]
            impl #k::ext::ExtensibleMut for #fam {
                type DynMutator<'a> = dyn #trait_name + 'a;
            }
            #[automatically_derived]
            impl ::core::convert::From<#fam> for #k::Transformed<#fam> {
                #[inline]
                fn from(value: #fam) -> Self {
                    #k::Transformed::Replace(value)
                }
            }
        };
    }
}

/// The family's mutator trait for `ir_core::ext::MutAdapter` (see `visit_adapter`).
fn mutate_adapter(f: &FamilyModel, trait_name: &syn::Ident) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let entry = format_ident!("mutate_{}", f.snake);
    let ext = f.ext.as_ref().map(|_| {
        quote! {
            #[inline]
            fn mutate_ext(&mut self, node: &#k::ext::Ext<#fam>) -> #k::Transformed<#fam> {
                <__M as #trait_name>::mutate_ext(self.inner(), node)
            }
        }
    });
    let state = f.mutator_state.as_ref().map(|state| {
        quote! {
            #[inline]
            fn mutator_state(&mut self) -> &mut #state {
                <__M as #trait_name>::mutator_state(self.inner())
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl<__M: #trait_name + ?::core::marker::Sized> #trait_name for #k::ext::MutAdapter<'_, __M> {
            #state
            #[inline]
            fn #entry(&mut self, node: &#fam) -> #k::Transformed<#fam> {
                <__M as #trait_name>::#entry(self.inner(), node)
            }
            #ext
            #[inline]
            fn __mutate_kind(
                &mut self,
                index: usize,
                node: #k::kind_ref::KindRef<'_>,
            ) -> #k::Transformed<#k::kind_ref::KindNode> {
                <__M as #trait_name>::__mutate_kind(self.inner(), index, node)
            }
        }
    }
}

fn rewriter_trait(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let (vis, fam) = (&f.vis, &f.ident);
    let trait_name = format_ident!("{}Rewriter", fam);
    let mutator = format_ident!("{}Mutator", fam);
    let entry = format_ident!("rewrite_{}", f.snake);
    let mutator_entry = format_ident!("mutate_{}", f.snake);
    let supers = f.uses.iter().map(|p| {
        let t = sibling_trait(p, "Rewriter");
        quote!(#t)
    });
    let hooks = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let hook = format_ident!("rewrite_{}", kind.snake);
        let doc = format!(
            "Post-order hook for `{fam}::{}`: `pre` is the original node, `post` the node \
             rebuilt from the rewritten children (`pre` itself if none changed). Default: \
             `Transformed::Keep`, i.e. `post`.",
            kind.variant
        );
        let body = expand_category::kind_default(f, kind, "rewrite").unwrap_or_else(|| {
            quote! {
                let _ = (pre, post);
                #k::Transformed::Keep
            }
        });
        quote! {
            #[doc = #doc]
            #[inline]
            fn #hook(&mut self, pre: &#k::Node<#ty>, post: &#k::Node<#ty>) -> #k::Transformed<#fam> {
                #body
            }
        }
    });
    let mut arms: Vec<TokenStream> = f
        .kinds
        .iter()
        .map(|kind| {
            let (variant, hook) = (&kind.variant, format_ident!("rewrite_{}", kind.snake));
            quote!((#fam::#variant(pre), #fam::#variant(post)) => <__W as #trait_name>::#hook(rewriter, pre, post),)
        })
        .collect();
    let ext_hook = f.ext.as_ref().map(|ext| {
        let variant = &ext.variant;
        arms.push(quote! {
            (#fam::#variant(pre), #fam::#variant(post)) => <__W as #trait_name>::rewrite_ext(rewriter, pre, post),
        });
        quote! {
            /// Post-order hook for nodes of kinds other crates add to the family.
            /// Default: `Transformed::Keep`, i.e. `post`.
            fn rewrite_ext(
                &mut self,
                pre: &#k::ext::Ext<#fam>,
                post: &#k::ext::Ext<#fam>,
            ) -> #k::Transformed<#fam> {
                let _ = (pre, post);
                #k::Transformed::Keep
            }
        }
    });
    let trait_doc = format!(
        "A post-order rewrite of [`{fam}`] graphs (TVM's `ExprRewriter`): each node is \
         rewritten once, after its children, children of every family the pass rewrites \
         included. Run it with `{entry}`.\n\nGenerated by `#[derive(Mutable)]`."
    );
    let category_hooks = expand_category::rewrite_hooks(f);
    let entry_doc = "Rewrites `root` bottom-up with this rewriter's hooks \
                     (`ir_core::post_order::rewrite`).";
    let supers = if f.uses.is_empty() {
        TokenStream::new()
    } else {
        quote!(: #(#supers)+*)
    };
    quote! {
        #[doc = #trait_doc]
        #vis trait #trait_name #supers {
            #[doc = #entry_doc]
            #[inline]
            fn #entry(&mut self, root: &#fam) -> #fam {
                #k::post_order::rewrite(self, root)
            }
            #(#hooks)*
            #category_hooks
            #ext_hook
        }

        const _: () = {
            #[automatically_derived]
            impl<__W: #trait_name + ?::core::marker::Sized> #mutator for #k::post_order::PostOrder<'_, __W> {
                #[inline]
                fn #mutator_entry(&mut self, node: &#fam) -> #k::Transformed<#fam> {
                    #k::post_order::__step(self, node, |rewriter, pre, post| {
                        #[allow(unreachable_patterns)]
                        match (pre, post) {
                            #(#arms)*
                            _ => #k::Transformed::Keep,
                        }
                    })
                }
            }
        };
    }
}
