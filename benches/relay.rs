//! Rows 5-7 and 9 of the benchmark table, on the Relay dialect: structural
//! equality and hashing, parse and print throughput, passes on a flat program
//! of N bindings (`%i = add(%i-1, c)`, TVM's anchor shape), and a parallel
//! function pass. `cargo xtask bench [--quick]` runs this and prints the tables.

mod support;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ir_passes::relay::passes::{dead_code_elimination, fold_constant, registry, to_anf};
use ir_passes::relay::*;
use irkit::pass::{Module, PassContext};
use irkit::prelude::*;
use irkit::structural::{structural_eq, structural_hash};
use support::{flat_program, header, mean_ns, note, quick, row, verdict};

fn main_of(module: &RelayModule) -> Node<Function> {
    module.get("main").expect("the program has @main").clone()
}

/// A mutator with no overrides (TVM's `ApplyEmptyCppMutator`).
struct Empty;
impl TypeMutator for Empty {}
impl PatternMutator for Empty {}
impl ExprMutator for Empty {}

/// The passes measured per binding: (name, target note, run once).
type Run = fn(&Node<Function>, &Node<Function>) -> usize;
const PASSES: [(&str, Run); 7] = [
    ("free_vars", |f, _| function_free_vars(f).len()),
    ("empty mutator", |f, _| {
        usize::from(Empty.mutate_expr(&Expr::from(f.clone())).is_replace())
    }),
    ("DeadCodeElimination", |f, _| {
        usize::from(dead_code_elimination(&Expr::from(f.clone()), false).is_function())
    }),
    ("FoldConstant", |f, _| {
        usize::from(fold_constant(&Expr::from(f.clone())).is_function())
    }),
    ("ToANormalForm", |f, _| {
        usize::from(to_anf(&Expr::from(f.clone())).is_function())
    }),
    ("structural_equal", |f, copy| {
        usize::from(structural_eq(f, copy))
    }),
    ("structural_hash", |f, _| structural_hash(f) as usize),
];

const PASS_TABLE: &str = "Passes on a flat program (rows 5 and 7), ns per binding";

fn passes(c: &mut Criterion) {
    let sizes: &[usize] = if quick() {
        &[1_000, 10_000, 100_000]
    } else {
        &[1_000, 10_000, 100_000, 1_000_000]
    };
    let mut per_binding = vec![Vec::new(); PASSES.len()];
    for &n in sizes {
        let text = flat_program(n);
        let f = main_of(&parse_module(&text).expect("the flat program parses"));
        let copy = main_of(&parse_module(&text).expect("the flat program parses"));
        assert!(structural_eq(&f, &copy));
        assert!(function_free_vars(&f).is_empty());
        let mut g = c.benchmark_group("passes");
        for (name, run) in PASSES {
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter_with_large_drop(|| run(black_box(&f), &copy))
            });
        }
        g.finish();
        for (i, (name, _)) in PASSES.iter().enumerate() {
            per_binding[i].push(mean_ns("passes", &format!("{name}/{n}")) / n as f64);
        }
        drop((f, copy));
    }
    let mut cols = vec!["pass"];
    let names: Vec<String> = sizes.iter().map(|n| format!("N={n}")).collect();
    cols.extend(names.iter().map(String::as_str));
    cols.extend(["largest/smallest N", "target", "verdict"]);
    header(PASS_TABLE, &cols);
    for (i, (name, _)) in PASSES.iter().enumerate() {
        let v = &per_binding[i];
        let growth = v[v.len() - 1] / v[0];
        let mut cells = vec![name.to_string()];
        cells.extend(v.iter().map(|x| format!("{x:.1}")));
        cells.extend([
            format!("{growth:.2}"),
            "<= 1.5".into(),
            verdict(growth <= 1.5),
        ]);
        row(PASS_TABLE, &cells);
        // For `cargo xtask bench --vs-tvm`.
        for (n, x) in sizes.iter().zip(v) {
            println!("irkit-ns-per-binding\t{name}\t{n}\t{x}");
        }
    }
}

const TEXT_TABLE: &str = "Text format (row 6)";

fn text(c: &mut Criterion) {
    let n = if quick() { 10_000 } else { 100_000 };
    let source = flat_program(n);
    let module = parse_module(&source).expect("the flat program parses");
    let mut g = c.benchmark_group("text");
    g.bench_function("parse", |b| {
        b.iter_with_large_drop(|| parse_module(black_box(&source)))
    });
    g.bench_function("print", |b| b.iter(|| print_module(black_box(&module))));
    g.finish();
    let mb = source.len() as f64 / 1e6;
    header(TEXT_TABLE, &["operation", "input", "MB/s"]);
    for op in ["parse", "print"] {
        let secs = mean_ns("text", op) / 1e9;
        row(
            TEXT_TABLE,
            &[
                op.into(),
                format!("{n} bindings, {mb:.1} MB"),
                format!("{:.1}", mb / secs),
            ],
        );
    }
}

const PARALLEL_TABLE: &str = "Parallel function pass (row 9)";

fn parallel(c: &mut Criterion) {
    let functions = 1000;
    let bindings = if quick() { 100 } else { 400 };
    let body = flat_program(bindings);
    let one = main_of(&parse_module(&body).expect("the flat program parses"));
    // Distinct functions (no sharing between them), as parsed from a file.
    let module: RelayModule = Module::from_functions((0..functions).map(|i| {
        let f = if i == 0 {
            one.clone()
        } else {
            main_of(&parse_module(&body).expect("the flat program parses"))
        };
        (format!("f{i}"), f)
    }));
    let pipeline = registry()
        .pipeline("infer-type,fold-constant,cse,dce")
        .expect("a valid pipeline");
    let mut g = c.benchmark_group("parallel");
    for (name, parallel) in [("sequential", false), ("parallel", true)] {
        let ctx = PassContext::default().with_parallel(parallel);
        g.bench_function(name, |b| {
            b.iter_with_large_drop(|| ctx.run(&pipeline, black_box(&module)).expect("passes run"))
        });
    }
    g.finish();
    let seq = mean_ns("parallel", "sequential") / 1e6;
    let par = mean_ns("parallel", "parallel") / 1e6;
    let threads = rayon::current_num_threads();
    header(
        PARALLEL_TABLE,
        &[
            "pipeline",
            "module",
            "sequential ms",
            "parallel ms",
            "speedup",
            "target",
            "verdict",
        ],
    );
    row(
        PARALLEL_TABLE,
        &[
            "infer-type,fold-constant,cse,dce".into(),
            format!("{functions} functions x {bindings} bindings"),
            format!("{seq:.1}"),
            format!("{par:.1}"),
            format!("{:.2} on {threads} threads", seq / par),
            ">= 1.8 on 2 cores".into(),
            verdict(seq / par >= 1.8),
        ],
    );
    note(
        PARALLEL_TABLE,
        &format!(
            "rayon pool of {threads} threads; sequential = the same pipeline with parallel off"
        ),
    );
}

criterion_group! {
    name = benches;
    config = support::criterion();
    targets = passes, text, parallel
}
criterion_main!(benches);
