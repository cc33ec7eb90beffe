//! Node structs with type parameters, and plain derived structs as children.

use ir_passes::tensor_ir::{Arith, ArithOp, DivOp, Expr, ExprVisitor, constant, var};
use irkit::RebuildFields;
use irkit::prelude::*;

/// A generic struct whose children are the type parameter.
#[derive(Debug, Clone, Visitable, Mutable)]
struct Pair<T> {
    first: T,
    second: T,
    #[ir(skip)]
    label: &'static str,
}

/// A generic kind used in the Tensor IR: `Arith<Op>` serves seven kinds.
#[test]
fn a_generic_kind_dispatches_per_instantiation() {
    #[derive(Default)]
    struct CountDivisions(usize);
    impl ExprVisitor for CountDivisions {
        fn visit_div(&mut self, d: &Node<Arith<DivOp>>) {
            self.0 += 1;
            d.walk(self);
        }
    }
    let e = (var("a") / constant(2)) + (var("b") / (var("c") / constant(3)));
    let mut count = CountDivisions::default();
    count.visit_expr(&e);
    assert_eq!(count.0, 3);
    assert_eq!(<DivOp as ArithOp>::SYMBOL, "/");
}

#[test]
fn a_generic_struct_of_children_is_visited_and_rebuilt() {
    struct CountVars(usize);
    impl ExprVisitor for CountVars {
        fn visit_var(&mut self, v: &Node<ir_passes::tensor_ir::Var>) {
            self.0 += 1;
            v.walk(self);
        }
    }
    let pair = Pair {
        first: vec![var("a"), constant(1) + constant(2)],
        second: vec![var("b")],
        label: "p",
    };
    let mut count = CountVars(0);
    pair.walk(&mut count);
    assert_eq!(count.0, 2);

    let mut folder = ir_passes::tensor_ir::ConstantFolder::new();
    let folded = pair
        .rebuild_fields(&mut folder)
        .into_option()
        .expect("1 + 2 folds");
    assert_eq!(folded.first[1].to_string(), "3");
    assert!(folded.first[0].same_as(&pair.first[0]));
    assert!(folded.second[0].same_as(&pair.second[0]));
    assert_eq!(folded.label, "p");

    let expr_pair: Pair<Expr> = Pair {
        first: var("x"),
        second: var("y"),
        label: "q",
    };
    assert!(expr_pair.rebuild_fields(&mut folder).is_keep());
}
