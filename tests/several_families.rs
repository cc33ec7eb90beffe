//! Several families in one IR: Tensor IR statements hold expressions, and a
//! pass over both families needs one line per family.

use ir_passes::tensor_ir::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

fn program() -> Stmt {
    let i = var_of("i", DType::S32);
    stmts(vec![
        assign(var("a"), constant(1) + constant(2)),
        for_loop(
            i.clone(),
            constant(0),
            constant(8) - constant(0),
            constant(1),
            if_else(
                cmp_eq(Expr::from(i.clone()) % constant(2), constant(1)),
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
        fn visit_add(&mut self, e: &Node<Arith<AddOp>>) {
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
    let folded = ConstantFolder::new().fold_stmt(&program());
    assert_eq!(
        folded.to_string(),
        "{
  a = 3
  for i in (0, 8, 1) {
    if (((i % 2) == 1)) {
      b = (i * 2)
    } else {
      evaluate{(c + 9)}
    }
  }
}"
    );
}

#[test]
fn statement_attributes_are_carried_over() {
    let mut stmt = assign(var("a"), constant(1) + constant(2));
    if let Stmt::Assign(a) = &mut stmt {
        a.make_mut()
            .attrs
            .set("pragma", AttrValue::Str("unroll".into()));
    }
    let folded = ConstantFolder::new().fold_stmt(&stmt);
    let (old, new) = (stmt.as_assign().unwrap(), folded.as_assign().unwrap());
    assert!(!old.same_as(new));
    assert_eq!(
        new.attrs.get("pragma"),
        Some(&AttrValue::Str("unroll".into()))
    );
    assert!(old.lhs.same_as(&new.lhs));
}

/// The example prints the seed's two lines, as the oneDNN tutorial does.
#[test]
fn the_example_prints_the_seeds_two_lines() {
    #[allow(dead_code)]
    #[path = "../examples/tensor_ir_fold.rs"]
    mod example;
    assert_eq!(
        example::seed_lines(),
        [
            "expr a before folder:((1 + 2) - 3), after folder:0",
            "expr b before folder:((1 + 2) + var_b), after folder:(3 + var_b)",
        ]
    );
}

#[test]
fn the_seed_examples() {
    let a = constant(1) + constant(2) - constant(3);
    let b = constant(1) + constant(2) + var("var_b");
    assert_eq!(a.to_string(), "((1 + 2) - 3)");
    assert_eq!(ConstantFolder::new().fold(&a).to_string(), "0");
    assert_eq!(b.to_string(), "((1 + 2) + var_b)");
    // The full folder moves constants right of commutative operators.
    assert_eq!(ConstantFolder::new().fold(&b).to_string(), "(var_b + 3)");
    // Nothing to fold: the very same handle comes back.
    let c = var("x") + constant(1);
    assert!(ConstantFolder::new().fold(&c).same_as(&c));
    // s32 arithmetic wraps, as the machine's does.
    let big = constant(i32::MAX as i64) + constant(1);
    assert_eq!(ConstantFolder::new().fold(&big).to_string(), "-2147483648");
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
            _: &Node<Arith<AddOp>>,
            post: &Node<Arith<AddOp>>,
        ) -> Transformed<Expr> {
            match (post.l.as_constant(), post.r.as_constant()) {
                (Some(a), Some(b)) => match (a.value, b.value) {
                    (Value::Int(a), Value::Int(b)) => constant(a + b).into(),
                    _ => Transformed::Keep,
                },
                _ => Transformed::Keep,
            }
        }
    }
    impl StmtRewriter for FoldAdds {
        fn rewrite_assign(&mut self, pre: &Node<Assign>, post: &Node<Assign>) -> Transformed<Stmt> {
            self.trace.push(format!("{} => {}", pre.rhs, post.rhs));
            Transformed::Keep
        }
    }
    let program = stmts(vec![
        assign(var("a"), constant(1) + constant(2)),
        evaluate(var("c") + (constant(4) + constant(5))),
    ]);
    let mut pass = FoldAdds::default();
    let out = pass.rewrite_stmt(&program);
    assert_eq!(out.to_string(), "{\n  a = 3\n  evaluate{(c + 9)}\n}");
    assert_eq!(pass.trace, ["(1 + 2) => 3"]);
    // Nothing to rewrite: the very same statement comes back.
    let plain = assign(var("a"), var("b"));
    assert!(FoldAdds::default().rewrite_stmt(&plain).same_as(&plain));
}

#[test]
fn an_early_exit_visitor_over_both_families_names_its_result_once() {
    // The result is a type parameter of each family's visitor trait (so that
    // a plain visitor writes nothing and gets `()`), and a pass implements one
    // trait per family: a type alias is the one place that names it.
    type Found = std::ops::ControlFlow<String>;
    struct FirstStoreOfAnAdd;
    impl StmtVisitor<Found> for FirstStoreOfAnAdd {
        fn visit_assign(&mut self, s: &Node<Assign>) -> Found {
            s.walk(self)
        }
    }
    impl ExprVisitor<Found> for FirstStoreOfAnAdd {
        fn visit_add(&mut self, e: &Node<Arith<AddOp>>) -> Found {
            Found::Break(Expr::from(e.clone()).to_string())
        }
    }
    assert_eq!(
        FirstStoreOfAnAdd.visit_stmt(&program()),
        Found::Break("(1 + 2)".to_string())
    );
}

/// oneDNN's `copy_attr`: a node the folder builds in place of another keeps
/// the original's attributes (merged with its own); a node the folder takes
/// from inside the original (`x` for `x + 0`) keeps only its own.
#[test]
fn attributes_of_a_rewritten_expression_are_carried_to_its_replacement() {
    let note = || AttrValue::Str("hot".into());
    let annotated = |mut e: Expr| {
        e.attrs_mut().set("note", note());
        e
    };
    // Reassociation builds a new `+`.
    let e = annotated(constant(1) + var("a") + constant(2));
    let folded = ConstantFolder::new().fold(&e);
    assert_eq!(folded.to_string(), "(a + 3)");
    assert_eq!(folded.attrs().get("note"), Some(&note()));
    // Canonical order builds a new chain: its top keeps the attributes.
    let e = annotated(var("b") * (var("a") * var("c")));
    let folded = ConstantFolder::new().fold(&e);
    assert_eq!(folded.to_string(), "((b * a) * c)");
    assert_eq!(folded.attrs().get("note"), Some(&note()));
    // An identity returns an operand, which is not annotated.
    let x = var("x") * var("y");
    let e = annotated(x.clone() + constant(0));
    let folded = ConstantFolder::new().fold(&e);
    assert!(folded.same_as(&x));
    assert!(folded.attrs().is_empty());
    // The replacement's own attributes win on a clash.
    let mut attrs = Attrs::new().with("note", AttrValue::Int(1));
    attrs.set("kept", AttrValue::Bool(true));
    assert_eq!(
        attrs.merged(
            &Attrs::new()
                .with("note", note())
                .with("old", AttrValue::Int(2))
        ),
        Attrs::new()
            .with("kept", AttrValue::Bool(true))
            .with("note", AttrValue::Int(1))
            .with("old", AttrValue::Int(2))
    );
}
