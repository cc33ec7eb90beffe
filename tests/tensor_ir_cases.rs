//! oneDNN's constant-folding and simplification tests, translated to the
//! Tensor IR text format (`tests/tensor_ir/*.cases`). Cases the passes do not
//! handle yet are listed by title in the `.pending` files: each must still
//! fail, so the lists only shrink.

#[path = "support/cases.rs"]
mod cases;

use ir_passes::tensor_ir::passes::Simplify;
use ir_passes::tensor_ir::{ConstantFolder, parse_expr, parse_func, parse_stmt, print_func};

/// Parses `input` as a function, an expression or a statement, folds it,
/// and prints the result. With `unchanged` (oneDNN's "no change" cases,
/// which assert the very same object, and every case whose expected text is
/// its input), the fold must also hand back the input node itself.
fn run_folder(input: &str, unchanged: bool) -> Result<String, String> {
    let mut folder = ConstantFolder::new();
    let same = |same: bool| {
        if unchanged && !same {
            Err(
                "folded to an equal but new node: nothing folds, so the input node comes back"
                    .to_owned(),
            )
        } else {
            Ok(())
        }
    };
    if input.starts_with("func") {
        let f = parse_func(input).map_err(|e| e.to_string())?;
        let body = folder.fold_stmt(&f.body);
        same(body.same_as(&f.body))?;
        return Ok(print_func(&f.map_body(|_| body.clone())));
    }
    if let Ok(e) = parse_expr(input) {
        let out = folder.fold(&e);
        same(out.same_as(&e))?;
        return Ok(out.to_string());
    }
    let s = parse_stmt(input).map_err(|e| e.to_string())?;
    let out = folder.fold_stmt(&s);
    same(out.same_as(&s))?;
    Ok(out.to_string())
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
        |c| {
            run_folder(
                &c.input,
                c.title.contains("no change") || c.input == c.expected,
            )
        },
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

/// oneDNN's `TestSimplifyLoopEliminate`, its last assertion (the text format
/// has no loop attributes, so it is written here): a removed one-trip loop
/// carrying `merge_loop` passes it to the loop it promotes, whose own
/// attributes win a clash. Simplify and the folder both remove such loops.
#[test]
fn a_removed_loop_passes_its_attributes_to_the_loop_it_promotes() {
    use ir_passes::tensor_ir::{AttrValue, Stmt};
    let f = parse_func(
        "func f(A: [s32 * 8], n: s32): void {\n  for i in (5, 6, 1) {\n    for j in (0, n, 1) {\n      A[j] = i\n    }\n  }\n}",
    )
    .unwrap();
    let mut body = f.body.clone();
    let Stmt::Stmts(block) = &mut body else {
        panic!("a block")
    };
    let outer = &mut block.make_mut().seq[0];
    outer.attrs_mut().set("merge_loop", AttrValue::Bool(true));
    outer
        .attrs_mut()
        .set("origin", AttrValue::Str("outer".into()));
    let Stmt::ForLoop(l) = outer else {
        panic!("a loop")
    };
    let Stmt::Stmts(inner_block) = &mut l.make_mut().body else {
        panic!("a block")
    };
    let inner = &mut inner_block.make_mut().seq[0];
    inner
        .attrs_mut()
        .set("origin", AttrValue::Str("inner".into()));

    // Simplify flattens the block the loop leaves behind; the folder keeps it.
    for (pass, out, text) in [
        (
            "simplify",
            Simplify::default().run(&body),
            "{\n  for j in (0, n, 1) {\n    A[j] = 5\n  }\n}",
        ),
        (
            "fold",
            ConstantFolder::new().fold_stmt(&body),
            "{\n  {\n    for j in (0, n, 1) {\n      A[j] = 5\n    }\n  }\n}",
        ),
    ] {
        assert_eq!(out.to_string(), text, "{pass}");
        // The loop, below the blocks that hold only it.
        let mut promoted = &out;
        while let Stmt::Stmts(b) = promoted {
            promoted = &b.seq[0];
        }
        assert!(matches!(promoted, Stmt::ForLoop(_)), "{pass}");
        let attrs = promoted.attrs();
        assert_eq!(
            attrs.get("merge_loop"),
            Some(&AttrValue::Bool(true)),
            "{pass}"
        );
        assert_eq!(
            attrs.get("origin"),
            Some(&AttrValue::Str("inner".into())),
            "{pass}: the promoted loop's own attribute wins"
        );
    }
}
