//! Structural equality and hashing: alpha-equivalent, free variables by
//! identity or mapped, sharing observable for graph nodes, hashing agrees
//! with equality, and no recursion limit.

mod common;

use common::*;
use irkit::prelude::*;

/// The start of the printed form, for failure messages.
fn show(e: &Expr) -> String {
    print(e).chars().take(300).collect()
}

fn assert_equal(a: &Expr, b: &Expr) {
    assert!(
        structural_eq(a, b),
        "expected equal:\n{}\n---\n{}",
        show(a),
        show(b)
    );
    assert_eq!(
        structural_hash(a),
        structural_hash(b),
        "equal values must hash alike"
    );
}

fn assert_unequal(a: &Expr, b: &Expr) {
    assert!(
        !structural_eq(a, b),
        "expected unequal:\n{}\n---\n{}",
        show(a),
        show(b)
    );
}

#[test]
fn bound_variables_match_by_position_not_name() {
    let a = v("a");
    let (x, y) = (v("x"), v("y"));
    let left = let_(
        &x,
        call("add", vec![a.clone().into(), c(1)]),
        x.clone().into(),
    );
    let right = let_(
        &y,
        call("add", vec![a.clone().into(), c(1)]),
        y.clone().into(),
    );
    assert_equal(&left, &right);

    let (p, q) = (v("p"), v("q"));
    assert_equal(
        &func(
            &[&p, &q],
            call("f", vec![p.clone().into(), q.clone().into()]),
        ),
        &func(
            &[&q, &p],
            call("f", vec![q.clone().into(), p.clone().into()]),
        ),
    );
}

#[test]
fn a_use_must_refer_to_the_corresponding_binder() {
    let (x, y) = (v("x"), v("y"));
    let body_uses = |which: &Node<Var>| let_(&x, c(1), let_(&y, c(2), which.clone().into()));
    assert_unequal(&body_uses(&x), &body_uses(&y));
}

#[test]
fn free_variables_are_equal_only_as_the_same_node_unless_mapped() {
    let (a1, a2) = (v("a"), v("a"));
    let left = call("neg", vec![a1.clone().into()]);
    let right = call("neg", vec![a2.clone().into()]);
    assert_unequal(&left, &right);
    assert!(structural_eq_map_free_vars(&left, &right));
    assert_eq!(
        structural_hash_map_free_vars(&left),
        structural_hash_map_free_vars(&right)
    );
    // Mapping is one-to-one: two different free vars cannot both map to one.
    let two = call("f", vec![a1.clone().into(), a2.clone().into()]);
    let one = call("f", vec![a1.clone().into(), a1.clone().into()]);
    assert!(!structural_eq_map_free_vars(&two, &one));
}

#[test]
fn sharing_is_observable_for_graph_nodes() {
    let x = v("x");
    let shared = call("add", vec![x.clone().into(), x.clone().into()]);
    let dag = call("add", vec![shared.clone(), shared.clone()]);
    let tree = call(
        "add",
        vec![
            call("add", vec![x.clone().into(), x.clone().into()]),
            call("add", vec![x.clone().into(), x.clone().into()]),
        ],
    );
    assert_unequal(&dag, &tree);
    let other_shared = call("add", vec![x.clone().into(), x.clone().into()]);
    let other_dag = call("add", vec![other_shared.clone(), other_shared]);
    assert_equal(&dag, &other_dag);
    // Constants are compared structurally: duplicating them is invisible.
    let one = c(1);
    assert_equal(
        &call("f", vec![one.clone(), one.clone()]),
        &call("f", vec![c(1), c(1)]),
    );
}

#[test]
fn data_fields_count_and_spans_do_not() {
    let mut attrs = Attrs::new();
    attrs.insert("axis".into(), "0".into());
    let with = |attrs: Attrs, line: u32| -> Expr {
        Call {
            op: "concat".into(),
            args: vec![c(1)],
            attrs,
            span: Span { line },
        }
        .into()
    };
    assert_equal(&with(attrs.clone(), 1), &with(attrs.clone(), 99));
    assert_unequal(&with(attrs, 1), &with(Attrs::new(), 1));
    assert_unequal(&call("add", vec![c(1)]), &call("sub", vec![c(1)]));
    assert_unequal(&c(1), &c(2));
}

#[test]
fn doubling_dags_compare_and_hash_at_once() {
    let x = v("x");
    let build = || {
        let mut e: Expr = x.clone().into();
        for _ in 0..100 {
            e = call("add", vec![e.clone(), e]);
        }
        e
    };
    assert_equal(&build(), &build());
}

#[test]
fn million_deep_chains_compare_and_hash() {
    // Each chain has its own free `%x`: equal once free variables are mapped.
    let (a, b) = (let_chain(1_000_000), let_chain(1_000_000));
    assert_unequal(&a, &b);
    assert!(structural_eq_map_free_vars(&a, &b));
    assert_eq!(
        structural_hash_map_free_vars(&a),
        structural_hash_map_free_vars(&b)
    );
    let x = v("x");
    let nest = |n: usize, last: i64| {
        let mut e: Expr = x.clone().into();
        for i in 0..n {
            e = call("add", vec![e, c(if i + 1 == n { last } else { 1 })]);
        }
        e
    };
    assert_equal(&nest(1_000_000, 1), &nest(1_000_000, 1));
    assert_unequal(&nest(1_000_000, 1), &nest(1_000_000, 2));
}

/// Relay's let bodies are tails: long chains are compared and hashed in a
/// loop, with the same answers as recursion.
mod relay_chains {
    use ir_passes::relay::parse_expr;
    use irkit::prelude::*;

    /// `let %<p>i = add(%<p>(i-1), 1f); ...` with the literal at `odd` changed.
    fn chain(prefix: &str, n: usize, odd: Option<usize>) -> String {
        let mut text = String::from("free_var %x: float32;\n");
        for i in 0..n {
            let prev = if i == 0 {
                "%x".to_owned()
            } else {
                format!("%{prefix}{}", i - 1)
            };
            let c = if Some(i) == odd { "2f" } else { "1f" };
            text.push_str(&format!("let %{prefix}{i} = add({prev}, {c});\n"));
        }
        text.push_str(&format!("%{prefix}{}", n - 1));
        text
    }

    #[test]
    fn long_chains_compare_and_hash_like_short_ones() {
        let n = 50_000;
        let a = parse_expr(&chain("a", n, None)).unwrap();
        let renamed = parse_expr(&chain("b", n, None)).unwrap();
        let odd = parse_expr(&chain("a", n, Some(n - 7))).unwrap();
        // Free variables differ between parses: compare with mapping.
        assert!(structural_eq_map_free_vars(&a, &renamed));
        assert_eq!(
            structural_hash_map_free_vars(&a),
            structural_hash_map_free_vars(&renamed)
        );
        assert!(!structural_eq_map_free_vars(&a, &odd));
        assert_ne!(
            structural_hash_map_free_vars(&a),
            structural_hash_map_free_vars(&odd)
        );
        assert!(structural_eq(&a, &a));
    }
}

/// A small lambda calculus whose compound kinds are *not* graph kinds: sharing
/// them must stay unobservable, and comparing or hashing them must stay linear
/// on DAGs. Names carry no `eq` annotation.
mod plain_kinds {
    use irkit::prelude::*;

    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Lit {
        #[ir(skip)]
        value: i64,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Var {
        /// Only a hint: a variable is its binding site.
        #[ir(skip)]
        name: String,
        /// Counts even for a variable (TIR's dtype, say).
        #[ir(skip, eq = true)]
        dtype: &'static str,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Add {
        lhs: Expr,
        rhs: Expr,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Lam {
        param: Node<Var>,
        body: Expr,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub enum Expr {
        Lit(Node<Lit>),
        #[ir(def)]
        Var(Node<Var>),
        Add(Node<Add>),
        Lam(Node<Lam>),
    }

    fn var(name: &str) -> Node<Var> {
        Node::new(Var {
            name: name.into(),
            dtype: "i32",
        })
    }
    fn lit(value: i64) -> Expr {
        Lit { value }.into()
    }
    fn add(lhs: Expr, rhs: Expr) -> Expr {
        Add { lhs, rhs }.into()
    }
    fn lam(param: &Node<Var>, body: Expr) -> Expr {
        Lam {
            param: param.clone(),
            body,
        }
        .into()
    }
    /// `e = e + e`, `n` times, over `leaf`: 2^n paths, n + 1 nodes.
    fn doubling(leaf: Expr, n: usize) -> Expr {
        let mut e = leaf;
        for _ in 0..n {
            e = add(e.clone(), e);
        }
        e
    }
    /// The same, unfolded into a tree (no sharing).
    fn unfolded(leaf: &dyn Fn() -> Expr, n: usize) -> Expr {
        if n == 0 {
            leaf()
        } else {
            add(unfolded(leaf, n - 1), unfolded(leaf, n - 1))
        }
    }

    #[test]
    fn doubling_dags_of_plain_kinds_compare_and_hash_at_once() {
        // 2^64 paths each: a walk of the paths would never finish.
        let (a, b) = (doubling(lit(1), 64), doubling(lit(1), 64));
        assert!(structural_eq(&a, &b));
        assert_eq!(structural_hash(&a), structural_hash(&b));
        assert!(!structural_eq(&a, &doubling(lit(2), 64)));
        assert_ne!(structural_hash(&a), structural_hash(&doubling(lit(2), 64)));
    }

    #[test]
    fn shared_subterms_over_outer_binders_compare_and_hash_at_once() {
        // The shared body uses the lambda's parameter: not closed, still linear.
        let (x, y) = (var("x"), var("y"));
        let a = lam(&x, doubling(x.clone().into(), 64));
        let b = lam(&y, doubling(y.clone().into(), 64));
        assert!(structural_eq(&a, &b));
        assert_eq!(structural_hash(&a), structural_hash(&b));
        let free = var("z");
        let c = lam(&y, doubling(free.into(), 64));
        assert!(!structural_eq(&a, &c));
    }

    #[test]
    fn sharing_plain_kinds_is_not_observable() {
        let dag = doubling(lit(1), 12);
        let tree = unfolded(&|| lit(1), 12);
        assert!(structural_eq(&dag, &tree));
        assert!(structural_eq(&tree, &dag));
        assert_eq!(structural_hash(&dag), structural_hash(&tree));
        // With a variable bound outside the shared part, too.
        let (x, y) = (var("x"), var("y"));
        let dag = lam(&x, doubling(x.clone().into(), 10));
        let tree = lam(&y, unfolded(&|| y.clone().into(), 10));
        assert!(structural_eq(&dag, &tree));
        assert_eq!(structural_hash(&dag), structural_hash(&tree));
    }

    #[test]
    fn programs_that_differ_only_in_bound_names_are_equal() {
        let (x, y) = (var("x"), var("renamed"));
        let a = lam(&x, add(x.clone().into(), lit(1)));
        let b = lam(&y, add(y.clone().into(), lit(1)));
        assert!(structural_eq(&a, &b));
        assert_eq!(structural_hash(&a), structural_hash(&b));
        // A data field marked `eq = true` still counts on a variable.
        let z = Node::new(Var {
            name: "x".into(),
            dtype: "f32",
        });
        let c = lam(&z, add(z.clone().into(), lit(1)));
        assert!(!structural_eq(&a, &c));
    }

    #[test]
    fn hashes_do_not_depend_on_addresses() {
        // Built twice, with free variables: the same hash in both modes (the
        // mode without mapping hashes a free variable by its contents).
        let build = || {
            let (x, free) = (var("x"), var("free"));
            lam(
                &x,
                add(add(x.clone().into(), free.clone().into()), free.into()),
            )
        };
        let (a, b) = (build(), build());
        assert_eq!(structural_hash(&a), structural_hash(&b));
        assert_eq!(
            structural_hash_map_free_vars(&a),
            structural_hash_map_free_vars(&b)
        );
        assert!(structural_eq_map_free_vars(&a, &b));
        // Without mapping, the two free variables are different nodes.
        assert!(!structural_eq(&a, &b));
        // Hashes of many builds agree, whatever the allocator hands out.
        let first = structural_hash_map_free_vars(&build());
        let _padding: Vec<Expr> = (0..100).map(lit).collect();
        assert_eq!(structural_hash_map_free_vars(&build()), first);
    }

    /// `λp0. λp1. … λp(n-1). body`, the parameters given.
    fn lams(params: &[Node<Var>], body: Expr) -> Expr {
        params.iter().rev().fold(body, |body, p| lam(p, body))
    }

    #[test]
    fn a_use_far_from_its_binder_hashes_by_that_binder() {
        // A use of the first of eight binders is not among the latest few:
        // it is looked up among all of them.
        let build = |used: usize| {
            let ps: Vec<_> = (0..8).map(|i| var(&format!("p{i}"))).collect();
            let body = add(ps[used].clone().into(), ps[7].clone().into());
            lams(&ps, body)
        };
        assert!(structural_eq(&build(0), &build(0)));
        assert_eq!(structural_hash(&build(0)), structural_hash(&build(0)));
        assert!(!structural_eq(&build(0), &build(1)));
        assert_ne!(structural_hash(&build(0)), structural_hash(&build(1)));
        // After that lookup, later binders and uses still number alike.
        let later = |used: usize| {
            let q = var("q");
            lam(
                &q,
                add(build(0), if used == 0 { q.clone().into() } else { lit(0) }),
            )
        };
        assert_eq!(structural_hash(&later(0)), structural_hash(&later(0)));
        assert_ne!(structural_hash(&later(0)), structural_hash(&later(1)));
    }

    #[test]
    fn a_binder_met_twice_hashes_alike_on_both_sides() {
        // One lambda node, reached twice: its parameter is met twice. Two
        // programs shared the same way are equal and hash alike.
        let shared = || {
            let x = var("x");
            let f = lam(&x, add(x.clone().into(), lit(1)));
            add(f.clone(), f)
        };
        let (a, b) = (shared(), shared());
        assert!(structural_eq(&a, &b));
        assert_eq!(structural_hash(&a), structural_hash(&b));
        assert_eq!(
            structural_hash_map_free_vars(&a),
            structural_hash_map_free_vars(&b)
        );
    }

    #[test]
    fn a_shared_function_hashes_like_its_copies() {
        // Left: one lambda node reached twice, its body sharing `x + 1`.
        // Right: the same program with nothing shared. Sharing these kinds
        // is not observable, so the two are equal and must hash alike: the
        // second meeting of `x` must number it as the first did, whatever
        // was cached meanwhile.
        let x = var("x");
        let s = add(x.clone().into(), lit(1));
        let f = lam(&x, add(s.clone(), s));
        let a = add(f.clone(), f);
        let y = var("x");
        let copy = || {
            lam(
                &y,
                add(add(y.clone().into(), lit(1)), add(y.clone().into(), lit(1))),
            )
        };
        let b = add(copy(), copy());
        assert!(structural_eq(&a, &b));
        assert_eq!(structural_hash(&a), structural_hash(&b));
        assert_eq!(
            structural_hash_map_free_vars(&a),
            structural_hash_map_free_vars(&b)
        );
    }

    #[test]
    fn a_parameter_of_two_functions_hashes_alike_on_both_sides() {
        // One variable node is the parameter of two distinct functions.
        let build = || {
            let p = var("p");
            add(
                lam(&p, add(p.clone().into(), lit(1))),
                lam(&p, add(p.clone().into(), lit(2))),
            )
        };
        let (a, b) = (build(), build());
        assert!(structural_eq(&a, &b));
        assert_eq!(structural_hash(&a), structural_hash(&b));
    }
}

/// A binding defines its variable: a long block of bindings makes room for
/// all its binders before they are compared. An expression position is a
/// use, never a definition.
#[test]
fn bindings_are_known_to_define_variables() {
    use ir_passes::relax::{Binding, Expr as RelaxExpr, Var};
    use irkit::structural::StructuralEq;
    const {
        assert!(<Node<Var> as StructuralEq>::DEFINES);
        assert!(<Vec<Node<Var>> as StructuralEq>::DEFINES);
        assert!(<Node<Binding> as StructuralEq>::BINDS);
        assert!(!<Node<Binding> as StructuralEq>::DEFINES);
        assert!(!<RelaxExpr as StructuralEq>::DEFINES);
        assert!(!<RelaxExpr as StructuralEq>::BINDS);
    }
}
