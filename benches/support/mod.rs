//! Shared by the benchmark binaries: input sizes, criterion settings, an
//! allocation counter, and the `irkit-row` lines `cargo xtask bench` turns
//! into one markdown table per section.

#![allow(dead_code)] // each benchmark binary uses a different subset

use std::alloc::{GlobalAlloc, Layout};

use ir_core::alloc::MiMalloc;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use criterion::Criterion;

/// Counts allocations, to check what a pass allocates; the allocator
/// underneath is mimalloc, as in `ir-opt`.
pub struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
/// Bytes allocated and not freed, and their peak since [`peak_bytes`] was
/// reset: tracked only while [`TRACKING`] is on, so that the other
/// benchmarks pay one relaxed load per allocation.
static TRACKING: AtomicBool = AtomicBool::new(false);
static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);
static PEAK_BYTES: AtomicUsize = AtomicUsize::new(0);
// SAFETY: forwards to mimalloc, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if TRACKING.load(Ordering::Relaxed) {
            let live = LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK_BYTES.fetch_max(live, Ordering::Relaxed);
        }
        unsafe { MiMalloc.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if TRACKING.load(Ordering::Relaxed) {
            LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if TRACKING.load(Ordering::Relaxed) {
            let live = LIVE_BYTES.fetch_add(new_size, Ordering::Relaxed) + new_size;
            LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
            PEAK_BYTES.fetch_max(live, Ordering::Relaxed);
        }
        unsafe { MiMalloc.realloc(ptr, layout, new_size) }
    }
}

/// Runs `f` and returns its result with the most bytes it had allocated
/// at once beyond what was live when it started (frees of memory allocated
/// before it count as negative, so start from a quiet heap).
pub fn peak_bytes<R>(f: impl FnOnce() -> R) -> (R, usize) {
    LIVE_BYTES.store(0, Ordering::Relaxed);
    PEAK_BYTES.store(0, Ordering::Relaxed);
    TRACKING.store(true, Ordering::Relaxed);
    let r = f();
    TRACKING.store(false, Ordering::Relaxed);
    (r, PEAK_BYTES.load(Ordering::Relaxed))
}
#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the number of allocations it made.
pub fn counting_allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let r = f();
    (r, ALLOCATIONS.load(Ordering::Relaxed) - before)
}

/// `IRKIT_BENCH_QUICK` set: smaller inputs, fewer samples (`cargo xtask bench --quick`).
pub fn quick() -> bool {
    std::env::var_os("IRKIT_BENCH_QUICK").is_some()
}

fn criterion_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("criterion")
}

/// Criterion with few samples: the inputs are large, so one sample is long.
pub fn criterion() -> Criterion {
    let c = Criterion::default()
        .output_directory(&criterion_dir())
        .sample_size(10)
        .without_plots();
    if quick() {
        c.measurement_time(Duration::from_secs(1))
            .warm_up_time(Duration::from_millis(300))
    } else {
        c.measurement_time(Duration::from_secs(3))
            .warm_up_time(Duration::from_secs(1))
    }
}

/// Criterion's mean for `group/id` in nanoseconds, once the group finished.
pub fn mean_ns(group: &str, id: &str) -> f64 {
    // `BenchmarkId::new(f, p)` is stored as `f/p`; a `/` in a plain id as `_`.
    let nested = criterion_dir()
        .join(group)
        .join(id)
        .join("new/estimates.json");
    let path = if nested.exists() {
        nested
    } else {
        criterion_dir()
            .join(group)
            .join(id.replace('/', "_"))
            .join("new/estimates.json")
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("no criterion estimate at {}: {e}", path.display()));
    let json: serde_json::Value =
        serde_json::from_str(&text).expect("criterion estimates are JSON");
    json["mean"]["point_estimate"]
        .as_f64()
        .expect("estimates.json has mean.point_estimate")
}

/// One row of table `table` (the first row printed for a table is its header).
pub fn row(table: &str, cells: &[String]) {
    println!("irkit-row\t{table}\t{}", cells.join("\t"));
}

/// The header of table `table`.
pub fn header(table: &str, cells: &[&str]) {
    println!("irkit-header\t{table}\t{}", cells.join("\t"));
}

/// A note printed under table `table`.
pub fn note(table: &str, text: &str) {
    println!("irkit-note\t{table}\t{text}");
}

/// "met" / "MISSED" for a target check.
pub fn verdict(ok: bool) -> String {
    if ok { "met".into() } else { "MISSED".into() }
}

/// Peak resident set of this process so far, in MiB.
pub fn peak_rss_mib() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_maxrss as f64 / 1024.0
}

/// TVM's flat anchor program in Relay text: `def @main(%x) { let %v0: T =
/// add(%x, 1f); ...; %v(n-1) }`.
pub fn flat_program(n: usize) -> String {
    let mut text = String::with_capacity(n * 48);
    text.push_str("#[version = \"0.0.5\"]\n");
    text.push_str("def @main(%x: Tensor[(4), float32]) -> Tensor[(4), float32] {\n");
    for i in 0..n {
        let prev = if i == 0 {
            "%x".to_owned()
        } else {
            format!("%v{}", i - 1)
        };
        text.push_str(&format!(
            "  let %v{i}: Tensor[(4), float32] = add({prev}, 1f);\n"
        ));
    }
    text.push_str(&format!("  %v{}\n}}\n", n - 1));
    text
}

/// `let %v0 = add(%x, 1f); ...; %v(n-1)`, built with the API (operator and
/// constant shared, as the parser shares them).
pub fn let_chain(n: usize, x: &ir_core::Node<ir_passes::relay::Var>) -> ir_passes::relay::Expr {
    use ir_passes::relay::{Expr, Tensor};
    let (add, one) = (Expr::op("add"), Expr::constant(Tensor::scalar_f32(1.0)));
    let vars: Vec<_> = (0..n).map(|i| Expr::var(&format!("v{i}"), None)).collect();
    let mut e: Expr = vars[n - 1].clone().into();
    for i in (0..n).rev() {
        let prev: Expr = if i == 0 {
            x.clone().into()
        } else {
            vars[i - 1].clone().into()
        };
        e = Expr::let_(
            vars[i].clone(),
            Expr::call(add.clone(), vec![prev, one.clone()]),
            e,
        );
    }
    e
}
