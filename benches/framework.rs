//! Derived visitors and mutators against a hand-written baseline (an
//! Arc-based enum with `match` recursion, let spines walked in a loop), side
//! by side in one run. `cargo xtask bench [--quick]` runs this and prints the
//! table; `IRKIT_BENCH_QUICK=1` shrinks the inputs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use irkit::prelude::*;

/// Counts allocations, to report what an identity pass allocates.
struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}
#[global_allocator]
static GLOBAL: Counting = Counting;

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
    fn visit_expr(&mut self, e: &Expr) {
        self.0 += 1;
        e.walk(self);
    }
}

struct Identity;
impl ExprMutator for Identity {}

struct BumpConsts;
impl ExprMutator for BumpConsts {
    fn mutate_const(&mut self, c: &Node<Const>) -> Rewrite<Expr> {
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

// ---- inputs, built identically for both ----

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn tree(n: usize, rng: &mut Rng) -> (Expr, H) {
    if n <= 1 {
        let v = rng.next() % 100;
        return if v < 50 {
            (
                Const { value: v as i64 }.into(),
                H::Const(Arc::new(HConst { value: v as i64 })),
            )
        } else {
            (
                Expr::from(Var { id: v as u32 }),
                H::Var(Arc::new(HVar { id: v as u32 })),
            )
        };
    }
    let left = 1 + (rng.next() as usize % (n - 1)).min(n - 2);
    let (a, ha) = ir_core::stack::guarded(|| tree(left, rng));
    let (b, hb) = ir_core::stack::guarded(|| tree(n - 1 - left, rng));
    let op = (rng.next() % 4) as u8;
    (
        Bin { op, lhs: a, rhs: b }.into(),
        H::Bin(Arc::new(HBin {
            op,
            lhs: ha,
            rhs: hb,
        })),
    )
}

fn chain(n: usize) -> (Expr, H) {
    let vars: Vec<(Node<Var>, Arc<HVar>)> = (0..n)
        .map(|i| {
            (
                Node::new(Var { id: i as u32 }),
                Arc::new(HVar { id: i as u32 }),
            )
        })
        .collect();
    let (mut e, mut h): (Expr, H) = (vars[n - 1].0.clone().into(), H::Var(vars[n - 1].1.clone()));
    for i in (0..n).rev() {
        let (prev, hprev): (Expr, H) = if i == 0 {
            (
                Const { value: 0 }.into(),
                H::Const(Arc::new(HConst { value: 0 })),
            )
        } else {
            (vars[i - 1].0.clone().into(), H::Var(vars[i - 1].1.clone()))
        };
        let value: Expr = Bin {
            op: 0,
            lhs: prev,
            rhs: Const { value: 1 }.into(),
        }
        .into();
        let hvalue = H::Bin(Arc::new(HBin {
            op: 0,
            lhs: hprev,
            rhs: H::Const(Arc::new(HConst { value: 1 })),
        }));
        e = Let {
            var: vars[i].0.clone(),
            value,
            body: e,
        }
        .into();
        h = H::Let(Arc::new(HLet {
            var: vars[i].1.clone(),
            value: hvalue,
            body: h,
        }));
    }
    (e, h)
}

fn quick() -> bool {
    std::env::var_os("IRKIT_BENCH_QUICK").is_some()
}

fn bench(c: &mut Criterion) {
    let n = if quick() { 100_000 } else { 1_000_000 };
    let shapes: [(&str, (Expr, H)); 2] = [
        ("tree", tree(n, &mut Rng(0x9E3779B97F4A7C15))),
        ("chain", chain(n / 4)),
    ];
    for (shape, (e, h)) in &shapes {
        let mut count = CountNodes(0);
        count.visit_expr(e);
        let nodes = count.0;
        assert_eq!(nodes, h_count(h), "both IRs have the same nodes");

        // Identity allocations, counted once outside timing.
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        let same = Identity.mutate_expr(e);
        let allocations = ALLOCATIONS.load(Ordering::Relaxed) - before;
        assert!(matches!(same, Rewrite::Keep));
        println!("irkit-bench {shape} nodes={nodes} identity-allocations={allocations}");

        let mut g = c.benchmark_group(shape.to_string());
        if quick() {
            g.sample_size(10)
                .measurement_time(std::time::Duration::from_secs(1))
                .warm_up_time(std::time::Duration::from_millis(300));
        } else {
            g.sample_size(10);
        }
        g.bench_function("visit/derived", |b| {
            b.iter(|| {
                let mut c = CountNodes(0);
                c.visit_expr(black_box(e));
                c.0
            })
        });
        g.bench_function("visit/hand", |b| b.iter(|| h_count(black_box(h))));
        g.bench_function("identity/derived", |b| {
            b.iter(|| matches!(Identity.mutate_expr(black_box(e)), Rewrite::Keep))
        });
        g.bench_function("identity/hand", |b| {
            b.iter(|| h_mutate(black_box(h), false).is_none())
        });
        g.bench_function("rebuild/derived", |b| {
            b.iter_with_large_drop(|| BumpConsts.mutate_expr(black_box(e)))
        });
        g.bench_function("rebuild/hand", |b| {
            b.iter_with_large_drop(|| h_mutate(black_box(h), true))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
