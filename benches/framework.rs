//! Rows 1-4 of the benchmark table: derived visitors and mutators against a
//! hand-written baseline (an Arc-based enum with `match` recursion, let spines
//! walked in a loop, written the way a careful engineer would), side by side
//! in one run. `cargo xtask bench [--quick]` runs this and prints the table.

mod support;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use irkit::prelude::*;
use rustc_hash::FxHashMap;
use support::{counting_allocations, header, mean_ns, quick, row, verdict};

// ---- the derived IR ----

#[derive(Clone, Visitable, Mutable)]
pub struct Const {
    #[ir(skip)]
    value: i64,
}
#[derive(Clone, Visitable, Mutable)]
pub struct Var {
    #[ir(skip)]
    #[allow(dead_code)] // identifies the variable; no pass reads it
    id: u32,
}
#[derive(Clone, Visitable, Mutable)]
pub struct Bin {
    #[ir(skip)]
    op: u8,
    lhs: Expr,
    rhs: Expr,
}
#[derive(Clone, Visitable, Mutable)]
pub struct Let {
    var: Node<Var>,
    value: Expr,
    #[ir(tail)]
    body: Expr,
}
#[derive(Clone, Visitable, Mutable)]
pub enum Expr {
    Const(Node<Const>),
    #[ir(def)]
    Var(Node<Var>),
    Bin(Node<Bin>),
    Let(Node<Let>),
}

struct CountNodes(usize);
impl ExprVisitor for CountNodes {
    // Counts before walking only, so let chains stay loops.
    fn visit_expr(&mut self, e: &Expr) {
        irkit::visit_preorder(self, e, |pass, _| {
            pass.0 += 1;
            std::ops::ControlFlow::Continue(())
        })
    }
}

struct Identity;
impl ExprMutator for Identity {}

struct BumpConsts;
impl ExprMutator for BumpConsts {
    fn mutate_const(&mut self, c: &Node<Const>) -> Transformed<Expr> {
        Const { value: c.value + 1 }.into()
    }
}

// ---- the hand-written IR ----

pub enum H {
    Const(Arc<HConst>),
    Var(Arc<HVar>),
    Bin(Arc<HBin>),
    Let(Arc<HLet>),
}
pub struct HConst {
    value: i64,
}
pub struct HVar {
    #[allow(dead_code)] // identifies the variable; no pass reads it
    id: u32,
}
pub struct HBin {
    op: u8,
    lhs: H,
    rhs: H,
}
pub struct HLet {
    var: Arc<HVar>,
    value: H,
    body: H,
}

impl Clone for H {
    fn clone(&self) -> Self {
        match self {
            H::Const(a) => H::Const(a.clone()),
            H::Var(a) => H::Var(a.clone()),
            H::Bin(a) => H::Bin(a.clone()),
            H::Let(a) => H::Let(a.clone()),
        }
    }
}

fn h_count(e: &H) -> usize {
    let mut n = 0;
    let mut e = e;
    loop {
        n += 1;
        match e {
            H::Const(_) | H::Var(_) => return n,
            H::Bin(b) => return n + h_count(&b.lhs) + h_count(&b.rhs),
            H::Let(l) => {
                n += h_count(&l.value);
                e = &l.body;
            }
        }
    }
}

/// `None` when nothing changed; `bump` rewrites every constant.
fn h_mutate(e: &H, bump: bool) -> Option<H> {
    match e {
        H::Const(c) => bump.then(|| H::Const(Arc::new(HConst { value: c.value + 1 }))),
        H::Var(_) => None,
        H::Bin(b) => {
            let (l, r) = (h_mutate(&b.lhs, bump), h_mutate(&b.rhs, bump));
            if l.is_none() && r.is_none() {
                return None;
            }
            Some(H::Bin(Arc::new(HBin {
                op: b.op,
                lhs: l.unwrap_or_else(|| b.lhs.clone()),
                rhs: r.unwrap_or_else(|| b.rhs.clone()),
            })))
        }
        H::Let(_) => {
            // The spine iteratively, then rebuilt from the bottom only if changed.
            let mut spine = Vec::new();
            let mut cur = e;
            while let H::Let(l) = cur {
                spine.push((l, h_mutate(&l.value, bump)));
                cur = &l.body;
            }
            let mut body = h_mutate(cur, bump);
            for (l, value) in spine.into_iter().rev() {
                if value.is_none() && body.is_none() {
                    continue;
                }
                body = Some(H::Let(Arc::new(HLet {
                    var: l.var.clone(),
                    value: value.unwrap_or_else(|| l.value.clone()),
                    body: body.unwrap_or_else(|| l.body.clone()),
                })));
            }
            body
        }
    }
}

/// Memoized rewrite of every constant: each shared node is rewritten once.
#[derive(Default)]
struct MemoBump {
    memo: MemoMap<Expr>,
    constants_rewritten: usize,
}
impl ExprMutator for MemoBump {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        ir_core::memoized(self, e, |p| &mut p.memo)
    }
    fn mutate_const(&mut self, c: &Node<Const>) -> Transformed<Expr> {
        self.constants_rewritten += 1;
        Const { value: c.value + 1 }.into()
    }
}

/// The hand-written memo: shared nodes (refcount > 1) by address, like `MemoMap`.
fn h_memo(e: &H, memo: &mut FxHashMap<usize, Option<H>>) -> Option<H> {
    let (addr, shared) = match e {
        H::Const(a) => (Arc::as_ptr(a) as usize, Arc::strong_count(a) > 1),
        H::Var(_) => return None,
        H::Bin(a) => (Arc::as_ptr(a) as usize, Arc::strong_count(a) > 1),
        H::Let(a) => (Arc::as_ptr(a) as usize, Arc::strong_count(a) > 1),
    };
    if shared && let Some(done) = memo.get(&addr) {
        return done.clone();
    }
    let result = match e {
        H::Bin(b) => {
            let (l, r) = (h_memo(&b.lhs, memo), h_memo(&b.rhs, memo));
            if l.is_none() && r.is_none() {
                None
            } else {
                Some(H::Bin(Arc::new(HBin {
                    op: b.op,
                    lhs: l.unwrap_or_else(|| b.lhs.clone()),
                    rhs: r.unwrap_or_else(|| b.rhs.clone()),
                })))
            }
        }
        _ => h_mutate(e, true),
    };
    if shared {
        memo.insert(addr, result.clone());
    }
    result
}

// ---- inputs: built once with the derived IR, then converted, so that the
// two IRs have the same shape and sharing but do not share cache lines ----

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn constant(value: i64) -> Expr {
    Const { value }.into()
}

fn tree(n: usize, rng: &mut Rng) -> Expr {
    if n <= 1 {
        let v = rng.next() % 100;
        return if v < 50 {
            constant(v as i64)
        } else {
            Var { id: v as u32 }.into()
        };
    }
    let left = 1 + (rng.next() as usize % (n - 1)).min(n - 2);
    let lhs = ir_core::stack::guarded(|| tree(left, rng));
    let rhs = ir_core::stack::guarded(|| tree(n - 1 - left, rng));
    let op = (rng.next() % 4) as u8;
    Bin { op, lhs, rhs }.into()
}

/// `let %i = %(i-1) + 1; ...; %(n-1)`: 4 nodes per binding.
fn chain(n: usize) -> Expr {
    let vars: Vec<Node<Var>> = (0..n).map(|i| Node::new(Var { id: i as u32 })).collect();
    let mut e: Expr = vars[n - 1].clone().into();
    for i in (0..n).rev() {
        let lhs = if i == 0 {
            constant(0)
        } else {
            vars[i - 1].clone().into()
        };
        let value = Bin {
            op: 0,
            lhs,
            rhs: constant(1),
        }
        .into();
        e = Let {
            var: vars[i].clone(),
            value,
            body: e,
        }
        .into();
    }
    e
}

/// Layers of `width` nodes, each combining two random nodes of the layer
/// below: every node is shared by about two parents, and the unshared tree
/// would have 2^layers leaves.
fn dag(n: usize, rng: &mut Rng) -> Expr {
    let width = 1000.min(n);
    let mut layer: Vec<Expr> = (0..width).map(|i| constant(i as i64)).collect();
    for _ in 1..n / width {
        layer = (0..width)
            .map(|_| {
                let a = layer[rng.next() as usize % width].clone();
                let b = layer[rng.next() as usize % width].clone();
                Bin {
                    op: 1,
                    lhs: a,
                    rhs: b,
                }
                .into()
            })
            .collect();
    }
    layer
        .into_iter()
        .reduce(|lhs, rhs| Bin { op: 2, lhs, rhs }.into())
        .expect("at least one node")
}

/// The same IR, hand-written: shared nodes stay shared.
fn to_hand(e: &Expr, seen: &mut FxHashMap<usize, H>) -> H {
    if let Some(h) = seen.get(&e.addr()) {
        return h.clone();
    }
    let h = ir_core::stack::guarded(|| match e {
        Expr::Const(c) => H::Const(Arc::new(HConst { value: c.value })),
        Expr::Var(v) => H::Var(hand_var(v, seen)),
        Expr::Bin(b) => H::Bin(Arc::new(HBin {
            op: b.op,
            lhs: to_hand(&b.lhs, seen),
            rhs: to_hand(&b.rhs, seen),
        })),
        Expr::Let(l) => H::Let(Arc::new(HLet {
            var: hand_var(&l.var, seen),
            value: to_hand(&l.value, seen),
            body: to_hand(&l.body, seen),
        })),
    });
    if e.strong_count() > 1 {
        seen.insert(e.addr(), h.clone());
    }
    h
}

fn hand_var(v: &Node<Var>, seen: &mut FxHashMap<usize, H>) -> Arc<HVar> {
    match seen
        .entry(v.addr())
        .or_insert_with(|| H::Var(Arc::new(HVar { id: v.id })))
    {
        H::Var(a) => a.clone(),
        _ => unreachable!("a variable's address maps to a variable"),
    }
}

/// Nodes of `new` that are not nodes of `old` (what a rebuild allocated).
fn rebuilt(old: &Expr, new: &Expr) -> usize {
    if old.same_as(new) {
        return 0;
    }
    ir_core::stack::guarded(|| match (old, new) {
        (Expr::Bin(a), Expr::Bin(b)) => 1 + rebuilt(&a.lhs, &b.lhs) + rebuilt(&a.rhs, &b.rhs),
        (Expr::Let(a), Expr::Let(b)) => 1 + rebuilt(&a.value, &b.value) + rebuilt(&a.body, &b.body),
        _ => 1,
    })
}

const TABLE: &str = "Derived against hand-written (rows 1-4), ns per node";

fn derived_vs_hand(c: &mut Criterion) {
    let n = if quick() { 100_000 } else { 1_000_000 };
    header(
        TABLE,
        &[
            "row",
            "shape",
            "nodes",
            "derived",
            "hand-written",
            "derived/hand",
            "target",
            "verdict",
        ],
    );
    let mut identity_tree_ns = f64::NAN;
    for shape in ["tree", "chain"] {
        let e = match shape {
            "tree" => tree(n, &mut Rng(0x9E37_79B9_7F4A_7C15)),
            _ => chain(n / 4),
        };
        let h = to_hand(&e, &mut FxHashMap::default());
        // The let chain is one spine: its driver allocates one vector when it rebuilds.
        let spines = usize::from(shape == "chain");
        let mut count = CountNodes(0);
        count.visit_expr(&e);
        let nodes = count.0;
        assert_eq!(nodes, h_count(&h), "both IRs have the same nodes");

        // Checked once, outside the timings.
        let (same, identity_allocations) = counting_allocations(|| Identity.mutate_expr(&e));
        assert!(
            matches!(same, Transformed::Keep),
            "identity returns the same root"
        );
        let (new, rebuild_allocations) = counting_allocations(|| BumpConsts.mutate_expr(&e));
        let new = new.unwrap_or_clone(&e);
        let rebuilt_nodes = rebuilt(&e, &new);
        drop(new);

        let mut g = c.benchmark_group(shape);
        g.bench_function("visit/derived", |b| {
            b.iter(|| {
                let mut c = CountNodes(0);
                c.visit_expr(black_box(&e));
                c.0
            })
        });
        g.bench_function("visit/hand", |b| b.iter(|| h_count(black_box(&h))));
        g.bench_function("identity/derived", |b| {
            b.iter(|| matches!(Identity.mutate_expr(black_box(&e)), Transformed::Keep))
        });
        g.bench_function("identity/hand", |b| {
            b.iter(|| h_mutate(black_box(&h), false).is_none())
        });
        g.bench_function("rebuild/derived", |b| {
            b.iter_with_large_drop(|| BumpConsts.mutate_expr(black_box(&e)))
        });
        g.bench_function("rebuild/hand", |b| {
            b.iter_with_large_drop(|| h_mutate(black_box(&h), true))
        });
        g.finish();

        for (name, limit, extra, ok) in [
            ("visit", 1.10, String::new(), true),
            (
                "identity",
                1.10,
                format!("; {identity_allocations} allocations, same root"),
                identity_allocations == 0,
            ),
            (
                "rebuild",
                1.15,
                format!(
                    "; {rebuild_allocations} allocations for {rebuilt_nodes} rebuilt nodes{}",
                    if spines > 0 { " + 1 spine vector" } else { "" }
                ),
                rebuild_allocations == rebuilt_nodes + spines,
            ),
        ] {
            let d = mean_ns(shape, &format!("{name}/derived")) / nodes as f64;
            let hand = mean_ns(shape, &format!("{name}/hand")) / nodes as f64;
            if name == "identity" && shape == "tree" {
                identity_tree_ns = d;
            }
            row(
                TABLE,
                &[
                    name.into(),
                    shape.into(),
                    nodes.to_string(),
                    format!("{d:.2}"),
                    format!("{hand:.2}"),
                    format!("{:.2}{extra}", d / hand),
                    format!("<= {limit:.2}"),
                    verdict(d / hand <= limit && ok),
                ],
            );
        }
    }

    // Row 4: memoized mutation of a DAG with heavy sharing.
    let e = dag(n, &mut Rng(0x2545_F491_4F6C_DD1D));
    let h = to_hand(&e, &mut FxHashMap::default());
    let mut seen = VisitedSet::new();
    let mut unique = UniqueNodes(&mut seen, 0, 0);
    unique.visit_expr(&e);
    let (nodes, constants) = (unique.1, unique.2);
    let mut pass = MemoBump::default();
    let new = pass.mutate_expr(&e).unwrap_or_clone(&e);
    assert_eq!(
        pass.constants_rewritten, constants,
        "each shared constant rewritten once"
    );
    drop(new);
    let mut g = c.benchmark_group("dag");
    g.bench_function("memo/derived", |b| {
        b.iter_with_large_drop(|| MemoBump::default().mutate_expr(black_box(&e)))
    });
    g.bench_function("memo/hand", |b| {
        b.iter_with_large_drop(|| h_memo(black_box(&h), &mut FxHashMap::default()))
    });
    g.finish();
    let d = mean_ns("dag", "memo/derived") / nodes as f64;
    let hand = mean_ns("dag", "memo/hand") / nodes as f64;
    row(
        TABLE,
        &[
            "memoized rebuild".into(),
            "DAG".into(),
            nodes.to_string(),
            format!("{d:.2}"),
            format!("{hand:.2}"),
            format!(
                "{:.2}; each of {constants} constants rewritten once; {:.2}x identity (tree)",
                d / hand,
                d / identity_tree_ns
            ),
            "<= 1.10; <= 2x identity".into(),
            verdict(d / hand <= 1.10 && d / identity_tree_ns <= 2.0),
        ],
    );
}

/// An open family and a kind added to it "downstream", for the cost of
/// dispatching to a downstream kind's hook against an upstream kind's.
mod open {
    use irkit::ext::Ext;
    use irkit::prelude::*;

    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Lit {
        #[ir(skip)]
        pub value: i64,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Add {
        pub lhs: Expr,
        pub rhs: Expr,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    #[ir(extensible)]
    pub enum Expr {
        Lit(Node<Lit>),
        Add(Node<Add>),
        Ext(Ext<Expr>),
    }

    /// The downstream leaf: the same data as `Lit`.
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct DownLit {
        #[ir(skip)]
        pub value: i64,
    }
    #[derive(Visitable, Mutable)]
    #[ir(extends(Expr))]
    pub enum Down {
        DownLit(Node<DownLit>),
    }

    /// A balanced tree of `2^depth` leaves made by `leaf`.
    pub fn tree(depth: u32, leaf: &dyn Fn(i64) -> Expr) -> Expr {
        if depth == 0 {
            return leaf(1);
        }
        Add {
            lhs: tree(depth - 1, leaf),
            rhs: tree(depth - 1, leaf),
        }
        .into()
    }

    /// Sums leaves through their own hooks, upstream and downstream.
    pub struct SumLeaves(pub i64);
    impl ExprVisitor for SumLeaves {
        fn visit_lit(&mut self, n: &Node<Lit>) {
            self.0 += n.value;
        }
        fn visit_ext(&mut self, n: &Ext<Expr>) {
            self.visit_down(n)
        }
    }
    impl DownVisitor for SumLeaves {
        fn visit_down_lit(&mut self, n: &Node<DownLit>) {
            self.0 += n.value;
        }
    }
}

/// Row 4b: the hook of a kind added downstream against an upstream kind's,
/// on the same tree (half the nodes are leaves).
fn extension_dispatch(c: &mut Criterion) {
    use open::*;
    const TABLE: &str =
        "Open families (row 4b): ns per node, the same tree with upstream or downstream leaves";
    header(
        TABLE,
        &["leaves", "nodes", "ns per node", "vs upstream leaves"],
    );
    let depth = if quick() { 14 } else { 17 };
    let upstream = tree(depth, &|value| Lit { value }.into());
    let downstream = tree(depth, &|value| DownLit { value }.into());
    let nodes = (1usize << (depth + 1)) - 1;
    let mut g = c.benchmark_group("open");
    g.bench_function("upstream", |b| {
        b.iter(|| {
            let mut s = SumLeaves(0);
            s.visit_expr(black_box(&upstream));
            s.0
        })
    });
    g.bench_function("downstream", |b| {
        b.iter(|| {
            let mut s = SumLeaves(0);
            s.visit_expr(black_box(&downstream));
            s.0
        })
    });
    g.finish();
    let up = mean_ns("open", "upstream") / nodes as f64;
    let down = mean_ns("open", "downstream") / nodes as f64;
    row(
        TABLE,
        &[
            "upstream".into(),
            nodes.to_string(),
            format!("{up:.2}"),
            "1.00".into(),
        ],
    );
    row(
        TABLE,
        &[
            "downstream".into(),
            nodes.to_string(),
            format!("{down:.2}"),
            format!("{:.2}", down / up),
        ],
    );
}

/// Counts distinct nodes (and constants) of a DAG.
struct UniqueNodes<'a>(&'a mut VisitedSet<Expr>, usize, usize);
impl ExprVisitor for UniqueNodes<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        if self.0.first_visit(e) {
            self.1 += 1;
            self.2 += usize::from(e.is_const());
            e.walk(self);
        }
    }
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = derived_vs_hand, extension_dispatch
}
criterion_main!(benches);
