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
    let mut folder = ConstantFolder::new();
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
    assert!(cases.len() >= 141, "{} cases", cases.len());
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
    assert!(cases.len() >= 12, "{} cases", cases.len());
    cases::check_cases(
        "simplify.cases",
        &cases,
        include_str!("tensor_ir/simplify.pending"),
        |c| run_simplify(&c.input),
    );
}

/// Folds every function of `text` and returns the module printed.
fn fold_module(text: &str) -> (ir_passes::tensor_ir::Module, ir_passes::tensor_ir::Module) {
    let m = ir_passes::tensor_ir::parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let folded = ir_passes::tensor_ir::Module::from_functions(m.functions().map(|(name, f)| {
        (
            name.to_owned(),
            f.map_body(|b| ConstantFolder::new().fold_stmt(b)),
        )
    }));
    (m, folded)
}

#[test]
fn canonical_order_never_moves_a_call() {
    // oneDNN sorts every chain by hash; a chain with a call in it keeps its
    // order here (it is only re-nested to the left), since `put` writes `A`.
    let (m, folded) = fold_module(
        "func put(B: [s32 * 8], v: s32): s32 {
  B[0] = v
  return v
}

func main(A: [s32 * 8], b: s32): s32 {
  return min(put(A, 2), min(b, put(A, 1)))
}",
    );
    pretty_assertions::assert_eq!(
        print_func(folded.get("main").unwrap()),
        "func main(A: [s32 * 8], b: s32): s32 {\n  return min(min(put(A, 2), b), put(A, 1))\n}"
    );
    use ir_passes::tensor_ir::Value;
    use ir_passes::tensor_ir::interp::{Arg, Interpreter};
    let args = || {
        vec![
            Arg::Buffer(vec![Value::Int(0); 8]),
            Arg::Scalar(Value::Int(5)),
        ]
    };
    let before = Interpreter::new(&m).run("main", args()).unwrap();
    let after = Interpreter::new(&folded).run("main", args()).unwrap();
    pretty_assertions::assert_eq!(before, after);
    // A pure chain is sorted, and folds to itself the second time.
    let e = parse_expr("(b * (a * c))").unwrap();
    let once = ConstantFolder::new().fold(&e);
    assert_eq!(once.to_string(), "((b * a) * c)");
    assert!(ConstantFolder::new().fold(&once).same_as(&once));
}
