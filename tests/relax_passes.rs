//! Relax passes on TVM's own test programs: each `<case>.before.py` run
//! through the pass prints exactly as TVM 0.27 printed its result,
//! `<case>.after.py` (`tests/relax/tvm/`). Cases whose programs the dialect
//! cannot express yet are in `tests/relax/tvm.pending`. A few inputs are
//! ours, for behaviour TVM's tests leave open; their results are what TVM
//! 0.27 printed for them (`canonicalize_bindings__unused_alias_of_an_output_keeps_it_an_output`).

use std::fs;

use ir_core::pass::PassContext;
use ir_passes::relax::passes::registry;
use ir_passes::relax::{parse_module, print_module, well_formed};
use pretty_assertions::assert_eq;

fn dir() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/relax").to_owned()
}

/// Runs `pipeline` on every `<prefix>*.before.py` that has an `.after.py`
/// and parses, and returns how many ran.
fn check_cases(prefix: &str, pipeline: &str) -> usize {
    let pending = fs::read_to_string(format!("{}/tvm.pending", dir())).unwrap();
    let mut names: Vec<String> = fs::read_dir(format!("{}/tvm", dir()))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".before.py"))
        .collect();
    names.sort();
    let mut ran = 0;
    for before_name in names {
        let case = before_name.trim_end_matches(".before.py");
        let after_name = format!("{case}.after.py");
        let blocked = |n: &str| pending.lines().any(|l| l.starts_with(&format!("{n} ")));
        // Inputs the dialect cannot express, and un-normalized inputs (the
        // parser normalizes them, so the text is not that program).
        if blocked(&after_name) || blocked(&before_name) {
            continue;
        }
        let Ok(after) = fs::read_to_string(format!("{}/tvm/{after_name}", dir())) else {
            continue;
        };
        let before = fs::read_to_string(format!("{}/tvm/{before_name}", dir())).unwrap();
        let input = parse_module(&before).unwrap_or_else(|e| panic!("{before_name}: {e}"));
        // The pass's options as TVM's test gave them (`<case>.options`).
        let pipeline = match fs::read_to_string(format!("{}/tvm/{case}.options", dir())) {
            Ok(options) => format!("{pipeline}{{{}}}", options.trim()),
            Err(_) => pipeline.to_owned(),
        };
        let passes = registry().pipeline(&pipeline).unwrap();
        let out = PassContext::default()
            .run(&passes, &input)
            .unwrap_or_else(|e| panic!("{case}: {e}"));
        well_formed(&out).unwrap_or_else(|e| panic!("{case}: {e}"));
        let printed = print_module(&out);
        match KNOWN_DIFFERENCES.iter().find(|(c, _)| *c == case) {
            Some((_, why)) => assert_ne!(printed, after.trim_end(), "{case} matches now ({why})"),
            None => assert_eq!(printed, after.trim_end(), "{case}"),
        }
        ran += 1;
    }
    ran
}

/// Cases whose results differ from TVM's, and why. Each must still differ.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

#[test]
fn normalize_matches_tvm() {
    // The others start from un-normalized programs, which the parser
    // normalizes as it reads them (as TVM's does).
    let ran = check_cases("normalize__", "normalize");
    assert!(ran >= 3, "ran {ran}");
}

#[test]
fn dead_code_elimination_matches_tvm() {
    let ran = check_cases("dead_code_elimination__", "dce");
    assert!(ran >= 9, "ran {ran}");
}

#[test]
fn canonicalize_bindings_matches_tvm() {
    let ran = check_cases("canonicalize_bindings__", "canonicalize-bindings");
    assert!(ran >= 35, "ran {ran}");
}

#[test]
fn eliminate_common_subexpr_matches_tvm() {
    let ran = check_cases("eliminate_common_subexpr__", "cse");
    assert!(ran >= 18, "ran {ran}");
}

#[test]
fn convert_to_dataflow_matches_tvm() {
    let ran = check_cases("convert_to_dataflow__", "convert-to-dataflow");
    assert!(ran >= 12, "ran {ran}");
}

#[test]
fn lambda_lift_matches_tvm() {
    let ran = check_cases("lambda_lift__", "lambda-lift");
    assert!(ran >= 10, "ran {ran}");
}

/// TVM's `test_input_module_is_unmodified`: lambda-lift returns a new
/// module, and the input still prints as it did, its closure in place.
#[test]
fn lambda_lift_leaves_its_input_as_it_was() {
    let text = fs::read_to_string(format!(
        "{}/tvm/lambda_lift__input_module_is_unmodified.before.py",
        dir()
    ))
    .unwrap();
    let input = parse_module(&text).unwrap();
    let printed = print_module(&input);
    let passes = registry().pipeline("lambda-lift").unwrap();
    let out = PassContext::default().run(&passes, &input).unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(input.len(), 1);
    assert_eq!(print_module(&input), printed);
}
