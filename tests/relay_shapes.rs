//! Every nesting shape of Relay, deep and wide, goes through every step a
//! program goes through, on the default test thread: parse, well-formedness,
//! print and reparse (a fixed point, structurally equal, same hash), every
//! pass (each result well-formed and computing what the input computes),
//! the interpreter and drop. The shapes are `tests/support/relay_shapes.rs`;
//! `benches/shapes.rs` times the same programs per level, which is where
//! linear time is checked.

#[path = "support/relay_shapes.rs"]
mod relay_shapes;

use ir_passes::relay::passes::registry;
use ir_passes::relay::*;
use irkit::pass::PassContext;
use irkit::structural::{structural_eq, structural_hash};
use relay_shapes::{PASSES, Shape, shape, zero_inputs};

/// Levels of each shape: deep enough that any recursion without stack
/// growth overflows a test thread's 2 MiB.
const N: usize = 1_000_000;

fn check_result(shape: &Shape, n: usize, what: &str, value: &Value) {
    match (shape.result)(n) {
        Some(expected) => assert_eq!(
            value,
            &Value::tensor(Tensor::scalar_f32(expected)),
            "{}: {what}",
            shape.name
        ),
        None => assert!(
            matches!(value, Value::Closure(_) | Value::Tuple(_)),
            "{}: {what} gives a closure or a tuple",
            shape.name
        ),
    }
}

fn through_everything(name: &str, n: usize) {
    let shape = shape(name).expect("a shape");
    let text = (shape.text)(n);
    let module = parse_module(&text).expect("parses");
    verify(&module).expect("well-formed");

    let printed = print_module(&module);
    let reparsed = parse_module(&printed).expect("the printed text parses");
    assert!(
        print_module(&reparsed) == printed,
        "{name}: printing is a fixed point"
    );
    for (f, g) in module.functions().zip(reparsed.functions()) {
        assert_eq!(f.0, g.0);
        assert!(structural_eq(f.1, g.1), "{name}: @{} reparses equal", f.0);
        assert_eq!(structural_hash(f.1), structural_hash(g.1));
    }
    drop(reparsed);
    drop(printed);

    let inputs = zero_inputs(&module);
    let value = run_main(&module, &inputs).expect("runs");
    check_result(shape, n, "the input", &value);
    drop(value);

    for pass in PASSES {
        let pipeline = registry().pipeline(pass).expect("a registered pass");
        let out = PassContext::default()
            .with_opt_level(3)
            .run(&pipeline, &module)
            .unwrap_or_else(|e| panic!("{name}: {pass} fails: {e}"));
        verify(&out).unwrap_or_else(|e| panic!("{name}: {pass} gives ill-formed IR: {e}"));
        let value = run_main(&out, &inputs).expect("runs");
        check_result(shape, n, pass, &value);
    }
}

#[test]
fn a_million_let_bindings() {
    through_everything("let", N);
}

#[test]
fn a_million_let_bindings_of_two_names() {
    through_everything("let-shadow", N);
}

#[test]
fn a_million_nested_calls() {
    through_everything("call", N);
}

#[test]
fn a_million_ifs_nested_in_true_branches() {
    through_everything("if-then", N);
}

#[test]
fn a_million_ifs_nested_in_false_branches() {
    through_everything("if-else", N);
}

#[test]
fn a_million_nested_functions() {
    through_everything("fn", N);
}

#[test]
fn a_million_functions_applied_in_each_other() {
    through_everything("fn-applied", N);
}

#[test]
fn a_million_nested_tuples() {
    through_everything("tuple", N);
}

#[test]
fn a_million_projections_of_a_million_deep_tuple_type() {
    through_everything("projection", N);
}

#[test]
fn a_million_nested_matches() {
    through_everything("match", N);
}

#[test]
fn a_pattern_a_million_constructors_deep() {
    through_everything("pattern", N);
}

#[test]
fn a_million_nested_references() {
    through_everything("ref", N);
}

#[test]
fn a_million_nested_reference_writes() {
    through_everything("ref-write", N);
}

#[test]
fn a_hundred_thousand_functions_calling_each_other() {
    through_everything("functions", 100_000);
}

#[test]
fn a_call_of_a_million_arguments() {
    through_everything("arguments", N);
}

#[test]
fn a_tuple_of_a_million_fields() {
    through_everything("fields", N);
}

/// Small sizes, printed: the layout the deep ones have.
#[test]
fn small_shapes_print_as_specified() {
    let printed_at = |name: &str, n: usize| {
        let text = (shape(name).expect("a shape").text)(n);
        print_module(&parse_module(&text).expect("parses"))
    };
    let printed = |name: &str| printed_at(name, 2);
    pretty_assertions::assert_eq!(
        printed_at("let-shadow", 4),
        r#"#[version = "0.0.5"]
def @main(%x: float32) -> float32 {
  let %a: float32 = add(%x, 1f);
  let %b: float32 = add(%a, 1f);
  let %a_1: float32 = add(%b, 1f);
  let %b_1: float32 = add(%a_1, 1f);
  %b_1
}
"#
    );
    pretty_assertions::assert_eq!(
        printed("if-then"),
        r#"#[version = "0.0.5"]
def @main(%c: bool, %x: float32) -> float32 {
  if (%c) {
    if (%c) {
      %x
    } else {
      1f
    }
  } else {
    1f
  }
}
"#
    );
    pretty_assertions::assert_eq!(
        printed("fn-applied"),
        r#"#[version = "0.0.5"]
def @main(%x: float32) -> float32 {
  (fn (%y0: float32) {
    (fn (%y1: float32) {
      %y1
    })(%y0)
  })(%x)
}
"#
    );
    pretty_assertions::assert_eq!(
        printed("projection"),
        r#"#[version = "0.0.5"]
def @main(%t: ((float32,),)) -> float32 {
  (%t.0).0
}
"#
    );
    pretty_assertions::assert_eq!(
        printed("fields"),
        r#"#[version = "0.0.5"]
def @main(%x: float32) -> float32 {
  (%x, %x).1
}
"#
    );
    // Each function names its variables afresh: `%x` in every one.
    pretty_assertions::assert_eq!(
        printed("functions"),
        r#"#[version = "0.0.5"]
def @f0(%x: float32) -> float32 {
  add(@f1(%x), 1f)
}
def @f1(%x: float32) -> float32 {
  %x
}
def @main(%x: float32) -> float32 {
  @f0(%x)
}
"#
    );
}

/// Indentation stops growing at `MAX_INDENT` levels, so that the text of
/// nested blocks stays linear in their number; it still reads back.
#[test]
fn indentation_stops_at_its_maximum() {
    let module = parse_module(&relay_shapes::if_then(100)).expect("parses");
    let printed = print_module(&module);
    let deepest = printed
        .lines()
        .map(|l| l.len() - l.trim_start().len())
        .max()
        .unwrap_or(0);
    assert_eq!(deepest, 2 * MAX_INDENT);
    let reparsed = parse_module(&printed).expect("reparses");
    assert!(structural_eq(
        module.get("main").expect("main"),
        reparsed.get("main").expect("main")
    ));
}
