//! `cargo xtask bench [--quick] [--vs-tvm]`: runs every benchmark and prints
//! their markdown tables.
//!
//! The benchmark binaries measure (criterion) and print `irkit-header`,
//! `irkit-row` and `irkit-note` lines; this collects them into one table per
//! section, runs the depth benchmark once per shape (so each reports its own
//! peak memory), and builds the compile-time crates. `--vs-tvm` also runs
//! TVM's anchor script on the same flat program, in the same run, and prints
//! the ratios; it needs a Python with `apache-tvm==0.27.0.post1`, given by
//! `IRKIT_TVM_PYTHON` (the anchors' directory by `IRKIT_TVM_ANCHORS`,
//! default `../shared/anchors/tvm`). `--rounds K` (with `--vs-tvm`) runs
//! ours and TVM's in turn K times and compares the medians over the rounds:
//! on a shared machine whose speed drifts over minutes, a slow spell then
//! falls on both sides rather than on one. Relax's growth target (its
//! largest N against its smallest) is measured by the bench itself in
//! pairs, the two sizes alternately; over rounds, the median of each
//! round's paired growth.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use crate::compile_time;
use crate::workspace_root;

#[derive(Default)]
struct Tables {
    order: Vec<String>,
    headers: BTreeMap<String, Vec<String>>,
    rows: BTreeMap<String, Vec<Vec<String>>>,
    notes: BTreeMap<String, Vec<String>>,
    /// (pass, N) -> ns per binding, one per round, for `--vs-tvm`.
    per_binding: BTreeMap<(String, usize), Vec<f64>>,
    /// (pass, small N, large N) -> growth measured in pairs, one per round.
    paired_growth: BTreeMap<(String, usize, usize), Vec<f64>>,
}

impl Tables {
    fn take(&mut self, stdout: &str) {
        for line in stdout.lines() {
            let mut cells = line.split('\t');
            let (Some(kind), Some(table)) = (cells.next(), cells.next()) else {
                continue;
            };
            let rest: Vec<String> = cells.map(str::to_owned).collect();
            let listed = matches!(kind, "irkit-header" | "irkit-row" | "irkit-note");
            if listed && !self.order.iter().any(|t| t == table) {
                self.order.push(table.to_owned());
            }
            match kind {
                "irkit-header" => {
                    self.headers.insert(table.to_owned(), rest);
                }
                "irkit-row" => self.rows.entry(table.to_owned()).or_default().push(rest),
                "irkit-note" => self
                    .notes
                    .entry(table.to_owned())
                    .or_default()
                    .push(rest.join(" ")),
                "irkit-ns-per-binding" => {
                    if let (Ok(n), Some(Ok(ns))) = (rest[0].parse(), rest.get(1).map(|v| v.parse()))
                    {
                        self.per_binding
                            .entry((table.to_owned(), n))
                            .or_default()
                            .push(ns);
                    }
                }
                "irkit-growth" => {
                    if let [small, large, g] = &rest[..]
                        && let (Ok(small), Ok(large), Ok(g)) =
                            (small.parse(), large.parse(), g.parse())
                    {
                        self.paired_growth
                            .entry((table.to_owned(), small, large))
                            .or_default()
                            .push(g);
                    }
                }
                _ => {}
            }
        }
    }

    /// A later round's output: only its ns per binding are kept (the
    /// tables show the first round's rows).
    fn take_measurements(&mut self, stdout: &str) {
        let mut round = Tables::default();
        round.take(stdout);
        for (cell, values) in round.per_binding {
            self.per_binding.entry(cell).or_default().extend(values);
        }
        for (pass, values) in round.paired_growth {
            self.paired_growth.entry(pass).or_default().extend(values);
        }
    }

    fn push(&mut self, table: &str, header: &[&str], rows: Vec<Vec<String>>) {
        self.order.push(table.to_owned());
        self.headers.insert(
            table.to_owned(),
            header.iter().map(|s| s.to_string()).collect(),
        );
        self.rows.insert(table.to_owned(), rows);
    }

    fn print(&self) {
        for table in &self.order {
            println!("### {table}\n");
            if let Some(h) = self.headers.get(table) {
                println!("| {} |", h.join(" | "));
                println!("|{}", "---|".repeat(h.len()));
            }
            for row in self.rows.get(table).into_iter().flatten() {
                println!("| {} |", row.join(" | "));
            }
            for note in self.notes.get(table).into_iter().flatten() {
                println!("\n{note}");
            }
            println!();
        }
    }
}

fn run_bench(name: &str, args: &[&str], quick: bool) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(&cargo);
    cmd.args(["bench", "-q", "--package", "irkit", "--bench", name]);
    if !args.is_empty() {
        cmd.arg("--").args(args);
    }
    cmd.current_dir(workspace_root());
    if quick {
        cmd.env("IRKIT_BENCH_QUICK", "1");
    }
    eprintln!("xtask: cargo bench --bench {name} {}", args.join(" "));
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run cargo bench: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo bench --bench {name} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn run(args: &[String]) -> Result<(), String> {
    let quick = args.iter().any(|a| a == "--quick");
    let vs_tvm = args.iter().any(|a| a == "--vs-tvm");
    // `--only <framework|relay|relax|tensor_ir|depth|text|shapes|compile>`: one section, for iterating on it.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .map(|i| args.get(i + 1).cloned().unwrap_or_default());
    if let Some(section) = &only
        && !matches!(
            section.as_str(),
            "framework" | "relay" | "relax" | "tensor_ir" | "depth" | "text" | "shapes" | "compile"
        )
    {
        return Err(format!(
            "bench: --only takes framework, relay, relax, tensor_ir, depth, text, shapes or compile, not {section:?}"
        ));
    }
    let run_section = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let rounds = match args.iter().position(|a| a == "--rounds") {
        None => 1,
        Some(i) => match args.get(i + 1).and_then(|r| r.parse::<usize>().ok()) {
            Some(r) if r >= 1 && vs_tvm => r,
            _ => {
                return Err(
                    "bench: --rounds takes a number of rounds (1 or more), with --vs-tvm".into(),
                );
            }
        },
    };
    if let Some(unknown) = args.iter().enumerate().find_map(|(i, a)| {
        let is_value = i > 0 && matches!(args[i - 1].as_str(), "--only" | "--rounds");
        (!is_value && !matches!(a.as_str(), "--quick" | "--vs-tvm" | "--only" | "--rounds"))
            .then_some(a)
    }) {
        return Err(format!("bench: unknown option {unknown}"));
    }
    let tvm_python = if vs_tvm {
        Some(std::env::var("IRKIT_TVM_PYTHON").map_err(|_| {
            "--vs-tvm needs IRKIT_TVM_PYTHON: a Python with apache-tvm==0.27.0.post1 \
             (python3 -m venv v && v/bin/pip install apache-tvm==0.27.0.post1)"
                .to_owned()
        })?)
    } else {
        None
    };
    let mut tables = Tables::default();
    if run_section("framework") {
        tables.take(&run_bench("framework", &[], quick)?);
    }
    if run_section("relay") {
        tables.take(&run_bench("relay", &[], quick)?);
    }
    if run_section("relax") {
        tables.take(&run_bench("relax", &[], quick)?);
    }
    if run_section("tensor_ir") {
        tables.take(&run_bench("tensor_ir", &[], quick)?);
    }
    if run_section("depth") {
        for shape in ["let", "call"] {
            tables.take(&run_bench("depth", &[shape], quick)?);
        }
    }
    if run_section("text") {
        tables.take(&run_bench("relay_text", &[], quick)?);
    }
    if run_section("shapes") {
        // Each shape at two sizes a decade apart, one process each (its own
        // peak memory): equal ns per level at both is linear time.
        let sizes = if quick {
            ["10000", "100000"]
        } else {
            ["100000", "1000000"]
        };
        for shape in SHAPES {
            for size in sizes {
                // The module of many functions is measured at a tenth: each is
                // a definition of its own, ten lines of text.
                let size = if shape == "functions" {
                    &size[..size.len() - 1]
                } else {
                    size
                };
                tables.take(&run_bench("shapes", &[shape, size], quick)?);
            }
        }
    }
    if run_section("compile") {
        compile_table(&mut tables, quick)?;
    }
    if let Some(python) = tvm_python {
        let mut tvm = BTreeMap::new();
        run_tvm(&python, quick, &mut tvm)?;
        // Later rounds: ours (the sections compared with TVM) and TVM's again.
        for round in 2..=rounds {
            eprintln!("xtask: round {round} of {rounds}");
            for section in ["relay", "relax"] {
                if run_section(section) {
                    tables.take_measurements(&run_bench(section, &[], quick)?);
                }
            }
            run_tvm(&python, quick, &mut tvm)?;
        }
        vs_tvm_tables(&mut tables, &tvm, quick, rounds);
    }
    tables.print();
    Ok(())
}

fn compile_table(tables: &mut Tables, quick: bool) -> Result<(), String> {
    eprintln!("xtask: compile time of a {}-kind IR", compile_time::KINDS);
    let measured = compile_time::measure(if quick { 1 } else { 3 }, !quick)?;
    let hand = measured.iter().find(|m| m.name == "hand-written");
    let hand_secs = hand.map_or(f64::NAN, |m| m.seconds);
    let hand_cpu = hand.map_or(f64::NAN, |m| m.cpu_seconds);
    let hand_rlib = hand.map_or(f64::NAN, |m| m.rlib_bytes as f64);
    let rows = measured
        .iter()
        .map(|m| {
            let ratio = m.seconds / hand_secs;
            let rlib_ratio = m.rlib_bytes as f64 / hand_rlib;
            let cpu_ratio = m.cpu_seconds / hand_cpu;
            vec![
                m.name.to_owned(),
                format!("{:.2}", m.seconds),
                format!("{:.2}", m.cpu_seconds),
                m.clean_seconds
                    .map_or("- (not in --quick)".to_owned(), |s| format!("{s:.1}")),
                format!("{:.1}", m.lines_per_kind),
                format!("{:.2} MB", m.rlib_bytes as f64 / 1e6),
                format!("{ratio:.2} (CPU {cpu_ratio:.2}, rlib {rlib_ratio:.2})"),
                "<= 1.5 (both)".to_owned(),
                if m.name == "derived" {
                    if ratio <= 1.5 && rlib_ratio <= 1.5 {
                        "met"
                    } else {
                        "MISSED"
                    }
                    .to_owned()
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    let table = format!(
        "Compile time (row 10): {} kinds, release",
        compile_time::KINDS
    );
    tables.push(
        &table,
        &[
            "IR",
            "crate rebuild s (deps built)",
            "rebuild CPU s",
            "from scratch s (with deps)",
            "lines per kind (derived: expansion)",
            "rlib",
            "vs hand-written",
            "target",
            "verdict",
        ],
        rows,
    );
    tables.notes.insert(
        table,
        vec![
            "Rebuild: the crate's source touched, its dependencies already built (best of \
             runs, the two crates built in turn); the ratio and verdict are on this wall-clock \
             column, and the CPU column (user + system time of cargo and rustc) is given \
             beside it because it moves less with other work on a shared machine. From scratch: an empty target directory, \
             so the derived IR also builds ir-core and the derive (syn, darling), once per \
             target directory."
                .to_owned(),
        ],
    );

    Ok(())
}

/// The shapes of `benches/shapes.rs` (`tests/support/relay_shapes.rs`).
const SHAPES: [&str; 16] = [
    "let",
    "let-shadow",
    "call",
    "if-then",
    "if-else",
    "fn",
    "fn-applied",
    "tuple",
    "projection",
    "match",
    "pattern",
    "ref",
    "ref-write",
    "functions",
    "arguments",
    "fields",
];

/// Our Relay pass on its flat program -> (TVM anchor key, target speedup):
/// the first comparison, before the Relax dialect could build TVM's own.
const RELAY_PAIRS: [(&str, &str, Option<f64>); 5] = [
    ("free_vars", "a1_free_vars", Some(20.0)),
    ("empty mutator", "b1_empty_cpp_mutator", Some(50.0)),
    ("DeadCodeElimination", "b2_dce", Some(30.0)),
    ("structural_equal", "d1_structural_equal", Some(30.0)),
    ("structural_hash", "d2_structural_hash", None),
];

/// Our Relax row (`benches/relax.rs`) -> TVM's row on the same program
/// (`tvm_anchor.py`'s keys, and `tvm_text.py`'s parse and print): issue 10
/// asks for 30x on every row at every N.
const RELAX_PAIRS: [(&str, &str, Option<f64>); 11] = [
    ("relax build", "0_build", Some(30.0)),
    ("relax free_vars", "a1_free_vars", Some(30.0)),
    ("relax well_formed", "a3_well_formed", Some(30.0)),
    ("relax empty mutator", "b1_empty_cpp_mutator", Some(30.0)),
    ("relax dce", "b2_dce", Some(30.0)),
    ("relax canonicalize-bindings", "b3_canonicalize", Some(30.0)),
    ("relax to-non-dataflow", "c1_to_non_dataflow", Some(30.0)),
    ("relax structural_equal", "d1_structural_equal", Some(30.0)),
    ("relax structural_hash", "d2_structural_hash", Some(30.0)),
    ("relax parse", "parse", Some(30.0)),
    ("relax print", "print", Some(30.0)),
];

/// TVM's ns per binding by (key, N), from the JSON lines of its scripts.
fn read_tvm(stdout: &[u8], into: &mut BTreeMap<(String, usize), f64>) {
    for line in String::from_utf8_lossy(stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if let (Some(key), Some(n), Some(ns)) = (
            v["key"].as_str(),
            v["n"].as_u64(),
            v["ns_per_binding"].as_f64(),
        ) {
            into.insert((key.to_owned(), n as usize), ns);
        }
    }
}

fn run_python(python: &str, script: &std::path::Path, args: &[String]) -> Result<Vec<u8>, String> {
    eprintln!("xtask: {python} {} {}", script.display(), args.join(" "));
    let out = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {python} {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed:\n{}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out.stdout)
}

/// The sizes compared with TVM.
fn tvm_sizes(quick: bool) -> Vec<usize> {
    if quick {
        vec![1_000, 10_000]
    } else {
        vec![1_000, 10_000, 100_000, 1_000_000]
    }
}

/// One run of TVM's scripts: its ns per binding by (key, N) go to `into`.
fn run_tvm(
    python: &str,
    quick: bool,
    into: &mut BTreeMap<(String, usize), Vec<f64>>,
) -> Result<(), String> {
    let anchors = std::env::var_os("IRKIT_TVM_ANCHORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/anchors/tvm"));
    let sizes = tvm_sizes(quick);
    let n_args = |sizes: &[usize]| -> Vec<String> {
        std::iter::once("--n".to_owned())
            .chain(sizes.iter().map(|n| n.to_string()))
            .collect()
    };
    let mut keys: Vec<&str> = RELAY_PAIRS
        .iter()
        .chain(&RELAX_PAIRS)
        .map(|p| p.1)
        .collect();
    keys.sort();
    keys.dedup();
    let mut tvm = BTreeMap::new();
    let mut args = n_args(&sizes);
    args.extend([
        "--reps".into(),
        "3".into(),
        "--skip".into(),
        "c2_fold_constant".into(),
        "--only".into(),
        keys.join(","),
    ]);
    read_tvm(
        &run_python(python, &anchors.join("tvm_anchor.py"), &args)?,
        &mut tvm,
    );
    // TVM's TVMScript parser takes 1 ms per binding at 1e3 and 2 ms at 1e4,
    // growing: it is measured up to 1e4 only; its printer at every N.
    let text_script = workspace_root().join("xtask/tvm_text.py");
    let mut args = n_args(&sizes);
    args.extend(["--parse-max-n".into(), "10000".into()]);
    read_tvm(&run_python(python, &text_script, &args)?, &mut tvm);
    for (cell, ns) in tvm {
        into.entry(cell).or_default().push(ns);
    }
    Ok(())
}

/// The median of one cell's rounds (the mean of two).
fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[mid - 1] + v[mid]) / 2.0
    } else {
        v[mid]
    }
}

fn vs_tvm_tables(
    tables: &mut Tables,
    tvm: &BTreeMap<(String, usize), Vec<f64>>,
    quick: bool,
    rounds: usize,
) {
    let sizes = tvm_sizes(quick);
    for (title, pairs) in [
        (
            "Against TVM 0.27: Relay's flat program against TVM's (same run), ns per binding",
            &RELAY_PAIRS[..],
        ),
        (
            "Against TVM 0.27: Relax, the same flat program (issue 10, same run), ns per binding",
            &RELAX_PAIRS[..],
        ),
    ] {
        let mut rows = Vec::new();
        let mut uneven = Vec::new();
        for (ours, key, target) in pairs {
            for &n in &sizes {
                let (Some(us), Some(them)) = (
                    tables.per_binding.get(&(ours.to_string(), n)),
                    tvm.get(&(key.to_string(), n)),
                ) else {
                    continue;
                };
                if us.len() != them.len() {
                    uneven.push(format!(
                        "{ours} at N={n}: {} rounds of ours, {} of TVM's",
                        us.len(),
                        them.len()
                    ));
                }
                let (us, them) = (median(us), median(them));
                let speedup = them / us;
                rows.push(vec![
                    ours.to_string(),
                    key.to_string(),
                    n.to_string(),
                    format!("{us:.1}"),
                    format!("{them:.0}"),
                    format!("{speedup:.1}x"),
                    target.map_or("-".to_owned(), |t| format!(">= {t:.0}x")),
                    target.map_or(String::new(), |t| {
                        if speedup >= t { "met" } else { "MISSED" }.to_owned()
                    }),
                ]);
            }
        }
        tables.push(
            title,
            &[
                "ours", "TVM", "N", "ours ns", "TVM ns", "speedup", "target", "verdict",
            ],
            rows,
        );
        if rounds > 1 {
            tables
                .notes
                .entry(title.to_owned())
                .or_default()
                .push(format!(
                    "{rounds} rounds, ours then TVM's in turn; each cell is the median over the \
                 rounds of each side's figure of the round. The tables above show the first \
                 round."
                ));
        }
        if !uneven.is_empty() {
            tables
                .notes
                .entry(title.to_owned())
                .or_default()
                .push(format!(
                    "Cells with a figure missing from some round (a run that failed): {}.",
                    uneven.join("; ")
                ));
        }
    }
    // Growth over the rounds: each round's paired growth (the bench measures
    // its smallest and largest N alternately, so that both share the host's
    // spells), the median over the rounds; beside it, the pooled columns'
    // ratio where TVM is compared at those sizes.
    if rounds > 1 {
        let mut rows = Vec::new();
        // In the rows' order, not the map's.
        let order = |pass: &str| RELAX_PAIRS.iter().position(|p| p.0 == pass);
        let mut growths: Vec<_> = tables.paired_growth.iter().collect();
        growths.sort_by_key(|((pass, _, _), _)| order(pass));
        for ((ours, small, large), paired) in growths {
            let at = |n: &usize| {
                tables
                    .per_binding
                    .get(&(ours.clone(), *n))
                    .map(|v| median(v))
            };
            let columns = match (at(small), at(large)) {
                (Some(s), Some(l)) => format!("{:.1} / {:.1} = {:.2}", l, s, l / s),
                _ => "-".to_owned(),
            };
            let growth = median(paired);
            let each: Vec<String> = paired.iter().map(|g| format!("{g:.2}")).collect();
            rows.push(vec![
                ours.clone(),
                format!("N={large} / N={small}"),
                columns,
                each.join(", "),
                format!("{growth:.2}"),
                "<= 2".to_owned(),
                if growth <= 2.0 { "met" } else { "MISSED" }.to_owned(),
            ]);
        }
        tables.push(
            &format!("Relax growth over {rounds} rounds, ns per binding"),
            &[
                "operation",
                "sizes",
                "columns (median over rounds)",
                "paired, each round",
                "growth (paired, median over rounds)",
                "target",
                "verdict",
            ],
            rows,
        );
    }
}
