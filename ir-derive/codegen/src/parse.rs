//! Reading the derive input and its `#[ir(...)]` attributes (darling).

use darling::util::{Override, PathList};
use darling::{FromDeriveInput, FromField, FromMeta, FromVariant, ast};

/// The whole input, as written.
#[derive(FromDeriveInput)]
#[darling(attributes(ir), forward_attrs(allow, doc, cfg))]
pub struct Input {
    pub ident: syn::Ident,
    pub vis: syn::Visibility,
    pub generics: syn::Generics,
    pub data: ast::Data<Variant, Field>,
    /// `#[ir(crate = "path")]`: where the runtime crate is.
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
    /// `#[ir(uses(Type, Pattern))]`: other families this family's kinds contain.
    #[darling(default)]
    pub uses: Option<PathList>,
    /// `#[ir(extensible)]` or `#[ir(extensible(interface = Trait))]`: other
    /// crates may add kinds to this family (it has an `Ext(Ext<Self>)` variant).
    #[darling(default)]
    pub extensible: Option<Override<ExtensibleArgs>>,
    /// `#[ir(extends(Expr))]`: this enum lists kinds added to the open family `Expr`.
    #[darling(default)]
    pub extends: Option<PathList>,
    /// `#[ir(mutator(state = State, entry = path::to::fn))]`: the family's
    /// mutators carry state that its default hooks use (Relax's normalizing
    /// mutator and its block builder).
    #[darling(default)]
    pub mutator: Option<MutatorArgs>,
    /// `#[ir(rewriter)]`: the family also gets a post-order rewriter trait
    /// (`ExprRewriter`, TVM's `ExprRewriter`); families without it pay nothing
    /// for one.
    #[darling(default)]
    pub rewriter: darling::util::Flag,
    /// `#[ir(in_place)]`: the family's default mutator hooks take part in
    /// in-place mode (oneDNN's in-place visitor); families without it pay
    /// nothing for it.
    #[darling(default)]
    pub in_place: darling::util::Flag,
}

/// The arguments of `#[ir(mutator(...))]`.
#[derive(FromMeta, Default, Clone)]
pub struct MutatorArgs {
    /// The state every mutator of the family holds, reached through the
    /// generated required method `mutator_state`.
    pub state: Option<syn::Path>,
    /// The default body of the entry hook: `path(self, node)`.
    pub entry: Option<syn::Path>,
}

/// The arguments of `#[ir(extensible(...))]`.
#[derive(FromMeta, Default, Clone)]
pub struct ExtensibleArgs {
    /// A trait every added kind implements, which upstream passes query.
    pub interface: Option<syn::Path>,
}

/// One field of a struct (or of an enum variant).
#[derive(FromField)]
#[darling(attributes(ir))]
pub struct Field {
    pub ident: Option<syn::Ident>,
    pub ty: syn::Type,
    /// `#[ir(skip)]`: not a child.
    #[darling(default)]
    pub skip: darling::util::Flag,
    /// `#[ir(skip, eq = false)]`: ignored by structural equality and hashing
    /// (spans, name hints). Skipped fields are compared by default.
    #[darling(default)]
    pub eq: Option<bool>,
    /// `#[ir(tail)]`: the child that continues a chain of nodes of this kind
    /// (a let's body); default hooks follow such chains in a loop.
    #[darling(default)]
    pub tail: darling::util::Flag,
    /// `#[ir(annotation)]`: not a child (passes do not walk or rebuild it; it
    /// is carried over), but compared and hashed structurally: a variable's
    /// type, which may mention variables bound elsewhere.
    #[darling(default)]
    pub annotation: darling::util::Flag,
    /// `#[ir(cache)]`: a value worked out from the node's other fields (a
    /// call's inferred type, TVM's `struct_info_`): not a child, never
    /// compared or hashed, and reset to its `Default` by every rebuild that
    /// changes a child, copy-on-write or in place, so it is never stale.
    #[darling(default)]
    pub cache: darling::util::Flag,
}

/// One variant of a family enum.
#[derive(FromVariant)]
#[darling(attributes(ir))]
pub struct Variant {
    pub ident: syn::Ident,
    pub fields: ast::Fields<Field>,
    /// `#[ir(def)]`: the kind has definition sites with their own hooks.
    #[darling(default)]
    pub def: darling::util::Flag,
    /// `#[ir(graph)]`: structural equality tracks these nodes by identity, so
    /// sharing is observable (TVM's graph nodes).
    #[darling(default)]
    pub graph: darling::util::Flag,
    /// `#[ir(category = Binary)]`: the kind belongs to a category of kinds
    /// with one hook of its own (`visit_binary`), which the kind's hook
    /// defaults to (oneDNN's `visit(binary_c)`).
    #[darling(default)]
    pub category: Option<syn::Ident>,
    /// `#[ir(visit = path::to::fn)]`: the default body of the kind's visitor
    /// hook is `path(self, node)` instead of walking the children (for a kind
    /// whose children bind variables in another family's nodes, as a match
    /// clause's pattern does).
    #[darling(default)]
    pub visit: Option<syn::Path>,
    /// `#[ir(mutate = path::to::fn)]`: the default body of the kind's mutator
    /// hook is `path(self, node)` instead of rebuilding the children.
    #[darling(default)]
    pub mutate: Option<syn::Path>,
    /// `#[ir(mutate_def = path::to::fn)]`: likewise for its definition hook.
    #[darling(default)]
    pub mutate_def: Option<syn::Path>,
}

/// After [`parse`] failed on a family enum: the same input with the
/// attributes that could not be read left out (a variant's, or at worst the
/// family's own), parsed again, so that the family still gets its traits and
/// the passes using it report nothing more. `None` for structs, or when even
/// that does not parse. The errors to report are [`parse`]'s.
pub fn parse_leniently(input: &syn::DeriveInput) -> Option<Input> {
    let syn::Data::Enum(data) = &input.data else {
        return None;
    };
    let is_ir = |a: &syn::Attribute| a.path().is_ident("ir");
    let mut cleaned = input.clone();
    let syn::Data::Enum(cleaned_data) = &mut cleaned.data else {
        return None;
    };
    for (variant, original) in cleaned_data.variants.iter_mut().zip(&data.variants) {
        if Variant::from_variant(original).is_err() {
            variant.attrs.retain(|a| !is_ir(a));
            for field in variant.fields.iter_mut() {
                field.attrs.retain(|a| !is_ir(a));
            }
        }
    }
    if let Ok(parsed) = Input::from_derive_input(&cleaned) {
        return Some(parsed);
    }
    cleaned.attrs.retain(|a| !is_ir(a));
    Input::from_derive_input(&cleaned).ok()
}

/// Parses the input; unions are rejected here with a spanned error.
pub fn parse(input: &syn::DeriveInput) -> darling::Result<Input> {
    if let syn::Data::Union(u) = &input.data {
        return Err(darling::Error::custom(
            "Visitable and Mutable cannot be derived for a union: use a struct for a node kind, \
             or an enum of `Node<Kind>` variants for a family",
        )
        .with_span(&u.union_token));
    }
    Input::from_derive_input(input)
}
