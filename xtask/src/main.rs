//! `cargo xtask <command>`: the project's automation.
//!
//! * `ci`: formatting, clippy with warnings denied, and the whole test suite,
//!   exactly as `.ci/run` runs them.
//! * `bless`: regenerates the expected `.stderr` of the compile-fail tests and
//!   the golden expansion `tests/expand/count_calls.expanded.rs`.
//! * `expand <example | file.rs>`: prints what the derives generate for every
//!   `#[derive(Visitable)]` / `#[derive(Mutable)]` / `#[derive(StructuralEq)]`
//!   item in that file.
//! * `bench [--quick] [--vs-tvm] [--only SECTION]`: runs the benchmarks and
//!   prints their markdown tables (see `bench.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench;
mod compile_time;
mod expand;

const USAGE: &str = "usage: cargo xtask <ci | bless | bench [--quick] [--vs-tvm] [--only SECTION] | expand <example | file.rs>>";

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
