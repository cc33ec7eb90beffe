//! What `ir-opt` does for a dialect whose modules are only text in and text
//! out (Relax's TVMScript, the Tensor IR): list the passes, read the input
//! or the built-in demo, run the passes under the flags' instruments, print,
//! and compare with `--expect`. Each dialect supplies a [`TextDialect`].

use std::process::ExitCode;

use ir_core::pass::{Module, PassRegistry};
use ir_core::structural::{StructuralEq, structural_eq_map_free_vars};

use crate::{Args, Emit, differs, read, run_passes};

/// What differs between the text-only dialects.
pub struct TextDialect<F: 'static> {
    /// The dialect's name in messages (`Relax prints as TVMScript`).
    pub prints_as: &'static str,
    /// The pass registry.
    pub registry: PassRegistry<F>,
    /// The pipeline the demo runs.
    pub default_pipeline: &'static str,
    /// The built-in input, and what to call it (`demo module`).
    pub demo: (&'static str, &'static str),
    /// The comment marker of the text (`#`, `//`).
    pub comment: &'static str,
    /// The width of the pass-name column of `--list-passes`.
    pub list_width: usize,
    /// Reads a module.
    pub parse: fn(&str) -> Result<Module<F>, String>,
    /// Prints a module.
    pub print: fn(&Module<F>) -> String,
    /// Checks a module: the input (if `check_input`) and, with
    /// `--verify-each`, each pass's result.
    pub verify: fn(&Module<F>) -> Result<(), String>,
    /// Whether the input is checked before any pass runs.
    pub check_input: bool,
    /// Prints a module as a Graphviz graph (`--emit dot`), if the dialect can.
    pub dot: Option<fn(&Module<F>) -> String>,
    /// Whether two modules agree on what they hold besides their functions
    /// (Relax's external functions), for `--expect`.
    pub same_globals: fn(&Module<F>, &Module<F>) -> bool,
}

/// Runs `dialect` on `input` (the file's text, or `None` for the demo).
pub fn run<F: Clone + Send + Sync + StructuralEq + 'static>(
    dialect: TextDialect<F>,
    args: &Args,
    input: Option<(String, String)>,
) -> Result<ExitCode, String> {
    let parse =
        |text: &str, origin: &str| (dialect.parse)(text).map_err(|e| format!("{origin}: {e}"));
    if args.list_passes {
        for (name, description) in dialect.registry.passes() {
            outln!("{name:width$} {description}", width = dialect.list_width);
        }
        return Ok(ExitCode::SUCCESS);
    }
    if matches!(args.emit, Emit::Dot) && dialect.dot.is_none() {
        return Err(format!(
            "--emit dot is for Relay and Relax; {}",
            dialect.prints_as
        ));
    }
    let demo = input.is_none();
    let (demo_text, demo_name) = dialect.demo;
    let (text, origin) = input.unwrap_or_else(|| (demo_text.to_owned(), format!("<{demo_name}>")));
    let input = parse(&text, &origin)?;
    if dialect.check_input {
        (dialect.verify)(&input)
            .map_err(|e| format!("{origin}: the input is not well-formed: {e}"))?;
    }
    let (output, pipeline_text) = run_passes(
        args,
        &dialect.registry,
        demo.then_some(dialect.default_pipeline),
        &input,
        dialect.print,
        dialect.verify,
    )?;
    let (print, comment) = (dialect.print, dialect.comment);
    let dot = dialect.dot.filter(|_| matches!(args.emit, Emit::Dot));
    // A graph is printed alone, so that it can go straight to Graphviz.
    if demo && dot.is_none() {
        outln!("{comment} The {demo_name}:");
        outln!("{}", print(&input));
        outln!();
        outln!(
            "{comment} After {}:",
            pipeline_text.as_deref().unwrap_or("")
        );
    }
    let got = print(&output);
    match dot {
        Some(dot) => out!("{}", dot(&output)),
        None => outln!("{got}"),
    }

    if let Some(expect_path) = &args.expect {
        let expected = parse(&read(expect_path)?, expect_path)?;
        // Variables free in a function (parameters, symbolic shape
        // variables) match by position, whatever --map-free-vars says.
        let equal = (dialect.same_globals)(&output, &expected)
            && output.len() == expected.len()
            && output.functions().all(|(name, f)| {
                expected
                    .get(name)
                    .is_some_and(|g| structural_eq_map_free_vars(f, g))
            });
        if !equal {
            return Ok(differs(expect_path, &print(&expected), &got));
        }
    }
    Ok(ExitCode::SUCCESS)
}
