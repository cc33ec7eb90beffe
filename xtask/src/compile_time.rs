//! Row 10: a 64-kind IR written with the derives and the same IR written by
//! hand (visitor and copy-on-write mutator traits with one hook per kind),
//! generated as two crates and built side by side.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::workspace_root;

pub const KINDS: usize = 64;

/// Kind `i`: every third kind is a leaf, the others have two children.
fn has_children(i: usize) -> bool {
    !i.is_multiple_of(3)
}

/// The derived IR, as a user would write it.
pub fn derived_source() -> String {
    let mut s = String::from(
        "//! 64 node kinds with the derives.\n\nuse ir_core::{Mutable, Node, Transformed, Visitable, Walk};\n\n",
    );
    for i in 0..KINDS {
        let _ = write!(
            s,
            "#[derive(Clone, Visitable, Mutable)]\npub struct K{i} {{\n    #[ir(skip)]\n    pub value: i64,\n"
        );
        if has_children(i) {
            s.push_str("    pub a: Expr,\n    pub b: Expr,\n");
        }
        s.push_str("}\n\n");
    }
    s.push_str("#[derive(Clone, Visitable, Mutable)]\npub enum Expr {\n");
    for i in 0..KINDS {
        let _ = writeln!(s, "    K{i}(Node<K{i}>),");
    }
    s.push_str(
        "}\n\nstruct Count(usize);\nimpl ExprVisitor for Count {\n    fn visit_expr(&mut self, e: &Expr) {\n        self.0 += 1;\n        e.walk(self);\n    }\n}\n\n\
         struct Bump;\nimpl ExprMutator for Bump {\n    fn mutate_k0(&mut self, n: &Node<K0>) -> Transformed<Expr> {\n        K0 { value: n.value + 1 }.into()\n    }\n}\n\n\
         /// Nodes in `e`.\npub fn count(e: &Expr) -> usize {\n    let mut c = Count(0);\n    c.visit_expr(e);\n    c.0\n}\n\n\
         /// `e` with every `K0` incremented.\npub fn bump(e: &Expr) -> Expr {\n    Bump.mutate_expr(e).unwrap_or_clone(e)\n}\n",
    );
    s
}

/// The same IR by hand: Arc enum, visitor and mutator traits, walk and rebuild functions.
pub fn hand_source() -> String {
    let mut s = String::from("//! 64 node kinds written by hand.\n\nuse std::sync::Arc;\n\n");
    for i in 0..KINDS {
        let _ = write!(
            s,
            "#[derive(Clone)]\npub struct K{i} {{\n    pub value: i64,\n"
        );
        if has_children(i) {
            s.push_str("    pub a: Expr,\n    pub b: Expr,\n");
        }
        s.push_str("}\n\n");
    }
    s.push_str("#[derive(Clone)]\npub enum Expr {\n");
    for i in 0..KINDS {
        let _ = writeln!(s, "    K{i}(Arc<K{i}>),");
    }
    s.push_str("}\n\npub trait Visitor: Sized {\n    fn visit_expr(&mut self, e: &Expr) {\n        walk_expr(self, e)\n    }\n");
    for i in 0..KINDS {
        let _ = writeln!(
            s,
            "    fn visit_k{i}(&mut self, n: &Arc<K{i}>) {{\n        walk_k{i}(self, n)\n    }}"
        );
    }
    s.push_str("}\n\npub fn walk_expr<V: Visitor>(v: &mut V, e: &Expr) {\n    match e {\n");
    for i in 0..KINDS {
        let _ = writeln!(s, "        Expr::K{i}(n) => v.visit_k{i}(n),");
    }
    s.push_str("    }\n}\n\n");
    for i in 0..KINDS {
        if has_children(i) {
            let _ = writeln!(
                s,
                "pub fn walk_k{i}<V: Visitor>(v: &mut V, n: &K{i}) {{\n    v.visit_expr(&n.a);\n    v.visit_expr(&n.b);\n}}\n"
            );
        } else {
            let _ = writeln!(
                s,
                "pub fn walk_k{i}<V: Visitor>(_: &mut V, _: &K{i}) {{}}\n"
            );
        }
    }
    s.push_str("/// `None`: unchanged.\npub trait Mutator: Sized {\n    fn mutate_expr(&mut self, e: &Expr) -> Option<Expr> {\n        rebuild_expr(self, e)\n    }\n");
    for i in 0..KINDS {
        let _ = writeln!(
            s,
            "    fn mutate_k{i}(&mut self, n: &Arc<K{i}>) -> Option<Expr> {{\n        rebuild_k{i}(self, n).map(|k| Expr::K{i}(Arc::new(k)))\n    }}"
        );
    }
    s.push_str("}\n\npub fn rebuild_expr<M: Mutator>(m: &mut M, e: &Expr) -> Option<Expr> {\n    match e {\n");
    for i in 0..KINDS {
        let _ = writeln!(s, "        Expr::K{i}(n) => m.mutate_k{i}(n),");
    }
    s.push_str("    }\n}\n\n");
    for i in 0..KINDS {
        if has_children(i) {
            let _ = writeln!(
                s,
                "pub fn rebuild_k{i}<M: Mutator>(m: &mut M, n: &K{i}) -> Option<K{i}> {{\n    let (a, b) = (m.mutate_expr(&n.a), m.mutate_expr(&n.b));\n    if a.is_none() && b.is_none() {{\n        return None;\n    }}\n    Some(K{i} {{\n        value: n.value,\n        a: a.unwrap_or_else(|| n.a.clone()),\n        b: b.unwrap_or_else(|| n.b.clone()),\n    }})\n}}\n"
            );
        } else {
            let _ = writeln!(
                s,
                "pub fn rebuild_k{i}<M: Mutator>(_: &mut M, _: &K{i}) -> Option<K{i}> {{\n    None\n}}\n"
            );
        }
    }
    s.push_str(
        "struct Count(usize);\nimpl Visitor for Count {\n    fn visit_expr(&mut self, e: &Expr) {\n        self.0 += 1;\n        walk_expr(self, e);\n    }\n}\n\n\
         struct Bump;\nimpl Mutator for Bump {\n    fn mutate_k0(&mut self, n: &Arc<K0>) -> Option<Expr> {\n        Some(Expr::K0(Arc::new(K0 { value: n.value + 1 })))\n    }\n}\n\n\
         /// Nodes in `e`.\npub fn count(e: &Expr) -> usize {\n    let mut c = Count(0);\n    c.visit_expr(e);\n    c.0\n}\n\n\
         /// `e` with every `K0` incremented.\npub fn bump(e: &Expr) -> Expr {\n    Bump.mutate_expr(e).unwrap_or_else(|| e.clone())\n}\n",
    );
    s
}

pub struct Measured {
    pub name: &'static str,
    /// Rebuild of the crate itself, dependencies already built (wall clock).
    pub seconds: f64,
    /// The same rebuild's CPU time (user and system, cargo and rustc): less
    /// sensitive than the wall clock to other work on a shared machine.
    pub cpu_seconds: f64,
    /// Build from an empty target directory, dependencies included.
    pub clean_seconds: Option<f64>,
    pub lines_per_kind: f64,
    /// Size of the built library (metadata and machine code).
    pub rlib_bytes: u64,
}

fn write_crate(dir: &Path, name: &str, deps: &str, source: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{deps}\n[workspace]\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("src/lib.rs"), source).map_err(|e| e.to_string())
}

/// CPU time (user + system) used so far by this process's waited-for children.
fn children_cpu_seconds() -> f64 {
    // SAFETY: `getrusage` only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Wall-clock and CPU seconds of one `cargo build --release` of `dir`.
fn cargo_build(dir: &Path, target: &Path, touch: bool) -> Result<(f64, f64), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    if touch {
        // A new modification time makes cargo rebuild this crate (only).
        let lib = dir.join("src/lib.rs");
        let source = std::fs::read(&lib).map_err(|e| e.to_string())?;
        std::fs::write(&lib, source).map_err(|e| e.to_string())?;
    }
    let cpu = children_cpu_seconds();
    let t = Instant::now();
    let out = Command::new(&cargo)
        .args(["build", "-q", "--release"])
        .env("CARGO_TARGET_DIR", target)
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "building {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok((t.elapsed().as_secs_f64(), children_cpu_seconds() - cpu))
}

/// Builds both crates (dependencies first, untimed), then times a rebuild of
/// each crate itself (its source touched), `runs` times, the two crates in
/// turn so that both see the same load, keeping the fastest of each.
pub fn measure(runs: usize, from_scratch: bool) -> Result<Vec<Measured>, String> {
    let root = workspace_root();
    let base: PathBuf = root.join("target/xtask-compile-time");
    let target = base.join("target");
    let core = root.join("ir-core");
    let derived = derived_source();
    let hand = hand_source();
    let derived_dir = base.join("derived");
    let hand_dir = base.join("hand");
    write_crate(
        &derived_dir,
        "ir_derived_64",
        &format!("ir-core = {{ path = {:?} }}\n", core.display().to_string()),
        &derived,
    )?;
    write_crate(&hand_dir, "ir_hand_64", "", &hand)?;
    // The workspace's dependency versions, so both builds use what the project uses.
    if let Ok(lock) = std::fs::read(root.join("Cargo.lock")) {
        std::fs::write(derived_dir.join("Cargo.lock"), lock).map_err(|e| e.to_string())?;
    }
    cargo_build(&derived_dir, &target, false)?;
    cargo_build(&hand_dir, &target, false)?;
    let expanded = crate::expand::expanded(&derived, "the derived IR")?;
    let crates = [
        ("derived", &derived_dir, expanded.lines().count()),
        ("hand-written", &hand_dir, hand.lines().count()),
    ];
    let mut best = [(f64::INFINITY, f64::INFINITY); 2];
    for _ in 0..runs {
        for ((_, dir, _), best) in crates.iter().zip(&mut best) {
            // Past the file system's timestamp granularity, so the rewrite is newer.
            std::thread::sleep(std::time::Duration::from_millis(1100));
            let (wall, cpu) = cargo_build(dir, &target, true)?;
            *best = (best.0.min(wall), best.1.min(cpu));
        }
    }
    let mut out = Vec::new();
    for ((name, dir, lines), (seconds, cpu_seconds)) in crates.into_iter().zip(best) {
        let clean_seconds = if from_scratch {
            let scratch = base.join(format!("scratch-{}", name));
            let _ = std::fs::remove_dir_all(&scratch);
            let (secs, _) = cargo_build(dir, &scratch, false)?;
            let _ = std::fs::remove_dir_all(&scratch);
            Some(secs)
        } else {
            None
        };
        out.push(Measured {
            name,
            seconds,
            cpu_seconds,
            clean_seconds,
            lines_per_kind: lines as f64 / KINDS as f64,
            rlib_bytes: std::fs::metadata(target.join("release").join(format!(
                "lib{}.rlib",
                if name == "derived" {
                    "ir_derived_64"
                } else {
                    "ir_hand_64"
                }
            )))
            .map_or(0, |m| m.len()),
        });
    }
    Ok(out)
}
