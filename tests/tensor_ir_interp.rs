//! The Tensor IR reference interpreter: what programs compute, and the
//! errors that stop a run instead of a panic, a hang or an allocation that
//! exhausts memory.

use ir_passes::tensor_ir::interp::{Arg, EvalError, Interpreter, Outcome};
use ir_passes::tensor_ir::{Value, parse_module};
use pretty_assertions::assert_eq;

fn ints(v: &[i64]) -> Vec<Value> {
    v.iter().map(|&x| Value::Int(x)).collect()
}

fn run(text: &str, args: Vec<Arg>) -> Result<Outcome, EvalError> {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    Interpreter::new(&m).with_fuel(100_000).run("main", args)
}

fn error(text: &str, args: Vec<Arg>) -> String {
    run(text, args).unwrap_err().to_string()
}

#[test]
fn loops_assignments_and_buffers() {
    let out = run(
        "func main(n: s32, A: [s32 * 2 * 3]): s32 {
  var s: s32 = 0
  for i in (0, 2, 1) {
    for j in (0, n, 2) {
      A[i, j] = ((i * 10) + j)
      s = (s + A[i, j])
    }
  }
  return s
}",
        vec![Arg::Scalar(Value::Int(3)), Arg::Buffer(ints(&[0; 6]))],
    )
    .unwrap();
    // j takes 0 and 2.
    assert_eq!(out.ret, Some(Value::Int(10 + 12 + 2)));
    assert_eq!(out.buffers, vec![ints(&[0, 0, 2, 10, 0, 12])]);
}

#[test]
fn a_tensor_defined_by_a_pointer_views_the_memory_it_points_to() {
    // `B` is `A` from `A[2]` on, as a 2 x 3 matrix: `B[1, 2]` is `A[7]`.
    // Writes through either name are seen through the other.
    let out = run(
        "func main(A: [s32 * 8]): s32 {
  tensor B: [s32 * 2 * 3] = &A[2]
  B[1, 2] = 70
  A[2] = 20
  return (B[0, 0] + A[7])
}",
        vec![Arg::Buffer(ints(&[0; 8]))],
    )
    .unwrap();
    assert_eq!(out.ret, Some(Value::Int(90)));
    assert_eq!(out.buffers, vec![ints(&[0, 0, 20, 0, 0, 0, 0, 70])]);
}

#[test]
fn a_pointer_argument_passes_the_memory_from_that_element_on() {
    let out = run(
        "func fill(X: [s32 * 3], v: s32): s32 {
  for i in (0, 3, 1) {
    X[i] = v
  }
  return 0
}
func main(A: [s32 * 6]): s32 {
  tensor V: [s32 * 4] = &A[1]
  evaluate{fill(&V[2], 5)}
  evaluate{fill(&A[0], 1)}
  return 0
}",
        vec![Arg::Buffer(ints(&[0; 6]))],
    )
    .unwrap();
    // `&V[2]` is `A[3]`: `A[3..6]` are 5, then `A[0..3]` are 1.
    assert_eq!(out.buffers, vec![ints(&[1, 1, 1, 5, 5, 5])]);
}

#[test]
fn a_view_must_fit_in_the_memory_it_views() {
    let text = "func main(A: [s32 * 8]): s32 {
  tensor B: [s32 * 4] = &A[5]
  return 0
}";
    assert_eq!(
        error(text, vec![Arg::Buffer(ints(&[0; 8]))]),
        "memory for `B` holds 3 elements from where it starts, its layout needs 4"
    );
    // A callee's view of float memory as integers is refused too.
    let text = "func g(B: [s32 * 2]): s32 {
  return B[0]
}
func main(A: [f32 * 8]): s32 {
  return g(&A[2])
}";
    assert_eq!(
        error(text, vec![Arg::Buffer(vec![Value::Float(0.0); 8])]),
        "`B` has element type s32, the memory it is given holds other values"
    );
}

#[test]
fn intrinsics_compute_what_their_names_say() {
    let out = run(
        "func main(x: f32, B: [f32 * 7]): s32 {
  B[0] = abs(x)
  B[1] = sqrt(abs(x))
  B[2] = exp(0.0f)
  B[3] = log(1.0f)
  B[4] = floor(x)
  B[5] = ceil(x)
  B[6] = round(x)
  return 0
}",
        vec![
            Arg::Scalar(Value::Float(-6.25)),
            Arg::Buffer(vec![Value::Float(0.0); 7]),
        ],
    )
    .unwrap();
    let floats = |v: &[f32]| v.iter().map(|&f| Value::Float(f)).collect::<Vec<_>>();
    assert_eq!(
        out.buffers,
        vec![floats(&[6.25, 2.5, 1.0, 0.0, -7.0, -6.0, -6.0])]
    );
}

#[test]
fn a_return_inside_a_loop_ends_the_function() {
    let out = run(
        "func main(): s32 {
  for i in (0, 100, 1) {
    if ((i == 7)) {
      return (i * 2)
    }
  }
  return 0
}",
        vec![],
    )
    .unwrap();
    assert_eq!(out.ret, Some(Value::Int(14)));
}

#[test]
fn calls_pass_scalars_by_value_and_tensors_by_reference() {
    let out = run(
        "func bump(B: [s32 * 4], k: s32): s32 {
  B[k] = (B[k] + 1)
  k = 99
  return k
}
func main(A: [s32 * 4]): s32 {
  var k: s32 = 2
  evaluate{bump(A, k)}
  evaluate{bump(A, k)}
  return k
}",
        vec![Arg::Buffer(ints(&[0; 4]))],
    )
    .unwrap();
    assert_eq!(out.ret, Some(Value::Int(2)));
    assert_eq!(out.buffers, vec![ints(&[0, 0, 2, 0])]);
}

#[test]
fn logic_short_circuits_and_select_evaluates_one_side() {
    // The division by zero is never evaluated.
    let out = run(
        "func main(n: s32): s32 {
  if ((false && ((1 / n) == 1))) {
    return 1
  }
  return ((n == 0) ? 5 : (1 / n))
}",
        vec![Arg::Scalar(Value::Int(0))],
    )
    .unwrap();
    assert_eq!(out.ret, Some(Value::Int(5)));
}

#[test]
fn integers_wrap_and_index_is_unsigned() {
    let cases = [
        ("(((0UL - 1UL) > 5UL))", "bool", Value::Bool(true)),
        ("(2147483647 + 1)", "s32", Value::Int(i64::from(i32::MIN))),
        ("(-2147483648 / -1)", "s32", Value::Int(i64::from(i32::MIN))),
        ("(-9223372036854775808L / -1L)", "s64", Value::Int(i64::MIN)),
        ("(-7 % 3)", "s32", Value::Int(-1)),
    ];
    for (e, ty, want) in cases {
        let text = format!("func main(): {ty} {{\n  return {e}\n}}");
        assert_eq!(run(&text, vec![]).unwrap().ret, Some(want), "{e}");
    }
}

#[test]
fn runs_stop_with_an_error_not_a_panic() {
    let one = || vec![Arg::Scalar(Value::Int(0))];
    let cases = [
        (
            "func main(n: s32): s32 {\n  return (1 / n)\n}",
            one(),
            "`/` by zero",
        ),
        (
            "func main(n: s32): s32 {\n  var x: s32\n  return x\n}",
            one(),
            "`x` is read before it is assigned",
        ),
        (
            "func main(n: s32): s32 {\n  tensor B: [s32 * 4]\n  return B[(n + 4)]\n}",
            one(),
            "index 4 out of bounds for dimension 0 of `B` (size 4)",
        ),
        (
            "func main(n: s32): s32 {\n  for i in (0, 10, n) {\n  }\n  return 0\n}",
            one(),
            "loop over `i` has a step that is not positive",
        ),
        (
            "func main(n: s32): s32 {\n  for i in (0, 2000000000, 1) {\n  }\n  return 0\n}",
            one(),
            "step budget exhausted (the program may not terminate)",
        ),
        (
            "func main(n: s32): s32 {\n  return main(n)\n}",
            one(),
            "calls nested deeper than 10000",
        ),
        (
            "func main(n: s32): s32 {\n  tensor B: [s32 * 100000 * 100000]\n  return 0\n}",
            one(),
            "tensors too large: more than 16777216 elements live",
        ),
        (
            // Redefined larger in a loop: refused on the second trip, cleanly.
            "func main(n: s32): s32 {\n  for i in (1, 3, 1) {\n    tensor B: [s32 * (i * 10000000)]\n  }\n  return 0\n}",
            one(),
            "tensors too large: more than 16777216 elements live",
        ),
        (
            "func main(A: [s32 * 4]): s32 {\n  return A[0]\n}",
            vec![Arg::Buffer(ints(&[1, 2]))],
            "buffer for `A` holds 2 elements, its layout needs 4",
        ),
        (
            "func main(n: s32): s32 {\n  return n\n}",
            vec![],
            "`main` takes 1 argument, got 0",
        ),
    ];
    for (text, args, message) in cases {
        assert_eq!(error(text, args), message, "{text}");
    }
}

#[test]
fn a_tensor_defined_in_a_loop_is_reused_not_accumulated() {
    // 1000 iterations of a 10,000-element definition stay within the live limit.
    let out = run(
        "func main(): s32 {
  var s: s32 = 0
  for i in (0, 1000, 1) {
    tensor B: [s32 * 10000]
    B[0] = (B[0] + 1)
    s = (s + B[0])
  }
  return s
}",
        vec![],
    )
    .unwrap();
    assert_eq!(out.ret, Some(Value::Int(1000)));
}
