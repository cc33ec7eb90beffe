//! Cases from TVM's tests/python/relay/test_pass_*.py (v0.19 era), translated
//! to the text format. Where TVM compares with an expected program we compare
//! under alpha-equivalence (as `assert_structural_equal`, after the same
//! passes); where TVM checks a property or a result, so do we.

use ir_passes::relay::passes::registry;
use ir_passes::relay::*;
use irkit::pass::PassContext;
use irkit::structural::{structural_eq, structural_eq_map_free_vars};

fn run(pipeline: &str, module: &RelayModule) -> RelayModule {
    let passes = registry().pipeline(pipeline).unwrap();
    PassContext::default()
        .with_opt_level(3)
        .run(&passes, module)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn module(text: &str) -> RelayModule {
    parse_module(text).unwrap_or_else(|e| panic!("{e}"))
}

/// `pipeline` on `before` is alpha-equivalent to `expected` (free variables mapped).
fn assert_pass(pipeline: &str, before: &str, expected: &str) {
    let out = run(pipeline, &module(before));
    // TVM runs InferType on the expected program too.
    let want = if pipeline.contains("infer-type") {
        run("infer-type", &module(expected))
    } else {
        module(expected)
    };
    for (name, f) in want.functions() {
        let got = out
            .get(name)
            .unwrap_or_else(|| panic!("@{name} is missing"));
        assert!(
            structural_eq_map_free_vars(got, f),
            "{pipeline}: got\n{}\nexpected\n{}",
            print_module(&out),
            print_module(&want)
        );
    }
}

/// The same for expression-level text: bodies compared, free variables mapped.
fn assert_expr_pass(pipeline: &str, before: &str, expected: &str) {
    let e = parse_expr(before).unwrap();
    let main = irkit::Node::new(Function {
        type_params: Vec::new(),
        params: free_vars(&e),
        ret_type: None,
        body: e,
        attrs: Attrs::new(),
        span: Span::default(),
    });
    let out = run(
        pipeline,
        &RelayModule::from_functions([("main".to_owned(), main)]),
    );
    let got = &out.get("main").unwrap().body;
    let want = parse_expr(expected).unwrap();
    let want = if pipeline.contains("infer-type") {
        let f = irkit::Node::new(Function {
            type_params: Vec::new(),
            params: free_vars(&want),
            ret_type: None,
            body: want,
            attrs: Attrs::new(),
            span: Span::default(),
        });
        let typed = run(
            "infer-type",
            &RelayModule::from_functions([("main".to_owned(), f)]),
        );
        typed.get("main").unwrap().body.clone()
    } else {
        want
    };
    assert!(
        structural_eq_map_free_vars(got, &want),
        "{pipeline}: got\n{}\nexpected\n{}",
        print_expr(got),
        print_expr(&want)
    );
}

fn value(m: &RelayModule, args: &[Value]) -> Value {
    run_main(m, args).unwrap_or_else(|e| panic!("{e}"))
}

fn has_let(m: &RelayModule) -> bool {
    print_module(m).contains("let ")
}

// ---- test_pass_fold_constant.py ----

#[test]
fn fold_concatenate_const() {
    assert_pass(
        "infer-type,fold-constant",
        r#"#[version = "0.0.5"]
def @main() { concatenate((meta[relay.Constant][0], meta[relay.Constant][0]), axis=0) }
#[metadata]
{"relay.Constant": [{"dtype": "float64", "shape": [3], "data": [1, 2, 3]}]}"#,
        r#"#[version = "0.0.5"]
def @main() -> Tensor[(6), float64] { meta[relay.Constant][0] }
#[metadata]
{"relay.Constant": [{"dtype": "float64", "shape": [6], "data": [1, 2, 3, 1, 2, 3]}]}"#,
    );
}

#[test]
fn fold_const() {
    assert_pass(
        "fold-constant",
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 3), float32]) {
  %0 = add(meta[relay.Constant][0], meta[relay.Constant][0]);
  %1 = multiply(%0, 2f);
  %2 = add(%x, %1);
  add(%2, meta[relay.Constant][0])
}
#[metadata]
{"relay.Constant": [{"dtype": "float32", "shape": [3], "data": [1, 2, 3]}]}"#,
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1, 2, 3), float32]) {
  %0 = add(%x, meta[relay.Constant][0]);
  add(%0, meta[relay.Constant][1])
}
#[metadata]
{"relay.Constant": [{"dtype": "float32", "shape": [3], "data": [4, 8, 12]},
                    {"dtype": "float32", "shape": [3], "data": [1, 2, 3]}]}"#,
    );
}

#[test]
fn fold_let() {
    assert_pass(
        "fold-constant",
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1), float32]) {
  let %t1 = 1f;
  let %t2 = add(%t1, %t1);
  let %t3 = add(%t2, %x);
  %t3
}"#,
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1), float32]) {
  let %t3 = add(2f, %x);
  %t3
}"#,
    );
}

#[test]
fn fold_tuple() {
    assert_pass(
        "fold-constant",
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1), float32]) {
  %0 = (%x, 1f);
  %1 = add(%0.1, 1f);
  add(%1, %0.0)
}"#,
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1), float32]) { add(2f, %x) }"#,
    );
}

#[test]
fn fold_concat() {
    assert_pass(
        "fold-constant",
        r#"#[version = "0.0.5"]
def @main() { concatenate((meta[relay.Constant][0], meta[relay.Constant][1]), axis=0) }
#[metadata]
{"relay.Constant": [{"dtype": "float32", "shape": [1, 3], "data": [1, 2, 3]},
                    {"dtype": "float32", "shape": [1, 3], "data": [1, 2, 3]}]}"#,
        r#"#[version = "0.0.5"]
def @main() { meta[relay.Constant][0] }
#[metadata]
{"relay.Constant": [{"dtype": "float32", "shape": [2, 3], "data": [1, 2, 3, 1, 2, 3]}]}"#,
    );
}

#[test]
fn fold_if() {
    for (cond, data) in [("True", "[2, 4, 6]"), ("False", "[0, 0, 0]")] {
        assert_pass(
            "fold-constant",
            &format!(
                r#"#[version = "0.0.5"]
def @main() {{
  if ({cond}) {{
    add(meta[relay.Constant][0], meta[relay.Constant][1])
  }} else {{
    subtract(meta[relay.Constant][0], meta[relay.Constant][1])
  }}
}}
#[metadata]
{{"relay.Constant": [{{"dtype": "float32", "shape": [1, 3], "data": [1, 2, 3]}},
                    {{"dtype": "float32", "shape": [1, 3], "data": [1, 2, 3]}}]}}"#
            ),
            &format!(
                r#"#[version = "0.0.5"]
def @main() {{ meta[relay.Constant][0] }}
#[metadata]
{{"relay.Constant": [{{"dtype": "float32", "shape": [1, 3], "data": {data}}}]}}"#
            ),
        );
    }
}

// ---- test_pass_dead_code_elimination.py ----

#[test]
fn dce_dead_let() {
    assert_pass(
        "dce",
        "#[version = \"0.0.5\"]\ndef @main(%z: int) { let %x = 1; %z }",
        "#[version = \"0.0.5\"]\ndef @main(%z: int) { %z }",
    );
}

#[test]
fn dce_one_live_let() {
    assert_pass(
        "dce",
        "#[version = \"0.0.5\"]\ndef @main(%z: int) { let %x = 1; let %y = 2; %x + %x }",
        "#[version = \"0.0.5\"]\ndef @main(%z: int) { let %x = 1; %x + %x }",
    );
}

#[test]
fn dce_nested_let() {
    assert_pass(
        "dce",
        "#[version = \"0.0.5\"]\ndef @main(%d: int, %b: int) { let %a = %b; let %c = %d; %c }",
        "#[version = \"0.0.5\"]\ndef @main(%d: int, %b: int) { let %c = %d; %c }",
    );
}

#[test]
fn dce_add_with_let() {
    assert_pass(
        "dce,infer-type",
        "#[version = \"0.0.5\"]\ndef @main() { (let %a = 1; 3) + 2 }",
        "#[version = \"0.0.5\"]\ndef @main() -> int32 { 3 + 2 }",
    );
}

#[test]
fn dce_tuple_get_item() {
    assert_pass(
        "dce",
        "#[version = \"0.0.5\"]\ndef @main() { let %a = 100; (1, 2, 3, 4).0 }",
        "#[version = \"0.0.5\"]\ndef @main() { (1, 2, 3, 4).0 }",
    );
}

#[test]
fn dce_inline_into_function() {
    assert_pass(
        "dce{inline-once=true}",
        r#"#[version = "0.0.5"]
def @main() {
  let %x = 1 + 1;
  let %f = fn (%y: int) -> int {
    let %z = %y + %y;
    %x + %z
  };
  (%f(2), %f(3))
}"#,
        r#"#[version = "0.0.5"]
def @main() {
  let %x = 1 + 1;
  let %f = fn (%y: int) -> int {
    %x + (%y + %y)
  };
  (%f(2), %f(3))
}"#,
    );
}

// The older DCE tests, in expression-level text.

#[test]
fn dce_expression_cases() {
    assert_expr_pass(
        "dce",
        "free_var %y: int32; free_var %z: int32; let %x: int32 = %y; %z",
        "free_var %z: int32; %z",
    );
    assert_expr_pass(
        "dce",
        "let %c: float32 = 1f; add(%c, %c)",
        "let %c: float32 = 1f; add(%c, %c)",
    );
    assert_expr_pass(
        "dce{inline-once=true}",
        "free_var %b: float32; free_var %d: float32; let %a: float32 = %b; let %c: float32 = %d; %c",
        "free_var %d: float32; %d",
    );
    assert_expr_pass(
        "dce",
        "free_var %b: float32; free_var %d: float32; free_var %e: float32; let %a: float32 = %b; let %c: float32 = %d; %e",
        "free_var %e: float32; %e",
    );
    assert_expr_pass("dce", "add((let %a: float32 = 1f; 3f), 2f)", "add(3f, 2f)");
    assert_expr_pass(
        "dce",
        "free_var %t: (float32, float32); %t.0",
        "free_var %t: (float32, float32); %t.0",
    );
    assert_expr_pass(
        "dce",
        "free_var %t: (float32, float32); (let %a = 1f; %t).0",
        "free_var %t: (float32, float32); %t.0",
    );
}

// ---- test_pass_eliminate_common_subexpr.py ----

#[test]
fn cse_simple() {
    assert_pass(
        "infer-type,cse",
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, 1f);
  %2 = nn.relu(%x);
  %3 = add(%2, 1f);
  add(%1, %3)
}"#,
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16), float32]) -> Tensor[(1, 16), float32] {
  %0 = nn.relu(%x);
  %1 = add(%0, 1f);
  add(%1, %1)
}"#,
    );
}

#[test]
fn cse_tuple_arg() {
    let ones = format!("[{}]", vec!["1"; 16].join(", "));
    let meta = format!(
        "#[metadata]\n{{\"relay.Constant\": [{{\"dtype\": \"float32\", \"shape\": [1, 16], \"data\": {ones}}}]}}"
    );
    assert_pass(
        "cse",
        &format!(
            r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16), float32]) {{
  %0 = nn.relu(%x);
  %1 = add(%0, 1f);
  %2 = concatenate((%1, meta[relay.Constant][0]), axis=0);
  %3 = nn.relu(%x);
  %4 = add(%3, 1f);
  %5 = concatenate((%4, meta[relay.Constant][0]), axis=0);
  add(%2, %5)
}}
{meta}"#
        ),
        &format!(
            r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16), float32]) {{
  %0 = nn.relu(%x);
  %1 = add(%0, 1f);
  %2 = concatenate((%1, meta[relay.Constant][0]), axis=0);
  add(%2, %2)
}}
{meta}"#
        ),
    );
}

// ---- test_pass_to_a_normal_form.py ----

#[test]
fn anf_explicit_bound() {
    let m = module(
        "#[version = \"0.0.5\"]\ndef @main() { %0 = add(1, 1); %1 = add(%0, %0); add(%1, %1) }",
    );
    let out = run("to-anf", &m);
    assert!(!has_let(&m) && has_let(&out));
    assert_eq!(value(&m, &[]), Value::tensor(Tensor::scalar_i32(8)));
    assert_eq!(value(&out, &[]), Value::tensor(Tensor::scalar_i32(8)));
}

#[test]
fn anf_order() {
    assert_expr_pass(
        "to-anf,infer-type",
        "add(1, multiply(2, 3))",
        "let %a = 1; let %b = 2; let %c = 3; let %d = multiply(%b, %c); let %e = add(%a, %d); %e",
    );
}

#[test]
fn anf_if() {
    assert_expr_pass(
        "to-anf,infer-type",
        "if (True) { 2 } else { 3 }",
        "let %c = True; let %d = if (%c) { let %a = 2; %a } else { let %b = 3; %b }; %d",
    );
}

#[test]
fn anf_recursion() {
    let m = module(
        r#"#[version = "0.0.5"]
def @f(%n: int64) -> int64 {
  %0 = multiply(%n, 2i64);
  if (equal(%n, 0i64)) { %0 } else { add(%0, @f(subtract(%n, 1i64))) }
}
def @main() -> int64 { @f(5i64) }"#,
    );
    let out = run("to-anf", &m);
    let thirty = Value::tensor(Tensor::from_f64s(DType::I64, &[], &[30.0]).unwrap());
    assert_eq!(value(&m, &[]), thirty);
    assert_eq!(value(&out, &[]), thirty);
    assert!(verify(&out).is_ok());
}

#[test]
fn anf_let_and_function() {
    let m = module("#[version = \"0.0.5\"]\ndef @main() { let %x = 4f; let %y = %x; add(%x, %y) }");
    assert_eq!(
        value(&run("to-anf", &m), &[]),
        Value::tensor(Tensor::scalar_f32(8.0))
    );
    let m = module("#[version = \"0.0.5\"]\ndef @main(%x: float32) { add(%x, %x) }");
    let four = Value::tensor(Tensor::scalar_f32(4.0));
    assert_eq!(
        value(&run("to-anf", &m), std::slice::from_ref(&four)),
        Value::tensor(Tensor::scalar_f32(8.0))
    );
}

// ---- test_pass_to_graph_normal_form.py ----

const GNF_INPUT: &str = "#[version = \"0.0.5\"]\ndef @main() { let %x = 1; let %y = add(%x, %x); let %z = add(%y, %y); add(%z, %z) }";

#[test]
fn gnf_implicit_share() {
    let m = module(GNF_INPUT);
    let out = run("to-gnf", &m);
    assert!(has_let(&m) && !has_let(&out));
    assert_eq!(value(&m, &[]), Value::tensor(Tensor::scalar_i32(8)));
    assert_eq!(value(&out, &[]), Value::tensor(Tensor::scalar_i32(8)));
    // TVM's output, for reference: the chain becomes shared nodes.
    let expected = module(
        "#[version = \"0.0.5\"]\ndef @main() { %0 = add(1, 1); %1 = add(%0, %0); add(%1, %1) }",
    );
    let (a, b) = (out.get("main").unwrap(), expected.get("main").unwrap());
    assert!(structural_eq(&a.body, &b.body) || print_module(&out).contains("%1 = add(%0, %0)"));
}

#[test]
fn gnf_round_trip() {
    let m = module(GNF_INPUT);
    let g = run("to-gnf", &m);
    let h = run("to-anf", &g);
    assert!(!has_let(&g));
    for program in [&m, &g, &h] {
        assert_eq!(value(program, &[]), Value::tensor(Tensor::scalar_i32(8)));
    }
}
