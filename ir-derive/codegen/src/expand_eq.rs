//! Generated structural equality and hashing (`ir_core::structural`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::bounds::{self, spanned_bound};
use crate::model::{FamilyModel, FieldModel, KindModel, StructModel};

/// Field by field: skipped fields with `==`/`Hash` (unless `eq = false`),
/// children with `StructuralEq`, in declaration order (binders before uses).
pub fn for_struct(s: &StructModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let g = bounds::for_struct(s, &[], |ty| spanned_bound(ty, quote!(#k::StructuralEq)));
    let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);
    let data = s.fields.iter().filter(|f| !f.child && f.eq);
    let children = s.fields.iter().filter(|f| f.child);
    let data_eq = data.clone().map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> && ::core::cmp::PartialEq::eq(&self.#m, &other.#m))
    });
    let child_eq = children.clone().map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> && #k::StructuralEq::struct_eq(&self.#m, &other.#m, eq))
    });
    let data_hash = data.map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> ::core::hash::Hash::hash(&self.#m, hasher);)
    });
    let child_hash = children.map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> #k::StructuralEq::struct_hash(&self.#m, hasher);)
    });
    if let Some(tail) = s.tail() {
        return with_tail(s, tail);
    }
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_g #k::StructuralEq for #ident #ty_g #where_c {
                #[inline]
                #[allow(unused_variables)]
                fn struct_eq(&self, other: &Self, eq: &mut #k::structural::EqState) -> bool {
                    true #(#data_eq)* #(#child_eq)*
                }
                #[inline]
                #[allow(unused_variables)]
                fn struct_hash(&self, hasher: &mut #k::structural::HashState) {
                    #(#data_hash)*
                    #(#child_hash)*
                }
            }
        };
    }
}

/// A struct with a tail field: its head compared and hashed here, chains of
/// it followed in a loop (`ir_core::structural::__eq_tail`).
fn with_tail(s: &StructModel, tail: &FieldModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let (_, self_ty_g, _) = s.generics.split_for_impl();
    let kind_eq: syn::WherePredicate = syn::parse_quote!(#ident #self_ty_g: #k::structural::KindEq);
    let tail_ty = &tail.ty;
    let g = bounds::for_struct_with(
        s,
        &[],
        |ty| {
            if ty == tail_ty {
                spanned_bound(
                    ty,
                    quote!(#k::StructuralEq + #k::Family + #k::spine::AsKind<#ident #self_ty_g>),
                )
            } else {
                spanned_bound(ty, quote!(#k::StructuralEq))
            }
        },
        vec![kind_eq],
    );
    let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);
    let tail_member = &tail.member;
    let data = s.fields.iter().filter(|f| !f.child && f.eq);
    let heads = s.fields.iter().filter(|f| f.child && !f.tail);
    let data_eq = data.clone().map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> && ::core::cmp::PartialEq::eq(&self.#m, &other.#m))
    });
    let head_eq = heads.clone().map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> && #k::StructuralEq::struct_eq(&self.#m, &other.#m, eq))
    });
    let data_hash = data.map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> ::core::hash::Hash::hash(&self.#m, hasher);)
    });
    let head_hash = heads.map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> #k::StructuralEq::struct_hash(&self.#m, hasher);)
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_g #k::structural::SpineEq for #ident #ty_g #where_c {
                type Tail = #tail_ty;
                #[inline]
                #[allow(unused_variables)]
                fn eq_head(&self, other: &Self, eq: &mut #k::structural::EqState) -> bool {
                    true #(#data_eq)* #(#head_eq)*
                }
                #[inline]
                #[allow(unused_variables)]
                fn hash_head(&self, hasher: &mut #k::structural::HashState) {
                    #(#data_hash)*
                    #(#head_hash)*
                }
                #[inline]
                fn tail(&self) -> &#tail_ty {
                    &self.#tail_member
                }
            }
            #[automatically_derived]
            impl #impl_g #k::StructuralEq for #ident #ty_g #where_c {
                #[inline]
                fn struct_eq(&self, other: &Self, eq: &mut #k::structural::EqState) -> bool {
                    #k::structural::SpineEq::eq_head(self, other, eq)
                        && #k::structural::__eq_tail::<Self>(&self.#tail_member, &other.#tail_member, eq)
                }
                #[inline]
                fn struct_hash(&self, hasher: &mut #k::structural::HashState) {
                    #k::structural::SpineEq::hash_head(self, hasher);
                    #k::structural::__hash_tail::<Self>(&self.#tail_member, hasher)
                }
            }
        };
    }
}

/// How a kind's nodes are compared: in use position (family values) and in
/// typed fields. Definition kinds are binders in typed fields and uses
/// elsewhere; graph kinds are tracked by identity; the rest are structural.
fn modes(kind: &KindModel) -> (TokenStream, TokenStream) {
    match (kind.def, kind.graph) {
        (true, _) => (quote!(var_use), quote!(def)),
        (false, true) => (quote!(graph), quote!(graph)),
        (false, false) => (quote!(structural), quote!(structural)),
    }
}

pub fn for_family(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fam = &f.ident;
    let eq_arms = f.kinds.iter().map(|kind| {
        let v = &kind.variant;
        let (mode, _) = modes(kind);
        quote! {
            (#fam::#v(a), #fam::#v(b)) => eq.#mode(a, b, |eq| #k::StructuralEq::struct_eq(&**a, &**b, eq)),
        }
    });
    let hash_arms = f.kinds.iter().map(|kind| {
        let v = &kind.variant;
        let (mode, _) = modes(kind);
        quote! {
            #fam::#v(a) => hasher.#mode(a, |hasher| #k::StructuralEq::struct_hash(&**a, hasher)),
        }
    });
    let kind_impls = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let (_, mode) = modes(kind);
        let mode_const = match (kind.def, kind.graph) {
            (true, _) => quote!(#k::structural::Mode::Def),
            (false, true) => quote!(#k::structural::Mode::Graph),
            (false, false) => quote!(#k::structural::Mode::Structural),
        };
        quote! {
            #[automatically_derived]
            impl #k::structural::KindEq for #ty {
                const MODE: #k::structural::Mode = #mode_const;
                #[inline]
                fn node_eq(a: &#k::Node<Self>, b: &#k::Node<Self>, eq: &mut #k::structural::EqState) -> bool {
                    eq.#mode(a, b, |eq| #k::StructuralEq::struct_eq(&**a, &**b, eq))
                }
                #[inline]
                fn node_hash(a: &#k::Node<Self>, hasher: &mut #k::structural::HashState) {
                    hasher.#mode(a, |hasher| #k::StructuralEq::struct_hash(&**a, hasher))
                }
            }
        }
    });
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #k::StructuralEq for #fam {
                #[allow(unreachable_patterns)]
                fn struct_eq(&self, other: &Self, eq: &mut #k::structural::EqState) -> bool {
                    #k::stack::guarded(|| match (self, other) {
                        #(#eq_arms)*
                        _ => false,
                    })
                }
                fn struct_hash(&self, hasher: &mut #k::structural::HashState) {
                    #k::stack::guarded(|| {
                        ::core::hash::Hash::hash(&#k::Family::kind_index(self), hasher);
                        match self { #(#hash_arms)* }
                    })
                }
            }
            #(#kind_impls)*
        };
    }
}
