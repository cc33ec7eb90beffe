//! Identity costs nothing: an identity mutator returns the same root handle
//! and allocates nothing; a changed leaf rebuilds only its ancestors.

mod common;

use common::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_during;

struct Identity;
impl ExprMutator for Identity {}

/// Rewrites constant 42 to 0 and nothing else.
struct ZeroTheAnswer;
impl ExprMutator for ZeroTheAnswer {
    fn mutate_constant(&mut self, n: &Node<Constant>) -> Transformed<Expr> {
        if n.value == 42 {
            Constant {
                value: 0,
                span: n.span,
            }
            .into()
        } else {
            Transformed::Keep
        }
    }
}

fn sample() -> Expr {
    let (x, y) = (v("x"), v("y"));
    func(
        &[&x],
        let_(
            &y,
            call("add", vec![x.clone().into(), c(1)]),
            if_(
                call("less", vec![y.clone().into(), c(10)]),
                tuple(vec![y.clone().into(), c(42), c(7)]),
                call("neg", vec![y.clone().into()]),
            ),
        ),
    )
}

#[test]
fn identity_mutator_returns_the_same_root_and_allocates_nothing() {
    let e = sample();
    let (result, allocations) = allocations_during(|| Identity.mutate_expr(&e));
    assert!(matches!(result, Transformed::Keep));
    assert_eq!(allocations, 0);
    let same = result.unwrap_or_clone(&e);
    assert!(same.same_as(&e));
}

#[test]
fn identity_on_a_deep_chain_allocates_nothing() {
    let e = let_chain(10_000);
    let (result, allocations) = allocations_during(|| Identity.mutate_expr(&e));
    assert!(matches!(result, Transformed::Keep));
    assert_eq!(allocations, 0);
}

#[test]
fn a_changed_leaf_rebuilds_only_its_ancestors() {
    let e = sample();
    let (result, allocations) = allocations_during(|| ZeroTheAnswer.mutate_expr(&e));
    let Transformed::Replace(new) = result else {
        panic!("the constant 42 is rewritten")
    };
    // New nodes: the constant, the tuple and its field vector, the if, the let,
    // the function, and a copy of the function's unchanged `params` vector
    // (a rebuilt node owns its fields; a `Vec` is not shared).
    assert_eq!(allocations, 7);
    assert_eq!(
        print(&new),
        "fn (%x) { let %y = add(%x, 1);\nif (less(%y, 10)) { (%y, 0, 7) } else { neg(%y) } }"
    );

    let (old_f, new_f) = (e.as_function().unwrap(), new.as_function().unwrap());
    assert!(old_f.params[0].same_as(&new_f.params[0]));
    let (old_let, new_let) = (old_f.body.as_let().unwrap(), new_f.body.as_let().unwrap());
    assert!(!old_let.same_as(new_let));
    assert!(old_let.var.same_as(&new_let.var));
    assert!(
        old_let.value.same_as(&new_let.value),
        "an unchanged sibling stays shared"
    );
    let (old_if, new_if) = (old_let.body.as_if().unwrap(), new_let.body.as_if().unwrap());
    assert!(old_if.cond.same_as(&new_if.cond));
    assert!(old_if.else_branch.same_as(&new_if.else_branch));
    let (old_t, new_t) = (
        old_if.then_branch.as_tuple().unwrap(),
        new_if.then_branch.as_tuple().unwrap(),
    );
    assert!(old_t.fields[0].same_as(&new_t.fields[0]));
    assert!(!old_t.fields[1].same_as(&new_t.fields[1]));
    assert!(old_t.fields[2].same_as(&new_t.fields[2]));
}

#[test]
fn non_child_fields_are_carried_over_on_rebuild() {
    let mut attrs = Attrs::new();
    attrs.insert("layout".into(), "NCHW".into());
    let e: Expr = Call {
        op: "conv".into(),
        args: vec![c(42), c(1)],
        attrs,
        span: Span { line: 7 },
    }
    .into();
    let new = ZeroTheAnswer.mutate_expr(&e).unwrap_or_clone(&e);
    let (old, new) = (e.as_call().unwrap(), new.as_call().unwrap());
    assert!(!old.same_as(new));
    assert_eq!(new.op, "conv");
    assert_eq!(new.attrs.get("layout").map(String::as_str), Some("NCHW"));
    assert_eq!(new.span, Span { line: 7 });
    assert_eq!(new.args[0].as_constant().unwrap().value, 0);
    assert!(new.args[1].same_as(&old.args[1]));
}

#[test]
fn a_vector_is_copied_only_from_its_first_changed_element() {
    let e = tuple(vec![c(1), c(2), c(42), c(3)]);
    let (new, allocations) =
        allocations_during(|| ZeroTheAnswer.mutate_expr(&e).unwrap_or_clone(&e));
    // The new constant, the new vector, the new tuple node.
    assert_eq!(allocations, 3);
    let (old, new) = (e.as_tuple().unwrap(), new.as_tuple().unwrap());
    for i in [0, 1, 3] {
        assert!(old.fields[i].same_as(&new.fields[i]));
    }
}

#[test]
fn a_hook_that_replaces_a_rebuilt_node_allocates_only_the_replacement() {
    // `rebuild_fields` gives the new contents unallocated: folding `add(42, 1)`
    // allocates the rewritten child and the folded constant, never a rebuilt `add`.
    struct FoldAfterZero;
    impl ExprMutator for FoldAfterZero {
        fn mutate_constant(&mut self, n: &Node<Constant>) -> Transformed<Expr> {
            ZeroTheAnswer.mutate_constant(n)
        }
        fn mutate_call(&mut self, n: &Node<Call>) -> Transformed<Expr> {
            let new = n.rebuild_fields(self);
            assert!(new.is_replace());
            let sum = new
                .as_ref_or(n)
                .args
                .iter()
                .filter_map(|a| a.as_constant())
                .map(|k| k.value)
                .sum();
            c(sum).into()
        }
    }
    let e = call("add", vec![c(42), c(1)]);
    let (new, allocations) = allocations_during(|| FoldAfterZero.mutate_expr(&e));
    // The zeroed constant, the new args vector and the cloned `op` string of
    // the rebuilt call (whose node is never allocated), the folded constant.
    assert_eq!(allocations, 4);
    let new = new.unwrap_or_clone(&e);
    assert_eq!(print(&new), "1");
}
