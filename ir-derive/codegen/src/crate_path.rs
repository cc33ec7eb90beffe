//! Where the runtime crate is, as seen from the crate being expanded.
//!
//! Read from the crate's own `Cargo.toml`, once per manifest and process (a
//! proc-macro process expands every derive of a crate, and an IDE's serves
//! many crates): no `cargo` subprocess, which a workspace lookup would cost on
//! every build.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

use proc_macro2::Span;
use syn::Ident;

/// How the expanded crate reaches the runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Runtime {
    /// `::name` (the `ir-core` crate, possibly renamed).
    Core(String),
    /// `::name::__core` (the `irkit` facade, possibly renamed).
    Facade(String),
}

/// `::ir_core` when the user depends on `ir-core` (under any name), else the
/// facade's re-export `::irkit::__core`, else `::ir_core`. Both crates declare
/// `extern crate self as <name>`, so the same path works inside them too.
/// `#[ir(crate = "...")]` overrides this.
pub fn resolve() -> syn::Path {
    let runtime = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .and_then(|dir| cached(dir.join("Cargo.toml")))
        .unwrap_or_else(|| Runtime::Core("ir_core".to_owned()));
    match runtime {
        Runtime::Core(name) => {
            let ident = Ident::new(&name, Span::call_site());
            syn::parse_quote!(::#ident)
        }
        Runtime::Facade(name) => {
            let ident = Ident::new(&name, Span::call_site());
            syn::parse_quote!(::#ident::__core)
        }
    }
}

type Cache = HashMap<PathBuf, (Option<SystemTime>, Option<Runtime>)>;
static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cached(manifest: PathBuf) -> Option<Runtime> {
    let modified = std::fs::metadata(&manifest).and_then(|m| m.modified()).ok();
    let mut guard = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let cache = guard.get_or_insert_with(HashMap::new);
    if let Some((at, runtime)) = cache.get(&manifest)
        && *at == modified
    {
        return runtime.clone();
    }
    let runtime = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|text| from_manifest(&text));
    cache.insert(manifest, (modified, runtime.clone()));
    runtime
}

/// The runtime named by a manifest: the package itself, or a dependency.
fn from_manifest(text: &str) -> Option<Runtime> {
    let doc: toml_edit::DocumentMut = text.parse().ok()?;
    let own = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str());
    if own == Some("ir-core") {
        return Some(Runtime::Core("ir_core".to_owned()));
    }
    let mut deps: Vec<(String, String)> = Vec::new();
    let mut collect = |table: &toml_edit::Item| {
        let Some(table) = table.as_table_like() else {
            return;
        };
        for kind in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let Some(entries) = table.get(kind).and_then(|t| t.as_table_like()) else {
                continue;
            };
            for (key, value) in entries.iter() {
                let package = value
                    .as_table_like()
                    .and_then(|t| t.get("package"))
                    .and_then(|p| p.as_str())
                    .unwrap_or(key);
                deps.push((key.replace('-', "_"), package.to_owned()));
            }
        }
    };
    collect(doc.as_item());
    if let Some(targets) = doc.get("target").and_then(|t| t.as_table_like()) {
        for (_, target) in targets.iter() {
            collect(target);
        }
    }
    let find = |package: &str| {
        deps.iter()
            .find(|(_, p)| p == package)
            .map(|(k, _)| k.clone())
    };
    find("ir-core")
        .map(Runtime::Core)
        .or_else(|| find("irkit").map(Runtime::Facade))
        .or_else(|| (own == Some("irkit")).then(|| Runtime::Facade("irkit".to_owned())))
}

#[cfg(test)]
mod tests {
    use super::{Runtime, from_manifest};

    #[test]
    fn reads_the_runtime_from_a_manifest() {
        let core = "[package]\nname = \"x\"\n[dependencies]\nir-core = \"0.2\"\n";
        assert_eq!(from_manifest(core), Some(Runtime::Core("ir_core".into())));
        let renamed = "[package]\nname = \"x\"\n[dependencies]\nrt = { package = \"ir-core\", version = \"0.2\" }\n";
        assert_eq!(from_manifest(renamed), Some(Runtime::Core("rt".into())));
        let facade = "[package]\nname = \"x\"\n[dev-dependencies]\nirkit.workspace = true\n";
        assert_eq!(from_manifest(facade), Some(Runtime::Facade("irkit".into())));
        let itself = "[package]\nname = \"ir-core\"\n";
        assert_eq!(from_manifest(itself), Some(Runtime::Core("ir_core".into())));
        let targeted =
            "[package]\nname = \"x\"\n[target.'cfg(unix)'.dependencies]\nir-core = \"0.2\"\n";
        assert_eq!(
            from_manifest(targeted),
            Some(Runtime::Core("ir_core".into()))
        );
        assert_eq!(from_manifest("[package]\nname = \"x\"\n"), None);
    }
}
