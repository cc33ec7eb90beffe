//! oneDNN's constant-folding and simplification tests, translated to the
//! Tensor IR text format (`tests/tensor_ir/*.cases`). Cases the passes do not
//! handle yet are listed by title in the `.pending` files: each must still
//! fail, so the lists only shrink.

#[path = "support/cases.rs"]
mod cases;

use ir_passes::tensor_ir::passes::Simplify;
use ir_passes::tensor_ir::{ConstantFolder, parse_expr, parse_func, parse_stmt, print_func};

/// Parses `input` as a function, an expression or a statement, runs `pass`
/// on it, and prints the result.
fn run_folder(input: &str) -> Result<String, String> {
    let mut folder = ConstantFolder;
    if input.starts_with("func") {
        let f = parse_func(input).map_err(|e| e.to_string())?;
        return Ok(print_func(&f.map_body(|body| folder.fold_stmt(body))));
    }
    if let Ok(e) = parse_expr(input) {
        return Ok(folder.fold(&e).to_string());
    }
    let s = parse_stmt(input).map_err(|e| e.to_string())?;
    Ok(folder.fold_stmt(&s).to_string())
}

#[test]
fn onednn_constant_folding() {
    let text = include_str!("tensor_ir/const_fold.cases");
    let cases = cases::parse_cases(text);
    assert!(cases.len() > 100, "{} cases", cases.len());
    cases::check_cases(
        "const_fold.cases",
        &cases,
        include_str!("tensor_ir/const_fold.pending"),
        |c| run_folder(&c.input),
    );
}

/// Parses `input` as a function or a statement and simplifies it.
fn run_simplify(input: &str) -> Result<String, String> {
    let mut simplify = Simplify::default();
    if input.starts_with("func") {
        let f = parse_func(input).map_err(|e| e.to_string())?;
        return Ok(print_func(&simplify.run_func(&f)));
    }
    let s = parse_stmt(input).map_err(|e| e.to_string())?;
    Ok(simplify.run(&s).to_string())
}

#[test]
fn onednn_simplification_and_scoped_facts() {
    let text = include_str!("tensor_ir/simplify.cases");
    let cases = cases::parse_cases(text);
    assert!(cases.len() >= 7, "{} cases", cases.len());
    cases::check_cases(
        "simplify.cases",
        &cases,
        include_str!("tensor_ir/simplify.pending"),
        |c| run_simplify(&c.input),
    );
}
