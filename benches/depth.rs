//! Row 8 of the benchmark table: parse, print, visit, mutate, equality,
//! hashing and drop of a 10,000,000-deep let chain and a 10,000,000-deep
//! nested call, on the main thread's default stack, with time and peak memory.
//! One shape per process (`cargo bench --bench depth -- <let|call> [N]`), so
//! the peak resident set belongs to that shape; `cargo xtask bench` runs both.

mod support;

use std::time::Instant;

use ir_passes::relay::*;
use irkit::prelude::*;
use irkit::structural::{structural_eq_map_free_vars, structural_hash};
use support::{header, let_chain, peak_rss_mib, quick, row};

/// `add(add(...add(%x, 1f)..., 1f), 1f)`.
fn nested_call(n: usize, x: &Node<Var>) -> Expr {
    let (add, one) = (Expr::op("add"), Expr::constant(Tensor::scalar_f32(1.0)));
    let mut e: Expr = x.clone().into();
    for _ in 0..n {
        e = Expr::call(add.clone(), vec![e, one.clone()]);
    }
    e
}

struct CountNodes(usize);
impl TypeVisitor for CountNodes {}
impl PatternVisitor for CountNodes {}
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
impl TypeMutator for Identity {}
impl PatternMutator for Identity {}
impl ExprMutator for Identity {}

const TABLE: &str = "Depth (row 8): main thread, default 8 MiB stack";

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let shape = args.first().map(String::as_str).unwrap_or("let");
    let default_n = if quick() { 1_000_000 } else { 10_000_000 };
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default_n);
    // The parser's peak memory is about 2.4 KB per level (its recursion and
    // scopes), so parsing is measured at a depth that fits this machine.
    let parse_n = n.min(2_000_000);
    let name = if shape == "call" {
        "nested call"
    } else {
        "let chain"
    };
    header(
        TABLE,
        &[
            "shape",
            "depth",
            "operation",
            "seconds",
            "ns per level",
            "peak RSS MiB",
        ],
    );
    let report = |op: &str, depth: usize, secs: f64| {
        row(
            TABLE,
            &[
                name.into(),
                depth.to_string(),
                op.into(),
                format!("{secs:.2}"),
                format!("{:.0}", secs * 1e9 / depth as f64),
                format!("{:.0}", peak_rss_mib()),
            ],
        );
    };
    let timed = |op: &str, depth: usize, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        report(op, depth, t.elapsed().as_secs_f64());
    };

    let x = Expr::var("x", None);
    let mut main = None;
    timed("build (API)", n, &mut || {
        main = Some(if shape == "call" {
            nested_call(n, &x)
        } else {
            let_chain(n, &x)
        })
    });
    let main = main.expect("built");
    let mut count = CountNodes(0);
    timed("visit (count nodes)", n, &mut || count.visit_expr(&main));
    assert!(count.0 > n);
    timed("identity mutate", n, &mut || {
        assert!(matches!(Identity.mutate_expr(&main), Transformed::Keep))
    });
    timed(
        "structural equal (with itself, no shortcut)",
        n,
        &mut || assert!(structural_eq_map_free_vars(&main, &main)),
    );
    timed("structural hash", n, &mut || {
        std::hint::black_box(structural_hash(&main));
    });
    let mut text = String::new();
    timed("print", n, &mut || text = print_expr(&main));
    assert!(text.len() > n);
    drop(text);
    let mut holder = Some(main);
    timed("drop", n, &mut || holder = None);
    assert!(holder.is_none());

    let small = if shape == "call" {
        nested_call(parse_n, &x)
    } else {
        let_chain(parse_n, &x)
    };
    let text = print_expr(&small);
    drop(small);
    let mut parsed = None;
    timed("parse", parse_n, &mut || {
        parsed = Some(parse_expr(&text).expect("parses"))
    });
    assert!(parsed.is_some());
}
