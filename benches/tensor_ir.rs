//! Tensor IR benchmarks: in-place against copy-on-write mutation on a large
//! uniquely owned tree where every leaf changes (time and allocations),
//! category-hook dispatch against specific hooks, and the constant folder per
//! node from 1e3 to 1e6 nodes.

mod support;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ir_core::{Mutate, Node, Transformed};
use ir_passes::tensor_ir::*;
#[path = "../tests/support/tensor_ir_trees.rs"]
mod tensor_ir_trees;
use tensor_ir_trees::arith_tree;

use support::{counting_allocations, header, mean_ns, note, quick, row, verdict};

/// A tree of `leaves` constant leaves under additions (every leaf changes
/// under [`Bump`]).
fn constant_tree(leaves: usize, next: &mut i64) -> Expr {
    if leaves == 1 {
        *next += 1;
        return constant(*next);
    }
    constant_tree(leaves / 2, next) + constant_tree(leaves - leaves / 2, next)
}

/// Replaces every constant by a new constant one larger.
struct Bump;
impl ExprMutator for Bump {
    fn mutate_constant(&mut self, c: &Node<Constant>) -> Transformed<Expr> {
        let Value::Int(v) = c.value else {
            return Transformed::Keep;
        };
        Transformed::Replace(constant(v + 1))
    }
}
impl StmtMutator for Bump {}

fn in_place_vs_copy(c: &mut Criterion) {
    let leaves = if quick() { 1 << 14 } else { 1 << 17 };
    let nodes = 2 * leaves - 1;
    let mut e = constant_tree(leaves, &mut 0);
    let (_, copy_allocations) = counting_allocations(|| Bump.mutate_expr(&e));
    let (changed, in_place_allocations) = counting_allocations(|| e.mutate_in_place(&mut Bump));
    assert!(changed);

    let group = "tensor_ir_in_place";
    let mut g = c.benchmark_group(group);
    g.bench_function("copy-on-write", |b| {
        b.iter(|| Bump.mutate_expr(black_box(&e)))
    });
    g.bench_function("in-place", |b| {
        b.iter(|| black_box(&mut e).mutate_in_place(&mut Bump))
    });
    g.finish();
    let copy_ns = mean_ns(group, "copy-on-write");
    let in_place_ns = mean_ns(group, "in-place");

    let table = "Tensor IR: in place against copy-on-write, every leaf of a unique tree changes";
    header(
        table,
        &[
            "mode",
            "nodes",
            "leaves",
            "time (ms)",
            "allocations",
            "target",
            "verdict",
        ],
    );
    row(
        table,
        &[
            "copy-on-write".into(),
            nodes.to_string(),
            leaves.to_string(),
            format!("{:.2}", copy_ns / 1e6),
            copy_allocations.to_string(),
            "every node (leaves and ancestors)".into(),
            verdict(copy_allocations == nodes),
        ],
    );
    row(
        table,
        &[
            "in place".into(),
            nodes.to_string(),
            leaves.to_string(),
            format!(
                "{:.2} ({:.2}x copy)",
                in_place_ns / 1e6,
                in_place_ns / copy_ns
            ),
            in_place_allocations.to_string(),
            "the new leaves only".into(),
            verdict(in_place_allocations == leaves),
        ],
    );
    note(
        table,
        "Copy-on-write time includes dropping the new tree each iteration; in place keeps one tree and rewrites its leaves again each iteration.",
    );
}

#[derive(Default)]
struct CategoryCount(usize);
impl ExprVisitor for CategoryCount {
    fn visit_binary(&mut self, b: Binary<'_>) {
        self.0 += 1;
        b.walk(self);
    }
}
impl StmtVisitor for CategoryCount {}

#[derive(Default)]
struct SpecificCount(usize);
macro_rules! specific {
    ($($hook:ident $op:ty),*) => {
        impl ExprVisitor for SpecificCount {
            $(fn $hook(&mut self, n: &Node<Arith<$op>>) {
                self.0 += 1;
                n.walk(self);
            })*
        }
    };
}
specific!(visit_add AddOp, visit_sub SubOp, visit_mul MulOp, visit_div DivOp, visit_mod ModOp, visit_min MinOp, visit_max MaxOp);
impl StmtVisitor for SpecificCount {}

fn category_dispatch(c: &mut Criterion) {
    let leaves = if quick() { 1 << 14 } else { 1 << 17 };
    let e = arith_tree(leaves, &var("x"), &mut 0);
    let mut by_category = CategoryCount::default();
    by_category.visit_expr(&e);
    let mut by_kind = SpecificCount::default();
    by_kind.visit_expr(&e);
    assert_eq!(by_category.0, leaves - 1);
    assert_eq!(by_kind.0, leaves - 1);

    let group = "tensor_ir_dispatch";
    let mut g = c.benchmark_group(group);
    g.bench_function("category", |b| {
        b.iter(|| {
            let mut v = CategoryCount::default();
            v.visit_expr(black_box(&e));
            v.0
        })
    });
    g.bench_function("specific", |b| {
        b.iter(|| {
            let mut v = SpecificCount::default();
            v.visit_expr(black_box(&e));
            v.0
        })
    });
    g.finish();
    let category_ns = mean_ns(group, "category");
    let specific_ns = mean_ns(group, "specific");
    let table = "Tensor IR: category hook against specific hooks";
    header(
        table,
        &["visitor", "binary nodes", "ns per node", "vs specific"],
    );
    for (name, ns) in [
        ("`visit_binary` (one hook)", category_ns),
        ("`visit_add` ... `visit_max` (seven hooks)", specific_ns),
    ] {
        row(
            table,
            &[
                name.into(),
                (leaves - 1).to_string(),
                format!("{:.2}", ns / (2 * leaves - 1) as f64),
                format!("{:.2}", ns / specific_ns),
            ],
        );
    }
}

fn folder_per_node(c: &mut Criterion) {
    let sizes: &[usize] = if quick() {
        &[1_000, 10_000, 100_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000]
    };
    let x = var("x");
    let group = "tensor_ir_fold";
    let mut g = c.benchmark_group(group);
    let mut inputs = Vec::new();
    for &n in sizes {
        let leaves = n.div_ceil(2);
        let e = arith_tree(leaves, &x, &mut 0);
        // Nothing left to fold: the folder must hand back the same tree.
        let folded = ConstantFolder::new().fold(&e);
        let (again, unchanged_allocations) =
            counting_allocations(|| ConstantFolder::new().fold(&folded));
        assert!(again.same_as(&folded));
        g.bench_with_input(BenchmarkId::new("fold", n), &e, |b, e| {
            b.iter(|| ConstantFolder::new().fold(black_box(e)))
        });
        // A read-only walk of the same tree: the memory cost of touching it.
        g.bench_with_input(BenchmarkId::new("walk", n), &e, |b, e| {
            b.iter(|| {
                let mut v = CategoryCount::default();
                v.visit_expr(black_box(e));
                v.0
            })
        });
        inputs.push((n, 2 * leaves - 1, unchanged_allocations));
    }
    g.finish();
    let table = "Tensor IR: constant folder per node";
    header(
        table,
        &[
            "nodes",
            "time (ms)",
            "ns per node",
            "vs 1e3",
            "walk ns per node",
            "fold / walk",
            "allocations on folded input",
        ],
    );
    let base = mean_ns(group, &format!("fold/{}", sizes[0])) / inputs[0].1 as f64;
    for (n, nodes, unchanged) in inputs {
        let ns = mean_ns(group, &format!("fold/{n}"));
        let per = ns / nodes as f64;
        let walk = mean_ns(group, &format!("walk/{n}")) / nodes as f64;
        row(
            table,
            &[
                nodes.to_string(),
                format!("{:.2}", ns / 1e6),
                format!("{per:.1}"),
                format!("{:.2}", per / base),
                format!("{walk:.1}"),
                format!("{:.1}", per / walk),
                unchanged.to_string(),
            ],
        );
    }
    note(
        table,
        "Balanced trees of the seven arithmetic kinds over constants and one variable; folding them to a fixed point, then folding the result again, which must build no node: the allocations left are the growth of the folder's two scratch buffers (the operands of the chains it puts in canonical order, oneDNN's order, and the operand ranges of its range analysis), a handful whatever the size. A read-only walk of the same tree is the baseline for memory effects: the nodes of the larger trees no longer fit in cache.",
    );
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = in_place_vs_copy, category_dispatch, folder_per_node
}
criterion_main!(benches);
