//! Open families: a family declared `#[ir(extensible)]` accepts kinds defined
//! elsewhere (here in another module, as another crate would; the Relay
//! dialect's real extension is `examples/raf_extension`).

use std::ops::ControlFlow;

use irkit::ext::Ext;
use irkit::prelude::*;

mod upstream {
    use irkit::ext::Ext;
    use irkit::prelude::*;

    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Lit {
        #[ir(skip)]
        pub value: i64,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Add {
        pub lhs: Expr,
        pub rhs: Expr,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    #[ir(extensible, in_place)]
    pub enum Expr {
        Lit(Node<Lit>),
        #[ir(graph)]
        Add(Node<Add>),
        Ext(Ext<Expr>),
    }

    pub fn lit(value: i64) -> Expr {
        Lit { value }.into()
    }
    pub fn add(lhs: Expr, rhs: Expr) -> Expr {
        Add { lhs, rhs }.into()
    }

    /// An upstream pass: folds additions of literals.
    pub struct Fold;
    impl ExprMutator for Fold {
        fn mutate_add(&mut self, n: &Node<Add>) -> Transformed<Expr> {
            let new = n.rebuild_fields(self);
            let n = new.as_ref_or(n);
            match (n.lhs.as_lit(), n.rhs.as_lit()) {
                (Some(a), Some(b)) => lit(a.value + b.value).into(),
                _ => new.map(Expr::from),
            }
        }
    }

    /// An upstream pass: sums the literals it sees.
    #[derive(Default)]
    pub struct Sum(pub i64);
    impl ExprVisitor for Sum {
        fn visit_lit(&mut self, n: &Node<Lit>) {
            self.0 += n.value;
        }
    }
}

mod downstream {
    use irkit::prelude::*;

    use super::upstream::{Expr, ExprMutator, ExprVisitor};

    /// A node that remembers where its value came from.
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Tagged {
        #[ir(skip)]
        pub tag: String,
        pub inner: Expr,
    }
    /// A leaf holding a runtime value.
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Runtime {
        #[ir(skip)]
        pub handle: u64,
    }

    /// A node with a field typed as an upstream kind.
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Pinned {
        pub lit: Node<super::upstream::Lit>,
    }

    #[derive(Visitable, Mutable)]
    #[ir(extends(Expr))]
    pub enum MyExpr {
        Tagged(Node<Tagged>),
        Runtime(Node<Runtime>),
        Pinned(Node<Pinned>),
    }
}

use downstream::*;
use upstream::*;

fn tagged(tag: &str, inner: Expr) -> Expr {
    Tagged {
        tag: tag.into(),
        inner,
    }
    .into()
}

#[test]
fn upstream_passes_visit_and_rebuild_downstream_nodes() {
    let e = add(
        tagged("t", add(lit(1), lit(2))),
        Runtime { handle: 7 }.into(),
    );
    let mut sum = Sum::default();
    sum.visit_expr(&e);
    assert_eq!(sum.0, 3);
    let folded = Fold.mutate_expr(&e).unwrap_or_clone(&e);
    let top = folded.as_add().unwrap();
    let t = top.lhs.as_ext().unwrap().downcast::<Tagged>().unwrap();
    assert_eq!(t.tag, "t", "skipped fields are carried over");
    assert_eq!(t.inner.as_lit().unwrap().value, 3);
    assert!(
        top.rhs.same_as(&e.as_add().unwrap().rhs),
        "unchanged: shared"
    );
    assert_eq!(top.lhs.kind_name(), "Tagged");
}

#[test]
fn a_typed_field_of_a_downstream_node_reaches_the_upstream_pass_hook() {
    // `Pinned::lit` is typed `Node<Lit>`: walking it crosses the trait object
    // downstream nodes are walked with, to the pass's own `visit_lit`.
    let pinned = Pinned {
        lit: Node::new(Lit { value: 5 }),
    };
    let e = add(pinned.into(), lit(1));
    let mut sum = Sum::default();
    sum.visit_expr(&e);
    assert_eq!(sum.0, 6);
}

#[test]
fn a_downstream_pass_sees_both_upstream_and_downstream_kinds() {
    #[derive(Default)]
    struct Census {
        lits: usize,
        tags: Vec<String>,
        handles: Vec<u64>,
    }
    impl ExprVisitor for Census {
        fn visit_lit(&mut self, _: &Node<Lit>) {
            self.lits += 1;
        }
        fn visit_ext(&mut self, node: &Ext<Expr>) {
            self.visit_my_expr(node)
        }
    }
    impl MyExprVisitor for Census {
        fn visit_tagged(&mut self, n: &Node<Tagged>) {
            self.tags.push(n.tag.clone());
            n.walk(self);
        }
        fn visit_runtime(&mut self, n: &Node<Runtime>) {
            self.handles.push(n.handle);
        }
    }
    let e = add(
        tagged("a", tagged("b", lit(1))),
        Runtime { handle: 9 }.into(),
    );
    let mut census = Census::default();
    census.visit_expr(&e);
    assert_eq!(census.lits, 1);
    assert_eq!(census.tags, ["a", "b"]);
    assert_eq!(census.handles, [9]);
}

#[test]
fn a_downstream_mutator_rewrites_its_kinds() {
    struct Untag;
    impl ExprMutator for Untag {
        fn mutate_ext(&mut self, node: &Ext<Expr>) -> Transformed<Expr> {
            self.mutate_my_expr(node)
        }
    }
    impl MyExprMutator for Untag {
        fn mutate_tagged(&mut self, n: &Node<Tagged>) -> Transformed<Expr> {
            Transformed::Replace(self.mutate_expr(&n.inner).unwrap_or_clone(&n.inner))
        }
    }
    let e = add(
        tagged("a", lit(1)),
        tagged("b", Runtime { handle: 3 }.into()),
    );
    let out = Untag.mutate_expr(&e).unwrap_or_clone(&e);
    let top = out.as_add().unwrap();
    assert!(top.lhs.is_lit());
    assert!(top.rhs.as_ext().unwrap().is::<Runtime>());
}

#[test]
fn early_exit_through_a_downstream_node() {
    struct FindRuntime;
    impl ExprVisitor<ControlFlow<u64>> for FindRuntime {
        fn visit_ext(&mut self, node: &Ext<Expr>) -> ControlFlow<u64> {
            self.visit_my_expr(node)
        }
    }
    impl MyExprVisitor<ControlFlow<u64>> for FindRuntime {
        fn visit_runtime(&mut self, n: &Node<Runtime>) -> ControlFlow<u64> {
            ControlFlow::Break(n.handle)
        }
    }
    let e = add(tagged("x", Runtime { handle: 5 }.into()), lit(1));
    assert_eq!(FindRuntime.visit_expr(&e), ControlFlow::Break(5));
}

#[test]
fn equality_hashing_identity_and_memo_tables_work_on_downstream_nodes() {
    let build = || add(tagged("t", lit(1)), Runtime { handle: 2 }.into());
    let (a, b) = (build(), build());
    assert!(structural_eq(&a, &b));
    assert_eq!(structural_hash(&a), structural_hash(&b));
    let c = add(tagged("u", lit(1)), Runtime { handle: 2 }.into());
    assert!(!structural_eq(&a, &c));
    assert_ne!(structural_hash(&a), structural_hash(&c));
    let d = add(Runtime { handle: 2 }.into(), Runtime { handle: 2 }.into());
    assert!(!structural_eq(&a, &d), "different downstream kinds differ");
    // Identity and sharing.
    let shared = tagged("s", lit(4));
    let twice = add(shared.clone(), shared.clone());
    let top = twice.as_add().unwrap();
    assert!(top.lhs.same_as(&top.rhs));
    assert_eq!(shared.addr(), top.lhs.addr());
    // A downstream node's handle reports its node, and no upstream kind.
    let ext = shared.as_ext().unwrap();
    assert_eq!(shared.addr(), ext.addr());
    assert_eq!(shared.strong_count(), 3);
    assert!(upstream::Lit::downcast(&shared).is_none());
    assert!(upstream::Add::downcast(&shared).is_none());
    // A memoized pass rewrites the shared downstream node once and keeps it shared.
    #[derive(Default)]
    struct Bump {
        memo: MemoMap<Expr>,
        calls: usize,
    }
    impl ExprMutator for Bump {
        fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
            irkit::memoized(self, e, |p| &mut p.memo)
        }
        fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<Expr> {
            self.calls += 1;
            lit(n.value + 1).into()
        }
    }
    let mut bump = Bump::default();
    let out = bump.mutate_expr(&twice).unwrap_or_clone(&twice);
    assert_eq!(bump.calls, 1);
    let top = out.as_add().unwrap();
    assert!(top.lhs.same_as(&top.rhs));
}

#[test]
fn in_place_mode_writes_into_downstream_nodes() {
    let mut e = add(tagged("t", lit(1)), lit(5));
    let before = e.as_add().unwrap().lhs.addr();
    struct Double;
    impl ExprMutator for Double {
        fn mutate_lit(&mut self, n: &Node<Lit>) -> Transformed<Expr> {
            lit(n.value * 2).into()
        }
    }
    assert!(e.mutate_in_place(&mut Double));
    let top = e.as_add().unwrap();
    assert_eq!(
        top.lhs.addr(),
        before,
        "the unique downstream node is written in place"
    );
    let t = top.lhs.as_ext().unwrap().downcast::<Tagged>().unwrap();
    assert_eq!(t.inner.as_lit().unwrap().value, 2);
}

#[test]
fn an_open_family_is_no_bigger_than_a_closed_one() {
    // The `Ext` handle is one word (its kind rides in the address's top
    // bits), so the family is a tag and a pointer, like any family of nodes.
    #[cfg(target_pointer_width = "64")]
    assert_eq!(std::mem::size_of::<Expr>(), 16);
    assert_eq!(
        std::mem::size_of::<Option<Expr>>(),
        std::mem::size_of::<Expr>()
    );
}

#[test]
fn downstream_kinds_are_told_apart_across_threads() {
    // Kinds are numbered on first use; handles made on other threads keep
    // their kind, and each thread sees every kind's number.
    let made: Vec<Expr> = std::thread::scope(|s| {
        let a = s.spawn(|| tagged("a", upstream::lit(1)));
        let b = s.spawn(|| Expr::from(Runtime { handle: 2 }));
        vec![a.join().unwrap(), b.join().unwrap()]
    });
    let [Expr::Ext(a), Expr::Ext(b)] = &made[..] else {
        panic!("two downstream nodes")
    };
    assert_eq!((a.kind_name(), b.kind_name()), ("Tagged", "Runtime"));
    assert!(a.is::<Tagged>() && !a.is::<Runtime>());
    assert_eq!(b.downcast::<Runtime>().map(|r| r.handle), Some(2));
}
