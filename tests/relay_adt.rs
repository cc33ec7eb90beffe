//! Algebraic data types, `match` and references (issue 11): TVM's prelude
//! parses, type-checks, prints back and runs; match and pattern typing and
//! exhaustiveness; references read and write in order, and no pass removes,
//! moves, merges or duplicates their effects.

use ir_passes::relay::passes::{Effects, registry};
use ir_passes::relay::*;
use irkit::pass::PassContext;
use irkit::structural::structural_eq;
use pretty_assertions::assert_eq;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

/// TVM's `python/tvm/relay/std/prelude.rly`, as TVM's parser test loads it.
const PRELUDE: &str = include_str!("relay/tvm_text/parser__load_prelude.relay");

fn parse(text: &str) -> RelayModule {
    parse_module(text).unwrap_or_else(|e| panic!("{e}"))
}

/// The prelude with `main` (a `def @main ...`) after it.
fn prelude_with(main: &str) -> RelayModule {
    parse(&format!("{PRELUDE}\n{main}"))
}

fn run(module: &RelayModule) -> Value {
    run_main(module, &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn pass(pipeline: &str, module: &RelayModule) -> Result<RelayModule, String> {
    let passes = registry().pipeline(pipeline).unwrap();
    PassContext::default()
        .with_opt_level(3)
        .run(&passes, module)
        .map_err(|e| e.to_string())
}

fn i32s(v: i32) -> Value {
    Value::tensor(Tensor::scalar_i32(v))
}

fn type_error(text: &str) -> String {
    verify(&parse(text)).expect_err("a type error")
}

#[test]
fn the_prelude_parses_type_checks_and_prints_back() {
    let prelude = parse(PRELUDE);
    verify(&prelude).unwrap();
    let defs = TypeDefs::of(&prelude).expect("type definitions");
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["List", "Option", "Tree"]);
    let printed = print_module(&prelude);
    assert!(
        printed.starts_with(
            "#[version = \"0.0.5\"]\ntype List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n"
        )
    );
    assert!(printed.contains(
        "def @hd[A](%xs: List[A]) -> A {\n  match? (%xs) {\n    Cons(%x, _) => {\n      %x\n    },\n  }\n}\n"
    ));
    let reparsed = parse(&printed);
    assert_eq!(print_module(&reparsed), printed);
    for (name, f) in prelude.functions() {
        assert!(structural_eq(f, reparsed.get(name).unwrap()), "@{name}");
    }
    // Every pass takes the prelude to a program that still type-checks.
    for p in [
        "infer-type",
        "fold-constant",
        "dce",
        "cse",
        "to-anf",
        "to-gnf",
    ] {
        let out = pass(p, &prelude).unwrap();
        verify(&out).unwrap_or_else(|e| panic!("{p}: {e}"));
    }
}

#[test]
fn map_foldl_and_sum_run_on_lists() {
    let list = "Cons(1, Cons(2, Cons(3, Nil)))";
    let cases = [
        (
            format!("@sum(@map(fn (%x: int32) -> int32 {{ %x * 2 }}, {list}))"),
            12,
        ),
        (
            format!("@foldl(fn (%acc: int32, %x: int32) -> int32 {{ %acc - %x }}, 0, {list})"),
            -6,
        ),
        (
            format!("@foldr(fn (%x: int32, %acc: int32) -> int32 {{ %x - %acc }}, 0, {list})"),
            2,
        ),
        (format!("@length(@concat({list}, @rev({list})))"), 6),
        (format!("@nth(@rev({list}), 0)"), 3),
        (
            format!("@sum(@filter(fn (%x: int32) -> bool {{ %x != 2 }}, {list}))"),
            4,
        ),
    ];
    for (expr, want) in cases {
        let m = prelude_with(&format!("def @main() -> int32 {{\n  {expr}\n}}\n"));
        verify(&m).unwrap_or_else(|e| panic!("{expr}: {e}"));
        assert_eq!(run(&m), i32s(want), "{expr}");
        // Every pass keeps the value.
        for p in [
            "infer-type",
            "fold-constant",
            "dce{inline-once=true}",
            "cse",
            "to-anf",
            "to-gnf",
        ] {
            let out = pass(p, &m).unwrap();
            verify(&out).unwrap_or_else(|e| panic!("{p} on {expr}: {e}"));
            assert_eq!(run(&out), i32s(want), "{p} on {expr}");
        }
    }
}

#[test]
fn constructors_and_matches_have_types() {
    let m = prelude_with(
        "def @main(%o: Option[int32]) {\n  let %l = Cons(1, Nil);\n  let %m = @map(fn (%x: int32) -> float32 { cast(%x, dtype=\"float32\") }, %l);\n  let %h = match (%o) {\n    Some(%v) => %v,\n    None => 0,\n  };\n  (%m, %h)\n}\n",
    );
    let typed = print_module(&pass("infer-type", &m).unwrap());
    let main = &typed[typed.find("def @main").unwrap()..];
    assert!(
        main.contains("let %l: List[int32] = Cons(1, Nil);"),
        "{main}"
    );
    assert!(main.contains("let %m: List[float32] = @map("), "{main}");
    assert!(
        main.contains("let %h: int32 = match (%o) {\n    Some(%v: int32) => {"),
        "{main}"
    );
    assert!(main.contains("-> (List[float32], int32)"), "{main}");
}

#[test]
fn matches_are_checked() {
    let header = "#[version = \"0.0.5\"]\ntype Nat {\n  Z,\n  S(Nat),\n}\n";
    let with = |body: &str| format!("{header}def @main(%n: Nat) -> int32 {{\n  {body}\n}}\n");
    // Exhaustive in different ways: a wildcard, every constructor, nested.
    for ok in [
        "match (%n) { _ => 0 }",
        "match (%n) { Z => 0, S(_) => 1 }",
        "match (%n) { S(S(_)) => 2, S(Z) => 1, Z => 0 }",
        "match ((%n, %n)) { (Z, _) => 0, (S(_), %m) => 1 }",
        "match? (%n) { Z => 0 }",
    ] {
        verify(&parse(&with(ok))).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
    for (bad, message) in [
        ("match (%n) { Z => 0 }", "match is not exhaustive"),
        (
            "match (%n) { S(Z) => 1, Z => 0 }",
            "match is not exhaustive",
        ),
        (
            "match ((%n, %n)) { (Z, _) => 0, (_, Z) => 1 }",
            "match is not exhaustive",
        ),
        (
            "match (%n) { Z => 0, S(_) => 1f }",
            "the clauses of match differ: int32 and float32",
        ),
        (
            "match (%n) { (%a, %b) => 0 }",
            "a tuple pattern cannot match a value of type Nat",
        ),
    ] {
        let err = type_error(&with(bad));
        assert!(err.contains(message), "{bad}: {err}");
    }
    // The parser checks what it can: constructors exist and take their fields.
    for (bad, message) in [
        ("match (%n) { Q => 0 }", "unknown constructor `Q`"),
        (
            "match (%n) { S => 0, Z => 1 }",
            "`S` has 1 fields, the pattern gives 0",
        ),
        (
            "match (%n) { Z => 0, S(%a, %b) => 1 }",
            "`S` has 1 fields, the pattern gives 2",
        ),
    ] {
        let err = parse_module(&with(bad)).expect_err(bad).to_string();
        assert!(err.contains(message), "{bad}: {err}");
    }
    // At run time a `match?` that fits nothing is an error, not a panic.
    let m = parse(&with("match? (%n) { Z => 0 }"));
    let s = Expr::call(
        Expr::from(
            TypeDefs::of(&m)
                .unwrap()
                .constructor("Z", Span::default())
                .unwrap(),
        ),
        vec![],
    );
    let one = Expr::call(
        TypeDefs::of(&m)
            .unwrap()
            .constructor("S", Span::default())
            .unwrap()
            .into(),
        vec![s],
    );
    let value = eval_expr(&one, &[]).unwrap();
    assert!(run_main(&m, &[value]).unwrap_err().contains("no clause"));
}

#[test]
fn generic_functions_instantiate_at_each_call() {
    let m = prelude_with(
        "def @main() -> (int32, float32, List[bool]) {\n  (@id(1), @id(2f), @map(fn (%x: int32) -> bool { %x > 1 }, Cons(1, Cons(2, Nil))))\n}\n",
    );
    verify(&m).unwrap();
    let bad = prelude_with("def @main() -> int32 {\n  @hd(Cons(1f, Nil))\n}\n");
    let err = verify(&bad).unwrap_err();
    assert!(
        err.contains("the function returns int32 but its body has type float32"),
        "{err}"
    );
    let bad = prelude_with("def @main() {\n  Cons(1, Cons(2f, Nil))\n}\n");
    let err = verify(&bad).unwrap_err();
    assert!(
        err.contains("type parameter A is both int32 and float32"),
        "{err}"
    );
}

const REFS: &str = r#"#[version = "0.0.5"]
def @main(%x: int32) -> (int32, int32, int32) {
  let %r = ref(%x);
  let %a = ref_read(%r);
  let %w = ref_write(%r, add(%a, 10));
  let %b = ref_read(%r);
  let %unused = ref_write(%r, 100);
  (%a, %b, ref_read(%r))
}
"#;

#[test]
fn references_read_and_write_in_order() {
    let m = parse(REFS);
    verify(&m).unwrap();
    let want = Value::tuple(vec![i32s(1), i32s(11), i32s(100)]);
    assert_eq!(run_main(&m, &[i32s(1)]).unwrap(), want);
    assert_eq!(print_module(&m), REFS);
    let typed = print_module(&pass("infer-type", &m).unwrap());
    assert!(typed.contains("let %r: ref(int32) = ref(%x);"), "{typed}");
    assert!(
        typed.contains("let %w: () = ref_write(%r, add(%a, 10));"),
        "{typed}"
    );
    for bad in ["ref_read(%x)", "ref_write(%x, 1)", "ref_write(ref(1), 1f)"] {
        let err = type_error(&format!(
            "#[version = \"0.0.5\"]\ndef @main(%x: int32) {{ {bad} }}"
        ));
        assert!(err.contains("ref"), "{bad}: {err}");
    }
}

/// DCE keeps an unused write and drops an unused read; inlining never moves
/// a read past a write; CSE never merges two reads or two new cells; GNF
/// keeps the lets that order them. Every pass keeps the values.
#[test]
fn passes_keep_reference_effects_in_place() {
    let m = parse(REFS);
    let want = run_main(&m, &[i32s(1)]).unwrap();
    for p in [
        "dce",
        "dce{inline-once=true}",
        "cse",
        "to-gnf",
        "to-anf",
        "fold-constant",
        "infer-type",
        "to-gnf,dce{inline-once=true},cse,to-anf",
    ] {
        let out = pass(p, &m).unwrap();
        verify(&out).unwrap_or_else(|e| panic!("{p}: {e}"));
        assert_eq!(run_main(&out, &[i32s(1)]).unwrap(), want, "{p}");
        let printed = print_module(&out);
        assert_eq!(printed.matches("ref_write(").count(), 2, "{p}: {printed}");
    }
    let dead_read = parse(
        "#[version = \"0.0.5\"]\ndef @main(%r: ref(int32)) {\n  let %a = ref_read(%r);\n  let %b = ref(1);\n  let %w = ref_write(%r, 2);\n  ()\n}\n",
    );
    assert_eq!(
        print_module(&pass("dce", &dead_read).unwrap()),
        "#[version = \"0.0.5\"]\ndef @main(%r: ref(int32)) {\n  let %w = ref_write(%r, 2);\n  ()\n}\n"
    );
    // Two cells made alike are two cells; two reads around a write differ.
    let two = parse(
        "#[version = \"0.0.5\"]\ndef @main() -> int32 {\n  let %p = ref(0);\n  let %q = ref(0);\n  let %a = ref_read(%p);\n  let %w = ref_write(%q, 5);\n  let %b = ref_read(%p);\n  add(add(%a, %b), ref_read(%q))\n}\n",
    );
    let want = run_main(&two, &[]).unwrap();
    assert_eq!(want, i32s(5));
    for p in [
        "cse",
        "to-gnf,cse",
        "dce{inline-once=true}",
        "to-gnf,cse,to-anf,dce{inline-once=true}",
    ] {
        assert_eq!(run_main(&pass(p, &two).unwrap(), &[]).unwrap(), want, "{p}");
    }
}

/// A module whose main matches a tuple of `n` Nat fields with one clause,
/// whose field patterns `field(i)` gives.
fn wide_match(n: usize, field: impl Fn(usize) -> String) -> String {
    let types = vec!["Nat"; n].join(", ");
    let fields: Vec<String> = (0..n).map(field).collect();
    format!(
        "#[version = \"0.0.5\"]\ntype Nat {{\n  Z,\n  S(Nat),\n}}\n\
         def @main(%t: ({types})) -> int32 {{\n  match (%t) {{ ({}) => 0 }}\n}}\n",
        fields.join(", ")
    )
}

#[test]
fn exhaustiveness_of_a_wide_tuple_pattern_is_linear_in_its_width() {
    // Checking copied every row at every column: a 20,000-field pattern
    // (60 KB of text) took 1.8 GB. Bytes allocated are a deterministic
    // measure: four times the width must cost about four times as much.
    let bytes = |n: usize| {
        let module = parse(&wide_match(n, |i| format!("%x{i}")));
        let (checked, bytes) = counting_alloc::bytes_allocated_during(|| verify(&module));
        checked.unwrap_or_else(|e| panic!("{e}"));
        bytes
    };
    let (small, large) = (bytes(5_000), bytes(20_000));
    assert!(
        large < 6 * small,
        "5,000 fields: {small} bytes, 20,000 fields: {large} bytes"
    );
    // A constructor in the last field still makes it not exhaustive.
    let last_z = wide_match(
        20_000,
        |i| if i == 19_999 { "Z".into() } else { "_".into() },
    );
    assert!(type_error(&last_z).contains("match is not exhaustive"));
}

#[test]
fn an_exponential_exhaustiveness_check_stops_with_an_error() {
    // One clause per field with `Z` there and wildcards elsewhere: deciding
    // it visits every combination of Z and S, 2^40 of them.
    let n = 40;
    let types = vec!["Nat"; n].join(", ");
    let clauses: Vec<String> = (0..n)
        .map(|i| {
            let fields: Vec<&str> = (0..n).map(|j| if i == j { "Z" } else { "_" }).collect();
            format!("({}) => 0", fields.join(", "))
        })
        .collect();
    let text = format!(
        "#[version = \"0.0.5\"]\ntype Nat {{\n  Z,\n  S(Nat),\n}}\n\
         def @main(%t: ({types})) -> int32 {{\n  match (%t) {{ {} }}\n}}\n",
        clauses.join(", ")
    );
    let err = type_error(&text);
    assert!(err.contains("match is too complex to check"), "{err}");
}

/// `ref(...)` makes a new cell each time it runs: no pass moves it into a
/// function, where each call would make its own.
#[test]
fn a_reference_is_not_moved_into_the_closure_that_uses_it() {
    let counter = parse(
        "#[version = \"0.0.5\"]\ndef @main() -> (int32, int32) {\n  let %r = ref(0);\n  \
         let %f = fn () -> int32 {\n    let %u = ref_write(%r, add(ref_read(%r), 1));\n    \
         ref_read(%r)\n  };\n  (%f(), %f())\n}\n",
    );
    let want = run_main(&counter, &[]).unwrap();
    assert_eq!(want, Value::Tuple(vec![i32s(1), i32s(2)].into()));
    for p in [
        "to-gnf",
        "to-gnf,to-anf",
        "dce{inline-once=true}",
        "to-gnf,dce{inline-once=true}",
    ] {
        let out = pass(p, &counter).unwrap();
        assert_eq!(
            run_main(&out, &[]).unwrap(),
            want,
            "{p}:\n{}",
            print_module(&out)
        );
    }
}

/// A call of a function that writes is an effect too: DCE keeps it unused.
#[test]
fn calls_of_functions_that_write_are_kept() {
    let m = parse(
        "#[version = \"0.0.5\"]\ndef @bump(%r: ref(int32)) {\n  ref_write(%r, add(ref_read(%r), 1))\n}\ndef @main() -> int32 {\n  let %r = ref(0);\n  let %u = @bump(%r);\n  let %v = @bump(%r);\n  ref_read(%r)\n}\n",
    );
    assert_eq!(run(&m), i32s(2));
    for p in [
        "dce",
        "dce{inline-once=true}",
        "to-gnf",
        "cse",
        "to-gnf,dce",
    ] {
        assert_eq!(run(&pass(p, &m).unwrap()), i32s(2), "{p}");
    }
    // Without a write anywhere, an unused call goes.
    let pure = parse(
        "#[version = \"0.0.5\"]\ndef @twice(%x: int32) {\n  add(%x, %x)\n}\ndef @main() -> int32 {\n  let %u = @twice(1);\n  2\n}\n",
    );
    let out = print_module(&pass("dce", &pure).unwrap());
    assert!(!out.contains("let %u"), "{out}");
}

/// Folding a projection of a tuple literal keeps a write in another field.
#[test]
fn folding_a_projection_keeps_a_write() {
    let m = parse(
        "#[version = \"0.0.5\"]\ndef @main() -> int32 {\n  let %r = ref(0);\n  let %x = (ref_write(%r, 7), 1).1;\n  add(%x, ref_read(%r))\n}\n",
    );
    assert_eq!(run(&m), i32s(8));
    let out = pass("fold-constant", &m).unwrap();
    assert_eq!(run(&out), i32s(8), "{}", print_module(&out));
    let pure = parse("#[version = \"0.0.5\"]\ndef @main() -> int32 {\n  (2, 1).1\n}\n");
    assert_eq!(
        print_module(&pass("fold-constant", &pure).unwrap()),
        "#[version = \"0.0.5\"]\ndef @main() -> int32 {\n  1\n}\n"
    );
}

#[test]
fn types_partly_unknown_still_differ_where_known() {
    // Found by the fuzz target: `@length` has no declared result, so its
    // recursive call's type is unknown while it is inferred; one clause is
    // then `(int32, _)` and the other `int32`, which no result makes equal.
    let header = "#[version = \"0.0.5\"]\ntype List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n";
    let err = type_error(&format!(
        "{header}def @length[A](%xs: List[A]) {{\n  match (%xs) {{\n    Cons(_, %rest) => (2, @length(%rest)),\n    Nil => 0,\n  }}\n}}\n"
    ));
    assert!(
        err.contains("the clauses of match differ: (int32, _) and int32"),
        "{err}"
    );
    // Likewise the branches of an if.
    let err = type_error(&format!(
        "{header}def @f(%c: bool) {{\n  if (%c) {{ (1, @f(%c)) }} else {{ 1 }}\n}}\n"
    ));
    assert!(err.contains("the branches of if differ"), "{err}");
    // Where the unknown part could be anything, they do not differ, and
    // inference settles the result from the known clause.
    let m = parse(&format!(
        "{header}def @length[A](%xs: List[A]) {{\n  match (%xs) {{\n    Cons(_, %rest) => add(1, @length(%rest)),\n    Nil => 0,\n  }}\n}}\ndef @main() -> int32 {{\n  @length(Cons(1f, Cons(2f, Nil)))\n}}\n"
    ));
    verify(&m).unwrap();
    assert_eq!(run(&m), i32s(2));
    let typed = pass("infer-type", &m).unwrap();
    verify(&typed).unwrap();
}

#[test]
fn the_effects_of_every_suffix_of_a_long_chain_take_linear_time() {
    // Passes ask about lets whose values are suffixes of one shared chain.
    // Only the chain's head was remembered, so asking about every suffix
    // walked the rest of the chain each time: 10,000 took over a second.
    let n = 200_000;
    let write_at = n / 2;
    let r = Expr::var("r", None);
    let mut chain = Expr::constant(Tensor::scalar_f32(0.0));
    let mut suffixes = Vec::with_capacity(n);
    for i in (0..n).rev() {
        let value: Expr = if i == write_at {
            RefWrite {
                reference: r.clone().into(),
                value: Expr::constant(Tensor::scalar_f32(1.0)),
                span: Span::default(),
            }
            .into()
        } else {
            Expr::constant(Tensor::scalar_f32(i as f32))
        };
        chain = Expr::let_(Expr::var(&format!("x{i}"), None), value, chain);
        suffixes.push(chain.clone());
    }
    suffixes.reverse();
    // From the head down, then from the end up: both orders are linear.
    let mut effects = Effects::new(false);
    for (i, s) in suffixes.iter().enumerate() {
        assert_eq!(effects.of(s).writes, i <= write_at, "suffix {i}");
    }
    let mut effects = Effects::new(false);
    for (i, s) in suffixes.iter().enumerate().rev() {
        assert_eq!(effects.of(s).writes, i <= write_at, "suffix {i}");
    }
}
