//! Several families in one IR: Tensor IR statements hold expressions, and a
//! pass over both families needs one line per family.

use ir_passes::tensor_ir::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

fn program() -> Stmt {
    let i = var_of("i", DType::S32);
    seq(vec![
        assign(var("a"), constant(1) + constant(2)),
        for_loop(
            i.clone(),
            constant(0),
            constant(8) - constant(0),
            constant(1),
            if_else(
                Expr::from(i.clone()) % constant(2),
                assign(
                    var("b"),
                    Expr::from(i.clone()) * (constant(3) - constant(1)),
                ),
                Some(evaluate(var("c") + (constant(4) + constant(5)))),
            ),
        ),
    ])
}

#[test]
fn a_visitor_over_both_families() {
    #[derive(Default)]
    struct Count {
        assigns: usize,
        adds: usize,
    }
    impl StmtVisitor for Count {
        fn visit_assign(&mut self, s: &Node<Assign>) {
            self.assigns += 1;
            s.walk(self);
        }
    }
    impl ExprVisitor for Count {
        fn visit_add(&mut self, e: &Node<Binary<AddOp>>) {
            self.adds += 1;
            e.walk(self);
        }
    }
    let mut count = Count::default();
    count.visit_stmt(&program());
    assert_eq!((count.assigns, count.adds), (2, 3));
}

#[test]
fn a_mutator_over_both_families() {
    // The folder overrides expression hooks; `impl StmtMutator for ConstantFolder {}`
    // is the one line that lets it run over statements.
    let folded = ConstantFolder.fold_stmt(&program());
    assert_eq!(
        folded.to_string(),
        "a = 3
for i in (0, 8, 1) {
  if (i % 2) {
    b = (i * 2)
  } else {
    evaluate{(c + 9)}
  }
}"
    );
}

#[test]
fn statement_attributes_are_carried_over() {
    let mut stmt = assign(var("a"), constant(1) + constant(2));
    if let Stmt::Assign(a) = &mut stmt {
        a.make_mut().attrs.insert("pragma".into(), "unroll".into());
    }
    let folded = ConstantFolder.fold_stmt(&stmt);
    let (old, new) = (stmt.as_assign().unwrap(), folded.as_assign().unwrap());
    assert!(!old.same_as(new));
    assert_eq!(new.attrs.get("pragma").map(String::as_str), Some("unroll"));
    assert!(old.var.same_as(&new.var));
}

#[test]
fn the_seed_examples() {
    let a = constant(1) + constant(2) - constant(3);
    let b = constant(1) + constant(2) + var("var_b");
    assert_eq!(a.to_string(), "((1 + 2) - 3)");
    assert_eq!(ConstantFolder.fold(&a).to_string(), "0");
    assert_eq!(b.to_string(), "((1 + 2) + var_b)");
    assert_eq!(ConstantFolder.fold(&b).to_string(), "(3 + var_b)");
    // Nothing to fold: the very same handle comes back.
    let c = var("x") + constant(1);
    assert!(ConstantFolder.fold(&c).same_as(&c));
    // Overflowing s32 is left alone.
    let big = constant(i32::MAX as i64) + constant(1);
    assert!(ConstantFolder.fold(&big).same_as(&big));
}

/// One post-order rewriter across families (TVM's `StmtExprMutator`, TIR's
/// `IRTransform`): a `StmtRewriter` that also implements `ExprRewriter` has
/// its expression hooks run on the expressions inside statements, before the
/// statement's own hook sees them.
#[test]
fn a_post_order_rewriter_reaches_the_expressions_inside_statements() {
    #[derive(Default)]
    struct FoldAdds {
        trace: Vec<String>,
    }
    impl ExprRewriter for FoldAdds {
        fn rewrite_add(
            &mut self,
            _: &Node<Binary<AddOp>>,
            post: &Node<Binary<AddOp>>,
        ) -> Transformed<Expr> {
            match (post.l.as_constant(), post.r.as_constant()) {
                (Some(a), Some(b)) => constant(a.value + b.value).into(),
                _ => Transformed::Keep,
            }
        }
    }
    impl StmtRewriter for FoldAdds {
        fn rewrite_assign(&mut self, pre: &Node<Assign>, post: &Node<Assign>) -> Transformed<Stmt> {
            self.trace.push(format!("{} => {}", pre.value, post.value));
            Transformed::Keep
        }
    }
    let program = seq(vec![
        assign(var("a"), constant(1) + constant(2)),
        evaluate(var("c") + (constant(4) + constant(5))),
    ]);
    let mut pass = FoldAdds::default();
    let out = pass.rewrite_stmt(&program);
    assert_eq!(out.to_string(), "a = 3\nevaluate{(c + 9)}");
    assert_eq!(pass.trace, ["(1 + 2) => 3"]);
    // Nothing to rewrite: the very same statement comes back.
    let plain = assign(var("a"), var("b"));
    assert!(FoldAdds::default().rewrite_stmt(&plain).same_as(&plain));
}
