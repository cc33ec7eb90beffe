//! Folding a program the folder has already folded builds no node: it hands
//! back the very tree, and allocates only the growth of its scratch buffers,
//! whatever the size. Sums the canonical order leaves as they are (such as
//! a chain that starts from 0 because every operand is subtracted) are
//! recognized without being rebuilt.

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_during;
use ir_passes::tensor_ir::*;
#[path = "support/tensor_ir_trees.rs"]
mod tensor_ir_trees;
use tensor_ir_trees::arith_tree;

#[test]
fn folding_folded_input_builds_no_node_at_any_size() {
    let x = var("x");
    for leaves in [500, 5_000, 50_000, 500_000] {
        let folded = ConstantFolder::new().fold(&arith_tree(leaves, &x, &mut 0));
        let mut folder = ConstantFolder::new();
        let (again, allocations) = allocations_during(|| folder.fold(&folded));
        assert!(again.same_as(&folded), "{leaves} leaves: the very tree");
        // Scratch growth only: a few doublings of a few buffers (7 to 15
        // here; it was 1,208 at 500,000 leaves when sums were rebuilt to be
        // compared, and the 0 they start from summed into a new constant).
        assert!(
            allocations <= 32,
            "{leaves} leaves: {allocations} allocations"
        );
    }
}

#[test]
fn a_sum_of_subtracted_operands_is_recognized_as_canonical() {
    let e = parse_expr("((0 - max(x, 4)) - 1)").unwrap();
    let folded = ConstantFolder::new().fold(&e);
    let (again, allocations) = allocations_during(|| ConstantFolder::new().fold(&folded));
    assert!(again.same_as(&folded));
    assert_eq!(folded.to_string(), "((0 - max(x, 4)) - 1)");
    assert!(allocations <= 4, "{allocations} allocations");
}
