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
//! default `../shared/anchors/tvm`).

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
    /// (pass, N) -> ns per binding, for `--vs-tvm`.
    per_binding: BTreeMap<(String, usize), f64>,
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
                        self.per_binding.insert((table.to_owned(), n), ns);
                    }
                }
                _ => {}
            }
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
    // `--only <framework|relay|tensor_ir|depth|shapes|compile>`: one section, for iterating on it.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .map(|i| args.get(i + 1).cloned().unwrap_or_default());
    if let Some(section) = &only
        && !matches!(
            section.as_str(),
            "framework" | "relay" | "tensor_ir" | "depth" | "shapes" | "compile"
        )
    {
        return Err(format!(
            "bench: --only takes framework, relay, tensor_ir, depth, shapes or compile, not {section:?}"
        ));
    }
    let run_section = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if let Some(unknown) = args.iter().enumerate().find_map(|(i, a)| {
        let is_value = i > 0 && args[i - 1] == "--only";
        (!is_value && !matches!(a.as_str(), "--quick" | "--vs-tvm" | "--only")).then_some(a)
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
    if run_section("tensor_ir") {
        tables.take(&run_bench("tensor_ir", &[], quick)?);
    }
    if run_section("depth") {
        for shape in ["let", "call"] {
            tables.take(&run_bench("depth", &[shape], quick)?);
        }
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
    if !run_section("compile") {
        tables.print();
        return Ok(());
    }

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

    if let Some(python) = tvm_python {
        vs_tvm_table(&mut tables, &python, quick)?;
    }
    tables.print();
    Ok(())
}

/// The shapes of `benches/shapes.rs` (`tests/support/relay_shapes.rs`).
const SHAPES: [&str; 11] = [
    "let",
    "call",
    "if-then",
    "if-else",
    "fn",
    "fn-applied",
    "tuple",
    "projection",
    "functions",
    "arguments",
    "fields",
];

/// Our pass -> (TVM anchor key, target speedup).
const TVM_PAIRS: [(&str, &str, Option<f64>); 5] = [
    ("free_vars", "a1_free_vars", Some(20.0)),
    ("empty mutator", "b1_empty_cpp_mutator", Some(50.0)),
    ("DeadCodeElimination", "b2_dce", Some(30.0)),
    ("structural_equal", "d1_structural_equal", Some(30.0)),
    ("structural_hash", "d2_structural_hash", None),
];

fn vs_tvm_table(tables: &mut Tables, python: &str, quick: bool) -> Result<(), String> {
    let anchors = std::env::var_os("IRKIT_TVM_ANCHORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/anchors/tvm"));
    let script = anchors.join("tvm_anchor.py");
    let sizes: Vec<usize> = if quick {
        vec![1_000, 100_000]
    } else {
        vec![1_000, 1_000_000]
    };
    let keys: Vec<&str> = TVM_PAIRS.iter().map(|p| p.1).collect();
    eprintln!(
        "xtask: {python} {} (TVM, same flat program)",
        script.display()
    );
    let mut cmd = Command::new(python);
    cmd.arg(&script)
        .arg("--n")
        .args(sizes.iter().map(|n| n.to_string()))
        .args([
            "--reps",
            "3",
            "--skip",
            "c2_fold_constant",
            "--only",
            &keys.join(","),
        ]);
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {python} {}: {e}", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "TVM's anchor script failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut tvm: BTreeMap<(String, usize), f64> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if let (Some(key), Some(n), Some(ns)) = (
            v["key"].as_str(),
            v["n"].as_u64(),
            v["ns_per_binding"].as_f64(),
        ) {
            tvm.insert((key.to_owned(), n as usize), ns);
        }
    }
    let mut rows = Vec::new();
    for (ours, key, target) in TVM_PAIRS {
        for &n in &sizes {
            let (Some(us), Some(them)) = (
                tables.per_binding.get(&(ours.to_owned(), n)),
                tvm.get(&(key.to_owned(), n)),
            ) else {
                continue;
            };
            let speedup = them / us;
            rows.push(vec![
                ours.to_owned(),
                key.to_owned(),
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
        "Against TVM 0.27 (same run, flat program of N bindings), ns per binding",
        &[
            "ours", "TVM", "N", "ours ns", "TVM ns", "speedup", "target", "verdict",
        ],
        rows,
    );
    Ok(())
}
