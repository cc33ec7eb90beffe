//! Visitors can stop early with `ControlFlow` or `Result`; plain visitors
//! write nothing for it.

mod common;

use std::ops::ControlFlow;

use common::*;
use irkit::prelude::*;

/// Finds the first call to `op`, stopping the walk there.
struct FindCall<'a> {
    op: &'a str,
    visited_calls: usize,
}
impl ExprVisitor<ControlFlow<Node<Call>>> for FindCall<'_> {
    fn visit_call(&mut self, call: &Node<Call>) -> ControlFlow<Node<Call>> {
        self.visited_calls += 1;
        if call.op == self.op {
            return ControlFlow::Break(call.clone());
        }
        call.walk(self)
    }
}

/// Rejects constants above a bound with an error.
struct CheckBound(i64);
impl ExprVisitor<Result<(), String>> for CheckBound {
    fn visit_constant(&mut self, n: &Node<Constant>) -> Result<(), String> {
        if n.value > self.0 {
            return Err(format!("constant {} exceeds {}", n.value, self.0));
        }
        Ok(())
    }
}

fn program() -> Expr {
    let x = v("x");
    let_(
        &x,
        call(
            "f",
            vec![c(1), call("target", vec![c(2)]), call("g", vec![])],
        ),
        call("h", vec![x.clone().into(), c(100)]),
    )
}

#[test]
fn control_flow_stops_at_the_first_match() {
    let e = program();
    let mut find = FindCall {
        op: "target",
        visited_calls: 0,
    };
    let found = find.visit_expr(&e);
    let ControlFlow::Break(call) = found else {
        panic!("target is present")
    };
    assert_eq!(call.op, "target");
    // `f`, then `target`: neither `g` nor `h` was visited.
    assert_eq!(find.visited_calls, 2);

    let mut missing = FindCall {
        op: "absent",
        visited_calls: 0,
    };
    assert!(missing.visit_expr(&e).is_continue());
    assert_eq!(missing.visited_calls, 4);
}

#[test]
fn result_stops_with_the_first_error() {
    assert_eq!(
        CheckBound(10).visit_expr(&program()),
        Err("constant 100 exceeds 10".to_owned())
    );
    assert_eq!(CheckBound(1000).visit_expr(&program()), Ok(()));
}

#[test]
fn early_exit_from_deep_inside_a_long_chain() {
    let e = let_chain(200_000);
    let mut find = FindCall {
        op: "add",
        visited_calls: 0,
    };
    assert!(find.visit_expr(&e).is_break());
    assert_eq!(find.visited_calls, 1);
}
