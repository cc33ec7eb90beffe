//! Relax on TVM's flat anchor program (issue 10): `main(x)` with one dataflow
//! block of N `R.add(lv, c)` bindings and an output, the program
//! `../shared/anchors/tvm/tvm_anchor.py` builds. Every row TVM measures on it
//! (builder, free_vars, well_formed, the empty mutator, dce,
//! canonicalize-bindings, to-non-dataflow, structural equality and hash),
//! plus parse and print, at N = 1e3 … 1e6, in ns per binding; and the
//! allocations of the empty mutator. `cargo xtask bench` prints the table;
//! with `--vs-tvm` it puts TVM's figures beside these, from the same run.
//!
//! Each cell is the median of repeated runs (at least five, more while they
//! take under half a second): criterion's sampling would take minutes per
//! cell at a million bindings.
//!
//! The growth target (cost per binding at the largest N against the
//! smallest) has its own table, measured in pairs: the two sizes run
//! alternately, so that both halves of a ratio share this shared host's
//! spells of speed (which change it by up to 2× for a second or so).

mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use ir_core::pass::PassContext;
use ir_passes::relax::passes::registry;
use ir_passes::relax::*;
use irkit::structural::{structural_eq, structural_hash};
use support::{counting_allocations, header, note, quick, row, verdict};

const TABLE: &str = "Relax, TVM's flat program (issue 10), ns per binding";

/// The anchor program, built with the block builder as TVM's script does.
fn build(n: usize) -> RelaxModule {
    let t = StructInfo::tensor(vec![4.into()], DataType::F32);
    let mut bb = BlockBuilder::new();
    let x = bb.param("x", t);
    let c = Expr::scalar(1.0, DataType::F32);
    bb.begin_function("main", vec![x.clone()]).unwrap();
    bb.begin_dataflow_block().unwrap();
    let mut lv = x;
    for _ in 0..n {
        lv = bb
            .emit(Expr::call_op("add", [Expr::Var(lv), c.clone()]), "lv")
            .unwrap();
    }
    let gv = bb.emit_output(Expr::Var(lv), "gv").unwrap();
    bb.end_block().unwrap();
    bb.emit_func_output(Expr::Var(gv)).unwrap();
    bb.finalize().unwrap()
}

/// One run's time. What it returns is dropped after the clock stops, as
/// TVM's script deletes each result after timing it: a row measures making
/// a result, not freeing it.
fn time_once<R>(run: impl FnOnce() -> R) -> Duration {
    let t = Instant::now();
    let result = black_box(run());
    let elapsed = t.elapsed();
    drop(result);
    elapsed
}

/// `run`'s median time over at least `min` runs, more while they have taken
/// under `budget` in all, up to `max`.
fn median_of<R>(mut run: impl FnMut() -> R, min: usize, budget: Duration, max: usize) -> Duration {
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < min || (start.elapsed() < budget && times.len() < max) {
        times.push(time_once(&mut run));
    }
    times.sort();
    times[times.len() / 2]
}

/// A cell: `run`'s median time over at least five runs, more while they
/// take under half a second.
fn median<R>(run: impl FnMut() -> R) -> Duration {
    median_of(run, 5, Duration::from_millis(500), 50)
}

#[derive(Default)]
struct Empty(MutatorState);
impl PrimExprMutator for Empty {}
impl StructInfoMutator for Empty {}
impl ExprMutator for Empty {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.0
    }
}

/// The empty mutator over every function; whether each came back as itself.
fn empty_mutator(pass: &mut Empty, module: &RelaxModule) -> bool {
    module.functions().all(|(_, f)| {
        let e = Expr::Function(f.clone());
        matches!(run_mutator(pass, &e), Ok(out) if out.same_as(&e))
    })
}

fn run_pass(name: &str, module: &RelaxModule) -> RelaxModule {
    let pipeline = registry().pipeline(name).unwrap();
    PassContext::default().run(&pipeline, module).unwrap()
}

/// The rows, in order.
const OPS: [&str; 11] = [
    "build",
    "free_vars",
    "well_formed",
    "empty mutator",
    "dce",
    "canonicalize-bindings",
    "to-non-dataflow",
    "structural_equal",
    "structural_hash",
    "parse",
    "print",
];

/// What the rows run on at one N: the program, an equal copy built apart
/// (for equality), its text, and the empty mutator (whose builder scratch
/// is reused from run to run, as a pass's is).
struct Fixture {
    n: usize,
    module: RelaxModule,
    copy: RelaxModule,
    text: String,
    pass: Option<Empty>,
}

impl Fixture {
    fn new(n: usize) -> Self {
        let module = build(n);
        let copy = build(n);
        let text = print_module(&module);
        assert_eq!(print_module(&parse_module(&text).unwrap()), text);
        Fixture {
            n,
            module,
            copy,
            text,
            pass: None,
        }
    }

    /// Runs row `op` once, returning its result to drop after the clock
    /// stops, as TVM's script deletes each result after timing it: a row
    /// measures making a result, not freeing it.
    fn run(&mut self, op: &str) -> Box<dyn std::any::Any> {
        let module = black_box(&self.module);
        let main = || module.get("main").unwrap();
        match op {
            "build" => Box::new(build(self.n)),
            "free_vars" => {
                let free = free_vars(&Expr::Function(main().clone()));
                assert!(black_box(free).is_empty());
                Box::new(())
            }
            "well_formed" => {
                well_formed(module).unwrap();
                Box::new(())
            }
            "empty mutator" => {
                let pass = self.pass.get_or_insert_with(Empty::default);
                assert!(empty_mutator(pass, module));
                Box::new(())
            }
            "dce" | "canonicalize-bindings" | "to-non-dataflow" => {
                // A mutator's builder keeps its last run's bindings (for
                // `lookup_binding`); kept, they would make every binding a
                // shared node to these rows, as no finished pass leaves them.
                self.pass = None;
                Box::new(run_pass(op, module))
            }
            "structural_equal" => {
                assert!(structural_eq(main(), self.copy.get("main").unwrap()));
                Box::new(())
            }
            "structural_hash" => Box::new(structural_hash(main())),
            "parse" => Box::new(parse_module(&self.text).unwrap()),
            "print" => Box::new(print_module(module)),
            other => unreachable!("no row {other}"),
        }
    }

    /// `op`'s median time per binding over enough runs.
    fn per_binding(&mut self, op: &str) -> f64 {
        median(|| self.run(op)).as_nanos() as f64 / self.n as f64
    }
}

/// Runs every row on `fx`, untimed, for a few seconds before anything is
/// measured (criterion warms up each benchmark for 3 s). The first cells
/// measured by a fresh process, right after a compile or after TVM's script
/// freed its gigabytes, were up to twice as slow as the same cells a minute
/// later.
fn warm_up(ops: &[&str], fx: &mut Fixture) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) {
        for op in ops {
            drop(black_box(fx.run(op)));
        }
    }
}

/// `op`'s growth, `large`'s cost per binding over `small`'s, measured in
/// pairs close in time. Each pair: two runs at the large size, the second
/// timed; then, right after it, one untimed run at the small size and a
/// batch of timed ones (their median). Each size's first run after the
/// other's pays for caches the other evicted and memory the allocator
/// returned meanwhile, so neither counts. The result is the median of the
/// pairs' ratios, with their lowest and highest.
///
/// This host's speed changes by up to 2× for a second or so at a time; the
/// table's columns are measured minutes apart, so their ratio can set a
/// fast spell against a slow one, while a pair's two halves are adjacent.
fn paired_growth(op: &str, small: &mut Fixture, large: &mut Fixture) -> (f64, f64, f64) {
    let mut ratios = Vec::new();
    let start = Instant::now();
    while ratios.len() < 3 || (start.elapsed() < Duration::from_secs(2) && ratios.len() < 15) {
        time_once(|| large.run(op));
        let large_ns = time_once(|| large.run(op)).as_nanos() as f64 / large.n as f64;
        time_once(|| small.run(op));
        let batch = median_of(|| small.run(op), 9, Duration::from_millis(5), 200);
        let small_ns = batch.as_nanos() as f64 / small.n as f64;
        ratios.push(large_ns / small_ns);
    }
    ratios.sort_by(f64::total_cmp);
    (
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1],
    )
}

fn main() {
    // `cargo bench --bench relax -- [N ...]`: only those sizes, and with
    // IRKIT_RELAX_OP=<operation> only that row (for profiling).
    let only = std::env::var("IRKIT_RELAX_OP").ok();
    let given: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes: &[usize] = if !given.is_empty() {
        &given
    } else if quick() {
        &[1_000, 10_000, 100_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000]
    };
    let ops: Vec<&str> = OPS
        .into_iter()
        .filter(|op| only.as_deref().is_none_or(|o| o == *op))
        .collect();
    let mut table: Vec<Vec<f64>> = vec![Vec::new(); OPS.len()];
    let mut mb_per_s: Vec<(f64, f64)> = Vec::new();
    let mut allocations = Vec::new();
    // The first size's fixture warms up, is measured, and stays for the
    // paired growth with the last size's.
    let mut first = Fixture::new(sizes[0]);
    warm_up(&ops, &mut first);
    let mut last: Option<Fixture> = None;
    for (k, &n) in sizes.iter().enumerate() {
        let fx = if k == 0 {
            &mut first
        } else {
            // The previous size's program is freed before the next is built.
            drop(last.take());
            last.insert(Fixture::new(n))
        };
        let mut pass = Empty::default();
        assert!(empty_mutator(&mut pass, &fx.module));
        let (_, allocs) = counting_allocations(|| empty_mutator(&mut pass, &fx.module));
        allocations.push(allocs);
        drop(pass);
        for (i, op) in OPS.iter().enumerate() {
            let cell = if ops.contains(op) {
                fx.per_binding(op)
            } else {
                f64::NAN
            };
            table[i].push(cell);
        }
        let mb = fx.text.len() as f64 / 1e6;
        let rate = |ns: f64| mb / (ns * n as f64 / 1e9);
        mb_per_s.push((
            rate(table[9][table[9].len() - 1]),
            rate(table[10][table[10].len() - 1]),
        ));
    }
    let mut cols = vec!["operation".to_owned()];
    cols.extend(sizes.iter().map(|n| format!("N={n}")));
    // The growth target is checked in the paired table below: these columns
    // are measured minutes apart.
    cols.push("largest / smallest N".into());
    header(TABLE, &cols.iter().map(String::as_str).collect::<Vec<_>>());
    for (op, v) in OPS.iter().zip(&table) {
        let growth = v[v.len() - 1] / v[0];
        let mut cells = vec![op.to_string()];
        cells.extend(v.iter().map(|x| format!("{x:.1}")));
        cells.push(format!("{growth:.2}"));
        row(TABLE, &cells);
        // For `cargo xtask bench --vs-tvm`.
        for (n, x) in sizes.iter().zip(v) {
            println!("irkit-ns-per-binding\trelax {op}\t{n}\t{x}");
        }
    }
    let mbs: Vec<String> = sizes
        .iter()
        .zip(&mb_per_s)
        .map(|(n, (p, q))| format!("N={n}: parse {p:.0} MB/s, print {q:.0} MB/s"))
        .collect();
    note(TABLE, &format!("Text: {}.", mbs.join("; ")));
    let allocs: Vec<String> = sizes
        .iter()
        .zip(&allocations)
        .map(|(n, a)| format!("{a} at N={n}"))
        .collect();
    note(
        TABLE,
        &format!(
            "Allocations of the empty mutator over the module, after one warm-up run: {} (target 0: {}).",
            allocs.join(", "),
            verdict(allocations.iter().all(|&a| a == 0))
        ),
    );
    note(
        TABLE,
        "Growth is checked in the paired table below; the ratio of this table's columns, \
         measured minutes apart, can set a slow spell of this shared host against a fast one.",
    );
    if let Some(last) = &mut last {
        paired_growth_table(&ops, &mut first, last);
    }
}

/// The growth target, per binding at the largest N against the smallest,
/// measured in pairs ([`paired_growth`]).
fn paired_growth_table(ops: &[&str], small: &mut Fixture, large: &mut Fixture) {
    const GROWTH: &str =
        "Relax growth, paired (issue 10): ns per binding at the largest N over the smallest";
    header(
        GROWTH,
        &[
            "operation",
            "pairs' median",
            "lowest",
            "highest",
            "target",
            "verdict",
        ],
    );
    for op in ops {
        let (growth, low, high) = paired_growth(op, small, large);
        row(
            GROWTH,
            &[
                op.to_string(),
                format!("{growth:.2}"),
                format!("{low:.2}"),
                format!("{high:.2}"),
                "<= 2".into(),
                verdict(growth <= 2.0),
            ],
        );
        // For `cargo xtask bench --vs-tvm --rounds`.
        println!(
            "irkit-growth\trelax {op}\t{}\t{}\t{growth}",
            small.n, large.n
        );
    }
    note(
        GROWTH,
        &format!(
            "N={} against N={}. Each pair: two runs at the large N (the second timed), then \
             one at the small N and a batch of at least 9 timed (their median); 3 to 15 pairs \
             per row, the median of their ratios.",
            large.n, small.n
        ),
    );
}
