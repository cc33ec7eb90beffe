//! The rest of TVM's Relay pass tests (`test_pass_fold_constant.py`,
//! `test_pass_dead_code_elimination.py`, `test_pass_to_a_normal_form.py`,
//! `test_pass_eliminate_common_subexpr.py`) as text fixtures in
//! `tests/relay/tvm_passes/`, beside the ones `tests/relay_tvm_cases.rs`
//! translates by hand. `cases.txt` gives each case's pipeline and what TVM
//! checks:
//! - `compare`: the result is alpha-equivalent to `<case>.after.relay`
//!   (after `infer-type` too, when the pipeline has it, as TVM's tests run
//!   `InferType` on the expected program);
//! - `value`: `@main` computes `value=<literal>` after the pipeline (and
//!   before it, when the note says `[before too]`);
//! - `skip`: what the case needs that this dialect does not have.

use std::path::Path;

use ir_passes::relay::passes::registry;
use ir_passes::relay::*;
use irkit::pass::PassContext;
use irkit::structural::structural_eq_map_free_vars;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/relay/tvm_passes");

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(DIR).join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run(pipeline: &str, module: &RelayModule) -> Result<RelayModule, String> {
    let passes = registry().pipeline(pipeline).map_err(|e| e.to_string())?;
    PassContext::default()
        .with_opt_level(3)
        .run(&passes, module)
        .map_err(|e| e.to_string())
}

fn compare(name: &str, pipeline: &str) -> Result<(), String> {
    let before = parse_module(&read(&format!("{name}.before.relay"))).map_err(|e| e.to_string())?;
    let after = parse_module(&read(&format!("{name}.after.relay"))).map_err(|e| e.to_string())?;
    let got = run(pipeline, &before)?;
    let want = if pipeline.contains("infer-type") {
        run("infer-type", &after)?
    } else {
        after
    };
    let equal = got.len() == want.len()
        && want.functions().all(|(f, w)| {
            got.get(f)
                .is_some_and(|g| structural_eq_map_free_vars(g, w))
        });
    if equal {
        Ok(())
    } else {
        Err(format!(
            "got\n{}\nexpected\n{}",
            print_module(&got),
            print_module(&want)
        ))
    }
}

/// `@main`'s value, and the value of `literal` in the same module.
fn values(module: &RelayModule, text: &str, literal: &str) -> Result<(Value, Value), String> {
    let got = run_main(module, &[])?;
    let with_literal = parse_module(&format!(
        "{text}\ndef @expected_value() {{\n  {literal}\n}}\n"
    ))
    .map_err(|e| format!("the expected value does not parse: {e}"))?;
    let mut expected = with_literal.clone();
    let f = with_literal
        .get("expected_value")
        .cloned()
        .ok_or("no @expected_value")?;
    expected
        .update_function("main", f)
        .map_err(|e| e.to_string())?;
    Ok((got, run_main(&expected, &[])?))
}

fn value(name: &str, pipeline: &str, note: &str) -> Result<(), String> {
    let literal = note
        .split_whitespace()
        .find_map(|w| w.strip_prefix("value="))
        .ok_or("no value= in the note")?;
    let text = read(&format!("{name}.before.relay"));
    let before = parse_module(&text).map_err(|e| e.to_string())?;
    let after = run(pipeline, &before)?;
    let mut checks = vec![("after the pipeline", after)];
    if note.contains("[before too]") {
        checks.push(("before the pipeline", before));
    }
    for (when, module) in checks {
        let (got, want) = values(&module, &text, literal)?;
        if got != want {
            return Err(format!("{when}: {got:?}, expected {want:?}"));
        }
    }
    Ok(())
}

#[test]
fn tvm_pass_cases_behave_as_in_tvm() {
    let manifest = read("cases.txt");
    let (mut compared, mut valued, mut skipped) = (0, 0, 0);
    let mut failures = Vec::new();
    for line in manifest
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let mut words = line.splitn(4, ' ');
        let (Some(name), Some(pipeline), Some(outcome)) =
            (words.next(), words.next(), words.next())
        else {
            panic!("a malformed line in cases.txt: {line}");
        };
        let note = words.next().unwrap_or("");
        let result = match outcome {
            "compare" => compare(name, pipeline).map(|()| compared += 1),
            "value" => value(name, pipeline, note).map(|()| valued += 1),
            "skip" => {
                skipped += 1;
                Ok(())
            }
            other => panic!("{name}: unknown outcome {other}"),
        };
        if let Err(e) = result {
            failures.push(format!("{name} ({pipeline}): {e}"));
        }
    }
    eprintln!(
        "TVM pass cases: {compared} compared, {valued} by value, {skipped} skipped, {} failing",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
