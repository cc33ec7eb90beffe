//! Validation: turns the parsed input into a [`Model`], collecting every
//! error with its span instead of stopping at the first.

use std::collections::HashMap;

use darling::util::PathList;
use darling::{Error, ast::Style};
use quote::ToTokens;
use syn::spanned::Spanned;

use crate::crate_path;
use crate::model::{
    CategoryModel, ExtModel, FamilyModel, FieldModel, KindModel, Model, StructModel,
};
use crate::naming::snake_case;
use crate::parse::{Field, Input, MutatorArgs, Variant};

/// The model, and every error found. The model is still built when there are
/// errors (invalid variants left out), so the expansion can go on and the
/// user sees the real errors rather than follow-on ones from missing impls.
pub fn check(input: Input) -> (Model, Vec<Error>) {
    let mut errors = Error::accumulator();
    let krate = input.krate.clone().unwrap_or_else(crate_path::resolve);
    let model = match input.data {
        darling::ast::Data::Struct(fields) => {
            if let Some(uses) = &input.uses {
                errors.push(
                    Error::custom("`uses` applies to family enums, not to node structs")
                        .with_span(&uses.first().map(|p| p.span()).unwrap_or(input.ident.span())),
                );
            }
            if input.extensible.is_some()
                || input.extends.is_some()
                || input.mutator.is_some()
                || input.rewriter.is_present()
                || input.in_place.is_present()
            {
                errors.push(
                    Error::custom(
                        "`extensible`, `extends`, `mutator`, `rewriter` and `in_place` apply to \
                         family enums, not to node structs",
                    )
                    .with_span(&input.ident),
                );
            }
            let type_params: Vec<syn::Ident> = input
                .generics
                .type_params()
                .map(|p| p.ident.clone())
                .collect();
            for f in fields
                .fields
                .iter()
                .filter(|f| f.eq.is_some() && !f.skip.is_present() && !f.cache.is_present())
            {
                errors.push(
                    Error::custom("`eq` applies to skipped fields; children are always compared")
                        .with_span(&f.ty),
                );
            }
            // A cache field's misuse is reported once, by the cache check.
            for f in fields
                .fields
                .iter()
                .filter(|f| f.annotation.is_present() && !f.cache.is_present())
            {
                if f.skip.is_present() || f.eq.is_some() || f.tail.is_present() {
                    errors.push(
                        Error::custom(
                            "an `annotation` is never walked and always compared structurally: \
                             it takes no `skip`, `eq` or `tail`",
                        )
                        .with_span(&f.annotation.span()),
                    );
                }
            }
            for f in fields.fields.iter().filter(|f| f.cache.is_present()) {
                if f.skip.is_present()
                    || f.eq.is_some()
                    || f.tail.is_present()
                    || f.annotation.is_present()
                {
                    errors.push(
                        Error::custom(
                            "a `cache` is never walked or compared, and a rebuild resets it: \
                             it takes no `skip`, `eq`, `tail` or `annotation`",
                        )
                        .with_span(&f.cache.span()),
                    );
                }
            }
            if let Some(cache) = fields.fields.iter().find(|f| f.cache.is_present())
                && fields
                    .fields
                    .iter()
                    .any(|f| f.tail.is_present() && !f.cache.is_present())
            {
                errors.push(
                    Error::custom(
                        "a node with a `tail` cannot have a `cache`: a chain is rebuilt by \
                         replacing its tail alone, which would leave the cache stale",
                    )
                    .with_span(&cache.cache.span()),
                );
            }
            check_tail(&fields.fields, &mut errors);
            let fields = fields
                .fields
                .into_iter()
                .enumerate()
                .map(|(i, f)| {
                    let mut model = field_model(i, f, &type_params);
                    if model.child && is_plain_data(&model.ty) {
                        errors.push(not_a_child(&model));
                        // Generate as if skipped: the error above is the only one.
                        model.child = false;
                        model.tail = false;
                    }
                    model
                })
                .collect();
            Model::Struct(StructModel {
                krate,
                ident: input.ident,
                generics: input.generics,
                fields,
            })
        }
        darling::ast::Data::Enum(variants) => {
            if !input.generics.params.is_empty() {
                errors.push(
                    Error::custom(
                        "a family enum cannot have generic parameters: put them on the node structs",
                    )
                    .with_span(&input.generics),
                );
            }
            if variants.is_empty() {
                errors.push(
                    Error::custom("a family enum needs at least one `Kind(Node<Kind>)` variant")
                        .with_span(&input.ident),
                );
            }
            let snake = snake_case(&input.ident.to_string());
            let variant_count = variants.len();
            // The `Ext(Ext<Self>)` variant of an open family is not a kind.
            let mut ext_variant = None;
            let mut kinds = Vec::new();
            for (index, v) in variants.into_iter().enumerate() {
                if let Some(ext) = ext_payload(&v) {
                    if let Some(category) = &v.category {
                        errors.push(
                            Error::custom(
                                "the `Ext` variant holds kinds of other crates: it has no category",
                            )
                            .with_span(category),
                        );
                    }
                    if ext_variant.is_some() {
                        errors.push(
                            Error::custom("a family has one `Ext` variant").with_span(&v.ident),
                        );
                    } else {
                        ext_variant = Some((v.ident.clone(), index, ext));
                    }
                    continue;
                }
                if let Some(kind) = errors.handle(kind_model(v)) {
                    kinds.push(kind);
                }
            }
            let ext = check_extensible(&input.ident, &input.extensible, ext_variant, &mut errors);
            let extends = check_extends(&input.extends, &ext, &kinds, &mut errors);
            let kinds = check_unique_kinds(kinds, &mut errors);
            let mut kinds = check_hook_names(&snake, kinds, &mut errors);
            let categories = if extends.is_some() {
                reject_categories(&mut kinds, &mut errors);
                Vec::new()
            } else {
                check_categories(&snake, &mut kinds, &mut errors)
            };
            let mutator = input.mutator.unwrap_or_default();
            check_mutator_defaults(&kinds, &mutator, extends.is_some(), &mut errors);
            let rewriter =
                check_rewriter(&input.rewriter, &mutator, extends.is_some(), &mut errors);
            let in_place = check_in_place(&input.in_place, extends.is_some(), &mut errors);
            Model::Family(FamilyModel {
                krate,
                ident: input.ident,
                vis: input.vis,
                snake,
                partial: kinds.len() + usize::from(ext.is_some()) != variant_count,
                generic: !input.generics.params.is_empty(),
                ext,
                extends,
                kinds,
                categories,
                uses: input.uses.map(|u| u.to_vec()).unwrap_or_default(),
                mutator_state: mutator.state.map(Box::new),
                mutate_entry: mutator.entry.map(Box::new),
                rewriter,
                in_place,
            })
        }
    };
    (model, errors.into_inner())
}

/// The payload type of a variant holding `Ext<...>`, if it is one.
fn ext_payload(variant: &Variant) -> Option<syn::Type> {
    if variant.fields.style != Style::Tuple || variant.fields.fields.len() != 1 {
        return None;
    }
    let ty = &variant.fields.fields[0].ty;
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    (last.ident == "Ext" && matches!(last.arguments, syn::PathArguments::AngleBracketed(_)))
        .then(|| ty.clone())
}

/// `#[ir(rewriter)]`: a post-order rewriter drives the plain mutator hooks,
/// so a family whose mutators hold state (`mutator(state = ..)`) has none,
/// and an extension family's kinds are rewritten through the open family's.
fn check_rewriter(
    flag: &darling::util::Flag,
    mutator: &MutatorArgs,
    extends: bool,
    errors: &mut darling::error::Accumulator,
) -> bool {
    if !flag.is_present() {
        return false;
    }
    let reason = if mutator.state.is_some() {
        "a family whose mutators hold state (`mutator(state = ..)`) has no post-order rewriter"
    } else if extends {
        "an extension family's kinds are rewritten through the open family's rewriter \
         (`rewrite_ext`): put `rewriter` on that family"
    } else {
        return true;
    };
    errors.push(Error::custom(reason).with_span(&flag.span()));
    false
}

/// `#[ir(in_place)]`: an extension family's kinds take part in in-place mode
/// exactly when the open family does.
fn check_in_place(
    flag: &darling::util::Flag,
    extends: bool,
    errors: &mut darling::error::Accumulator,
) -> bool {
    if flag.is_present() && extends {
        errors.push(
            Error::custom(
                "an extension family's kinds take part in in-place mode when the open family \
                 does: put `in_place` on that family",
            )
            .with_span(&flag.span()),
        );
        return false;
    }
    flag.is_present()
}

/// `#[ir(extensible)]` and the `Ext` variant go together.
fn check_extensible(
    family: &syn::Ident,
    attr: &Option<darling::util::Override<crate::parse::ExtensibleArgs>>,
    variant: Option<(syn::Ident, usize, syn::Type)>,
    errors: &mut darling::error::Accumulator,
) -> Option<ExtModel> {
    match (attr, variant) {
        (None, None) => None,
        (Some(_), None) => {
            errors.push(
                Error::custom(format!(
                    "an extensible family holds the kinds other crates add in a variant \
                     `Ext(Ext<{family}>)`: add it"
                ))
                .with_span(family),
            );
            None
        }
        (None, Some((variant, _, _))) => {
            errors.push(
                Error::custom(format!(
                    "variant `{variant}` holds kinds from other crates: declare the family \
                     `#[ir(extensible)]`"
                ))
                .with_span(&variant),
            );
            None
        }
        (Some(args), Some((variant, index, _))) => Some(ExtModel {
            variant,
            index,
            interface: args.clone().unwrap_or_default().interface,
        }),
    }
}

/// `#[ir(extends(Family))]`: one family, not itself open, kinds without
/// definition sites.
fn check_extends(
    attr: &Option<PathList>,
    ext: &Option<ExtModel>,
    kinds: &[KindModel],
    errors: &mut darling::error::Accumulator,
) -> Option<syn::Path> {
    let paths = attr.as_ref()?;
    let Some(first) = paths.first() else {
        errors.push(Error::custom(
            "`extends` names the open family: `extends(Expr)`",
        ));
        return None;
    };
    if paths.len() > 1 {
        errors.push(Error::custom("`extends` names one open family").with_span(&paths[1].span()));
    }
    if let Some(ext) = ext {
        errors.push(
            Error::custom(
                "an extension family adds kinds to another family; it has no `Ext` variant",
            )
            .with_span(&ext.variant),
        );
    }
    for kind in kinds.iter().filter(|k| k.def) {
        errors.push(
            Error::custom("kinds added to an open family have no definition sites: remove `def`")
                .with_span(&kind.variant),
        );
    }
    Some(first.clone())
}

fn field_model(index: usize, field: Field, type_params: &[syn::Ident]) -> FieldModel {
    let span = field.ty.span();
    let member = match field.ident {
        Some(ident) => syn::Member::Named(ident),
        None => syn::Member::Unnamed(syn::Index {
            index: index as u32,
            span,
        }),
    };
    let generic = mentions_any(&field.ty, type_params);
    FieldModel {
        member,
        ty: field.ty,
        child: !field.skip.is_present()
            && !field.annotation.is_present()
            && !field.cache.is_present(),
        annotation: field.annotation.is_present() && !field.skip.is_present(),
        // A cache never counts for equality.
        eq: if field.cache.is_present() {
            Some(false)
        } else {
            field.eq
        },
        // A cache misused with other attributes is generated as a plain
        // skipped field: the cache check's error is the only one.
        cache: field.cache.is_present()
            && !field.skip.is_present()
            && field.eq.is_none()
            && !field.tail.is_present()
            && !field.annotation.is_present(),
        generic,
        tail: field.tail.is_present() && !field.skip.is_present() && !field.cache.is_present(),
        span,
    }
}

/// A type that is certainly not a child: built-in scalars, strings and
/// references, and containers of only those. (Other types are checked by the
/// trait system, on the field.)
fn is_plain_data(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(_) | syn::Type::Ptr(_) | syn::Type::FnPtr(_) => true,
        syn::Type::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(is_plain_data),
        syn::Type::Array(a) => is_plain_data(&a.elem),
        syn::Type::Slice(a) => is_plain_data(&a.elem),
        syn::Type::Paren(p) => is_plain_data(&p.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            const SCALARS: &[&str] = &[
                "bool", "char", "str", "String", "i8", "i16", "i32", "i64", "i128", "isize", "u8",
                "u16", "u32", "u64", "u128", "usize", "f32", "f64",
            ];
            if p.path.segments.len() == 1 && SCALARS.contains(&name.as_str()) {
                return matches!(last.arguments, syn::PathArguments::None);
            }
            if matches!(name.as_str(), "Vec" | "ShortVec" | "Option" | "Box")
                && let syn::PathArguments::AngleBracketed(args) = &last.arguments
                && let Some(syn::GenericArgument::Type(inner)) = args.args.first()
            {
                return args.args.len() == 1 && is_plain_data(inner);
            }
            false
        }
        _ => false,
    }
}

fn not_a_child(field: &FieldModel) -> Error {
    let ty = &field.ty;
    let name = match &field.member {
        syn::Member::Named(ident) => format!("`{ident}`"),
        syn::Member::Unnamed(index) => format!("{}", index.index),
    };
    Error::custom(format!(
        "field {name} of type `{}` is not a child node: children are family enums, \
         `Node<Kind>` handles, derived structs and containers of them; mark data that is \
         not a child (names, spans, attributes) with `#[ir(skip)]`",
        ty.to_token_stream()
    ))
    .with_span(ty)
}

/// `tail` marks one child, the last one: the driver visits the others first,
/// as the derived walk does.
fn check_tail(fields: &[Field], errors: &mut darling::error::Accumulator) {
    // A cache marked `tail` is reported by the cache check alone.
    let mut tails = fields
        .iter()
        .filter(|f| f.tail.is_present() && !f.cache.is_present());
    if let Some(first) = tails.next() {
        for extra in tails {
            errors.push(
                Error::custom("only one field can be the `tail` of a node")
                    .with_span(&extra.tail.span()),
            );
        }
        if first.skip.is_present() {
            errors.push(
                Error::custom("a `tail` field is a child: it cannot also be `skip`")
                    .with_span(&first.tail.span()),
            );
        } else if let Some(last_child) = fields
            .iter()
            .rev()
            .find(|f| !f.skip.is_present() && !f.annotation.is_present() && !f.cache.is_present())
            && !std::ptr::eq(last_child, first)
        {
            errors.push(
                Error::custom(
                    "the `tail` field must be the last child field, so that the chain is \
                     followed after the node's other children, in field order",
                )
                .with_span(&first.tail.span()),
            );
        }
    }
}

fn mentions_any(ty: &syn::Type, idents: &[syn::Ident]) -> bool {
    fn walk(tokens: proc_macro2::TokenStream, idents: &[syn::Ident]) -> bool {
        tokens.into_iter().any(|tt| match tt {
            proc_macro2::TokenTree::Ident(i) => idents.contains(&i),
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), idents),
            _ => false,
        })
    }
    !idents.is_empty() && walk(ty.to_token_stream(), idents)
}

fn kind_model(variant: Variant) -> darling::Result<KindModel> {
    if variant.fields.style != Style::Tuple || variant.fields.fields.len() != 1 {
        return Err(Error::custom(format!(
            "family variant `{}` must hold exactly one `Node<Kind>`, as in `{}(Node<{}>)`",
            variant.ident, variant.ident, variant.ident
        ))
        .with_span(&variant.ident));
    }
    let field = &variant.fields.fields[0];
    let mut errors = Vec::new();
    if field.skip.is_present() {
        errors.push(
            Error::custom("`skip` applies to struct fields; a family variant is always a child")
                .with_span(&field.skip.span()),
        );
    }
    if field.cache.is_present() {
        errors.push(
            Error::custom("`cache` applies to struct fields; a family variant is always a child")
                .with_span(&field.cache.span()),
        );
    }
    if field.tail.is_present() {
        errors.push(
            Error::custom("`tail` applies to a field of a node struct (such as a let's body)")
                .with_span(&field.tail.span()),
        );
    }
    let kind = node_argument(&field.ty);
    if kind.is_none() {
        errors.push(
            Error::custom(format!(
                "family variant `{}` must hold `Node<Kind>`, found `{}`",
                variant.ident,
                field.ty.to_token_stream()
            ))
            .with_span(&field.ty),
        );
    }
    match kind {
        Some(ty) if errors.is_empty() => Ok(KindModel {
            snake: snake_case(&variant.ident.to_string()),
            variant: variant.ident,
            ty,
            def: variant.def.is_present(),
            graph: variant.graph.is_present(),
            category: None,
            category_name: variant.category,
            visit_with: variant.visit,
            mutate_with: variant.mutate,
            mutate_def_with: variant.mutate_def,
        }),
        _ => Err(Error::multiple(errors)),
    }
}

/// `Node<K>` (with any path prefix) -> `K`.
fn node_argument(ty: &syn::Type) -> Option<syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != "Node" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    if args.args.len() != 1 {
        return None;
    }
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    }
}

/// Reports kinds that appear twice, and leaves their repeats out.
fn check_unique_kinds(
    kinds: Vec<KindModel>,
    errors: &mut darling::error::Accumulator,
) -> Vec<KindModel> {
    let mut seen: HashMap<String, syn::Ident> = HashMap::new();
    let mut out = Vec::with_capacity(kinds.len());
    for k in kinds {
        let key = k.ty.to_token_stream().to_string();
        if let Some(first) = seen.get(&key) {
            errors.push(
                Error::custom(format!(
                    "kind `{key}` appears twice in this family (also in variant `{first}`): \
                     each kind belongs to one variant, so `From<Node<{key}>>` is unambiguous"
                ))
                .with_span(&k.ty),
            );
        } else {
            seen.insert(key, k.variant.clone());
            out.push(k);
        }
    }
    out
}

/// Reports variants whose hooks would collide, and leaves them out.
fn check_hook_names(
    family: &str,
    kinds: Vec<KindModel>,
    errors: &mut darling::error::Accumulator,
) -> Vec<KindModel> {
    let mut seen: HashMap<String, syn::Ident> = HashMap::new();
    let mut out = Vec::with_capacity(kinds.len());
    for k in kinds {
        let mut names = vec![k.snake.clone()];
        if k.def {
            names.push(format!("{}_def", k.snake));
        }
        let mut ok = true;
        for name in names {
            if name == family {
                errors.push(
                    Error::custom(format!(
                        "variant `{}` would generate hook `visit_{name}`, which is the \
                         family's own entry hook: rename the variant",
                        k.variant
                    ))
                    .with_span(&k.variant),
                );
                ok = false;
            } else if let Some(first) = seen.get(&name) {
                errors.push(
                    Error::custom(format!(
                        "variants `{first}` and `{}` would both generate hook `visit_{name}`: \
                         rename one",
                        k.variant
                    ))
                    .with_span(&k.variant),
                );
                ok = false;
            }
        }
        if ok {
            seen.insert(k.snake.clone(), k.variant.clone());
            if k.def {
                seen.insert(format!("{}_def", k.snake), k.variant.clone());
            }
            out.push(k);
        }
    }
    out
}

/// Groups the kinds by `#[ir(category = ..)]`. A category whose hook would
/// collide with a kind's hook (or the entry hook) is reported once and left
/// out, its kinds keeping their own hooks only.
/// Custom mutator defaults: a definition default needs definition sites, a
/// kind in a category defaults to its category hook, and an extension family
/// takes its passes' defaults from the family it extends.
fn check_mutator_defaults(
    kinds: &[KindModel],
    args: &crate::parse::MutatorArgs,
    extension: bool,
    errors: &mut darling::error::Accumulator,
) {
    if extension {
        let custom = args
            .state
            .iter()
            .chain(&args.entry)
            .chain(kinds.iter().flat_map(|k| {
                k.mutate_with
                    .iter()
                    .chain(&k.mutate_def_with)
                    .chain(&k.visit_with)
            }));
        for path in custom {
            errors.push(
                Error::custom(
                    "an extension family's passes are the open family's: set mutator defaults \
                     there",
                )
                .with_span(path),
            );
        }
        return;
    }
    for kind in kinds {
        if let (Some(path), false) = (&kind.mutate_def_with, kind.def) {
            errors.push(
                Error::custom(format!(
                    "`mutate_def` sets the default of the definition hook, and `{}` has none: \
                     mark it `def`",
                    kind.variant
                ))
                .with_span(path),
            );
        }
        let custom = kind.mutate_with.as_ref().or(kind.visit_with.as_ref());
        if let (Some(path), Some(category)) = (custom, &kind.category_name) {
            errors.push(
                Error::custom(format!(
                    "`{}` is in category `{category}`, whose hook is its default: a kind has \
                     one default",
                    kind.variant
                ))
                .with_span(path),
            );
        }
    }
}

fn check_categories(
    family: &str,
    kinds: &mut [KindModel],
    errors: &mut darling::error::Accumulator,
) -> Vec<CategoryModel> {
    let mut taken: HashMap<String, String> = HashMap::new();
    for k in kinds.iter() {
        taken.insert(k.snake.clone(), format!("variant `{}`", k.variant));
        if k.def {
            taken.insert(
                format!("{}_def", k.snake),
                format!("variant `{}`", k.variant),
            );
        }
    }
    taken.insert(family.to_owned(), "the family's entry hook".to_owned());
    taken.insert(
        "ext".to_owned(),
        "the hook for other crates' kinds".to_owned(),
    );
    let mut categories: Vec<CategoryModel> = Vec::new();
    let mut rejected: Vec<String> = Vec::new();
    for (index, kind) in kinds.iter_mut().enumerate() {
        let Some(name) = kind.category_name.clone() else {
            continue;
        };
        let key = name.to_string();
        if rejected.contains(&key) {
            continue;
        }
        if let Some(category) = categories.iter_mut().position(|c| c.ident == name) {
            categories[category].kinds.push(index);
            kind.category = Some(category);
            continue;
        }
        let snake = snake_case(&key);
        if let Some(owner) = taken.get(&snake) {
            errors.push(
                Error::custom(format!(
                    "category `{name}` would generate hook `visit_{snake}`, which is also \
                     {owner}'s: rename the category"
                ))
                .with_span(&name),
            );
            rejected.push(key);
            continue;
        }
        taken.insert(snake.clone(), format!("category `{name}`"));
        kind.category = Some(categories.len());
        categories.push(CategoryModel {
            ident: name,
            snake,
            kinds: vec![index],
        });
    }
    categories
}

/// Kinds added to an open family take their hooks from the extension
/// family's traits, which have no category hooks.
fn reject_categories(kinds: &mut [KindModel], errors: &mut darling::error::Accumulator) {
    for kind in kinds {
        if let Some(name) = kind.category_name.take() {
            errors.push(
                Error::custom(
                    "categories group the kinds of a family; kinds added to an open family \
                     have no category",
                )
                .with_span(&name),
            );
        }
    }
}
