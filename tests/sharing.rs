//! Sharing: memoized visitors and mutators handle a shared node once and keep
//! results shared; memoization is chosen per pass.

mod common;

use common::*;
use irkit::prelude::*;

/// `e = add(e, e)` applied `n` times: 2^n paths, n + 1 nodes.
fn doubling(n: usize) -> Expr {
    let mut e: Expr = v("x").into();
    for _ in 0..n {
        e = call("add", vec![e.clone(), e]);
    }
    e
}

#[derive(Default)]
struct CountCallsOnce {
    calls: usize,
    seen: VisitedSet<Expr>,
}
impl ExprVisitor for CountCallsOnce {
    fn visit_expr(&mut self, e: &Expr) {
        if self.seen.first_visit(e) {
            e.walk(self);
        }
    }
    fn visit_call(&mut self, n: &Node<Call>) {
        self.calls += 1;
        n.walk(self);
    }
}

#[derive(Default)]
struct MemoIdentity {
    memo: MemoMap<Expr>,
    rewritten: usize,
}
impl ExprMutator for MemoIdentity {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        if let Some(done) = self.memo.get(e) {
            return done;
        }
        self.rewritten += 1;
        let result = e.rebuild(self);
        self.memo.insert(e, result)
    }
}

/// Renames `add` to `plus`, memoized.
#[derive(Default)]
struct MemoRename {
    memo: MemoMap<Expr>,
    calls_rewritten: usize,
}
impl ExprMutator for MemoRename {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        irkit::memoized(self, e, |pass| &mut pass.memo)
    }
    fn mutate_call(&mut self, n: &Node<Call>) -> Transformed<Expr> {
        self.calls_rewritten += 1;
        let new = n.rebuild_fields(self);
        Call {
            op: "plus".into(),
            ..new.unwrap_or_clone(n)
        }
        .into()
    }
}

#[test]
fn a_memoized_visitor_visits_each_shared_node_once() {
    let mut pass = CountCallsOnce::default();
    pass.visit_expr(&doubling(100));
    assert_eq!(pass.calls, 100);
}

#[test]
fn a_memoized_identity_mutator_finishes_at_once_and_returns_the_same_handle() {
    let e = doubling(100);
    let mut pass = MemoIdentity::default();
    let result = pass.mutate_expr(&e);
    assert!(matches!(result, Transformed::Keep));
    assert!(result.unwrap_or_clone(&e).same_as(&e));
    assert_eq!(pass.rewritten, 101);
}

#[test]
fn a_memoized_mutator_rewrites_each_shared_node_once_and_keeps_it_shared() {
    let e = doubling(100);
    let mut pass = MemoRename::default();
    let new = pass.mutate_expr(&e).unwrap_or_clone(&e);
    assert_eq!(pass.calls_rewritten, 100);
    let mut node = new;
    for _ in 0..100 {
        let call = node.as_call().unwrap().clone();
        assert_eq!(call.op, "plus");
        assert!(
            call.args[0].same_as(&call.args[1]),
            "the rewritten child stays shared"
        );
        node = call.args[0].clone();
    }
    assert!(node.is_var());
}

#[test]
fn memoization_is_per_pass() {
    // Without a memo the same shared node is visited once per path.
    struct CountEveryPath(usize);
    impl ExprVisitor for CountEveryPath {
        fn visit_call(&mut self, n: &Node<Call>) {
            self.0 += 1;
            n.walk(self);
        }
    }
    let mut pass = CountEveryPath(0);
    pass.visit_expr(&doubling(10));
    assert_eq!(pass.0, (1 << 10) - 1);
}

#[test]
fn only_shared_nodes_take_a_memo_entry() {
    let mut pass = CountCallsOnce::default();
    let tree = call("f", vec![c(1), call("g", vec![c(2)])]);
    pass.visit_expr(&tree);
    assert_eq!(pass.calls, 2);
    assert!(pass.seen.is_empty(), "a tree has no shared nodes");

    let mut pass = CountCallsOnce::default();
    pass.visit_expr(&doubling(5));
    assert_eq!(pass.seen.len(), 5, "every node below the root is shared");
}

#[test]
fn memo_tables_release_their_nodes_with_the_pass() {
    let e = doubling(3);
    let inner = e.as_call().unwrap().args[0].clone();
    let before = inner.strong_count();
    {
        let mut pass = MemoIdentity::default();
        let _ = pass.mutate_expr(&e);
        assert!(inner.strong_count() > before);
    }
    assert_eq!(inner.strong_count(), before);
}
