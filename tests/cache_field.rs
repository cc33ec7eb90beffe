//! `#[ir(cache)]`: a field worked out from the node's children (a call's
//! inferred type). Passes do not walk it, equality and hashing ignore it,
//! and a rebuild that changes a child resets it, copy-on-write or in place.

use irkit::prelude::*;
use irkit::structural::{structural_eq, structural_hash};

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Lit {
    #[ir(skip)]
    pub value: i64,
}

/// `lhs + rhs`, with its value once someone worked it out.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Add {
    pub lhs: Expr,
    pub rhs: Expr,
    #[ir(cache)]
    pub value: Option<i64>,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(in_place)]
pub enum Expr {
    Lit(Node<Lit>),
    Add(Node<Add>),
}

fn lit(value: i64) -> Expr {
    Lit { value }.into()
}

/// `1 + 2` that remembers it is 3.
fn add_remembering() -> Node<Add> {
    Node::new(Add {
        lhs: lit(1),
        rhs: lit(2),
        value: Some(3),
    })
}

/// Doubles every literal.
struct Double;
impl ExprMutator for Double {
    fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<Expr> {
        Lit { value: 2 * n.value }.into()
    }
}

/// Changes nothing.
struct Nothing;
impl ExprMutator for Nothing {}

#[test]
fn a_copy_on_write_rebuild_that_changes_a_child_resets_the_cache() {
    let add = add_remembering();
    let Transformed::Replace(new) = add.rebuild_fields(&mut Double) else {
        panic!("the literals changed")
    };
    assert_eq!(new.value, None);
    assert_eq!(add.value, Some(3), "the input is untouched");
}

#[test]
fn a_rebuild_in_place_that_changes_a_child_resets_the_cache() {
    let mut add = add_remembering();
    let before = add.addr();
    assert!(add.mutate_in_place(&mut Double));
    assert_eq!(add.addr(), before, "written in place");
    assert_eq!(add.value, None);
}

#[test]
fn a_rebuild_that_changes_nothing_keeps_the_cache() {
    let mut add = add_remembering();
    assert!(add.rebuild_fields(&mut Nothing).is_keep());
    assert!(!add.mutate_in_place(&mut Nothing));
    assert_eq!(add.value, Some(3));
}

#[test]
fn equality_and_hashing_ignore_the_cache() {
    let remembering = add_remembering();
    let not_yet = Node::new(Add {
        lhs: lit(1),
        rhs: lit(2),
        value: None,
    });
    assert!(structural_eq(&remembering, &not_yet));
    assert_eq!(structural_hash(&remembering), structural_hash(&not_yet));
}
