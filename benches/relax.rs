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

/// `run`'s median time over enough runs. What it returns is dropped after
/// the clock stops, as TVM's script deletes each result after timing it: a
/// row measures making a result, not freeing it.
fn median<R>(mut run: impl FnMut() -> R) -> Duration {
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || (start.elapsed() < Duration::from_millis(500) && times.len() < 50) {
        let t = Instant::now();
        let result = black_box(run());
        times.push(t.elapsed());
        drop(result);
    }
    times.sort();
    times[times.len() / 2]
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
    let ops = [
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
    let mut table: Vec<Vec<f64>> = vec![Vec::new(); ops.len()];
    let mut mb_per_s: Vec<(f64, f64)> = Vec::new();
    let mut allocations = Vec::new();
    for &n in sizes {
        let module = build(n);
        let copy = build(n);
        let main = Expr::Function(module.get("main").unwrap().clone());
        let text = print_module(&module);
        assert_eq!(print_module(&parse_module(&text).unwrap()), text);
        let mut pass = Empty::default();
        assert!(empty_mutator(&mut pass, &module));
        let (_, allocs) = counting_allocations(|| empty_mutator(&mut pass, &module));
        allocations.push(allocs);
        let (f, g) = (module.get("main").unwrap(), copy.get("main").unwrap());
        let mut times: Vec<Option<Duration>> = Vec::new();
        // One row's cell: skipped when another row was asked for.
        macro_rules! cell {
            ($run:expr) => {{
                let skip = only.as_deref().is_some_and(|o| o != ops[times.len()]);
                times.push((!skip).then(|| median(|| $run)));
            }};
        }
        cell!(build(n));
        cell!(assert!(black_box(free_vars(&main)).is_empty()));
        cell!(well_formed(black_box(&module)).unwrap());
        cell!(assert!(empty_mutator(&mut pass, black_box(&module))));
        // A mutator's builder keeps its last run's bindings (for
        // `lookup_binding`); kept, they would make every binding a shared
        // node to the rows below, as no finished pass leaves them.
        drop(pass);
        cell!(run_pass("dce", black_box(&module)));
        cell!(run_pass("canonicalize-bindings", black_box(&module)));
        cell!(run_pass("to-non-dataflow", black_box(&module)));
        cell!(assert!(structural_eq(black_box(f), g)));
        cell!(structural_hash(f));
        cell!(parse_module(&text).unwrap());
        cell!(print_module(&module));
        for (i, t) in times.iter().enumerate() {
            table[i].push(t.map_or(f64::NAN, |d| d.as_nanos() as f64 / n as f64));
        }
        let mb = text.len() as f64 / 1e6;
        let rate = |t: Option<Duration>| t.map_or(f64::NAN, |d| mb / d.as_secs_f64());
        mb_per_s.push((rate(times[9]), rate(times[10])));
    }
    let mut cols = vec!["operation".to_owned()];
    cols.extend(sizes.iter().map(|n| format!("N={n}")));
    cols.extend([
        "1e6 (or largest) / 1e3".into(),
        "target".into(),
        "verdict".into(),
    ]);
    header(TABLE, &cols.iter().map(String::as_str).collect::<Vec<_>>());
    for (op, v) in ops.iter().zip(&table) {
        let growth = v[v.len() - 1] / v[0];
        let mut cells = vec![op.to_string()];
        cells.extend(v.iter().map(|x| format!("{x:.1}")));
        cells.extend([
            format!("{growth:.2}"),
            "<= 2".into(),
            verdict(growth <= 2.0),
        ]);
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
}
