//! The text format's targets (issue 11), each timed on its own: parse and
//! print throughput on a 100,000-binding program (TVM's flat anchor shape,
//! `%v(i) = add(%v(i-1), 1f)` with annotations), the parser's peak memory
//! per level of a deep let chain, printing a 10,000,000-deep let chain, and
//! dropping it. `cargo bench --bench relay_text [-- N]`; `cargo xtask bench`
//! runs it and prints the table.

mod support;

use std::hint::black_box;
use std::time::Instant;

use ir_passes::relay::*;
use support::{flat_program, header, let_chain, peak_bytes, quick, row, verdict};

const TABLE: &str = "Relay text format (issue 11)";

/// The best of `runs` timings of `f`, in seconds.
fn best(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let flat_n = 100_000;
    let deep_n: usize = args
        .first()
        .and_then(|a| a.parse().ok())
        .unwrap_or(if quick() { 1_000_000 } else { 10_000_000 });
    header(
        TABLE,
        &["operation", "input", "measured", "target", "verdict"],
    );

    let source = flat_program(flat_n);
    // `IRKIT_TEXT_PROFILE=parse|print|print-chain|drop-chain`: only that, many
    // times, for a profiler.
    if let Ok(op) = std::env::var("IRKIT_TEXT_PROFILE") {
        if op == "drop-chain" {
            for _ in 0..3 {
                drop(black_box(let_chain(deep_n, &Expr::var("x", None))));
            }
            return;
        }
        if op == "print-chain" {
            let chain = let_chain(deep_n, &Expr::var("x", None));
            for _ in 0..3 {
                drop(black_box(print_expr(black_box(&chain))));
            }
            return;
        }
        let module = parse_module(&source).expect("the flat program parses");
        for _ in 0..30 {
            match op.as_str() {
                "parse" => drop(black_box(parse_module(black_box(&source)))),
                _ => drop(black_box(print_module(black_box(&module)))),
            }
        }
        return;
    }
    let mb = source.len() as f64 / 1e6;
    let module = parse_module(&source).expect("the flat program parses");
    // Parsing only: each result is dropped after the clock stops (and its
    // memory reused by the next run, as in a process that parses often).
    let parse = (0..5)
        .map(|_| {
            let t = Instant::now();
            let m = black_box(parse_module(black_box(&source)));
            let secs = t.elapsed().as_secs_f64();
            drop(m);
            secs
        })
        .fold(f64::INFINITY, f64::min);
    let mut printed = String::new();
    let print = best(5, || printed = print_module(black_box(&module)));
    assert_eq!(printed, source);
    for (op, secs) in [("parse", parse), ("print", print)] {
        let rate = mb / secs;
        row(
            TABLE,
            &[
                op.into(),
                format!("{flat_n} bindings, {mb:.1} MB"),
                format!("{rate:.0} MB/s"),
                ">= 100 MB/s".into(),
                verdict(rate >= 100.0),
            ],
        );
    }
    drop(module);

    // The parser's memory on a deep chain: the most it holds at once, per level.
    let parse_n = deep_n.min(2_000_000);
    let text = print_expr(&let_chain(parse_n, &Expr::var("x", None)));
    let (parsed, peak) = peak_bytes(|| parse_expr(&text).expect("parses"));
    drop(parsed);
    let per_level = peak as f64 / parse_n as f64;
    row(
        TABLE,
        &[
            "parse a deep let chain: peak memory".into(),
            format!("{parse_n} levels"),
            format!("{per_level:.0} B/level"),
            "<= 200 B/level".into(),
            verdict(per_level <= 200.0),
        ],
    );
    drop(text);

    let chain = let_chain(deep_n, &Expr::var("x", None));
    let t = Instant::now();
    let text = print_expr(&chain);
    let print_ns = t.elapsed().as_secs_f64() * 1e9 / deep_n as f64;
    assert!(text.len() > deep_n);
    drop(text);
    row(
        TABLE,
        &[
            "print a let chain".into(),
            format!("{deep_n} levels"),
            format!("{print_ns:.0} ns/level"),
            "<= 500 ns/level".into(),
            verdict(print_ns <= 500.0),
        ],
    );
    let t = Instant::now();
    drop(chain);
    let drop_ns = t.elapsed().as_secs_f64() * 1e9 / deep_n as f64;
    row(
        TABLE,
        &[
            "drop a let chain".into(),
            format!("{deep_n} levels"),
            format!("{drop_ns:.0} ns/level"),
            "<= 60 ns/level".into(),
            verdict(drop_ns <= 60.0),
        ],
    );
}
