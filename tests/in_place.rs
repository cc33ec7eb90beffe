//! In-place mode reuses a uniquely owned node's allocation; a shared node is
//! copied and the other owners see no change.

mod common;

use common::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

struct Double;
impl ExprMutator for Double {
    fn mutate_constant(&mut self, n: &Node<Constant>) -> Transformed<Expr> {
        Constant {
            value: n.value * 2,
            span: n.span,
        }
        .into()
    }
}

#[test]
fn a_uniquely_owned_node_is_rebuilt_in_its_own_allocation() {
    let mut node: Node<Call> = match call("f", vec![c(1), c(2)]) {
        Expr::Call(n) => n,
        _ => unreachable!(),
    };
    let before = node.addr();
    assert!(node.mutate_in_place(&mut Double));
    assert_eq!(node.addr(), before);
    assert_eq!(print(&node.into()), "f(2, 4)");
}

#[test]
fn a_shared_node_is_copied_and_the_other_owner_sees_no_change() {
    let original = call("f", vec![c(1), c(2)]);
    let Expr::Call(mut node) = original.clone() else {
        unreachable!()
    };
    assert!(node.mutate_in_place(&mut Double));
    assert_ne!(node.addr(), original.addr());
    assert_eq!(print(&original), "f(1, 2)");
    assert_eq!(print(&node.into()), "f(2, 4)");
}

#[test]
fn nothing_changed_means_nothing_written() {
    struct Identity;
    impl ExprMutator for Identity {}
    let Expr::Call(mut node) = call("f", vec![c(1)]) else {
        unreachable!()
    };
    let before = node.addr();
    assert!(!node.mutate_in_place(&mut Identity));
    assert_eq!(node.addr(), before);
}

#[test]
fn copy_on_write_access() {
    let mut e = call("f", vec![c(1)]);
    let shared = e.clone();
    if let Expr::Call(n) = &mut e {
        n.make_mut().op = "g".into();
    }
    assert_eq!(print(&e), "g(1)");
    assert_eq!(print(&shared), "f(1)");
}
