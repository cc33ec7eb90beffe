//! `cargo xtask expand`: what the derives generate, pretty-printed.

use std::path::PathBuf;

use ir_derive_codegen::Derive;

use crate::workspace_root;

pub fn run(target: &str) -> Result<(), String> {
    let root = workspace_root();
    let path = if target.ends_with(".rs") {
        PathBuf::from(target)
    } else {
        root.join("examples").join(format!("{target}.rs"))
    };
    let source = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    print!("{}", expanded(&source, &path.display().to_string())?);
    Ok(())
}

/// The code every `#[derive(Visitable)]` / `#[derive(Mutable)]` item of
/// `source` expands to, formatted; `origin` names the source in errors.
pub fn expanded(source: &str, origin: &str) -> Result<String, String> {
    let file = syn::parse_file(source).map_err(|e| {
        let start = e.span().start();
        format!("{origin}:{}:{}: {e}", start.line, start.column + 1)
    })?;
    let mut items = Vec::new();
    collect_derived(&file.items, &mut items);
    if items.is_empty() {
        return Err(format!(
            "{origin} has no #[derive(Visitable)] or #[derive(Mutable)] item"
        ));
    }
    let mut out = String::new();
    for (input, derives) in &items {
        for which in derives {
            let tokens = ir_derive_codegen::expand(input, *which);
            let parsed: syn::File = syn::parse2(tokens)
                .map_err(|e| format!("generated code for {} does not parse: {e}", input.ident))?;
            out.push_str(&format!("// #[derive({which:?})] on {}\n", input.ident));
            out.push_str(&prettyplease::unparse(&parsed));
            out.push('\n');
        }
    }
    Ok(out)
}

/// Every struct or enum (also inside inline modules) with one of our derives.
fn collect_derived(items: &[syn::Item], out: &mut Vec<(syn::DeriveInput, Vec<Derive>)>) {
    for item in items {
        let input: syn::DeriveInput = match item {
            syn::Item::Struct(s) => s.clone().into(),
            syn::Item::Enum(e) => e.clone().into(),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect_derived(inner, out);
                }
                continue;
            }
            _ => continue,
        };
        let derives = derives_of(&input.attrs);
        if !derives.is_empty() {
            out.push((input, derives));
        }
    }
}

fn derives_of(attrs: &[syn::Attribute]) -> Vec<Derive> {
    let mut found = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            match meta
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .as_deref()
            {
                Some("Visitable") => found.push(Derive::Visitable),
                Some("Mutable") => found.push(Derive::Mutable),
                _ => {}
            }
            Ok(())
        });
    }
    found
}
