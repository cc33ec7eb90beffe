//! The reference interpreter and the operator kernels.

use ir_passes::relay::*;
use ndarray::{ArrayD, IxDyn};
use pretty_assertions::assert_eq;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

fn f32s(shape: &[usize], values: &[f32]) -> Value {
    Value::tensor(Tensor::F32(
        ArrayD::from_shape_vec(IxDyn(shape), values.to_vec()).unwrap(),
    ))
}

fn i32s(v: i32) -> Value {
    Value::tensor(Tensor::scalar_i32(v))
}

fn run(text: &str, inputs: &[Value]) -> Value {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    run_main(&m, inputs).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn local_recursion_tuples_and_projection() {
    let out = run(
        r#"#[version = "0.0.5"]
def @main(%n: int) -> (int, int) {
  let %go = fn (%i: int, %acc: int) -> int {
    if (%i == 0) { %acc } else { %go(%i - 1, %acc + %i) }
  };
  let %r = (%go(%n, 0), %n);
  (%r.0, %r.1)
}"#,
        &[i32s(4)],
    );
    assert_eq!(out, Value::tuple(vec![i32s(10), i32s(4)]));
}

#[test]
fn closures_capture_their_free_variables() {
    let out = run(
        r#"#[version = "0.0.5"]
def @main() {
  let %f = fn (%x) { fn (%y) { %x + %y } };
  let %a = %f(1);
  let %b = %f(2);
  (%a(10), %b(10))
}"#,
        &[],
    );
    assert_eq!(out, Value::tuple(vec![i32s(11), i32s(12)]));
}

#[test]
fn globals_call_each_other() {
    let out = run(
        r#"#[version = "0.0.5"]
def @double(%x: float32) { %x * 2f }
def @main(%x: Tensor[(2), float32]) { @double(%x) + 1f }"#,
        &[f32s(&[2], &[1.0, 2.5])],
    );
    assert_eq!(out, f32s(&[2], &[3.0, 6.0]));
}

#[test]
fn broadcasting_and_elementwise_operators() {
    let x = f32s(&[2, 3], &[1.0, -2.0, 3.0, -4.0, 5.0, -6.0]);
    let out = run(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  (add(%x, 1f), nn.relu(%x), negative(%x), maximum(%x, 0f), minimum(%x, 0f), greater(%x, 0f), where(less(%x, 0f), 0f, %x))
}"#,
        &[x],
    );
    let Value::Tuple(items) = &out else {
        panic!("a tuple")
    };
    assert_eq!(items[0], f32s(&[2, 3], &[2.0, -1.0, 4.0, -3.0, 6.0, -5.0]));
    assert_eq!(items[1], f32s(&[2, 3], &[1.0, 0.0, 3.0, 0.0, 5.0, 0.0]));
    assert_eq!(items[2], f32s(&[2, 3], &[-1.0, 2.0, -3.0, 4.0, -5.0, 6.0]));
    assert_eq!(items[3], items[1]);
    assert_eq!(items[4], f32s(&[2, 3], &[0.0, -2.0, 0.0, -4.0, 0.0, -6.0]));
    let Some(Tensor::Bool(b)) = items[5].as_tensor() else {
        panic!("bool")
    };
    assert_eq!(
        b.iter().copied().collect::<Vec<_>>(),
        [true, false, true, false, true, false]
    );
    assert_eq!(items[6], items[1]);
}

#[test]
fn shape_operators_and_dense() {
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let w = f32s(&[2, 3], &[1.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
    let out = run(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(2, 3), float32]) {
  (reshape(%x, newshape=[3, -1]), expand_dims(%x, axis=0), squeeze(expand_dims(%x, axis=1)),
   concatenate((%x, %x), axis=1), nn.dense(%x, %w))
}"#,
        &[x, w],
    );
    let Value::Tuple(items) = &out else {
        panic!("a tuple")
    };
    let shape = |v: &Value| match v {
        Value::Tensor(t) => t.shape().to_vec(),
        _ => panic!("tensor"),
    };
    assert_eq!(shape(&items[0]), [3, 2]);
    assert_eq!(shape(&items[1]), [1, 2, 3]);
    assert_eq!(shape(&items[2]), [2, 3]);
    assert_eq!(shape(&items[3]), [2, 6]);
    assert_eq!(items[4], f32s(&[2, 2], &[1.0, 5.0, 4.0, 11.0]));
}

#[test]
fn type_inference_rules_of_operators() {
    let t = |s: &str| {
        parse_expr(&format!("free_var %t: {s}; %t"))
            .map(|e| e.as_var().unwrap().annotation.clone().unwrap())
            .unwrap()
    };
    let attrs = Attrs::new();
    let add = op("add").unwrap();
    let out = (add.infer)(
        &[
            t("Tensor[(2, 1, 3), float32]"),
            t("Tensor[(4, 1), float32]"),
        ],
        &attrs,
    )
    .unwrap();
    assert_eq!(print_type(&out), "Tensor[(2, 4, 3), float32]");
    let err = (add.infer)(
        &[t("Tensor[(2), float32]"), t("Tensor[(3), float32]")],
        &attrs,
    )
    .unwrap_err();
    assert_eq!(err, "shapes do not broadcast: dimension 2 against 3");
    let less = op("less").unwrap();
    assert_eq!(
        print_type(&(less.infer)(&[t("float32"), t("float32")], &attrs).unwrap()),
        "bool"
    );
    let dense = op("nn.dense").unwrap();
    assert_eq!(
        print_type(
            &(dense.infer)(
                &[t("Tensor[(?, 8), float32]"), t("Tensor[(4, 8), float32]")],
                &attrs
            )
            .unwrap()
        ),
        "Tensor[(?, 4), float32]"
    );
    assert!(op_names().count() >= 19);
}

#[test]
fn runtime_errors_are_reported() {
    let m = parse_module("#[version = \"0.0.5\"]\ndef @main() { divide(1, 0) }").unwrap();
    assert_eq!(
        run_main(&m, &[]).unwrap_err(),
        "divide: integer division by zero"
    );
    let m = parse_module("#[version = \"0.0.5\"]\ndef @main(%x) { %x }").unwrap();
    assert_eq!(
        run_main(&m, &[]).unwrap_err(),
        "function takes 1 arguments, given 0"
    );
}

/// `abs`, `exp`, `log` and `sqrt` (issue 11): their kernels, and `exp`,
/// `log` and `sqrt` take float tensors only.
#[test]
fn abs_exp_log_and_sqrt() {
    let x = f32s(&[3], &[-4.0, 1.0, 9.0]);
    let out = run(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(3), float32]) {
  (abs(%x), sqrt(abs(%x)), (exp(0f), log(1f), log(exp(2f64))), abs(-3))
}"#,
        &[x],
    );
    let Value::Tuple(items) = &out else {
        panic!("a tuple")
    };
    assert_eq!(items[0], f32s(&[3], &[4.0, 1.0, 9.0]));
    assert_eq!(items[1], f32s(&[3], &[2.0, 1.0, 3.0]));
    let Value::Tuple(e) = &items[2] else {
        panic!("a tuple")
    };
    assert_eq!(e[0], Value::tensor(Tensor::scalar_f32(1.0)));
    assert_eq!(e[1], Value::tensor(Tensor::scalar_f32(0.0)));
    // float64 keeps log(exp(2)) at 2 exactly.
    assert_eq!(
        e[2],
        Value::tensor(Tensor::F64(ndarray::arr0(2.0).into_dyn()))
    );
    assert_eq!(items[3], i32s(3));
    let m = parse_module("#[version = \"0.0.5\"]\ndef @main(%x: int32) { exp(%x) }").unwrap();
    let err = verify(&m).unwrap_err().to_string();
    assert!(
        err.contains("expected a float tensor, found int32"),
        "{err}"
    );
}

/// `transpose`, `sum` and `mean` (issue 11), with TVM's attributes:
/// `axes`; `axis`, `keepdims` and `exclude`.
#[test]
fn transpose_sum_and_mean() {
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let text = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  (transpose(%x), transpose(%x, axes=[0, 1]), sum(%x), sum(%x, axis=[1]), sum(%x, axis=[0], keepdims=True), mean(%x, axis=[1], exclude=True), mean(%x, axis=[-1]))
}"#;
    let out = run(text, &[x]);
    let Value::Tuple(items) = &out else {
        panic!("a tuple")
    };
    assert_eq!(items[0], f32s(&[3, 2], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]));
    assert_eq!(items[1], f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    assert_eq!(items[2], f32s(&[], &[21.0]));
    assert_eq!(items[3], f32s(&[2], &[6.0, 15.0]));
    assert_eq!(items[4], f32s(&[1, 3], &[5.0, 7.0, 9.0]));
    assert_eq!(items[5], f32s(&[3], &[2.5, 3.5, 4.5]));
    assert_eq!(items[6], f32s(&[2], &[2.0, 5.0]));
    // The types agree with the values.
    let m = parse_module(text).unwrap();
    let infer = ir_passes::relay::passes::registry()
        .pipeline("infer-type")
        .unwrap();
    let typed = print_module(&irkit::pass::PassContext::default().run(&infer, &m).unwrap());
    assert!(
        typed.contains("Tensor[(3, 2), float32]") && typed.contains("Tensor[(1, 3), float32]"),
        "{typed}"
    );
    for bad in [
        "transpose(%x, axes=[0, 0])",
        "transpose(%x, axes=[0])",
        "sum(%x, axis=[2])",
    ] {
        let m = parse_module(&format!(
            "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3), float32]) {{ {bad} }}"
        ))
        .unwrap();
        assert!(verify(&m).is_err(), "{bad}");
    }
}

/// `cast` (issue 11): floats truncate toward zero into integers, saturating,
/// and anything non-zero is `True`.
#[test]
fn cast_converts_as_c_does() {
    let x = f32s(&[4], &[-1.5, 0.0, 2.7, 1e10]);
    let out = run(
        r#"#[version = "0.0.5"]
def @main(%x: Tensor[(4), float32]) {
  (cast(%x, dtype="int32"), cast(%x, dtype="bool"), cast(cast(%x, dtype="int16"), dtype="float64"))
}"#,
        &[x],
    );
    let Value::Tuple(items) = &out else {
        panic!("a tuple")
    };
    assert_eq!(
        items[0],
        Value::tensor(
            Tensor::from_f64s(DType::I32, &[4], &[-1.0, 0.0, 2.0, 2147483647.0]).unwrap()
        )
    );
    assert_eq!(
        items[1],
        Value::tensor(Tensor::from_f64s(DType::BOOL, &[4], &[1.0, 0.0, 1.0, 1.0]).unwrap())
    );
    assert_eq!(
        items[2],
        Value::tensor(Tensor::from_f64s(DType::F64, &[4], &[-1.0, 0.0, 2.0, 32767.0]).unwrap())
    );
    // Integers to narrower integers keep the low bits, as C does; int64
    // converts exactly, and to float32 rounds once.
    let ints = run(
        r#"#[version = "0.0.5"]
def @main() {
  (cast(70000, dtype="int16"), cast(9007199254740993i64, dtype="int64"), cast(-1i64, dtype="int32"), cast(1152921573326323713i64, dtype="float32"))
}"#,
        &[],
    );
    let scalar = |t: Tensor| Value::tensor(t);
    let want = vec![
        scalar(Tensor::I16(ndarray::arr0(4464i16).into_dyn())),
        scalar(Tensor::I64(ndarray::arr0(9007199254740993i64).into_dyn())),
        scalar(Tensor::scalar_i32(-1)),
        // Rounded once to the nearest float32 (2^60 + 2^37), not through
        // float64 first (which gives 2^60).
        scalar(Tensor::F32(
            ndarray::arr0(1152921573326323713i64 as f32).into_dyn(),
        )),
    ];
    let Value::Tuple(got) = &ints else {
        panic!("a tuple")
    };
    assert_eq!(got.to_vec(), want);
    let m = parse_module("#[version = \"0.0.5\"]\ndef @main(%x: float32) { cast(%x) }").unwrap();
    assert!(verify(&m).unwrap_err().to_string().contains("dtype"));
}

fn close(got: &Value, want: &[f32]) {
    let Some(Tensor::F32(a)) = got.as_tensor() else {
        panic!("a float32 tensor, found {got:?}")
    };
    let got: Vec<f32> = a.iter().copied().collect();
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-5, "{got:?} against {want:?}");
    }
}

fn infer_type(text: &str) -> Result<String, String> {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    let infer = ir_passes::relay::passes::registry()
        .pipeline("infer-type")
        .unwrap();
    irkit::pass::PassContext::default()
        .run(&infer, &m)
        .map(|m| print_module(&m))
        .map_err(|e| e.to_string())
}

/// `nn.conv2d` (issue 11) with TVM's attributes: strides, padding (one,
/// two or four values), dilation, groups, NCHW data and OIHW weights.
#[test]
fn conv2d_with_strides_padding_dilation_and_groups() {
    let x = f32s(&[1, 1, 3, 3], &[1., 2., 3., 4., 5., 6., 7., 8., 9.]);
    let w = f32s(&[1, 1, 2, 2], &[1., 1., 1., 1.]);
    let text = |attrs: &str| {
        format!(
            "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 1, 3, 3), float32], %w: Tensor[(1, 1, 2, 2), float32]) {{\n  nn.conv2d(%x, %w{attrs})\n}}"
        )
    };
    close(
        &run(&text(""), &[x.clone(), w.clone()]),
        &[12., 16., 24., 28.],
    );
    // Padding 1 on every side: the corners see one element each.
    let padded = run(&text(", padding=[1, 1]"), &[x.clone(), w.clone()]);
    close(
        &padded,
        &[
            1., 3., 5., 3., 5., 12., 16., 9., 11., 24., 28., 15., 7., 15., 17., 9.,
        ],
    );
    close(
        &run(
            &text(", strides=[2, 2], padding=[1, 1]"),
            &[x.clone(), w.clone()],
        ),
        &[1., 5., 11., 28.],
    );
    // Dilation 2: the kernel's taps are the corners of the 3x3 input.
    close(
        &run(&text(", dilation=[2, 2]"), &[x.clone(), w.clone()]),
        &[20.],
    );
    // Two groups: each output channel reads its own input channel.
    let grouped = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 2, 1, 2), float32], %w: Tensor[(2, 1, 1, 1), float32]) {\n  nn.conv2d(%x, %w, groups=2, channels=2, kernel_size=[1, 1])\n}";
    close(
        &run(
            grouped,
            &[
                f32s(&[1, 2, 1, 2], &[1., 2., 3., 4.]),
                f32s(&[2, 1, 1, 1], &[2., 3.]),
            ],
        ),
        &[2., 4., 9., 12.],
    );
    // The types agree with the values.
    let typed = infer_type(&text(", strides=[2, 2], padding=[1, 1, 1, 1]")).unwrap();
    assert!(
        typed.contains("-> Tensor[(1, 1, 2, 2), float32]"),
        "{typed}"
    );
    for bad in [
        ", data_layout=\"NHWC\"",
        ", padding=[1, 2, 3]",
        ", strides=[0, 1]",
        ", groups=2",
        ", channels=4",
        ", kernel_size=[3, 3]",
        ", dilation=[4, 4]",
    ] {
        let err = infer_type(&text(bad)).unwrap_err();
        assert!(err.contains("nn.conv2d"), "{bad}: {err}");
    }
}

/// `nn.bias_add`, `nn.softmax` and `nn.batch_norm` (inference mode, its
/// moving statistics passed through, as TVM's type says).
#[test]
fn bias_add_softmax_and_batch_norm() {
    let text = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32], %b: Tensor[(2), float32], %v: Tensor[(3), float32], %gamma: Tensor[(2), float32], %beta: Tensor[(2), float32], %mean: Tensor[(2), float32], %var: Tensor[(2), float32]) {
  let %bn = nn.batch_norm(%x, %gamma, %beta, %mean, %var, epsilon=0f);
  let %plain = nn.batch_norm(%x, %gamma, %beta, %mean, %var, epsilon=0f, center=False, scale=False);
  (nn.bias_add(%x, %b), nn.bias_add(%x, %b, axis=0), nn.softmax(%v), %bn.0, %bn.2, %plain.0)
}"#;
    let vector = |a: f32, b: f32| f32s(&[2], &[a, b]);
    let out = run(
        text,
        &[
            f32s(&[2, 2], &[1., 2., 3., 4.]),
            vector(10., 20.),
            f32s(&[3], &[1., 2., 3.]),
            vector(1., 2.),
            vector(0., 1.),
            vector(2., 3.),
            vector(1., 4.),
        ],
    );
    let Value::Tuple(items) = &out else {
        panic!("a tuple")
    };
    close(&items[0], &[11., 22., 13., 24.]);
    close(&items[1], &[11., 12., 23., 24.]);
    close(&items[2], &[0.09003057, 0.24472847, 0.66524096]);
    close(&items[3], &[-1., 0., 1., 2.]);
    close(&items[4], &[1., 4.]);
    close(&items[5], &[-1., -0.5, 1., 0.5]);
    let typed = infer_type(text).unwrap();
    assert!(
        typed.contains(
            "let %bn: (Tensor[(2, 2), float32], Tensor[(2), float32], Tensor[(2), float32])"
        ),
        "{typed}"
    );
    for bad in [
        "nn.bias_add(%x, %v)",
        "nn.softmax(%x, axis=2)",
        "nn.batch_norm(%x, %v, %b, %b, %b)",
    ] {
        let err = infer_type(&text.replace("nn.softmax(%v)", bad)).unwrap_err();
        assert!(err.contains("nn.") || err.contains("axis"), "{bad}: {err}");
    }
}

/// `zeros` and `ones` take no arguments: `shape` and `dtype` say what they
/// make. A shape past the interpreter's bound is an error, not an
/// allocation, and folding leaves such a call as it is.
#[test]
fn zeros_and_ones_are_bounded() {
    let out = run(
        "#[version = \"0.0.5\"]\ndef @main() { (zeros(shape=[2], dtype=\"float32\"), ones(shape=[1, 2], dtype=\"int32\")) }",
        &[],
    );
    assert_eq!(
        out,
        Value::tuple(vec![
            f32s(&[2], &[0., 0.]),
            Value::tensor(Tensor::from_f64s(DType::I32, &[1, 2], &[1., 1.]).unwrap()),
        ])
    );
    let huge = "#[version = \"0.0.5\"]\ndef @main() { zeros(shape=[1000000, 1000000], dtype=\"float32\") }";
    let m = parse_module(huge).unwrap();
    let err = run_main(&m, &[]).unwrap_err();
    assert!(err.contains("more than 16777216 elements"), "{err}");
    let fold = ir_passes::relay::passes::registry()
        .pipeline("fold-constant")
        .unwrap();
    let folded = irkit::pass::PassContext::default().run(&fold, &m).unwrap();
    assert_eq!(print_module(&folded), print_module(&m));
    for bad in ["zeros(shape=[-1])", "ones()", "zeros(shape=[1], dtype=1)"] {
        let m = parse_module(&format!("#[version = \"0.0.5\"]\ndef @main() {{ {bad} }}")).unwrap();
        assert!(verify(&m).is_err(), "{bad}");
    }
}

/// float16 literals (issue 11): `1.5f16` reads, prints back the same, and
/// computes in float16 (kernels round once from f32).
#[test]
fn float16_literals_compute_and_round_trip() {
    let text = "#[version = \"0.0.5\"]\ndef @main() -> (float16, float16, float16, float16) {\n  (add(1.5f16, 2f16), exp(0f16), cast(2049f, dtype=\"float16\"), multiply(65504f16, 2f16))\n}\n";
    let m = parse_module(text).unwrap();
    assert_eq!(print_module(&m), text);
    verify(&m).unwrap();
    let h = |v: f32| {
        Value::tensor(Tensor::F16(
            ndarray::arr0(half::f16::from_f32(v)).into_dyn(),
        ))
    };
    assert_eq!(
        run_main(&m, &[]).unwrap(),
        Value::tuple(vec![h(3.5), h(1.0), h(2048.0), h(f32::INFINITY)])
    );
    let folded = ir_passes::relay::passes::registry()
        .pipeline("fold-constant")
        .unwrap();
    let out = irkit::pass::PassContext::default()
        .run(&folded, &m)
        .unwrap();
    assert_eq!(
        print_module(&out),
        "#[version = \"0.0.5\"]\ndef @main() -> (float16, float16, float16, float16) {\n  (3.5f16, 1f16, 2048f16, inff16)\n}\n"
    );
    // Each prints in its shortest form that reads back to the same bits.
    let literals = "#[version = \"0.0.5\"]\ndef @main() {\n  (0.1f16, 0.00000006f16, 65504f16, -0f16, -inff16, -inff64)\n}\n";
    assert_eq!(print_module(&parse_module(literals).unwrap()), literals);
}

/// `@main(%x: <input>) { <call> }`, run on `x`.
fn run_on(input: &str, call: &str, x: Value) -> Value {
    run(
        &format!("#[version = \"0.0.5\"]\ndef @main(%x: {input}) {{\n  {call}\n}}"),
        &[x],
    )
}

/// Pooling (issue 11, for the TVM model texts): a maximum ignores padding;
/// an average divides by what it covered, padding too with
/// `count_include_pad`; `ceil_mode` lets the last window pass the end.
#[test]
fn max_avg_and_global_pooling() {
    let ty = "Tensor[(1, 1, 3, 3), float32]";
    let x = || f32s(&[1, 1, 3, 3], &[1., 2., 3., 4., 5., 6., 7., 8., 9.]);
    let pool = |call: &str| run_on(ty, call, x());
    close(
        &pool("nn.max_pool2d(%x, pool_size=[2, 2])"),
        &[5., 6., 8., 9.],
    );
    close(
        &pool("nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2])"),
        &[5.],
    );
    close(
        &pool("nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)"),
        &[5., 6., 8., 9.],
    );
    close(
        &pool("nn.avg_pool2d(%x, pool_size=[2, 2])"),
        &[3., 4., 6., 7.],
    );
    close(
        &pool("nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1, 1, 1])"),
        &[3., 3.5, 4., 4.5, 5., 5.5, 6., 6.5, 7.],
    );
    let ninths = [12., 21., 16., 27., 45., 33., 24., 39., 28.].map(|v: f32| v / 9.);
    close(
        &pool("nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1], count_include_pad=True)"),
        &ninths,
    );
    close(&pool("nn.global_avg_pool2d(%x)"), &[5.]);
    close(
        &pool("nn.batch_flatten(%x)"),
        &[1., 2., 3., 4., 5., 6., 7., 8., 9.],
    );
    // The types agree with the values.
    let typed = |call: &str| {
        infer_type(&format!(
            "#[version = \"0.0.5\"]\ndef @main(%x: {ty}) {{\n  {call}\n}}"
        ))
    };
    for (call, want) in [
        (
            "nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)",
            "Tensor[(1, 1, 2, 2), float32]",
        ),
        (
            "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1])",
            "Tensor[(1, 1, 3, 3), float32]",
        ),
        ("nn.global_avg_pool2d(%x)", "Tensor[(1, 1, 1, 1), float32]"),
        ("nn.batch_flatten(%x)", "Tensor[(1, 9), float32]"),
    ] {
        let printed = typed(call).unwrap();
        assert!(printed.contains(&format!("-> {want}")), "{call}: {printed}");
    }
    for (bad, error) in [
        (
            "nn.max_pool2d(%x, pool_size=[4, 4])",
            "does not fit the padded input",
        ),
        (
            "nn.max_pool2d(%x, pool_size=[0, 1])",
            "`pool_size` must be positive",
        ),
        ("nn.avg_pool2d(%x, layout=\"NHWC\")", "only layout=\"NCHW\""),
        (
            "nn.max_pool2d(%x, strides=[0, 1])",
            "strides and dilation must be positive",
        ),
    ] {
        let err = typed(bad).unwrap_err();
        assert!(err.contains(error), "{bad}: {err}");
    }
}

/// `nn.conv2d_transpose` with TVM's default layouts (NCHW data, IOHW
/// weight): each input element adds the kernel, scaled, into the output.
#[test]
fn conv2d_transpose_scatters_the_kernel() {
    let x = || f32s(&[1, 1, 2, 2], &[1., 2., 3., 4.]);
    let ones = || f32s(&[1, 1, 2, 2], &[1., 1., 1., 1.]);
    let text = |attrs: &str| {
        format!(
            "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 1, 2, 2), float32], %w: Tensor[(1, 1, 2, 2), float32]) {{\n  nn.conv2d_transpose(%x, %w{attrs})\n}}"
        )
    };
    close(
        &run(&text(""), &[x(), ones()]),
        &[1., 3., 2., 4., 10., 6., 3., 7., 4.],
    );
    close(
        &run(&text(", strides=[2, 2]"), &[x(), ones()]),
        &[
            1., 1., 2., 2., 1., 1., 2., 2., 3., 3., 4., 4., 3., 3., 4., 4.,
        ],
    );
    // Padding crops the output: the centre of the last one.
    close(
        &run(
            &text(", strides=[2, 2], padding=[1, 1, 1, 1]"),
            &[x(), ones()],
        ),
        &[1., 2., 3., 4.],
    );
    // Output padding adds a row and a column that nothing reaches...
    close(
        &run(
            &text(", strides=[2, 2], output_padding=[1, 1]"),
            &[x(), ones()],
        ),
        &[
            1., 1., 2., 2., 0., 1., 1., 2., 2., 0., 3., 3., 4., 4., 0., 3., 3., 4., 4., 0., 0., 0.,
            0., 0., 0.,
        ],
    );
    // ... or keeps what the padding would crop at the end.
    close(
        &run(
            &text(", strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1]"),
            &[x(), ones()],
        ),
        &[1., 2., 2., 3., 4., 4., 3., 4., 4.],
    );
    // Two groups: each input channel writes its own output channel.
    let grouped = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 2, 1, 1), float32], %w: Tensor[(2, 1, 1, 1), float32]) {\n  nn.conv2d_transpose(%x, %w, groups=2, channels=2)\n}";
    close(
        &run(
            grouped,
            &[
                f32s(&[1, 2, 1, 1], &[1., 2.]),
                f32s(&[2, 1, 1, 1], &[3., 5.]),
            ],
        ),
        &[3., 10.],
    );
    let typed = infer_type(&text(", strides=[2, 2], output_padding=[1, 1]")).unwrap();
    assert!(
        typed.contains("-> Tensor[(1, 1, 5, 5), float32]"),
        "{typed}"
    );
    for (bad, error) in [
        (", kernel_layout=\"OIHW\"", "only kernel_layout=\"IOHW\""),
        (", channels=3", "channels: 3 against 1"),
        (
            ", padding=[2, 2]",
            "the padding leaves an output extent of -1",
        ),
        (", groups=2", "1 channels do not split into 2 groups"),
    ] {
        let err = infer_type(&text(bad)).unwrap_err();
        assert!(err.contains(error), "{bad}: {err}");
    }
}

/// `split` (a count of equal parts, or indices to cut at), `clip`, `tanh`
/// and `sigmoid`.
#[test]
fn split_clip_tanh_and_sigmoid() {
    let x = || f32s(&[6], &[0., 1., 2., 3., 4., 5.]);
    let parts = |call: &str| match run_on("Tensor[(6), float32]", call, x()) {
        Value::Tuple(ref items) => items.to_vec(),
        other => panic!("a tuple, found {other:?}"),
    };
    let sections = parts("split(%x, indices_or_sections=3)");
    assert_eq!(sections.len(), 3);
    for (part, want) in sections.iter().zip([[0., 1.], [2., 3.], [4., 5.]]) {
        close(part, &want);
    }
    let cut = parts("split(%x, indices_or_sections=[1, 4])");
    close(&cut[0], &[0.]);
    close(&cut[1], &[1., 2., 3.]);
    close(&cut[2], &[4., 5.]);
    let rows = run_on(
        "Tensor[(2, 2), float32]",
        "let %s = split(%x, indices_or_sections=2, axis=1);\n  %s.1",
        f32s(&[2, 2], &[1., 2., 3., 4.]),
    );
    close(&rows, &[2., 4.]);
    let typed = infer_type(
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, ?), float32]) {\n  split(%x, indices_or_sections=[1], axis=-1)\n}",
    )
    .unwrap();
    assert!(
        typed.contains("-> (Tensor[(2, 1), float32], Tensor[(2, ?), float32])"),
        "{typed}"
    );
    for (bad, error) in [
        (
            "split(%x, indices_or_sections=4)",
            "4 sections do not divide extent 6",
        ),
        (
            "split(%x, indices_or_sections=0)",
            "split makes 1 to 1024 sections",
        ),
        ("split(%x, indices_or_sections=[3, 2])", "must ascend"),
        (
            "split(%x, indices_or_sections=[6])",
            "split index 6 is past extent 6",
        ),
        ("split(%x)", "split needs `indices_or_sections`"),
        ("clip(%x, a_min=0f)", "clip needs a number `a_max`"),
        ("tanh(cast(%x, dtype=\"int32\"))", "expected a float tensor"),
    ] {
        let err = infer_type(&format!(
            "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(6), float32]) {{\n  {bad}\n}}"
        ))
        .unwrap_err();
        assert!(err.contains(error), "{bad}: {err}");
    }
    let y = || f32s(&[3], &[-2., 0.5, 3.]);
    let ty = "Tensor[(3), float32]";
    close(
        &run_on(ty, "clip(%x, a_min=-1f, a_max=1f)", y()),
        &[-1., 0.5, 1.],
    );
    close(
        &run_on(ty, "clip(%x, a_min=-inff, a_max=inff)", y()),
        &[-2., 0.5, 3.],
    );
    close(
        &run_on(ty, "tanh(%x)", y()),
        &[(-2f32).tanh(), 0.5f32.tanh(), 3f32.tanh()],
    );
    close(
        &run_on(ty, "sigmoid(%x)", y()),
        &[-2f32, 0.5, 3.].map(|v| 1. / (1. + (-v).exp())),
    );
}

/// Integer kernels compute in integers: sums wrap as the machine does,
/// int64 values past 2^53 stay exact; the mean of no floats is NaN.
#[test]
fn integer_kernels_are_exact_and_wrap() {
    let big = 9007199254740993i64;
    let i64s = |values: &[i64]| {
        Value::tensor(Tensor::I64(
            ArrayD::from_shape_vec(IxDyn(&[values.len()]), values.to_vec()).unwrap(),
        ))
    };
    let out = run(
        &format!(
            "#[version = \"0.0.5\"]\ndef @main() {{\n  \
             (sum(concatenate((reshape(4611686018427387904i64, newshape=[1]), \
             reshape(4611686018427387904i64, newshape=[1])))), \
             reshape(nn.bias_add(reshape({big}i64, newshape=[1, 1]), reshape(0i64, newshape=[1])), newshape=[1]), \
             reshape(clip({big}i64, a_min=0, a_max=9e18f), newshape=[1]), \
             mean(zeros(shape=[0])))\n}}"
        ),
        &[],
    );
    let Value::Tuple(items) = &out else {
        panic!("a tuple")
    };
    assert_eq!(
        items[0],
        Value::tensor(Tensor::I64(ndarray::arr0(i64::MIN).into_dyn()))
    );
    assert_eq!(items[1], i64s(&[big]));
    assert_eq!(items[2], i64s(&[big]));
    let Some(Tensor::F32(mean)) = items[3].as_tensor() else {
        panic!("a float32 mean")
    };
    assert!(mean.iter().all(|v| v.is_nan()));
    // A maximum pool of int64 compares the integers themselves: 2^53 + 1
    // beats 2^53. A window over padding alone gives the dtype's lowest.
    let pooled = run(
        &format!(
            "#[version = \"0.0.5\"]\ndef @main() {{\n  \
             (nn.max_pool2d(reshape(concatenate((reshape({big}i64, newshape=[1]), \
             reshape({}i64, newshape=[1]))), newshape=[1, 1, 1, 2]), pool_size=[1, 2]), \
             nn.max_pool2d(ones(shape=[1, 1, 1, 1], dtype=\"int32\"), pool_size=[1, 1], \
             padding=[0, 1, 0, 0]))\n}}",
            big - 1
        ),
        &[],
    );
    let Value::Tuple(pooled) = &pooled else {
        panic!("a tuple")
    };
    assert_eq!(
        pooled[0],
        Value::tensor(Tensor::from_i64s(&[1, 1, 1, 1], vec![big]).unwrap())
    );
    assert_eq!(
        pooled[1],
        Value::tensor(Tensor::I32(
            ArrayD::from_shape_vec(IxDyn(&[1, 1, 1, 2]), vec![i32::MIN, 1]).unwrap()
        ))
    );
    // An average of integers is TVM's: the sum in the dtype, divided
    // truncating toward zero.
    let i32s4 = |shape: &[usize], v: Vec<i32>| {
        Value::tensor(Tensor::I32(
            ArrayD::from_shape_vec(IxDyn(shape), v).unwrap(),
        ))
    };
    let averages = run(
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 1, 2, 2), int32]) {\n  \
         (nn.avg_pool2d(%x, pool_size=[1, 2]), nn.global_avg_pool2d(%x))\n}",
        &[i32s4(&[1, 1, 2, 2], vec![-3, -2, 1, 0])],
    );
    assert_eq!(
        averages,
        Value::tuple(vec![
            i32s4(&[1, 1, 2, 1], vec![-2, 0]),
            i32s4(&[1, 1, 1, 1], vec![-1]),
        ])
    );
    // A shape folds from the type, exactly.
    let m = parse_module(&format!(
        "#[version = \"0.0.5\"]\ndef @main(%z: Tensor[(2, {big}), float32]) {{\n  shape_of(%z, dtype=\"int64\")\n}}"
    ))
    .unwrap();
    let folded = irkit::pass::PassContext::default()
        .run(
            &ir_passes::relay::passes::registry()
                .pipeline("fold-constant")
                .unwrap(),
            &m,
        )
        .unwrap();
    let printed = print_module(&folded);
    assert!(
        printed.contains(&format!("\"data\":[2,{big}]")),
        "{printed}"
    );
}

/// `sum` over many axes is one pass over its input: a rank-64 tensor
/// of a million elements is summed as fast as a vector.
#[test]
fn a_sum_over_many_axes_is_one_pass() {
    let ones = vec!["1"; 63].join(", ");
    let out = run(
        &format!(
            "#[version = \"0.0.5\"]\ndef @main() {{\n  sum(ones(shape=[1048576, {ones}]), axis=[0, 1, 2, 3, 4, 5, 6, 7], keepdims=True)\n}}"
        ),
        &[],
    );
    let Some(Tensor::F32(a)) = out.as_tensor() else {
        panic!("a float32 tensor")
    };
    assert_eq!(a.shape(), vec![1; 64].as_slice());
    assert_eq!(a.iter().next(), Some(&1048576.0));
}

/// Edge cases of the integer paths, as TVM computes them.
#[test]
fn integer_edge_cases() {
    let out = run(
        "#[version = \"0.0.5\"]\ndef @main() {\n  \
         (cast(1e19f, dtype=\"int64\"), \
         mean(multiply(cast(ones(shape=[2]), dtype=\"int16\"), 30000i16)), \
         nn.bias_add(ones(shape=[2, 0, 3]), ones(shape=[0]), axis=1))\n}",
        &[],
    );
    let Value::Tuple(items) = &out else {
        panic!("a tuple")
    };
    // Saturated, as a float past the range converts.
    assert_eq!(
        items[0],
        Value::tensor(Tensor::I64(ndarray::arr0(i64::MAX).into_dyn()))
    );
    // The sum wraps in int16 (-5536), then divides by 2 in int16.
    assert_eq!(
        items[1],
        Value::tensor(Tensor::I16(ndarray::arr0(-2768i16).into_dyn()))
    );
    let Some(t) = items[2].as_tensor() else {
        panic!("a tensor")
    };
    assert_eq!(t.shape(), &[2, 0, 3]);
    // A tuple argument is sized before it is copied for a kernel: 60,000
    // uses of one tensor of 300 elements are an error, not 72 MB copied.
    let mut text = String::from(
        "#[version = \"0.0.5\"]\ndef @main() {\n  let %x = ones(shape=[300]);\n  concatenate((",
    );
    text.push_str(&vec!["%x"; 60000].join(", "));
    text.push_str("))\n}");
    let m = parse_module(&text).unwrap();
    let err = run_main(&m, &[]).unwrap_err();
    assert!(err.contains("holds more than 16777216 elements"), "{err}");
}

/// A tensor bound once and used many times is held once: the values of its
/// uses share its data, as do a closure's captures across its uses.
#[test]
fn many_uses_of_a_large_tensor_share_its_data() {
    let uses = 1000;
    let tensor_bytes = 256 * 256 * 4;
    let tuple = vec!["%x"; uses].join(", ");
    let calls = vec!["%f()"; uses].join(", ");
    let text = format!(
        "#[version = \"0.0.5\"]\ndef @main() {{\n  \
         let %x = ones(shape=[256, 256], dtype=\"float32\");\n  \
         let %f = fn () {{ %x }};\n  \
         (({tuple}), ({calls}))\n}}"
    );
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}"));
    let (out, bytes) = counting_alloc::bytes_allocated_during(|| run_main(&m, &[]));
    let out = out.unwrap_or_else(|e| panic!("{e}"));
    let Value::Tuple(parts) = &out else {
        panic!("a tuple, found {out:?}")
    };
    assert_eq!(parts.len(), 2);
    // Copying at each use would take 2,000 tensors' worth (512 MB); `ones`
    // itself fills an f64 buffer (two tensors' worth) before the tensor.
    assert!(
        bytes < 8 * tensor_bytes,
        "{bytes} bytes allocated for {uses} uses of a {tensor_bytes}-byte tensor"
    );
}

/// A recursion that never ends stops at a bound on the depth of calls,
/// with an error, before the stack it grows takes the machine's memory
/// (here a small bound; `run_main`'s is `MAX_CALL_DEPTH`, above the
/// million nested applications of the depth tests).
#[test]
fn a_recursion_that_never_ends_is_an_error() {
    let m = parse_module(
        r#"#[version = "0.0.5"]
def @main(%n: int) -> int {
  let %go = fn (%i: int) -> int { %go(%i + 1) };
  %go(%n)
}"#,
    )
    .unwrap();
    let err = run_main_limited(&m, &[i32s(0)], 50_000).unwrap_err();
    assert!(err.contains("calls nest deeper than 50000"), "{err}");
    // Just within the bound, the same kind of recursion runs.
    let m = parse_module(
        r#"#[version = "0.0.5"]
def @main(%n: int) -> int {
  let %go = fn (%i: int) -> int { if (%i == 0) { 0 } else { %go(%i - 1) } };
  %go(%n)
}"#,
    )
    .unwrap();
    assert_eq!(run_main_limited(&m, &[i32s(49_998)], 50_000), Ok(i32s(0)));
}

/// `nn.dense` with nothing to reduce gives rows of zeros, as an empty sum.
#[test]
fn dense_over_an_empty_axis_is_zeros() {
    let out = run(
        "#[version = \"0.0.5\"]\ndef @main() {\n  \
         nn.dense(zeros(shape=[2, 0]), zeros(shape=[3, 0]))\n}",
        &[],
    );
    assert_eq!(out, f32s(&[2, 3], &[0.0; 6]));
}
