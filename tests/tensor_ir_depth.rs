//! Million-deep nests (loops, if/else chains, expression chains) through
//! every pass, the printer, the parser and drop, with no stack overflow and
//! in time linear in their size.

use ir_core::Mutate;
use ir_core::structural::structural_eq_map_free_vars;
use ir_passes::tensor_ir::passes::{
    MarkUnroll, Simplify, Substitute, UNROLL_ATTR, Unroll, UnrollConfig,
};
use ir_passes::tensor_ir::*;

const DEPTH: usize = 1_000_000;

/// `{ tensor A: [s32 * 2]  for i in (0, 2, 1) { for i in ... { A[0] = 1 } } }`
fn nested_loops(depth: usize) -> Stmt {
    let a = tensor("A", DType::S32, &[2]);
    let mut body = assign(indexing(&a, vec![constant(0)]), constant(1));
    for _ in 0..depth {
        let i = var_of("i", DType::S32);
        // Bodies are blocks, as the parser reads them.
        body = for_loop(i, constant(0), constant(2), constant(1), stmts(vec![body]));
    }
    stmts(vec![define_tensor(a), body])
}

/// `if ((x != 0)) { if ((x != 1)) { ... } else { evaluate{1} } } else { evaluate{0} }`
/// (with `x != k` for every `k`, more facts than the simplifier keeps: none
/// decides another)
fn nested_ifs(depth: usize) -> Stmt {
    let x = Expr::from(var_of("x", DType::S32));
    let mut body = evaluate(x.clone());
    for k in (0..depth).rev() {
        body = if_else(
            cmp_ne(x.clone(), constant(k as i64)),
            stmts(vec![body]),
            Some(stmts(vec![evaluate(constant(k as i64))])),
        );
    }
    body
}

/// Every pass keeps the program as it is (nothing to fold, simplify or
/// unroll), the printed text reads back to an equal program, and the
/// in-place mode walks it too.
fn through_everything(s: Stmt) {
    assert!(ConstantFolder::new().fold_stmt(&s).same_as(&s));
    assert!(Simplify::default().run(&s).same_as(&s));
    assert!(Unroll::new(UnrollConfig::default()).run(&s).same_as(&s));
    assert!(MarkUnroll { max_extent: 1 }.run(&s).same_as(&s));
    // A map that holds a variable the program does not use: every level is
    // walked, nothing changes.
    let unused = var_of("unused", DType::S32);
    assert!(
        Substitute::var(&unused, constant(0))
            .apply_stmt(&s)
            .same_as(&s)
    );
    let text = s.to_string();
    let back = parse_stmt(&text).unwrap();
    assert!(structural_eq_map_free_vars(&s, &back));
    assert_eq!(back.to_string(), text);
    drop(back);
    let mut s = s;
    assert!(!s.mutate_in_place(&mut ConstantFolder::new()));
    drop(s);
}

#[test]
fn a_million_nested_loops() {
    let s = nested_loops(DEPTH);
    // Every level runs twice: marking rebuilds every loop with its
    // attribute, and folding the marked nest keeps every one of them.
    let marked = MarkUnroll { max_extent: 2 }.run(&s);
    assert!(!marked.same_as(&s));
    let folded = ConstantFolder::new().fold_stmt(&marked);
    assert!(folded.same_as(&marked));
    let mut loops = 0;
    let mut cur = &folded;
    loop {
        match cur {
            Stmt::Stmts(block) => cur = block.seq.last().unwrap(),
            Stmt::ForLoop(l) => {
                assert_eq!(l.attrs.get(UNROLL_ATTR), Some(&AttrValue::Bool(true)));
                loops += 1;
                cur = &l.body;
            }
            _ => break,
        }
    }
    assert_eq!(loops, DEPTH);
    drop((marked, folded));
    through_everything(s);
}

#[test]
fn a_million_nested_if_else() {
    through_everything(nested_ifs(DEPTH));
}

#[test]
fn a_million_long_expression_chain() {
    let x_var = var_of("x", DType::S32);
    let x = Expr::from(x_var.clone());
    // Built in canonical order (a variable sorts before a compound operand),
    // so that the folder has nothing to do at any level.
    let mut e = x.clone();
    for _ in 0..DEPTH {
        e = x.clone() + x.clone() * e;
    }
    let s = evaluate(e);
    through_everything(s.clone());
    // Renaming x to y rebuilds every level; renaming back gives the program.
    let y = var_of("y", DType::S32);
    let renamed = Substitute::var(&x_var, y.clone().into()).apply_stmt(&s);
    assert!(!renamed.same_as(&s));
    let back = Substitute::var(&y, x.clone()).apply_stmt(&renamed);
    assert!(structural_eq_map_free_vars(&s, &back));
    // Folding a chain of constants collapses it.
    let mut c = constant(0);
    for _ in 0..DEPTH {
        c = c + constant(1);
    }
    assert_eq!(
        ConstantFolder::new().fold(&c).to_string(),
        DEPTH.to_string()
    );
}

#[test]
fn deep_unrolling_and_simplification_stay_linear() {
    // A nest of one-iteration loops: simplification removes every level.
    let a = tensor("A", DType::S32, &[2]);
    let mut body = assign(indexing(&a, vec![constant(0)]), constant(1));
    for _ in 0..DEPTH {
        body = for_loop(
            var_of("i", DType::S32),
            constant(0),
            constant(1),
            constant(1),
            body,
        );
    }
    let out = Simplify::default().run(&stmts(vec![define_tensor(a.clone()), body.clone()]));
    assert_eq!(out.to_string(), "{\n  tensor A: [s32 * 2]\n  A[0] = 1\n}");
    // The same nest marked for unrolling: every level expands once.
    let config = UnrollConfig {
        max_extent: 1,
        ..UnrollConfig::default()
    };
    let out = Unroll::new(config).run(&stmts(vec![define_tensor(a), body]));
    assert_eq!(out.to_string(), "{\n  tensor A: [s32 * 2]\n  A[0] = 1\n}");
}
