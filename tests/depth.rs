//! No operation overflows the stack at any depth: visiting, mutating,
//! rebuilding, cloning and dropping million-deep chains on the default test
//! thread (2 MiB of stack), in both shapes: an ANF let chain nested in its
//! body, and a call nested in its argument.

mod common;

use common::*;
use irkit::prelude::*;

const DEPTH: usize = 1_000_000;

struct CountNodes(usize);
impl ExprVisitor for CountNodes {
    fn visit_expr(&mut self, e: &Expr) {
        self.0 += 1;
        e.walk(self);
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        self.0 += 1;
        v.walk(self);
    }
}

struct Identity;
impl ExprMutator for Identity {}

/// Changes the innermost constant of a nested call chain, so every ancestor is rebuilt.
struct IncrementConstants;
impl ExprMutator for IncrementConstants {
    fn mutate_constant(&mut self, n: &Node<Constant>) -> Transformed<Expr> {
        Constant {
            value: n.value + 1,
            span: n.span,
        }
        .into()
    }
}

fn count(e: &Expr) -> usize {
    let mut c = CountNodes(0);
    c.visit_expr(e);
    c.0
}

#[test]
fn let_chain_a_million_deep() {
    let e = let_chain(DEPTH);
    // let, def, call, use, constant per binding, and the final use.
    assert_eq!(count(&e), 5 * DEPTH + 1);
    assert!(matches!(Identity.mutate_expr(&e), Transformed::Keep));

    let rebuilt = IncrementConstants.mutate_expr(&e).unwrap_or_clone(&e);
    assert!(!rebuilt.same_as(&e));
    assert_eq!(count(&rebuilt), 5 * DEPTH + 1);

    let copy = e.clone();
    drop(e);
    assert_eq!(count(&copy), 5 * DEPTH + 1);
    drop(copy);
    drop(rebuilt);
}

#[test]
fn nested_call_a_million_deep() {
    let e = nested_calls(DEPTH);
    assert_eq!(count(&e), 2 * DEPTH + 1);
    assert!(matches!(Identity.mutate_expr(&e), Transformed::Keep));

    let rebuilt = IncrementConstants.mutate_expr(&e).unwrap_or_clone(&e);
    let mut node = rebuilt.clone();
    for _ in 0..3 {
        let call = node.as_call().unwrap().clone();
        assert_eq!(call.args[1].as_constant().unwrap().value, 2);
        node = call.args[0].clone();
    }
    drop(e);
    drop(node);
    drop(rebuilt);
}

#[test]
fn rebuild_in_place_a_million_deep() {
    let mut e = nested_calls(DEPTH);
    let Expr::Call(root) = &mut e else {
        unreachable!()
    };
    let before = root.addr();
    assert!(root.mutate_in_place(&mut IncrementConstants));
    assert_eq!(
        root.addr(),
        before,
        "the uniquely owned root keeps its allocation"
    );
}

#[test]
fn a_deep_chain_held_by_a_thread_local_is_dropped_at_thread_exit() {
    // Thread-local destructors run in no set order: this one may find the
    // list that deep releases park on already gone. It must neither crash
    // nor overflow the stack.
    use std::cell::RefCell;
    thread_local! {
        static HELD: RefCell<Option<Expr>> = const { RefCell::new(None) };
    }
    std::thread::spawn(|| {
        // The holder is made first and the list second, so that (as
        // destructors run in reverse order of registration on common
        // platforms) the list is gone when the chain is dropped.
        HELD.with(|h| *h.borrow_mut() = Some(nested_calls(1)));
        drop(nested_calls(1_000));
        HELD.with(|h| *h.borrow_mut() = Some(nested_calls(DEPTH)));
    })
    .join()
    .expect("the thread exits cleanly");
}
