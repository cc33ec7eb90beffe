//! The balanced arithmetic tree the constant folder is measured and tested
//! on: one generator for `benches/tensor_ir.rs` and
//! `tests/tensor_ir_fold_allocations.rs`, so the test asserts on the tree the
//! bench row reports. Include with
//! `#[path = "…/support/tensor_ir_trees.rs"] mod tensor_ir_trees;`.

use ir_passes::tensor_ir::{Expr, constant, max, min};

/// A balanced tree of the seven arithmetic kinds over `leaves` leaves:
/// small constants, and `x` every fourth leaf.
pub fn arith_tree(leaves: usize, x: &Expr, next: &mut u64) -> Expr {
    if leaves == 1 {
        *next += 1;
        return if next.is_multiple_of(4) {
            x.clone()
        } else {
            constant((*next % 50) as i64 + 1)
        };
    }
    let l = arith_tree(leaves / 2, x, next);
    let r = arith_tree(leaves - leaves / 2, x, next);
    match *next % 7 {
        0 => l + r,
        1 => l - r,
        2 => l * r,
        3 => l / r,
        4 => l % r,
        5 => min(l, r),
        _ => max(l, r),
    }
}
