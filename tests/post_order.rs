//! The post-order rewriter: hooks receive `(pre, post)`, an explicit stack
//! drives it, and shared nodes are rewritten once.

mod common;

use common::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

/// Folds `add` of constants; sees each call after its arguments were folded.
#[derive(Default)]
struct FoldAdd {
    trace: bool,
    seen: Vec<String>,
}
impl ExprRewriter for FoldAdd {
    fn rewrite_call(&mut self, pre: &Node<Call>, post: &Node<Call>) -> Transformed<Expr> {
        if self.trace {
            let (pre, post) = (print(&pre.clone().into()), print(&post.clone().into()));
            self.seen.push(format!("{pre} -> {post}"));
        }
        match (post.op.as_str(), post.args.as_slice()) {
            ("add", [a, b]) => match (a.as_constant(), b.as_constant()) {
                (Some(a), Some(b)) => c(a.value + b.value).into(),
                _ => Transformed::Keep,
            },
            _ => Transformed::Keep,
        }
    }
}

#[test]
fn hooks_receive_pre_and_post() {
    let e = call(
        "mul",
        vec![
            call("add", vec![c(1), c(2)]),
            call("add", vec![v("x").into(), c(1)]),
        ],
    );
    let mut fold = FoldAdd {
        trace: true,
        seen: vec![],
    };
    let out = fold.rewrite_expr(&e);
    assert_eq!(print(&out), "mul(3, add(%x, 1))");
    assert_eq!(
        fold.seen,
        [
            "add(1, 2) -> add(1, 2)",
            "add(%x, 1) -> add(%x, 1)",
            "mul(add(1, 2), add(%x, 1)) -> mul(3, add(%x, 1))",
        ]
    );
}

#[test]
fn an_unchanged_graph_comes_back_as_the_same_handle() {
    let e = call("f", vec![v("x").into(), tuple(vec![c(1)])]);
    struct Nothing;
    impl ExprRewriter for Nothing {}
    assert!(Nothing.rewrite_expr(&e).same_as(&e));
}

#[test]
fn a_deep_dataflow_graph_folds_without_recursion() {
    // add(add(...add(0, 1)..., 1), 1), a million deep, folds to one constant.
    let mut e = c(0);
    for _ in 0..1_000_000 {
        e = call("add", vec![e, c(1)]);
    }
    let out = FoldAdd::default().rewrite_expr(&e);
    assert_eq!(print(&out), "1000000");
}

#[test]
fn shared_nodes_are_rewritten_once_and_stay_shared() {
    let mut e: Expr = v("x").into();
    for _ in 0..64 {
        e = call("add", vec![e.clone(), e]);
    }
    #[derive(Default)]
    struct Rename(usize);
    impl ExprRewriter for Rename {
        fn rewrite_call(&mut self, _: &Node<Call>, post: &Node<Call>) -> Transformed<Expr> {
            self.0 += 1;
            Call {
                op: "plus".into(),
                ..(**post).clone()
            }
            .into()
        }
    }
    let mut rename = Rename::default();
    let out = rename.rewrite_expr(&e);
    assert_eq!(rename.0, 64);
    let root = out.as_call().unwrap();
    assert_eq!(root.op, "plus");
    assert!(root.args[0].same_as(&root.args[1]));
}
