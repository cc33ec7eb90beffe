//! A million-deep let chain and a million-deep nested call go through parse,
//! print, type inference, every pass, equality and hashing without a stack
//! overflow, on the default test thread.

use std::time::Instant;

use ir_passes::relay::passes::registry;
use ir_passes::relay::*;
use irkit::pass::PassContext;
use irkit::structural::{structural_eq, structural_hash};

const N: usize = 1_000_000;

fn let_chain_text(n: usize) -> String {
    let mut text = String::from("#[version = \"0.0.5\"]\ndef @main(%x: float32) -> float32 {\n");
    for i in 0..n {
        let prev = if i == 0 {
            "%x".to_owned()
        } else {
            format!("%v{}", i - 1)
        };
        text.push_str(&format!("  let %v{i}: float32 = add({prev}, 1f);\n"));
    }
    text.push_str(&format!("  %v{}\n}}\n", n - 1));
    text
}

fn nested_call_text(n: usize) -> String {
    format!(
        "#[version = \"0.0.5\"]\ndef @main(%x: float32) -> float32 {{\n  {}%x{}\n}}\n",
        "add(".repeat(n),
        ", 1f)".repeat(n)
    )
}

fn through_everything(name: &str, text: &str) {
    let t = Instant::now();
    let step = |what: &str| {
        eprintln!("{name}: {what} at {:.2?}", t.elapsed());
    };
    let module = parse_module(text).unwrap();
    step("parsed");
    let printed = print_module(&module);
    assert_eq!(printed, text);
    step("printed");
    let reparsed = parse_module(&printed).unwrap();
    let (a, b) = (module.get("main").unwrap(), reparsed.get("main").unwrap());
    assert!(structural_eq(a, b));
    assert_eq!(structural_hash(a), structural_hash(b));
    step("compared and hashed");
    well_formed(&module).unwrap();
    step("type-checked");
    for pass in [
        "infer-type",
        "fold-constant",
        "dce{inline-once=true}",
        "cse",
        "to-anf",
        "to-gnf",
    ] {
        let pipeline = registry().pipeline(pass).unwrap();
        let out = PassContext::default()
            .with_opt_level(3)
            .run(&pipeline, &module)
            .unwrap();
        assert_eq!(out.len(), 1);
        step(pass);
    }
    let x = Value::Tensor(Tensor::scalar_f32(0.0));
    assert_eq!(
        run_main(&module, &[x]).unwrap(),
        Value::Tensor(Tensor::scalar_f32(N as f32))
    );
    step("interpreted");
}

#[test]
fn a_million_deep_let_chain() {
    through_everything("let chain", &let_chain_text(N));
}

#[test]
fn a_million_deep_nested_call() {
    through_everything("nested call", &nested_call_text(N));
}
