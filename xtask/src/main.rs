//! `cargo xtask <command>`: the project's automation.
//!
//! * `ci`: formatting, clippy with warnings denied, and the whole test suite,
//!   exactly as `.ci/run` runs them.
//! * `bless`: regenerates the expected `.stderr` of the compile-fail tests.
//! * `expand <example | file.rs>`: prints what the derives generate for every
//!   `#[derive(Visitable)]` / `#[derive(Mutable)]` item in that file.
//! * `bench [--quick]`: runs the benchmarks and prints one markdown table of
//!   derived against hand-written code, measured side by side.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use ir_derive_codegen::Derive;

const USAGE: &str =
    "usage: cargo xtask <ci | bless | bench [--quick] | expand <example | file.rs>>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("bless") => bless(),
        Some("bench") => bench(args.iter().any(|a| a == "--quick")),
        Some("expand") => match args.get(1) {
            Some(target) => expand(target),
            None => Err(format!("expand needs an example name or a file\n{USAGE}")),
        },
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn cargo(args: &[&str], envs: &[(&str, &str)]) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("xtask: cargo {}", args.join(" "));
    let status = Command::new(&cargo)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(workspace_root())
        .status()
        .map_err(|e| format!("cannot run {cargo}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` failed ({status})", args.join(" ")))
    }
}

/// The checks CI runs; `.ci/run` calls this.
fn ci() -> Result<(), String> {
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    cargo(
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    cargo(&["test", "--workspace"], &[])?;
    // Benchmarks only compile here; `cargo xtask bench` runs them.
    cargo(&["bench", "--workspace", "--no-run"], &[])
}

/// Runs the criterion benchmarks and prints derived/hand-written ratios.
fn bench(quick: bool) -> Result<(), String> {
    let root = workspace_root();
    let cargo_bin = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(&cargo_bin);
    cmd.args(["bench", "--package", "irkit", "--bench", "framework"])
        .current_dir(&root);
    if quick {
        cmd.env("IRKIT_BENCH_QUICK", "1");
    }
    eprintln!(
        "xtask: cargo bench --bench framework{}",
        if quick { " (quick)" } else { "" }
    );
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo bench failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut facts: Vec<(String, usize, usize)> = Vec::new();
    for line in stdout.lines().filter(|l| l.starts_with("irkit-bench ")) {
        let mut words = line.split_whitespace().skip(1);
        let shape = words.next().unwrap_or("").to_owned();
        let get = |key: &str| -> usize {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(key).and_then(|v| v.parse().ok()))
                .unwrap_or(0)
        };
        let (nodes, allocations) = (get("nodes="), get("identity-allocations="));
        facts.push((shape, nodes, allocations));
    }
    let mean = |group: &str, name: &str| -> Option<f64> {
        let path = root
            .join("target/criterion")
            .join(group)
            .join(name.replace('/', "_"))
            .join("new/estimates.json");
        let text = std::fs::read_to_string(path).ok()?;
        let key = "\"mean\":{\"confidence_interval\":";
        let after_mean = &text[text.find(key)?..];
        let pe = after_mean.find("\"point_estimate\":")? + "\"point_estimate\":".len();
        after_mean[pe..]
            .split([',', '}'])
            .next()?
            .trim()
            .parse()
            .ok()
    };
    println!(
        "| row | shape | nodes | derived ns/node | hand-written ns/node | derived/hand | target |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (shape, nodes, allocations) in &facts {
        for (row, target) in [
            ("visit", "<= 1.10"),
            ("identity", "<= 1.10, 0 allocations"),
            ("rebuild", "<= 1.15"),
        ] {
            let (Some(d), Some(h)) = (
                mean(shape, &format!("{row}/derived")),
                mean(shape, &format!("{row}/hand")),
            ) else {
                continue;
            };
            let per = |t: f64| t / *nodes as f64;
            let extra = if row == "identity" {
                format!(" ({allocations} allocations)")
            } else {
                String::new()
            };
            println!(
                "| {row} | {shape} | {nodes} | {:.2} | {:.2} | {:.2}{extra} | {target} |",
                per(d),
                per(h),
                d / h
            );
        }
    }
    Ok(())
}

fn bless() -> Result<(), String> {
    cargo(
        &["test", "--package", "irkit", "--test", "compile_fail"],
        &[("TRYBUILD", "overwrite")],
    )
}

fn expand(target: &str) -> Result<(), String> {
    let root = workspace_root();
    let path = if target.ends_with(".rs") {
        PathBuf::from(target)
    } else {
        root.join("examples").join(format!("{target}.rs"))
    };
    let source = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let file = syn::parse_file(&source).map_err(|e| {
        let start = e.span().start();
        format!(
            "{}:{}:{}: {e}",
            path.display(),
            start.line,
            start.column + 1
        )
    })?;
    let mut items = Vec::new();
    collect_derived(&file.items, &mut items);
    if items.is_empty() {
        return Err(format!(
            "{} has no #[derive(Visitable)] or #[derive(Mutable)] item",
            path.display()
        ));
    }
    for (input, derives) in &items {
        for which in derives {
            let tokens = ir_derive_codegen::expand(input, *which);
            let parsed: syn::File = syn::parse2(tokens)
                .map_err(|e| format!("generated code for {} does not parse: {e}", input.ident))?;
            println!("// #[derive({which:?})] on {}", input.ident);
            println!("{}", prettyplease::unparse(&parsed));
        }
    }
    Ok(())
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
