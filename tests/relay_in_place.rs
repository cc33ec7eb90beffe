//! In-place mode on the Relay dialect (`#[ir(in_place)]` on its `Expr`): a
//! pass run over a uniquely owned program writes new children into the
//! nodes on the path of a change, and copies below a shared node.

use ir_passes::relay::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_during;

/// Doubles the scalar constant `2f` (compared with a tensor made once, so
/// the pass allocates only what it builds).
struct DoubleTwos(Tensor);
impl TypeMutator for DoubleTwos {}
impl PatternMutator for DoubleTwos {}
impl ExprMutator for DoubleTwos {
    fn mutate_constant(&mut self, c: &Node<Constant>) -> Transformed<Expr> {
        if c.data == self.0 {
            Expr::constant(Tensor::scalar_f32(4.0)).into()
        } else {
            Transformed::Keep
        }
    }
}

/// The addresses of the calls of `e`, outermost first.
impl DoubleTwos {
    fn new() -> Self {
        DoubleTwos(Tensor::scalar_f32(2.0))
    }
}

fn calls(e: &Expr) -> Vec<usize> {
    let mut out = Vec::new();
    if let Some(call) = e.as_call() {
        out.push(e.addr());
        for arg in &call.args {
            out.extend(calls(arg));
        }
    }
    out
}

#[test]
fn a_change_deep_in_a_unique_program_allocates_only_the_new_leaf() {
    let mut e =
        parse_expr("free_var %x;\nadd(add(%x, 1f), multiply(%x, subtract(%x, 2f)))").unwrap();
    let before = calls(&e);
    let mut pass = DoubleTwos::new();
    let (changed, allocations) = allocations_during(|| e.mutate_in_place(&mut pass));
    assert!(changed);
    assert_eq!(
        print_expr(&e),
        "free_var %x;\nadd(add(%x, 1f), multiply(%x, subtract(%x, 4f)))\n"
    );
    // Every call on the path (and off it) is the very node it was.
    assert_eq!(calls(&e), before);
    let (_, leaf) = allocations_during(|| Expr::constant(Tensor::scalar_f32(4.0)));
    assert_eq!(allocations, leaf, "only the new constant is allocated");
}

#[test]
fn a_shared_node_on_the_path_is_copied_and_its_other_owner_sees_no_change() {
    let mut e = parse_expr("free_var %x;\nmultiply(%x, subtract(%x, 2f))").unwrap();
    let kept = e.clone();
    let root = e.addr();
    assert!(e.mutate_in_place(&mut DoubleTwos::new()));
    assert_eq!(
        print_expr(&e),
        "free_var %x;\nmultiply(%x, subtract(%x, 4f))\n"
    );
    assert_eq!(
        print_expr(&kept),
        "free_var %x;\nmultiply(%x, subtract(%x, 2f))\n"
    );
    assert_ne!(e.addr(), root, "the shared root is copied");
    assert_eq!(kept.addr(), root);
}

#[test]
fn in_place_and_copy_on_write_give_the_same_program() {
    let text = "free_var %x;\nfree_var %c;\nlet %a = add(%x, 2f);\nlet %b = (%a, 2f, if (%c) { 2f } else { %a });\n%b.1";
    let original = parse_expr(text).unwrap();
    let copied = DoubleTwos::new()
        .mutate_expr(&original)
        .unwrap_or_clone(&original);
    let mut in_place = parse_expr(text).unwrap();
    assert!(in_place.mutate_in_place(&mut DoubleTwos::new()));
    assert_eq!(print_expr(&in_place), print_expr(&copied));
    assert!(!print_expr(&in_place).contains("2f"));
}
