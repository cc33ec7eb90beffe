//! Generated structural equality and hashing (`ir_core::structural`).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::bounds::{self, spanned_bound};
use crate::model::{FamilyModel, FieldModel, KindModel, StructModel};

/// Which data (skipped) fields count, for an ordinary node or for the node
/// of a variable kind (see the table in `ir_core::structural`).
fn counts(f: &FieldModel, as_var: bool) -> bool {
    !f.child
        && !f.annotation
        && match f.eq {
            Some(explicit) => explicit,
            None => !as_var,
        }
}

/// `&& self.a == other.a && ...` and `Hash::hash(&self.a, hasher); ...`.
fn data_parts<'a>(
    fields: impl Iterator<Item = &'a FieldModel> + Clone,
) -> (TokenStream, TokenStream) {
    let eq = fields.clone().map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> && ::core::cmp::PartialEq::eq(&self.#m, &other.#m))
    });
    let hash = fields.map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> ::core::hash::Hash::hash(&self.#m, hasher);)
    });
    (quote!(#(#eq)*), quote!(#(#hash)*))
}

fn child_parts<'a>(
    k: &syn::Path,
    fields: impl Iterator<Item = &'a FieldModel> + Clone,
) -> (TokenStream, TokenStream) {
    let eq = fields.clone().map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> && #k::StructuralEq::struct_eq(&self.#m, &other.#m, eq))
    });
    let hash = fields.map(|f| {
        let m = &f.member;
        quote_spanned!(f.span=> #k::StructuralEq::struct_hash(&self.#m, hasher);)
    });
    (quote!(#(#eq)*), quote!(#(#hash)*))
}

/// Field by field: data fields with `==`/`Hash`, children with
/// `StructuralEq`, in declaration order (binders before uses). A chain node
/// compares its head here and its tail in a loop.
pub fn for_struct(s: &StructModel) -> TokenStream {
    let k = &s.krate;
    let ident = &s.ident;
    let tail = s.tail();
    let (_, self_ty_g, _) = s.generics.split_for_impl();
    let more: Vec<syn::WherePredicate> = match tail {
        Some(_) => vec![syn::parse_quote!(#ident #self_ty_g: #k::structural::KindEq)],
        None => Vec::new(),
    };
    let g = bounds::for_struct_filtered(
        s,
        &[],
        |_| true,
        |ty| spanned_bound(ty, quote!(#k::StructuralEq)),
        more,
    );
    let (impl_g, ty_g, where_c) = (&g.impl_generics, &g.ty_generics, &g.where_clause);
    // Annotations compare like children, before them (they never bind).
    let heads = s
        .fields
        .iter()
        .filter(|f| f.annotation || (f.child && !f.tail));
    let (data_eq, data_hash) = data_parts(s.fields.iter().filter(|f| counts(f, false)));
    let (var_eq, var_hash) = data_parts(s.fields.iter().filter(|f| counts(f, true)));
    let (head_eq, head_hash) = child_parts(k, heads);
    // A variable kind's own comparison, when it differs (data fields that
    // count only for ordinary nodes).
    let var_methods = s
        .fields
        .iter()
        .any(|f| counts(f, false) != counts(f, true))
        .then(|| {
            let (tail_eq, tail_hash) = tail_parts(k, tail);
            quote! {
                #[inline]
                #[allow(unused_variables)]
                fn struct_eq_var(&self, other: &Self, eq: &mut #k::structural::EqState) -> bool {
                    true #var_eq #head_eq #tail_eq
                }
                #[inline]
                #[allow(unused_variables)]
                fn struct_hash_var(&self, hasher: &mut #k::structural::HashState<'_>) {
                    #var_hash
                    #head_hash
                    #tail_hash
                }
            }
        });
    let (tail_eq, tail_hash) = tail_parts(k, tail);
    // Whether a field defines variables (the struct is a binding); without
    // children, the default (no).
    let children: Vec<_> = s.fields.iter().filter(|f| f.child).collect();
    let binds = (!children.is_empty()).then(|| {
        let defines = children.iter().map(|f| {
            let ty = &f.ty;
            quote_spanned!(f.span=> <#ty as #k::StructuralEq>::DEFINES)
        });
        quote!(const BINDS: bool = #(#defines)||*;)
    });
    let spine = tail.map(|_| {
        quote! {
            #[automatically_derived]
            impl #impl_g #k::structural::SpineEq for #ident #ty_g #where_c {
                #[inline]
                #[allow(unused_variables)]
                fn eq_head(&self, other: &Self, eq: &mut #k::structural::EqState) -> bool {
                    true #data_eq #head_eq
                }
                #[inline]
                #[allow(unused_variables)]
                fn hash_head(&self, hasher: &mut #k::structural::HashState<'_>) {
                    #data_hash
                    #head_hash
                }
            }
        }
    });
    quote! {
        const _: () = {
            #spine
            #[automatically_derived]
            impl #impl_g #k::StructuralEq for #ident #ty_g #where_c {
                #binds
                #[inline]
                #[allow(unused_variables)]
                fn struct_eq(&self, other: &Self, eq: &mut #k::structural::EqState) -> bool {
                    true #data_eq #head_eq #tail_eq
                }
                #[inline]
                #[allow(unused_variables)]
                fn struct_hash(&self, hasher: &mut #k::structural::HashState<'_>) {
                    #data_hash
                    #head_hash
                    #tail_hash
                }
                #var_methods
            }
        };
    }
}

/// The tail of a chain node: compared and hashed in a loop.
fn tail_parts(k: &syn::Path, tail: Option<&FieldModel>) -> (TokenStream, TokenStream) {
    match tail {
        None => (TokenStream::new(), TokenStream::new()),
        Some(t) => {
            let m = &t.member;
            (
                quote_spanned!(t.span=> && #k::structural::__eq_tail::<Self>(&self.#m, &other.#m, eq)),
                quote_spanned!(t.span=> #k::structural::__hash_tail::<Self>(&self.#m, hasher);),
            )
        }
    }
}

/// How a kind's nodes are compared: in use position (family values) and in
/// typed fields. Variable kinds are binders in typed fields and uses
/// elsewhere, compared as variables; graph kinds are tracked by identity;
/// the rest are structural.
fn modes(kind: &KindModel) -> (TokenStream, TokenStream, TokenStream, TokenStream) {
    let (eq, hash) = if kind.def {
        (quote!(struct_eq_var), quote!(struct_hash_var))
    } else {
        (quote!(struct_eq), quote!(struct_hash))
    };
    let (use_mode, field_mode) = match (kind.def, kind.graph) {
        (true, _) => (quote!(var_use), quote!(def)),
        (false, true) => (quote!(graph), quote!(graph)),
        (false, false) => (quote!(structural), quote!(structural)),
    };
    (use_mode, field_mode, eq, hash)
}

pub fn for_family(f: &FamilyModel) -> TokenStream {
    let k = &f.krate;
    let fallback = f.fallback_arm();
    let fam = &f.ident;
    let eq_arms = f.kinds.iter().map(|kind| {
        let v = &kind.variant;
        let (mode, _, eq, _) = modes(kind);
        quote! {
            (#fam::#v(a), #fam::#v(b)) => eq.#mode(a, b, |eq| #k::StructuralEq::#eq(&**a, &**b, eq)),
        }
    });
    let hash_arms = f.kinds.iter().map(|kind| {
        let v = &kind.variant;
        let (mode, _, _, hash) = modes(kind);
        quote! {
            #fam::#v(a) => hasher.#mode(a, |hasher| #k::StructuralEq::#hash(&**a, hasher)),
        }
    });
    let (ext_eq, ext_hash) = match &f.ext {
        None => (TokenStream::new(), TokenStream::new()),
        Some(ext) => {
            let v = &ext.variant;
            (
                quote!((#fam::#v(a), #fam::#v(b)) => #k::StructuralEq::struct_eq(a, b, eq),),
                quote!(#fam::#v(a) => #k::StructuralEq::struct_hash(a, hasher),),
            )
        }
    };
    let kind_impls = f.kinds.iter().map(|kind| {
        let ty = &kind.ty;
        let (_, mode, eq, hash) = modes(kind);
        let mode_const = match (kind.def, kind.graph) {
            (true, _) => quote!(#k::structural::Mode::Def),
            (false, true) => quote!(#k::structural::Mode::Graph),
            (false, false) => quote!(#k::structural::Mode::Structural),
        };
        quote! {
            #[automatically_derived]
            impl #k::structural::KindEq for #ty {
                const MODE: #k::structural::Mode = #mode_const;
                const BINDS: bool = <#ty as #k::StructuralEq>::BINDS;
                #[inline]
                fn node_eq(a: &#k::Node<Self>, b: &#k::Node<Self>, eq: &mut #k::structural::EqState) -> bool {
                    eq.#mode(a, b, |eq| #k::StructuralEq::#eq(&**a, &**b, eq))
                }
                #[inline]
                fn node_hash(a: &#k::Node<Self>, hasher: &mut #k::structural::HashState<'_>) {
                    hasher.#mode(a, |hasher| #k::StructuralEq::#hash(&**a, hasher))
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
                    if let ::core::option::Option::Some(r) = #k::stack::reenter(|| <Self as #k::StructuralEq>::struct_eq(self, other, eq)) {
                        return r;
                    }
                    match (self, other) {
                        #(#eq_arms)*
                        #ext_eq
                        _ => false,
                    }
                }
                fn struct_hash(&self, hasher: &mut #k::structural::HashState<'_>) {
                    if #k::stack::reenter(|| <Self as #k::StructuralEq>::struct_hash(self, hasher)).is_some() {
                        return;
                    }
                    ::core::hash::Hash::hash(&#k::Family::kind_index(self), hasher);
                    match self { #(#hash_arms)* #ext_hash #fallback }
                }
            }
            #(#kind_impls)*
        };
    }
}
