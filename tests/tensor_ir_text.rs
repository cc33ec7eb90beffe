//! The Tensor IR text format: round trips, errors at `line:col`, and deep
//! inputs that neither overflow the stack nor panic.

use ir_passes::tensor_ir::{ConstantFolder, parse_expr, parse_func, parse_stmt};
use pretty_assertions::assert_eq;

#[test]
fn a_function_round_trips_through_print_and_parse() {
    let text = "func add_one(A: [s32 * 100], n: s32): void {
  for j in (0, 4, 1) vectorized {
    A[j] = 0
  }
  for i in (0, n, 1) parallel {
    var t: s32 = (A[i] + 1)
    A[i] = min(t, 7)
  }
  if (((n > 3) && !((n == 5)))) {
    evaluate{add_one(&A[0], (n - 1))}
  } else {
    return
  }
}";
    let f = parse_func(text).unwrap();
    assert_eq!(f.to_string(), text);
    // Parameters are expressions (not definition sites), so the two parses
    // are equal up to a renaming of free variables.
    let again = parse_func(&f.to_string()).unwrap();
    assert!(ir_core::structural::structural_eq_map_free_vars(&f, &again));
}

#[test]
fn a_tensor_view_round_trips_and_its_initializer_names_the_outer_tensor() {
    // `B` is defined as a view of `A` from `A[2]` on; a later `A` inside the
    // initializer would be the outer one (the tensor is not yet in scope).
    let text = "func main(A: [f32 * 8]): void {
  tensor B: [f32 * 2 * 3] = &A[2]
  B[1, 2] = 1.0f
  tensor C: [f32 * 4]
  tensor A_1: [f32 * 4] = &A[4]
  A_1[0] = B[1, 2]
}";
    let f = parse_func(text).unwrap();
    assert_eq!(f.to_string(), text);
    let again = parse_func(&f.to_string()).unwrap();
    assert!(ir_core::structural::structural_eq_map_free_vars(&f, &again));
}

#[test]
fn a_tensor_initializer_is_a_pointer_to_memory_of_its_element_type() {
    let not_a_pointer =
        "func f(A: [s32 * 8]): void {\n  var x: s32 = 1\n  tensor B: [s32 * 4] = x\n}";
    let e = parse_func(not_a_pointer).unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (
            3,
            25,
            "expected a tensor pointer such as `&A[0]` as the tensor's initializer"
        )
    );
    let other_type = "func f(A: [s32 * 8]): void {\n  tensor B: [f32 * 4] = &A[0]\n}";
    let e = parse_func(other_type).unwrap_err();
    assert_eq!(
        (e.line, e.col, e.message.as_str()),
        (
            2,
            25,
            "a view of `A` (s32 elements) has element type s32, not f32"
        )
    );
}

#[test]
fn errors_give_line_col_and_what_was_expected() {
    let cases = [
        ("1 +", "1:4: expected an expression, found end of input"),
        ("(a + b", "1:7: expected `)`, found end of input"),
        ("a $ b", "1:3: unexpected character `$`"),
        (
            "99999999999",
            "1:1: integer literal `99999999999` does not fit in s32",
        ),
    ];
    for (text, message) in cases {
        assert_eq!(parse_expr(text).unwrap_err().to_string(), message, "{text}");
    }
    let err = parse_func("func f(): void {\n  x = 1\n}").unwrap_err();
    assert_eq!(err.to_string(), "2:3: undefined variable `x`");
    let err = parse_stmt("{\n  for i in (0, 1) {}\n}").unwrap_err();
    assert_eq!(err.to_string(), "2:17: expected `,`, found `)`");
}

#[test]
fn deep_inputs_parse_fold_and_print_without_overflow() {
    let n = 200_000;
    // A long left-nested chain: `1 + 1 + ... + 1`.
    let chain = vec!["1"; n].join(" + ");
    let e = parse_expr(&chain).unwrap();
    assert_eq!(ConstantFolder::new().fold(&e).to_string(), n.to_string());
    // Deep parentheses, right-nested.
    let nested = format!("{}a{}", "(1 + ".repeat(n), ")".repeat(n));
    let e = parse_expr(&nested).unwrap();
    assert_eq!(e.to_string().len(), nested.len());
    // Deep loop nests (printed text grows with the square of the depth,
    // through its indentation, so this one is shallower).
    let depth = 2_000;
    let loops = format!(
        "{}x = i{}",
        "for i in (0, 2, 1) {".repeat(depth),
        "}".repeat(depth)
    );
    let s = parse_stmt(&loops).unwrap();
    assert!(
        s.to_string()
            .starts_with("for i in (0, 2, 1) {\n  for i_1 in")
    );
}

#[test]
fn hostile_text_is_an_error_not_a_panic() {
    for text in [
        "",
        "(",
        ")",
        "[",
        "&",
        "&1",
        "-",
        "func",
        "func f(",
        "1.5",
        "1e",
        "x[1]",
        "{ 1 }",
        "\u{1F600}",
    ] {
        let _ = parse_expr(text);
        let _ = parse_stmt(text);
        let _ = parse_func(text);
    }
}

/// Every prefix of every oneDNN case input, and the input with any seven
/// characters cut out, either parses or gives an error inside the input's
/// bounds; none panics.
#[test]
fn cut_and_truncated_programs_are_errors_with_a_position() {
    let cases = [
        include_str!("tensor_ir/const_fold.cases"),
        include_str!("tensor_ir/simplify.cases"),
    ];
    let inputs: Vec<&str> = cases
        .iter()
        .flat_map(|c| c.split("== input\n").skip(1))
        .map(|rest| rest.split("\n== expected").next().unwrap())
        .collect();
    assert!(inputs.len() >= 150, "{} inputs", inputs.len());
    let mut errors = 0;
    for input in inputs {
        let chars: Vec<char> = input.chars().collect();
        let lines = input.lines().count() + 1;
        let mut check = |text: String| {
            let results = if input.starts_with("func") {
                vec![parse_func(&text).err()]
            } else {
                vec![parse_stmt(&text).err(), parse_expr(&text).err()]
            };
            for e in results.into_iter().flatten() {
                errors += 1;
                assert!(
                    e.line >= 1 && e.line <= lines && e.col >= 1,
                    "{e} for\n{text}"
                );
                assert!(
                    e.to_string()
                        .starts_with(&format!("{}:{}: ", e.line, e.col))
                );
            }
        };
        for end in 0..chars.len() {
            check(chars[..end].iter().collect());
        }
        for start in 0..chars.len().saturating_sub(7) {
            check(chars[..start].iter().chain(&chars[start + 7..]).collect());
        }
    }
    assert!(errors > 10_000, "{errors} errors");
}
