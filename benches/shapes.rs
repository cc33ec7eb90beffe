//! Every nesting shape of Relay, deep and wide, through every step a program
//! goes through: parse, well-formedness (scoping and types), print, reparse,
//! structural equality and hashing, every pass, the interpreter and drop,
//! with ns per level and peak memory. One shape per process
//! (`cargo bench --bench shapes -- <shape> [N]`), so the peak resident set
//! belongs to that shape; `cargo xtask bench` runs them all, at two sizes
//! each, and the ratio of their per-level costs shows whether a step is
//! linear. The programs are those of `tests/support/relay_shapes.rs`.

mod support;

#[path = "../tests/support/relay_shapes.rs"]
mod relay_shapes;

use std::time::Instant;

use ir_passes::relay::passes::registry;
use ir_passes::relay::*;
use irkit::pass::PassContext;
use irkit::structural::{structural_eq, structural_hash};
use relay_shapes::{PASSES, shape, zero_inputs};
use support::{header, peak_rss_mib, row};

const TABLE: &str = "Nesting shapes (issue 11): every step, ns per level";

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let name = args.first().map(String::as_str).unwrap_or("let");
    let Some(shape) = shape(name) else {
        eprintln!("shapes: no shape {name:?}");
        std::process::exit(2);
    };
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    header(
        TABLE,
        &[
            "shape",
            "size",
            "operation",
            "seconds",
            "ns per level",
            "peak RSS MiB",
        ],
    );
    let timed = |op: &str, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        let secs = t.elapsed().as_secs_f64();
        row(
            TABLE,
            &[
                name.into(),
                n.to_string(),
                op.into(),
                format!("{secs:.3}"),
                format!("{:.0}", secs * 1e9 / n as f64),
                format!("{:.0}", peak_rss_mib()),
            ],
        );
    };

    let text = (shape.text)(n);
    let mut module = None;
    timed("parse", &mut || {
        module = Some(parse_module(&text).expect("parses"))
    });
    let module = module.expect("parsed");
    timed("well-formed (scopes, types)", &mut || {
        verify(&module).expect("well-formed")
    });
    let mut printed = String::new();
    timed("print", &mut || printed = print_module(&module));
    let mut reparsed = None;
    timed("reparse the printed text", &mut || {
        reparsed = Some(parse_module(&printed).expect("reparses"))
    });
    let reparsed = reparsed.expect("reparsed");
    timed("structural equal (printed, reparsed)", &mut || {
        for (name, f) in module.functions() {
            assert!(structural_eq(f, reparsed.get(name).expect("same names")));
        }
    });
    timed("structural hash", &mut || {
        for (_, f) in module.functions() {
            std::hint::black_box(structural_hash(f));
        }
    });
    drop(reparsed);
    for pass in PASSES {
        let pipeline = registry().pipeline(pass).expect("a registered pass");
        let mut out = None;
        timed(pass, &mut || {
            out = Some(
                PassContext::default()
                    .with_opt_level(3)
                    .run(&pipeline, &module)
                    .expect("runs"),
            )
        });
        assert!(out.is_some());
    }
    let inputs = zero_inputs(&module);
    timed("interpret", &mut || {
        std::hint::black_box(run_main(&module, &inputs).expect("runs"));
    });
    let mut holder = Some(module);
    timed("drop", &mut || holder = None);
}
