//! TVM's `test_tir_transform_unroll_loop.py`, translated: which loops
//! unroll under which limits, and fresh definitions in every copy.

use ir_passes::tensor_ir::passes::{Unroll, UnrollConfig};
use ir_passes::tensor_ir::{ForKind, Func, Stmt, parse_func};
use pretty_assertions::assert_eq;

fn unroll(text: &str, config: UnrollConfig) -> Func {
    let f = parse_func(text).unwrap();
    Unroll::new(config).run_func(&f)
}

const NEST: &str = "func main(n: s64, A: [s64 * n]): void {
  for i in (n, (n + 2L), 1L) {
    for j in (0, 8, 1) unroll {
      A[(j + 1)] = (A[i] + 1L)
    }
  }
}";

#[test]
fn a_nest_within_the_step_limit_unrolls_whole() {
    let config = UnrollConfig {
        max_step: 16,
        ..UnrollConfig::default()
    };
    let f = unroll(NEST, config);
    let Stmt::Stmts(body) = &f.body else {
        panic!("still a loop: {f}")
    };
    assert_eq!(body.seq.len(), 16);
    let first_row: Vec<String> = (0..8)
        .map(|j| format!("A[({j} + 1)] = (A[n] + 1L)"))
        .collect();
    let second_row: Vec<String> = (0..8)
        .map(|j| format!("A[({j} + 1)] = (A[(n + 1L)] + 1L)"))
        .collect();
    let printed: Vec<String> = body.seq.iter().map(|s| s.to_string()).collect();
    assert_eq!(printed, [first_row, second_row].concat());
}

#[test]
fn one_step_over_the_limit_leaves_the_outer_loop() {
    let config = UnrollConfig {
        max_step: 15,
        ..UnrollConfig::default()
    };
    let f = unroll(NEST, config);
    let Stmt::Stmts(body) = &f.body else { panic!() };
    let [Stmt::ForLoop(outer)] = &body.seq[..] else {
        panic!("not one loop: {f}")
    };
    assert_eq!(outer.kind, ForKind::Serial);
    let inner: Vec<String> = (0..8)
        .map(|j| format!("    A[({j} + 1)] = (A[i] + 1L)"))
        .collect();
    assert_eq!(
        f.to_string(),
        format!(
            "func main(n: s64, A: [s64 * n]): void {{\n  for i in (n, (n + 2L), 1L) {{\n{}\n  }}\n}}",
            inner.join("\n")
        )
    );
}

#[test]
fn without_explicit_expansion_loops_are_marked() {
    let config = UnrollConfig {
        max_step: 16,
        explicit: false,
        ..UnrollConfig::default()
    };
    let f = unroll(NEST, config);
    assert_eq!(
        f.to_string(),
        "func main(n: s64, A: [s64 * n]): void {
  for i in (n, (n + 2L), 1L) unroll {
    for j in (0, 8, 1) unroll {
      A[(j + 1)] = (A[i] + 1L)
    }
  }
}"
    );
}

/// TVM's last check: `pragma_auto_unroll_max_step = 16` scoped to the first
/// of two copies of the nest; the second copy keeps the default (no
/// automatic unrolling). The text format has no attributes, so the scope is
/// set here: a block around the first copy.
#[test]
fn a_step_limit_applies_only_inside_its_scope() {
    use ir_passes::tensor_ir::passes::MAX_STEP_ATTR;
    use ir_passes::tensor_ir::{AttrValue, stmts};
    let f = parse_func(NEST).unwrap();
    let Stmt::Stmts(body) = &f.body else { panic!() };
    let nest = body.seq[0].clone();
    let mut scoped = stmts(vec![nest.clone()]);
    scoped.attrs_mut().set(MAX_STEP_ATTR, AttrValue::Int(16));
    let both = f.map_body(|_| stmts(vec![scoped.clone(), nest.clone()]));
    let config = UnrollConfig {
        explicit: false,
        ..UnrollConfig::default()
    };
    let out = Unroll::new(config).run_func(&both);
    let Stmt::Stmts(body) = &out.body else {
        panic!()
    };
    let Stmt::Stmts(first) = &body.seq[0] else {
        panic!("{out}")
    };
    let (Stmt::ForLoop(inside), Stmt::ForLoop(outside)) = (&first.seq[0], &body.seq[1]) else {
        panic!("{out}")
    };
    assert_eq!(inside.kind, ForKind::Unroll, "{out}");
    assert_eq!(outside.kind, ForKind::Serial, "{out}");
    assert_eq!(
        first.attrs.get(MAX_STEP_ATTR),
        Some(&AttrValue::Int(16)),
        "the scope keeps its attribute"
    );
}

#[test]
fn a_loop_of_one_iteration_unrolls_when_max_extent_is_one() {
    let text = "func main(n: s64, A: [s32 * n]): void {
  for i in (0, 1, 1) {
    A[(i * 2)] = 3
    for j in (0, 10, 1) {
      A[(j + 1)] = (A[i] + 1)
    }
  }
}";
    let config = UnrollConfig {
        max_depth: 8,
        max_extent: 1,
        explicit: false,
        ..UnrollConfig::default()
    };
    let f = unroll(text, config);
    assert_eq!(
        f.to_string(),
        "func main(n: s64, A: [s32 * n]): void {
  A[(0 * 2)] = 3
  for j in (0, 10, 1) {
    A[(j + 1)] = (A[0] + 1)
  }
}"
    );
}

#[test]
fn every_copy_defines_its_own_tensor() {
    let text = "func main(): void {
  for i in (0, 2, 1) unroll {
    tensor buf: [f32 * 16]
    buf[0] = 0.0f
  }
}";
    let f = unroll(text, UnrollConfig::default());
    let expected = parse_func(
        "func main(): void {
  tensor buf1: [f32 * 16]
  buf1[0] = 0.0f
  tensor buf2: [f32 * 16]
  buf2[0] = 0.0f
}",
    )
    .unwrap();
    assert!(
        ir_core::structural::structural_eq(&f, &expected),
        "{f}\n!=\n{expected}"
    );
    let Stmt::Stmts(body) = &f.body else { panic!() };
    let (Stmt::DefineTensor(a), Stmt::DefineTensor(b)) = (&body.seq[0], &body.seq[2]) else {
        panic!()
    };
    assert!(
        !a.tensor.same_as(&b.tensor),
        "two tensors, not one defined twice"
    );
}

#[test]
fn every_copy_defines_its_own_variables_and_inner_loops() {
    let text = "func main(A: [s32 * 4]): void {
  for i in (0, 2, 1) unroll {
    var t: s32 = (i * 2)
    for k in (0, 2, 1) unroll {
      var u: s32 = (t + k)
      A[u] = u
    }
  }
}";
    let f = unroll(text, UnrollConfig::default());
    // Printing names each distinct definition apart (one counter for all
    // suffixes, as oneDNN's renaming). As in TVM, substituted
    // values are not folded (the constant folder does that).
    assert_eq!(
        f.to_string(),
        "func main(A: [s32 * 4]): void {
  var t: s32 = (0 * 2)
  var u: s32 = (t + 0)
  A[u] = u
  var u_1: s32 = (t + 1)
  A[u_1] = u_1
  var t_2: s32 = (1 * 2)
  var u_3: s32 = (t_2 + 0)
  A[u_3] = u_3
  var u_4: s32 = (t_2 + 1)
  A[u_4] = u_4
}"
    );
}

#[test]
fn a_symbolic_loop_comes_back_as_the_very_same_node() {
    let text = "func main(n: s32, A: [f32 * n], B: [f32 * n]): void {
  for i in (0, n, 1) {
    B[i] = A[i]
  }
}";
    let f = parse_func(text).unwrap();
    let config = UnrollConfig {
        max_step: 1,
        ..UnrollConfig::default()
    };
    let out = Unroll::new(config).run_func(&f);
    assert!(out.body.same_as(&f.body));
}

#[test]
fn an_expansion_never_exceeds_its_bound() {
    // TVM would try to write a billion statements.
    let text = "func main(A: [s32 * 4]): void {
  for i in (0, 1000000000, 1) unroll {
    A[0] = i
  }
}";
    let f = parse_func(text).unwrap();
    let out = Unroll::new(UnrollConfig::default()).run_func(&f);
    assert!(out.body.same_as(&f.body));
}
