//! The checked internal model the expanders generate from.

use proc_macro2::Span;

pub enum Model {
    Struct(StructModel),
    Family(FamilyModel),
}

/// A node struct (or any plain struct with children).
pub struct StructModel {
    pub krate: syn::Path,
    pub ident: syn::Ident,
    pub generics: syn::Generics,
    pub fields: Vec<FieldModel>,
}

impl StructModel {
    /// The tail field, if one is marked.
    pub fn tail(&self) -> Option<&FieldModel> {
        self.fields.iter().find(|f| f.tail)
    }
}

pub struct FieldModel {
    /// `name` or `0`.
    pub member: syn::Member,
    pub ty: syn::Type,
    pub child: bool,
    /// `#[ir(skip, eq = ...)]`: whether a data field counts for structural
    /// equality (children always do); `None` for the default, which depends on
    /// the kind (see `ir_core::structural`).
    pub eq: Option<bool>,
    /// Whether the type mentions one of the struct's type parameters.
    pub generic: bool,
    /// `#[ir(tail)]`: the last child, continuing a chain (see `ir_core::spine`).
    pub tail: bool,
    /// `#[ir(annotation)]`: not a child, compared structurally.
    pub annotation: bool,
    /// `#[ir(cache)]`: not a child, not compared, reset to `Default` when a
    /// rebuild changes a child.
    pub cache: bool,
    pub span: Span,
}

/// A family enum: one `Node<Kind>` per variant.
pub struct FamilyModel {
    pub krate: syn::Path,
    pub ident: syn::Ident,
    pub vis: syn::Visibility,
    /// `expr` for `Expr`.
    pub snake: String,
    pub kinds: Vec<KindModel>,
    pub uses: Vec<syn::Path>,
    /// Some variants were left out for their errors: matches need a fallback
    /// arm (it never runs, the crate does not compile while the errors stand).
    pub partial: bool,
    /// The enum has generic parameters (an error): nothing is generated.
    pub generic: bool,
    /// `#[ir(extensible)]`: the variant holding `Ext<Self>`, its index, and
    /// the interface trait (if named).
    pub ext: Option<ExtModel>,
    /// `#[ir(extends(Expr))]`: the open family these kinds are added to.
    pub extends: Option<syn::Path>,
    /// `#[ir(category = ..)]` groups, in order of first appearance.
    pub categories: Vec<CategoryModel>,
    /// `#[ir(mutator(state = ..))]`: the type `mutator_state` returns.
    pub mutator_state: Option<Box<syn::Path>>,
    /// `#[ir(mutator(entry = ..))]`: the entry hook's default body.
    pub mutate_entry: Option<Box<syn::Path>>,
    /// `#[ir(rewriter)]`: generate the post-order rewriter trait.
    pub rewriter: bool,
    /// `#[ir(in_place)]`: default mutator hooks hand nodes back to in-place
    /// mode's driver.
    pub in_place: bool,
}

/// A category of kinds (`#[ir(category = Binary)]` on each of its variants):
/// a view enum named `ident` and one hook per pass trait, `visit_<snake>`.
pub struct CategoryModel {
    pub ident: syn::Ident,
    pub snake: String,
    /// Indices into the family's `kinds`.
    pub kinds: Vec<usize>,
}

/// The `Ext(Ext<Self>)` variant of an extensible family.
pub struct ExtModel {
    pub variant: syn::Ident,
    pub index: usize,
    pub interface: Option<syn::Path>,
}

impl FamilyModel {
    /// The index of the `i`-th kind: its variant's position (an `Ext`
    /// variant before it counts).
    pub fn kind_position(&self, i: usize) -> usize {
        match &self.ext {
            Some(e) if i >= e.index.min(self.kinds.len()) => i + 1,
            _ => i,
        }
    }

    /// The arm that completes a match over the variants of a partial family.
    pub fn fallback_arm(&self) -> proc_macro2::TokenStream {
        if self.partial {
            quote::quote!(_ => ::core::unreachable!(),)
        } else {
            proc_macro2::TokenStream::new()
        }
    }
}

pub struct KindModel {
    pub variant: syn::Ident,
    /// The `Kind` in `Node<Kind>`.
    pub ty: syn::Type,
    /// `call` for `Call`.
    pub snake: String,
    pub def: bool,
    pub graph: bool,
    /// The index of its category in the family's `categories`.
    pub category: Option<usize>,
    /// The category as written, until `check` resolves it.
    pub category_name: Option<syn::Ident>,
    /// `#[ir(visit = ..)]`: the visitor hook's default body.
    pub visit_with: Option<syn::Path>,
    /// `#[ir(mutate = ..)]`: the mutator hook's default body.
    pub mutate_with: Option<syn::Path>,
    /// `#[ir(mutate_def = ..)]`: the definition hook's default body.
    pub mutate_def_with: Option<syn::Path>,
}
