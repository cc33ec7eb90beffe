//! Differential properties of the Relax passes on random well-formed
//! programs, written as TVMScript: every pass keeps the program well-formed
//! and computing the same values (the reference interpreter,
//! `relax::interp`), and its result prints and reads back to the same text.
//!
//! The programs mix what the passes look for: dataflow blocks and ordinary
//! bindings, dead bindings, trivial `y = x` bindings, repeated values,
//! tuples and projections, `if`s on a parameter, and local functions that
//! capture variables.

use ir_core::pass::PassContext;
use ir_passes::relax::interp::{Tensor, Value, run};
use ir_passes::relax::passes::registry;
use ir_passes::relax::{DataType, RelaxModule, parse_module, print_module, well_formed};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

const T: &str = r#"R.Tensor((2, 3), dtype="float32")"#;

/// One statement; operands index the variables defined before it.
#[derive(Debug, Clone)]
enum Step {
    Unary(u8, usize),
    Binary(u8, usize, usize),
    Copy(usize),
    /// The value of an earlier `Unary` or `Binary` again.
    Repeat(usize),
    Tuple(usize, usize, bool),
    If(usize, usize),
    Local(usize, usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0u8..3, any::<usize>()).prop_map(|(o, a)| Step::Unary(o, a)),
        4 => (0u8..5, any::<usize>(), any::<usize>()).prop_map(|(o, a, b)| Step::Binary(o, a, b)),
        1 => any::<usize>().prop_map(Step::Copy),
        2 => any::<usize>().prop_map(Step::Repeat),
        1 => (any::<usize>(), any::<usize>(), any::<bool>()).prop_map(|(a, b, i)| Step::Tuple(a, b, i)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Step::If(a, b)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Step::Local(a, b)),
    ]
}

/// The program's text: `main(x, y, c)` with the steps, runs of dataflow
/// steps in `with R.dataflow():` blocks (every variable an output).
fn program(steps: &[(Step, bool)], result_pair: bool) -> String {
    let mut vars: Vec<String> = vec!["x".into(), "y".into()];
    let mut values: Vec<String> = Vec::new();
    let mut body = String::new();
    let mut in_dataflow: Vec<String> = Vec::new();
    let mut dataflow = false;
    for (k, (s, df)) in steps.iter().enumerate() {
        // Ifs and local functions stay out of dataflow blocks, as in TVM.
        let df = *df && !matches!(s, Step::If(..) | Step::Local(..));
        if dataflow && !df {
            body.push_str(&format!(
                "            R.output({})\n",
                in_dataflow.join(", ")
            ));
            in_dataflow.clear();
            dataflow = false;
        }
        if df && !dataflow {
            body.push_str("        with R.dataflow():\n");
            dataflow = true;
        }
        let pad = if df { "            " } else { "        " };
        let pick = |i: usize| vars[i % vars.len()].clone();
        let v = format!("v{k}");
        match s {
            Step::Unary(o, a) => {
                let value = format!(
                    "R.{}({})",
                    ["negative", "exp", "nn.relu"][*o as usize],
                    pick(*a)
                );
                body.push_str(&format!("{pad}{v}: {T} = {value}\n"));
                values.push(value);
            }
            Step::Binary(o, a, b) => {
                let op = ["add", "subtract", "multiply", "maximum", "minimum"][*o as usize];
                let value = format!("R.{op}({}, {})", pick(*a), pick(*b));
                body.push_str(&format!("{pad}{v}: {T} = {value}\n"));
                values.push(value);
            }
            Step::Copy(a) => body.push_str(&format!("{pad}{v}: {T} = {}\n", pick(*a))),
            Step::Repeat(i) => {
                let value = values
                    .get(i % values.len().max(1))
                    .cloned()
                    .unwrap_or_else(|| "R.add(x, y)".into());
                body.push_str(&format!("{pad}{v}: {T} = {value}\n"));
                values.push(value);
            }
            Step::Tuple(a, b, second) => {
                body.push_str(&format!(
                    "{pad}t{k}: R.Tuple({T}, {T}) = {}, {}\n",
                    pick(*a),
                    pick(*b)
                ));
                if df {
                    in_dataflow.push(format!("t{k}"));
                }
                body.push_str(&format!("{pad}{v}: {T} = t{k}[{}]\n", usize::from(*second)));
            }
            Step::If(a, b) => {
                let (a, b) = (pick(*a), pick(*b));
                body.push_str(&format!(
                    "{pad}if c:\n{pad}    b{k}: {T} = R.add({a}, {b})\n{pad}    {v}: {T} = R.multiply(b{k}, {a})\n{pad}else:\n{pad}    {v}: {T} = R.subtract({a}, {b})\n"
                ));
            }
            Step::Local(a, b) => {
                // A local function capturing one variable, called once.
                let (captured, arg) = (pick(*a), pick(*b));
                body.push_str(&format!(
                    "{pad}@R.function\n{pad}def f{k}(p: {T}) -> {T}:\n{pad}    q: {T} = R.add(p, {captured})\n{pad}    return q\n\n{pad}{v}: {T} = f{k}({arg})\n"
                ));
            }
        }
        if df {
            in_dataflow.push(v.clone());
        }
        vars.push(v);
    }
    if dataflow {
        body.push_str(&format!(
            "            R.output({})\n",
            in_dataflow.join(", ")
        ));
    }
    let last = vars.last().cloned().unwrap_or_default();
    let (ret_ty, ret) = if result_pair {
        (
            format!("R.Tuple({T}, {T})"),
            format!("({last}, {})", vars[vars.len() / 2]),
        )
    } else {
        (T.to_owned(), last)
    };
    format!(
        "# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n    @R.function\n    def main(x: {T}, y: {T}, c: R.Tensor((), dtype=\"bool\")) -> {ret_ty}:\n{body}        return {ret}\n"
    )
}

fn inputs(xs: &[i8], flag: bool) -> Vec<Value> {
    let tensor = |offset: usize| {
        let data = (0..6)
            .map(|i| f64::from(xs[(i + offset) % xs.len()]) / 8.0)
            .collect();
        Value::Tensor(Tensor::new(DataType::F32, vec![2, 3], data).unwrap())
    };
    vec![
        tensor(0),
        tensor(3),
        Value::Tensor(
            Tensor::new(DataType::Bool, vec![], vec![f64::from(u8::from(flag))]).unwrap(),
        ),
    ]
}

const PASSES: &[&str] = &[
    "normalize",
    "dce",
    "canonicalize-bindings",
    "cse",
    "convert-to-dataflow",
    "lambda-lift",
    "to-non-dataflow",
    "cse,canonicalize-bindings,dce",
];

fn reads_back(module: &RelaxModule) {
    let text = print_module(module);
    let again = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(print_module(&again), text);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_pass_keeps_values_and_well_formedness(
        steps in prop::collection::vec((step(), any::<bool>()), 1..24),
        pair in any::<bool>(),
        xs in prop::collection::vec(any::<i8>(), 6),
        flag in any::<bool>(),
    ) {
        let text = program(&steps, pair);
        let module = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        well_formed(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
        reads_back(&module);
        let want = run(&module, "main", inputs(&xs, flag)).unwrap();
        for pass in PASSES {
            let passes = registry().pipeline(pass).unwrap();
            let out = PassContext::default()
                .run(&passes, &module)
                .unwrap_or_else(|e| panic!("{pass}: {e}\n{text}"));
            well_formed(&out).unwrap_or_else(|e| panic!("{pass}: {e}\n{}", print_module(&out)));
            let got = run(&out, "main", inputs(&xs, flag))
                .unwrap_or_else(|e| panic!("{pass}: {e}\n{}", print_module(&out)));
            prop_assert!(got.same(&want), "{pass} changed the result\n{text}\n{}", print_module(&out));
            reads_back(&out);
        }
    }
}

/// The interpreter on TVM's shapes and kernels: symbolic shapes bound by
/// the arguments, `match_cast`, and an error (not a panic) on a mismatch.
#[test]
fn the_interpreter_binds_symbolic_shapes_and_reports_mismatches() {
    let module = parse_module(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 2), dtype="float32"), w: R.Tensor((2, 3), dtype="float32")) -> R.Tensor(("n", 3), dtype="float32"):
        n = T.int64()
        y: R.Tensor((n, 3), dtype="float32") = R.matmul(x, w, out_dtype="void")
        s: R.Tensor((3,), dtype="float32") = R.sum(y, axis=[0], keepdims=False)
        z: R.Tensor((n, 3), dtype="float32") = R.add(y, s)
        return z"#,
    )
    .unwrap();
    let t = |shape: Vec<usize>, data: Vec<f64>| {
        Value::Tensor(Tensor::new(DataType::F32, shape, data).unwrap())
    };
    let x = t(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]);
    let w = t(vec![2, 3], vec![1.0, 0.0, 1.0, 0.0, 1.0, 1.0]);
    let Value::Tensor(z) = run(&module, "main", vec![x, w.clone()]).unwrap() else {
        panic!("a tensor")
    };
    // y = [[1, 2, 3], [3, 4, 7]], s = [4, 6, 10].
    assert_eq!(z.shape, vec![2, 3]);
    assert_eq!(*z.data, vec![5.0, 8.0, 13.0, 7.0, 10.0, 17.0]);
    let wrong = t(vec![2, 3], vec![0.0; 6]);
    let err = run(&module, "main", vec![wrong, w]).unwrap_err();
    assert!(err.contains("extent"), "{err}");
}

/// Effects (`R.print`, `R.assert_op`): a bare statement, bound to a variable
/// of no value; kept by dead-code elimination although nothing uses it; the
/// interpreter checks an assertion and formats its message.
#[test]
fn effects_print_as_statements_survive_dce_and_assertions_are_checked() {
    let text = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((), dtype="bool"), y: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        R.print(y, format=R.str("y is {}"))
        R.assert_op(x, y, format=R.str("x fails for {}"))
        z: R.Tensor((2,), dtype="float32") = R.add(y, y)
        return z"#;
    let module = parse_module(text).unwrap();
    assert_eq!(print_module(&module), text);
    let pipeline = registry().pipeline("dce").unwrap();
    let out = PassContext::default().run(&pipeline, &module).unwrap();
    assert_eq!(print_module(&out), text, "the effects stay");

    let flag = |b: bool| {
        Value::Tensor(Tensor::new(DataType::Bool, vec![], vec![f64::from(u8::from(b))]).unwrap())
    };
    let y = Value::Tensor(Tensor::new(DataType::F32, vec![2], vec![1.0, 2.0]).unwrap());
    let Value::Tensor(z) = run(&module, "main", vec![flag(true), y.clone()]).unwrap() else {
        panic!("a tensor")
    };
    assert_eq!(*z.data, vec![2.0, 4.0]);
    let err = run(&module, "main", vec![flag(false), y]).unwrap_err();
    assert!(err.starts_with("assertion failed: x fails for "), "{err}");

    // A use of an effect's result is the empty tuple itself (TVM's
    // normalizer), so the effect prints as a statement still.
    let used = parse_module(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main() -> R.Tuple:
        v: R.Tuple = R.print(format=R.str("hi"))
        return v"#,
    )
    .unwrap();
    let printed = print_module(&used);
    assert!(
        printed.ends_with("        R.print(format=R.str(\"hi\"))\n        return R.tuple()"),
        "{printed}"
    );
}

/// Calls of packed functions by name: `R.call_packed` may have effects and
/// stays through dead-code elimination, unused; `R.call_pure_packed` and
/// `R.call_dps_packed` are pure and go. Neither runs in the interpreter,
/// which says so rather than guessing. `R.arange`, `R.ones` and `R.zeros`
/// make their tensors from the shape alone.
#[test]
fn packed_calls_keep_their_effects_and_filled_tensors_run() {
    let text = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        a: R.Tensor((2, 3)) = R.call_packed("log_tensor", x, ty_args=(R.Tensor((2, 3)),))
        b: R.Tensor((2, 3), dtype="float32") = R.call_pure_packed("copy", x, ty_args=(R.Tensor((2, 3), dtype="float32"),))
        c = R.call_dps_packed("identity", (x,), out_ty=R.Tensor((2, 3), dtype="float32"))
        return x"#;
    let module = parse_module(text).unwrap();
    assert_eq!(print_module(&module), text);
    let pipeline = registry().pipeline("dce").unwrap();
    let out = PassContext::default().run(&pipeline, &module).unwrap();
    assert_eq!(
        print_module(&out),
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        a: R.Tensor((2, 3)) = R.call_packed("log_tensor", x, ty_args=(R.Tensor((2, 3)),))
        return x"#
    );
    let x = Value::Tensor(Tensor::new(DataType::F32, vec![2, 3], vec![0.0; 6]).unwrap());
    let err = run(&module, "main", vec![x]).unwrap_err();
    assert!(err.contains("log_tensor"), "{err}");

    let filled = parse_module(
        r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main() -> R.Tuple(R.Tensor((4,), dtype="int64"), R.Tensor((3,), dtype="float32"), R.Tensor((2, 2), dtype="float32"), R.Tensor((0,), dtype="int64")):
        up: R.Tensor((4,), dtype="int64") = R.arange(10, 0, -3, dtype="int64")
        half: R.Tensor((3,), dtype="float32") = R.arange(0, 6, 2, dtype="float32")
        one: R.Tensor((2, 2), dtype="float32") = R.ones(R.shape([2, 2]), dtype="float32")
        none: R.Tensor((0,), dtype="int64") = R.arange(5, 5, 1, dtype="int64")
        return (up, half, one, none)"#,
    )
    .unwrap();
    let Value::Tuple(got) = run(&filled, "main", vec![]).unwrap() else {
        panic!("a tuple")
    };
    let data = |v: &Value| match v {
        Value::Tensor(t) => t.data.to_vec(),
        other => panic!("a tensor, not {other:?}"),
    };
    assert_eq!(data(&got[0]), vec![10.0, 7.0, 4.0, 1.0]);
    assert_eq!(data(&got[1]), vec![0.0, 2.0, 4.0]);
    assert_eq!(data(&got[2]), vec![1.0; 4]);
    assert_eq!(data(&got[3]), Vec::<f64>::new());
}

/// Memory as TVM's VM lowering writes it: `R.dtype` values, storage and
/// the tensors allocated in it or alone, freed by `R.vm.kill_object` (a
/// statement, as it yields nothing). Two equal allocations are two objects:
/// common-subexpression elimination keeps both. The interpreter allocates
/// tensors of zeros.
#[test]
fn allocations_are_never_merged_and_run_as_zeros() {
    let text = r#"# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(pure=False)
    def main() -> R.Tensor((2, 3), dtype="int32"):
        s: R.Any = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
        a: R.Tensor((2, 3), dtype="int32") = R.vm.alloc_tensor(s, 0, R.shape([2, 3]), R.dtype("int32"), 0)
        b: R.Tensor((2, 3), dtype="int32") = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("int32"), 0, R.str("global"))
        c: R.Tensor((2, 3), dtype="int32") = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("int32"), 0, R.str("global"))
        d: R.Tensor((2, 3), dtype="int32") = R.add(b, c)
        R.vm.kill_object(a)
        R.vm.kill_object(s)
        return d"#;
    let module = parse_module(text).unwrap();
    assert_eq!(print_module(&module), text);
    let pipeline = registry().pipeline("cse").unwrap();
    let out = PassContext::default().run(&pipeline, &module).unwrap();
    assert_eq!(print_module(&out), text, "both allocations stay");
    let Value::Tensor(d) = run(&module, "main", vec![]).unwrap() else {
        panic!("a tensor")
    };
    assert_eq!(
        (d.shape.clone(), d.data.to_vec()),
        (vec![2, 3], vec![0.0; 6])
    );
}

/// Sizes from user input are checked before anything is allocated, and
/// `R.arange`'s length is exact at the ends of the integers and counts
/// down for a negative step.
#[test]
fn filled_tensor_sizes_are_checked_and_ranges_are_exact() {
    let module = |body: &str, ret: &str| {
        parse_module(&format!(
            "@I.ir_module\nclass Module:\n    @R.function\n    def main() -> {ret}:\n        z: {ret} = {body}\n        return z"
        ))
    };
    let huge = module(
        r#"R.zeros(R.shape([1048576, 1048576]), dtype="float32")"#,
        r#"R.Tensor((1048576, 1048576), dtype="float32")"#,
    )
    .unwrap();
    let err = run(&huge, "main", vec![]).unwrap_err();
    assert!(err.contains("elements"), "{err}");
    let wide = module(
        "R.arange(-2, 9223372036854775807, 4611686018427387904)",
        r#"R.Tensor((3,), dtype="int64")"#,
    );
    assert!(wide.is_ok(), "{:?}", wide.err());
    let down = parse_module(
        r#"@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="int64"):
        n = T.int64()
        z: R.Tensor((n,), dtype="int64") = R.arange(n, 0, -1, dtype="int64")
        return z"#,
    );
    assert!(down.is_ok(), "{:?}", down.err());
}
