//! The `ir-opt` binary, run as a user runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use pretty_assertions::assert_eq;

fn ir_opt(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ir-opt"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ir-opt runs");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("write stdin");
    }
    drop(input);
    child.wait_with_output().expect("ir-opt finishes")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_file(name: &str, contents: &str) -> String {
    let dir = std::env::temp_dir().join(format!("ir-opt-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_string_lossy().into_owned()
}

const PROGRAM: &str = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  let %unused = add(%x, %x);
  let %k = add(1f, 2f);
  multiply(%x, %k)
}
"#;

#[test]
fn the_demo_model_goes_through_the_default_pipeline() {
    let out = ir_opt(&[], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("// The demo model:"));
    assert!(stdout.contains("// After infer-type,fold-constant,cse,dce:"));
    let after = stdout.split("// After").nth(1).unwrap();
    assert!(!after.contains("%debug"), "the dead binding is gone");
    assert!(!after.contains("if ("), "the constant branch is decided");
    assert!(
        after.contains("multiply(%h, 6f)"),
        "the constant subgraph is folded"
    );
    assert!(
        after.contains("%0 = nn.relu"),
        "the repeated subexpression is shared"
    );
}

#[test]
fn a_file_without_passes_is_parsed_verified_and_printed() {
    let path = temp_file("plain.relay", PROGRAM);
    let out = ir_opt(&[&path], None);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), PROGRAM);
}

#[test]
fn passes_with_options_from_stdin() {
    let out = ir_opt(
        &["-", "--passes", "fold-constant,dce{inline-once=true}"],
        Some(PROGRAM),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  multiply(%x, 3f)\n}\n"
    );
}

#[test]
fn expression_text_is_accepted() {
    let out = ir_opt(
        &["-", "--passes", "fold-constant"],
        Some("free_var %x: float32;\nadd(%x, multiply(2f, 3f))"),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "free_var %x: float32;\nadd(%x, 6f)\n");
    // After the version header, as TVM prints an expression (issue 11).
    let out = ir_opt(
        &["-", "--passes", "fold-constant"],
        Some("#[version = \"0.0.5\"]\nfree_var %x: float32;\nadd(%x, multiply(2f, 3f))"),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "free_var %x: float32;\nadd(%x, 6f)\n");
}

#[test]
fn expect_compares_under_alpha_equivalence() {
    let expected = temp_file(
        "expected.relay",
        "#[version = \"0.0.5\"]\ndef @main(%input: Tensor[(2), float32]) {\n  multiply(%input, 3f)\n}\n",
    );
    let out = ir_opt(
        &["-", "--passes", "fold-constant,dce", "--expect", &expected],
        Some(PROGRAM),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));

    let wrong = temp_file(
        "wrong.relay",
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  multiply(%x, 4f)\n}\n",
    );
    let out = ir_opt(
        &["-", "--passes", "fold-constant,dce", "--expect", &wrong],
        Some(PROGRAM),
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("-  multiply(%x, 4f)"), "{stderr}");
    assert!(stderr.contains("+  multiply(%x, 3f)"), "{stderr}");
}

#[test]
fn expect_with_free_variables_needs_map_free_vars() {
    let expected = temp_file("free.relay", "free_var %y: float32;\nadd(%y, 6f)\n");
    let input = "free_var %x: float32;\nadd(%x, multiply(2f, 3f))";
    let out = ir_opt(
        &["-", "--passes", "fold-constant", "--expect", &expected],
        Some(input),
    );
    assert_eq!(out.status.code(), Some(1));
    let out = ir_opt(
        &[
            "-",
            "--passes",
            "fold-constant",
            "--expect",
            &expected,
            "--map-free-vars",
        ],
        Some(input),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn errors_go_to_stderr_with_a_nonzero_exit() {
    let out = ir_opt(&["-", "--passes", "fold-constant,dse"], Some(PROGRAM));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "ir-opt: --passes: pipeline column 15: unknown pass `dse`; known passes: cse, dce, fold-constant, infer-type, to-anf, to-gnf\n"
    );

    let out = ir_opt(
        &["-"],
        Some("#[version = \"0.0.5\"]\ndef @main() {\n  add(1, \n}"),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("ir-opt: -: Error: 4:1: expected an expression, found `}`"),
        "{stderr}"
    );

    let out = ir_opt(&["/nonexistent/file.relay"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("ir-opt: cannot read /nonexistent/file.relay"));

    let out = ir_opt(&["-"], Some("#[version = \"0.0.5\"]\ndef @main() { %y }"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("2:15: unbound variable `%y`"),
        "{}",
        text(&out.stderr)
    );
}

/// As TVM's `parse_expr`: a well-formed but ill-typed expression is read
/// and printed; type errors come from a pass that needs types, or when
/// asked for. As TVM's `relay.parse`: a module is type-checked on input.
#[test]
fn type_errors_in_an_expression_only_when_types_are_needed() {
    let ill_typed = "#[version = \"0.0.5\"]\nadd(1f, (1f, 2f))";
    let out = ir_opt(&["-"], Some(ill_typed));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "add(1f, (1f, 2f))\n");
    let module = "#[version = \"0.0.5\"]\ndef @main(%x: float32) { add(%x, (1f, 2f)) }";
    for (input, flags) in [
        (ill_typed, &["-", "--check-types"][..]),
        (ill_typed, &["-", "--verify-each", "--passes", "dce"]),
        (ill_typed, &["-", "--passes", "infer-type"]),
        (module, &["-"]),
        (module, &["-", "--passes", "dce"]),
    ] {
        let out = ir_opt(flags, Some(input));
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("expected a tensor, found (float32, float32)"),
            "{flags:?}: {stderr}"
        );
    }
    let out = ir_opt(&["-"], Some(module));
    assert!(
        text(&out.stderr).contains("the input does not type-check: in @main: 2:"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn instruments_print_time_and_verify() {
    let out = ir_opt(
        &[
            "-",
            "--passes",
            "fold-constant,dce",
            "--print-after-all",
            "--time-passes",
            "--verify-each",
        ],
        Some(PROGRAM),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("// IR after fold-constant"));
    assert!(stderr.contains("// IR after dce"));
    assert!(stderr.contains("ms  fold-constant"));
    assert!(stderr.contains("ms  total"));
}

#[test]
fn graphviz_output() {
    let out = ir_opt(&["-", "--emit", "dot"], Some(PROGRAM));
    assert!(out.status.success());
    let dot = text(&out.stdout);
    assert!(dot.starts_with("digraph module {"));
    assert!(dot.contains("label=\"multiply\""));
    assert!(dot.contains("label=\"@main\""));
}

const KERNEL: &str = "func scale(A: [s32 * 8], n: s32): void {
  for i in (0, 8, 1) {
    if ((i < 8)) {
      A[i] = ((A[i] * 1) + (n * 0))
    }
  }
  for j in (0, 2, 1) {
    A[j] = (j + (1 + 1))
  }
}
";

#[test]
fn tensor_ir_is_read_and_its_passes_run_by_name() {
    let path = temp_file("scale.tir", KERNEL);
    let out = ir_opt(&[&path, "--passes", "fold,simplify"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "func scale(A: [s32 * 8], n: s32): void {
  for i in (0, 8, 1) {
    A[i] = A[i]
  }
  for j in (0, 2, 1) {
    A[j] = (j + 2)
  }
}
"
    );
}

#[test]
fn tensor_ir_is_recognized_on_standard_input_and_round_trips_without_passes() {
    let out = ir_opt(&["-"], Some(KERNEL));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), KERNEL);
}

#[test]
fn an_attribute_set_by_one_pass_is_read_by_a_later_one_after_unrelated_rewrites() {
    // mark-unroll sets `unroll` on the two-trip loop; fold and simplify
    // rebuild it (its body changes); unroll, left to its defaults (which
    // unroll nothing by themselves), expands the marked loop only; the
    // last fold folds the copies.
    let out = ir_opt(
        &[
            "-",
            "--passes",
            "mark-unroll{max-extent=2},fold,simplify,unroll,fold",
        ],
        Some(KERNEL),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("for i in (0, 8, 1)"), "{stdout}");
    assert!(stdout.contains("  A[0] = 2\n  A[1] = 3\n"), "{stdout}");
    let unmarked = ir_opt(&["-", "--passes", "fold,simplify,unroll"], Some(KERNEL));
    assert!(text(&unmarked.stdout).contains("for j in (0, 2, 1)"));
}

#[test]
fn tensor_ir_errors_name_the_place_and_keep_exit_code_2() {
    let out = ir_opt(
        &["-", "--dialect", "tensor-ir"],
        Some("func f(n: s32): s32 {\n  return ((n + 1) +\n}\n"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "ir-opt: -: 3:1: expected an expression, found `}`\n"
    );
    let out = ir_opt(&["--dialect", "tensor-ir", "--passes", "fold,nope"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("unknown pass `nope`; known passes: fold, mark-unroll, simplify, unroll")
    );
}

#[test]
fn tensor_ir_expect_compares_up_to_parameter_names() {
    let expected = temp_file(
        "expected.tir",
        "func scale(B: [s32 * 8], m: s32): void {
  for k in (0, 8, 1) {
    B[k] = B[k]
  }
  B[0] = 2
  B[1] = 3
}
",
    );
    let out = ir_opt(
        &[
            "-",
            "--passes",
            "fold,simplify,unroll{max-extent=2},fold",
            "--expect",
            &expected,
        ],
        Some(KERNEL),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let wrong = temp_file("wrong.tir", "func scale(B: [s32 * 8], m: s32): void {\n}\n");
    let out = ir_opt(&["-", "--expect", &wrong], Some(KERNEL));
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("differs from"));
}

#[test]
fn the_tensor_ir_demo_runs_its_default_pipeline() {
    let out = ir_opt(
        &["--dialect", "tensor-ir", "--verify-each", "--time-passes"],
        None,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let after = stdout.split("// After").nth(1).unwrap();
    assert!(after.contains("A[i] = (A[i] + 5)"), "{after}");
    assert!(!after.contains("for j"), "{after}");
    assert!(after.contains("B[0] = n"), "{after}");
}

const RELAX: &str = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((n, 4), dtype="float32") = R.exp(x)
            dead: R.Tensor((n, 4), dtype="float32") = R.add(lv, x)
            gv: R.Tensor((n, 4), dtype="float32") = R.nn.relu(lv)
            R.output(gv)
        return gv
"#;

#[test]
fn tvmscript_is_recognized_and_relax_passes_run_by_name() {
    let out = ir_opt(&["-", "--passes", "dce", "--verify-each"], Some(RELAX));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        r#"# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((n, 4), dtype="float32") = R.exp(x)
            gv: R.Tensor((n, 4), dtype="float32") = R.nn.relu(lv)
            R.output(gv)
        return gv
"#
    );
    // --expect compares up to the names of variables, symbolic ones included.
    let renamed = RELAX
        .replace("lv", "t0")
        .replace("\"n\"", "\"m\"")
        .replace("n = T", "m = T")
        .replace("(n, 4)", "(m, 4)");
    let expect = temp_file(
        "relax_expected.py",
        &renamed.replace(
            "            dead: R.Tensor((m, 4), dtype=\"float32\") = R.add(t0, x)\n",
            "",
        ),
    );
    let out = ir_opt(&["-", "--passes", "dce", "--expect", &expect], Some(RELAX));
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn relax_errors_name_the_place_and_keep_exit_code_2() {
    let bad = RELAX.replace("R.exp(x)", "R.exp(y)");
    let out = ir_opt(&["-"], Some(&bad));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "ir-opt: -: 10:59: undefined variable `y`\n"
    );
    let out = ir_opt(&["-", "--passes", "nope"], Some(RELAX));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nope"));
}

#[test]
fn the_relax_demo_runs_its_default_pipeline() {
    let out = ir_opt(&["--dialect", "relax"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let (before, after) = stdout.split_once("# After normalize,dce:").unwrap();
    assert!(before.contains("dead:") && before.contains("def unused"));
    assert!(!after.contains("dead:") && !after.contains("def unused"));
}

#[test]
fn relax_prints_as_a_dataflow_graph() {
    let out = ir_opt(&["-", "--emit", "dot", "--passes", "dce"], Some(RELAX));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        r#"digraph module {
  rankdir=BT;
 subgraph cluster_0 {
  label="main";
  f0_x [label="x"];
  subgraph cluster_f0_df0 {
   label="dataflow"; style=dashed;
  f0_b0 [label="lv = R.exp", shape=box];
  f0_x -> f0_b0;
  f0_b1 [label="gv = R.nn.relu", shape=box];
  f0_b0 -> f0_b1;
  }
  f0_out [label="output", shape=doublecircle];
  f0_b1 -> f0_out;
 }
}
"#
    );
    // The Tensor IR has no graph form.
    let path = temp_file("scale_dot.tir", KERNEL);
    let out = ir_opt(&[&path, "--emit", "dot"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--emit dot is for Relay and Relax"));
}

#[test]
fn a_fold_too_large_to_make_is_left_as_a_call_with_a_note() {
    // A megabyte of metadata: folding `multiply` would make 10^10 elements.
    let data = vec!["0.5"; 100_000].join(", ");
    let program = format!(
        "#[version = \"0.0.5\"]\n\
         def @main() {{\n  multiply(meta[relay.Constant][0], meta[relay.Constant][1])\n}}\n\
         #[metadata]\n\
         {{\"relay.Constant\": [\
         {{\"dtype\": \"float32\", \"shape\": [100000, 1], \"data\": [{data}]}}, \
         {{\"dtype\": \"float32\", \"shape\": [1, 100000], \"data\": [{data}]}}]}}\n"
    );
    assert!(program.len() > 1_000_000);
    let out = ir_opt(&["-", "--passes", "fold-constant"], Some(&program));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    assert!(
        printed.contains("multiply(meta[relay.Constant][0], meta[relay.Constant][1])"),
        "the call stays"
    );
    assert_eq!(
        text(&out.stderr),
        "ir-opt: note: fold-constant: 1 call of constants left unfolded: the result would have \
         more than 16777216 elements, or take the run past 67108864 elements or 536870912 kernel \
         steps in all (options `max-elements`, `max-total-elements`, `max-total-work`)\n"
    );

    // Within a larger bound it folds (a smaller program, to stay quick).
    let small =
        "#[version = \"0.0.5\"]\ndef @main() {\n  zeros(shape=[64, 64], dtype=\"float32\")\n}\n";
    let out = ir_opt(
        &["-", "--passes", "fold-constant{max-elements=1024}"],
        Some(small),
    );
    assert!(
        text(&out.stderr).contains("left unfolded"),
        "{}",
        text(&out.stderr)
    );
    let out = ir_opt(
        &["-", "--passes", "fold-constant{max-elements=4096}"],
        Some(small),
    );
    assert_eq!(text(&out.stderr), "");
    assert!(!text(&out.stdout).contains("zeros("));
}

#[test]
fn a_reader_that_stops_early_ends_the_run_quietly() {
    // About a megabyte of output, far past a pipe's buffer.
    let wide = format!("({})", vec!["1f"; 250_000].join(", "));
    let file = temp_file("wide_tuple.relay", &wide);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ir-opt"))
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ir-opt runs");
    let mut first = [0u8; 16];
    std::io::Read::read_exact(child.stdout.as_mut().expect("stdout"), &mut first).unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("ir-opt finishes");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn folding_stops_at_its_total_budget() {
    // Each `zeros` is within the bound of a call; together they pass the
    // budget of the run, and the rest stay calls.
    let program = format!(
        "#[version = \"0.0.5\"]\ndef @main() {{\n  ({})\n}}\n",
        ["zeros(shape=[1000], dtype=\"float32\")"; 5].join(", ")
    );
    let out = ir_opt(
        &[
            "-",
            "--passes",
            "fold-constant{max-elements=1000,max-total-elements=3000}",
        ],
        Some(&program),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).matches("zeros(").count(), 2);
    assert!(
        text(&out.stderr).contains("2 calls of constants left unfolded"),
        "{}",
        text(&out.stderr)
    );
}
