//! Relay programs of one nesting shape at a given size, as text: every kind
//! of depth (lets, calls, ifs, functions, tuples, projections, tuple types,
//! matches, patterns, references)
//! and of width (functions in a module, arguments of a call, fields of a
//! tuple). One generator for `tests/relay_shapes.rs` and `benches/shapes.rs`,
//! so the tests check the programs the benchmark rows time. Include with
//! `#[path = "…/support/relay_shapes.rs"] mod relay_shapes;`.

#![allow(dead_code)] // each includer uses a different subset

use std::fmt::Write;

use ir_passes::relay::{RelayModule, Tensor, Type, Value};

/// The passes every shape goes through, one at a time.
pub const PASSES: [&str; 6] = [
    "infer-type",
    "fold-constant",
    "dce",
    "cse",
    "to-anf",
    "to-gnf",
];

/// A shape: its name, and the program of size `n` it makes.
pub struct Shape {
    pub name: &'static str,
    /// What grows with `n`.
    pub what: &'static str,
    pub text: fn(usize) -> String,
    /// The float32 `@main` returns at size `n` when every parameter is
    /// zero (`%c` false), or `None` for a closure or a tuple.
    pub result: fn(usize) -> Option<f32>,
}

fn size(n: usize) -> Option<f32> {
    Some(n as f32)
}
fn size_less_one(n: usize) -> Option<f32> {
    Some(n.saturating_sub(1) as f32)
}
fn zero(_: usize) -> Option<f32> {
    Some(0.0)
}
fn one(_: usize) -> Option<f32> {
    Some(1.0)
}
fn not_a_scalar(_: usize) -> Option<f32> {
    None
}

pub const SHAPES: &[Shape] = &[
    Shape {
        name: "let",
        what: "let bindings in sequence",
        text: let_chain,
        result: size,
    },
    Shape {
        name: "let-shadow",
        what: "let bindings of two names in turn (each shadows the one before)",
        text: let_shadow_chain,
        result: size,
    },
    Shape {
        name: "call",
        what: "calls nested in the first argument",
        text: nested_call,
        result: size,
    },
    Shape {
        name: "if-then",
        what: "ifs nested in the true branch",
        text: if_then,
        result: one,
    },
    Shape {
        name: "if-else",
        what: "ifs nested in the false branch (else-if chain)",
        text: if_else,
        result: zero,
    },
    Shape {
        name: "fn",
        what: "functions nested in function bodies",
        text: nested_fn,
        result: not_a_scalar,
    },
    Shape {
        name: "fn-applied",
        what: "functions applied in function bodies",
        text: applied_fn,
        result: zero,
    },
    Shape {
        name: "tuple",
        what: "one-field tuples nested",
        text: nested_tuple,
        result: not_a_scalar,
    },
    Shape {
        name: "projection",
        what: "projections of a parameter typed by nested tuple types",
        text: projection,
        result: zero,
    },
    Shape {
        name: "match",
        what: "matches nested in their clauses' bodies",
        text: nested_match,
        result: zero,
    },
    Shape {
        name: "pattern",
        what: "constructor patterns nested, against a value as deep",
        text: nested_pattern,
        result: zero,
    },
    Shape {
        name: "ref",
        what: "references read from references, nested",
        text: nested_ref,
        result: zero,
    },
    Shape {
        name: "ref-write",
        what: "reference writes, each writing what the one inside it returns",
        text: nested_ref_write,
        result: zero,
    },
    Shape {
        name: "functions",
        what: "functions in a module, each calling the next",
        text: wide_module,
        result: size_less_one,
    },
    Shape {
        name: "arguments",
        what: "parameters of a function and arguments of its call",
        text: wide_call,
        result: zero,
    },
    Shape {
        name: "fields",
        what: "fields of a tuple",
        text: wide_tuple,
        result: zero,
    },
];

/// The shape named `name`.
pub fn shape(name: &str) -> Option<&'static Shape> {
    SHAPES.iter().find(|s| s.name == name)
}

const HEADER: &str = "#[version = \"0.0.5\"]\n";

/// `let %v0 = add(%x, 1f); ...; %v(n-1)`: `n` with `%x = 0`.
pub fn let_chain(n: usize) -> String {
    let mut t = format!("{HEADER}def @main(%x: float32) -> float32 {{\n");
    for i in 0..n {
        let _ = if i == 0 {
            writeln!(t, "  let %v0: float32 = add(%x, 1f);")
        } else {
            writeln!(t, "  let %v{i}: float32 = add(%v{}, 1f);", i - 1)
        };
    }
    let _ = writeln!(t, "  %v{}\n}}", n.saturating_sub(1));
    if n == 0 {
        return format!("{HEADER}def @main(%x: float32) -> float32 {{\n  %x\n}}\n");
    }
    t
}

/// `let %a = add(%x, 1f); let %b = add(%a, 1f); let %a = add(%b, 1f); ...`:
/// `n` with `%x = 0`, and every name but two printed with a suffix.
pub fn let_shadow_chain(n: usize) -> String {
    let name = |i: usize| if i.is_multiple_of(2) { "a" } else { "b" };
    let mut t = format!("{HEADER}def @main(%x: float32) -> float32 {{\n");
    for i in 0..n {
        let prev = if i == 0 { "x" } else { name(i - 1) };
        let _ = writeln!(t, "  let %{}: float32 = add(%{prev}, 1f);", name(i));
    }
    let last = if n == 0 { "x" } else { name(n - 1) };
    let _ = writeln!(t, "  %{last}\n}}");
    t
}

/// `add(add(...add(%x, 1f)..., 1f), 1f)`: `n` with `%x = 0`.
pub fn nested_call(n: usize) -> String {
    format!(
        "{HEADER}def @main(%x: float32) -> float32 {{\n  {}%x{}\n}}\n",
        "add(".repeat(n),
        ", 1f)".repeat(n)
    )
}

/// `if (%c) { if (%c) { ... } else { 2f } } else { 1f }`, nested `n` deep in
/// the true branch: 1 with `%c` false.
pub fn if_then(n: usize) -> String {
    let mut t = format!("{HEADER}def @main(%c: bool, %x: float32) -> float32 {{\n  ");
    t.push_str(&"if (%c) { ".repeat(n));
    t.push_str("%x");
    t.push_str(&" } else { 1f }".repeat(n));
    t.push_str("\n}\n");
    t
}

/// `if (%c) { 1f } else { if (%c) { 1f } else { ... %x } }`: 0 with `%c` false.
pub fn if_else(n: usize) -> String {
    let mut t = format!("{HEADER}def @main(%c: bool, %x: float32) -> float32 {{\n  ");
    t.push_str(&"if (%c) { 1f } else { ".repeat(n));
    t.push_str("%x");
    t.push_str(&" }".repeat(n));
    t.push_str("\n}\n");
    t
}

/// `fn (%y0: float32) { fn (%y1: float32) { ... %x } }`: a closure; its
/// type is a function type nested `n` deep.
pub fn nested_fn(n: usize) -> String {
    let mut t = format!("{HEADER}def @main(%x: float32) {{\n  ");
    for i in 0..n {
        let _ = write!(t, "fn (%y{i}: float32) {{ ");
    }
    t.push_str("%x");
    t.push_str(&" }".repeat(n));
    t.push_str("\n}\n");
    t
}

/// `(fn (%y0: float32) { (fn (%y1: float32) { ... %y(n-1) })(%y0) })(%x)`:
/// 0 with `%x = 0`.
pub fn applied_fn(n: usize) -> String {
    let mut t = format!("{HEADER}def @main(%x: float32) -> float32 {{\n  ");
    for i in 0..n {
        let _ = write!(t, "(fn (%y{i}: float32) {{ ");
    }
    if n == 0 {
        t.push_str("%x");
    } else {
        let _ = write!(t, "%y{}", n - 1);
    }
    for i in (0..n).rev() {
        if i == 0 {
            t.push_str(" })(%x)");
        } else {
            let _ = write!(t, " }})(%y{})", i - 1);
        }
    }
    t.push_str("\n}\n");
    t
}

/// `((%x,),)` nested `n` deep.
pub fn nested_tuple(n: usize) -> String {
    format!(
        "{HEADER}def @main(%x: float32) {{\n  {}%x{}\n}}\n",
        "(".repeat(n),
        ",)".repeat(n)
    )
}

/// `def @main(%t: ((float32,),)) -> float32 { (%t.0).0 }`, `n` deep (a
/// number swallows dots, so `%t.0.0` would read `0.0` as one).
pub fn projection(n: usize) -> String {
    let body = if n == 0 {
        "%t".to_owned()
    } else {
        format!("{}%t.0{}", "(".repeat(n - 1), ").0".repeat(n - 1))
    };
    format!(
        "{HEADER}def @main(%t: {}float32{}) -> float32 {{\n  {body}\n}}\n",
        "(".repeat(n),
        ",)".repeat(n),
    )
}

/// `match (B(%x)) { B(%y0) => { match (B(%y0)) { ... } } }`, `n` deep,
/// each clause binding the value the next one matches: 0 with `%x = 0`.
pub fn nested_match(n: usize) -> String {
    let mut t =
        format!("{HEADER}type Box {{\n  B(float32),\n}}\ndef @main(%x: float32) -> float32 {{\n  ");
    let mut last = "%x".to_owned();
    for i in 0..n {
        let _ = write!(t, "match (B({last})) {{ B(%y{i}) => {{ ");
        last = format!("%y{i}");
    }
    t.push_str(&last);
    t.push_str(&" }, }".repeat(n));
    t.push_str("\n}\n");
    t
}

/// `match (S(S(...Z...))) { S(S(...Z...)) => %x, _ => 1f }`: a value and
/// a pattern `n` constructors deep; 0 with `%x = 0`.
pub fn nested_pattern(n: usize) -> String {
    let nat = format!("{}Z{}", "S(".repeat(n), ")".repeat(n));
    format!(
        "{HEADER}type Nat {{\n  Z,\n  S(Nat),\n}}\ndef @main(%x: float32) -> float32 {{\n  match ({nat}) {{\n    {nat} => %x,\n    _ => 1f,\n  }}\n}}\n"
    )
}

/// `ref_read(ref(ref_read(ref(... %x ...))))`, `n` of each: 0 with `%x = 0`.
pub fn nested_ref(n: usize) -> String {
    format!(
        "{HEADER}def @main(%x: float32) -> float32 {{\n  {}%x{}\n}}\n",
        "ref_read(ref(".repeat(n),
        "))".repeat(n)
    )
}

/// `n` writes to one reference of `()`, each the value the next writes;
/// their result is bound and unused, so only their effect keeps them.
pub fn nested_ref_write(n: usize) -> String {
    format!(
        "{HEADER}def @main(%x: float32) -> float32 {{\n  let %r = ref(());\n  \
         let %u = {}(){};\n  %x\n}}\n",
        "ref_write(%r, ".repeat(n),
        ")".repeat(n)
    )
}

/// `n` functions, `@f(i)` adding one to what `@f(i+1)` returns, the last
/// returning its argument; `@main` calls `@f0`: `n` with `%x = 0`.
pub fn wide_module(n: usize) -> String {
    let mut t = String::from(HEADER);
    for i in 0..n {
        let _ = if i + 1 == n {
            writeln!(t, "def @f{i}(%x: float32) -> float32 {{\n  %x\n}}")
        } else {
            writeln!(
                t,
                "def @f{i}(%x: float32) -> float32 {{\n  add(@f{}(%x), 1f)\n}}",
                i + 1
            )
        };
    }
    t.push_str("def @main(%x: float32) -> float32 {\n  @f0(%x)\n}\n");
    t
}

/// `def @f(%a0: float32, ..., %a(n-1): float32) { %a(n-1) }` called with
/// `n` arguments: 0 with `%x = 0`.
pub fn wide_call(n: usize) -> String {
    let n = n.max(1);
    let mut t = format!("{HEADER}def @f(");
    for i in 0..n {
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(t, "{sep}%a{i}: float32");
    }
    let _ = write!(t, ") -> float32 {{\n  %a{}\n}}\n", n - 1);
    t.push_str("def @main(%x: float32) -> float32 {\n  @f(");
    for i in 0..n {
        t.push_str(if i == 0 { "%x" } else { ", %x" });
    }
    t.push_str(")\n}\n");
    t
}

/// `(%x, %x, ..., %x).(n-1)`: 0 with `%x = 0`.
pub fn wide_tuple(n: usize) -> String {
    let n = n.max(2);
    let mut t = format!("{HEADER}def @main(%x: float32) -> float32 {{\n  (");
    for i in 0..n {
        t.push_str(if i == 0 { "%x" } else { ", %x" });
    }
    let _ = write!(t, ").{}\n}}\n", n - 1);
    t
}

/// `@main`'s inputs: zero for a float32, false for a bool, a tuple of such
/// values for a tuple type (built from the inside out, at any depth).
pub fn zero_inputs(module: &RelayModule) -> Vec<Value> {
    let main = module.get("main").expect("a @main");
    main.params
        .iter()
        .map(|p| {
            let mut ty = p.annotation.clone().expect("annotated parameters");
            let mut depth = 0;
            while let Type::TupleType(t) = &ty {
                assert_eq!(t.fields.len(), 1, "one-field tuples only");
                let field = t.fields[0].clone();
                ty = field;
                depth += 1;
            }
            let mut value = match ty {
                Type::TensorType(t) if t.dtype.to_string() == "bool" => {
                    Value::tensor(Tensor::scalar_bool(false))
                }
                _ => Value::tensor(Tensor::scalar_f32(0.0)),
            };
            for _ in 0..depth {
                value = Value::tuple(vec![value]);
            }
            value
        })
        .collect()
}
