//! In-place mode: the same pass, run in place by the caller's choice, writes
//! new children into every uniquely owned node on the path of a change (no
//! ancestor is reallocated), copies a shared node (its other owners see no
//! change), and still runs every hook the pass overrides.

mod common;

use common::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::allocations_during;

/// Doubles the constant 1 (and only it).
struct DoubleOne;
impl ExprMutator for DoubleOne {
    fn mutate_constant(&mut self, n: &Node<Constant>) -> Transformed<Expr> {
        if n.value != 1 {
            return Transformed::Keep;
        }
        Constant {
            value: 2,
            span: n.span,
        }
        .into()
    }
}

/// `f(g(h(1), 5), 6)`: three levels of calls above the leaf `1`, with siblings.
fn three_levels() -> Expr {
    call(
        "f",
        vec![call("g", vec![call("h", vec![c(1)]), c(5)]), c(6)],
    )
}

fn calls_on_the_path(e: &Expr) -> Vec<usize> {
    let f = e.as_call().unwrap();
    let g = f.args[0].as_call().unwrap();
    let h = g.args[0].as_call().unwrap();
    vec![f.addr(), g.addr(), h.addr()]
}

#[test]
fn a_unique_tree_whose_leaf_changes_allocates_only_the_new_leaf() {
    let mut e = three_levels();
    let before = calls_on_the_path(&e);
    let siblings = {
        let f = e.as_call().unwrap();
        (
            f.args[1].addr(),
            f.args[0].as_call().unwrap().args[1].addr(),
        )
    };
    let (changed, allocations) = allocations_during(|| e.mutate_in_place(&mut DoubleOne));
    assert!(changed);
    assert_eq!(allocations, 1, "only the new leaf");
    assert_eq!(calls_on_the_path(&e), before, "no ancestor reallocated");
    let f = e.as_call().unwrap();
    let after_siblings = (
        f.args[1].addr(),
        f.args[0].as_call().unwrap().args[1].addr(),
    );
    assert_eq!(after_siblings, siblings, "siblings untouched");
    assert_eq!(print(&e), "f(g(h(2), 5), 6)");
}

#[test]
fn the_same_pass_copy_on_write_allocates_every_ancestor() {
    let e = three_levels();
    let (out, allocations) = allocations_during(|| DoubleOne.mutate_expr(&e));
    let out = out.unwrap_or_clone(&e);
    // The leaf, and the three calls above it with their argument vectors and
    // a copy of their operator's name (in place, none of these are made).
    assert_eq!(allocations, 1 + 3 * 3);
    assert_eq!(print(&out), "f(g(h(2), 5), 6)");
    assert_eq!(print(&e), "f(g(h(1), 5), 6)", "the input is unchanged");
}

#[test]
fn a_shared_node_on_the_path_is_copied_and_its_other_owners_see_no_change() {
    let shared = call("h", vec![c(1)]);
    let other_owner = call("keep", vec![shared.clone()]);
    let mut e = call("f", vec![call("g", vec![shared.clone(), c(5)])]);
    let (f, g) = {
        let f = e.as_call().unwrap();
        (f.addr(), f.args[0].addr())
    };
    assert!(e.mutate_in_place(&mut DoubleOne));
    // The unique ancestors are written in place...
    let f_node = e.as_call().unwrap();
    assert_eq!((f_node.addr(), f_node.args[0].addr()), (f, g));
    // ...the shared node and everything below it are copied (TIR's rule).
    let g_node = f_node.args[0].as_call().unwrap();
    assert!(!g_node.args[0].same_as(&shared));
    assert_eq!(print(&e), "f(g(h(2), 5))");
    assert_eq!(print(&other_owner), "keep(h(1))");
    assert_eq!(print(&shared), "h(1)");
}

#[test]
fn nothing_changed_means_nothing_written_or_allocated() {
    struct Identity;
    impl ExprMutator for Identity {}
    let mut e = three_levels();
    let before = calls_on_the_path(&e);
    let (changed, allocations) = allocations_during(|| e.mutate_in_place(&mut Identity));
    assert!(!changed);
    assert_eq!(allocations, 0);
    assert_eq!(calls_on_the_path(&e), before);
}

#[test]
fn overridden_hooks_still_run_in_place_mode() {
    // A pass that renames every call it sees and rebuilds it itself: its hook
    // runs for every call, and its node is copied (the hook builds it), while
    // the unique parts below it are still written in place.
    struct Rename(Vec<String>);
    impl ExprMutator for Rename {
        fn mutate_call(&mut self, n: &Node<Call>) -> Transformed<Expr> {
            self.0.push(n.op.clone());
            let rebuilt = n.rebuild_fields(self).unwrap_or_clone(n);
            Call {
                op: rebuilt.op.to_uppercase(),
                ..rebuilt
            }
            .into()
        }
    }
    let mut e = three_levels();
    let mut pass = Rename(Vec::new());
    assert!(e.mutate_in_place(&mut pass));
    assert_eq!(pass.0, ["f", "g", "h"]);
    assert_eq!(print(&e), "F(G(H(1), 5), 6)");
}

#[test]
fn a_uniquely_owned_node_is_rebuilt_in_its_own_allocation() {
    let Expr::Call(mut node) = call("f", vec![c(1), c(2)]) else {
        unreachable!()
    };
    let before = node.addr();
    assert!(node.mutate_in_place(&mut DoubleOne));
    assert_eq!(node.addr(), before);
    assert_eq!(print(&node.into()), "f(2, 2)");
}

#[test]
fn in_place_mode_reaches_any_depth() {
    // `add(add(...add(1, 1)...))`, a hundred thousand deep and uniquely
    // owned, on a small thread stack: only the changed leaves are new.
    let mut e = c(1);
    for _ in 0..100_000 {
        e = call("add", vec![e, c(3)]);
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn_scoped(s, || {
                let (changed, allocations) =
                    allocations_during(|| e.mutate_in_place(&mut DoubleOne));
                assert!(changed);
                assert_eq!(allocations, 1);
            })
            .unwrap()
            .join()
            .unwrap()
    });
}

#[test]
fn copy_on_write_access() {
    let mut e = call("f", vec![c(1)]);
    let shared = e.clone();
    if let Expr::Call(n) = &mut e {
        n.make_mut().op = "g".into();
    }
    assert_eq!(print(&e), "g(1)");
    assert_eq!(print(&shared), "f(1)");
}

/// A family that is not declared `#[ir(in_place)]`: its default hooks carry no
/// check for in-place mode, which rebuilds it copy-on-write and stores the
/// result in the slot. The result is the same; ancestors are new nodes.
mod family_without_in_place {
    use irkit::prelude::*;
    use pretty_assertions::assert_eq;

    #[derive(Debug, Clone, Visitable, Mutable)]
    pub struct Lit {
        #[ir(skip)]
        pub value: i64,
    }
    #[derive(Debug, Clone, Visitable, Mutable)]
    pub struct Add {
        pub lhs: E,
        pub rhs: E,
    }
    #[derive(Debug, Clone, Visitable, Mutable)]
    pub enum E {
        Lit(Node<Lit>),
        Add(Node<Add>),
    }

    struct DoubleOne;
    impl EMutator for DoubleOne {
        fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<E> {
            if n.value == 1 {
                Lit { value: 2 }.into()
            } else {
                Transformed::Keep
            }
        }
    }

    fn sum(e: &E) -> Vec<i64> {
        match e {
            E::Lit(l) => vec![l.value],
            E::Add(a) => [sum(&a.lhs), sum(&a.rhs)].concat(),
        }
    }

    #[test]
    fn in_place_mode_rebuilds_it_copy_on_write_with_the_same_result() {
        let lit = |value| E::from(Lit { value });
        let add = |lhs, rhs| E::from(Add { lhs, rhs });
        let mut e = add(add(lit(1), lit(3)), lit(1));
        let inner = e.as_add().unwrap().lhs.addr();
        assert!(e.mutate_in_place(&mut DoubleOne));
        assert_eq!(sum(&e), vec![2, 3, 2]);
        assert_ne!(
            e.as_add().unwrap().lhs.addr(),
            inner,
            "rebuilt, not written into"
        );
        assert!(!e.mutate_in_place(&mut DoubleOne));
    }
}
