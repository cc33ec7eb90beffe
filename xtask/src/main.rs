//! `cargo xtask <command>`: the project's automation.
//!
//! * `ci`: formatting, clippy with warnings denied, and the whole test suite,
//!   exactly as `.ci/run` runs them.
//! * `bless`: regenerates the expected `.stderr` of the compile-fail tests and
//!   the golden expansion `tests/expand/count_calls.expanded.rs`.
//! * `expand <example | file.rs>`: prints what the derives generate for every
//!   `#[derive(Visitable)]` / `#[derive(Mutable)]` / `#[derive(StructuralEq)]`
//!   item in that file.
//! * `bench [--quick] [--vs-tvm [--rounds K]] [--only SECTION]`: runs the benchmarks and
//!   prints their markdown tables (see `bench.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench;
mod compile_time;
mod expand;

const USAGE: &str = "usage: cargo xtask <ci | bless | bench [--quick] [--vs-tvm [--rounds K]] [--only SECTION] | expand <example | file.rs>>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci(),
        Some("bless") => bless(),
        Some("bench") => bench::run(&args[1..]),
        Some("expand") => match args.get(1) {
            Some(target) => expand::run(target),
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

pub(crate) fn workspace_root() -> PathBuf {
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
///
/// Builds are not incremental here: a fresh checkout gains nothing from the
/// incremental caches, and they doubled the target directory's size (CI once
/// ran out of disk).
fn ci() -> Result<(), String> {
    let once = [("CARGO_INCREMENTAL", "0")];
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
        &once,
    )?;
    cargo(&["test", "--workspace"], &once)?;
    // Benchmarks only compile here; `cargo xtask bench` runs them.
    cargo(&["bench", "--workspace", "--no-run"], &once)
}

/// Regenerates what the tests compare against: the compile-fail outputs
/// (`tests/ui/*.stderr`) and the golden expansion (`tests/expand/`).
fn bless() -> Result<(), String> {
    expand::bless_golden()?;
    cargo(
        &["test", "--package", "irkit", "--test", "compile_fail"],
        &[("TRYBUILD", "overwrite")],
    )
}

#[cfg(test)]
mod tests {
    /// Depending on `irkit` for the framework alone brings in none of the
    /// dialects' dependencies (they sit behind the `dialects` feature).
    #[test]
    fn the_framework_alone_pulls_in_no_dialect_dependency() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let out = std::process::Command::new(cargo)
            .args([
                "tree",
                "-p",
                "irkit",
                "-e",
                "normal",
                "--prefix",
                "none",
                "--offline",
            ])
            .current_dir(super::workspace_root())
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tree = String::from_utf8_lossy(&out.stdout);
        let crates: std::collections::BTreeSet<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(crates.contains("ir-core"), "{crates:?}");
        for dialect_only in ["ir-passes", "ndarray", "serde_json", "ariadne", "clap"] {
            assert!(
                !crates.contains(dialect_only),
                "`irkit` alone depends on {dialect_only}: {crates:?}"
            );
        }
    }
}
