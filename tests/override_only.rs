//! A pass overrides only the hooks it cares about; dispatch and default
//! recursion are separate, and children are visited in declaration order.

mod common;

use common::*;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

struct CountCalls(usize);
impl ExprVisitor for CountCalls {
    fn visit_call(&mut self, call: &Node<Call>) {
        self.0 += 1;
        call.walk(self);
    }
}

/// Folds `add` of two constants: the whole pass is this impl.
struct FoldAdd;
impl ExprMutator for FoldAdd {
    fn mutate_call(&mut self, call: &Node<Call>) -> Transformed<Expr> {
        let new = call.rebuild_fields(self);
        let call = new.as_ref_or(call);
        match (call.op.as_str(), call.args.as_slice()) {
            ("add", [a, b]) => match (a.as_constant(), b.as_constant()) {
                (Some(a), Some(b)) => c(a.value + b.value).into(),
                _ => new.map(Expr::from),
            },
            _ => new.map(Expr::from),
        }
    }
}

#[test]
fn a_visitor_overrides_one_hook() {
    let x = v("x");
    let e = let_(
        &x,
        call("add", vec![c(1), call("mul", vec![c(2), c(3)])]),
        tuple(vec![x.clone().into(), call("neg", vec![x.clone().into()])]),
    );
    let mut count = CountCalls(0);
    count.visit_expr(&e);
    assert_eq!(count.0, 3);
}

#[test]
fn a_mutator_overrides_one_hook() {
    let x = v("x");
    let e = let_(
        &x,
        call("add", vec![c(1), call("add", vec![c(2), c(3)])]),
        call("add", vec![x.clone().into(), c(1)]),
    );
    let folded = FoldAdd.mutate_expr(&e).unwrap_or_clone(&e);
    assert_eq!(print(&folded), "let %x = 6;\nadd(%x, 1)");
}

#[test]
fn an_override_that_does_not_walk_prunes_the_subtree() {
    struct NoDescentIntoFunctions(usize);
    impl ExprVisitor for NoDescentIntoFunctions {
        fn visit_function(&mut self, _: &Node<Function>) {}
        fn visit_call(&mut self, call: &Node<Call>) {
            self.0 += 1;
            call.walk(self);
        }
    }
    let p = v("p");
    let e = tuple(vec![
        call("f", vec![]),
        func(&[&p], call("g", vec![p.clone().into()])),
    ]);
    let mut pass = NoDescentIntoFunctions(0);
    pass.visit_expr(&e);
    assert_eq!(pass.0, 1);
}

#[test]
fn overriding_the_entry_hook_sees_every_node_in_declaration_order() {
    struct Trace(Vec<String>);
    impl ExprVisitor for Trace {
        fn visit_expr(&mut self, e: &Expr) {
            self.0.push(e.kind_name().to_owned());
            e.walk(self); // the default dispatch, called explicitly
        }
        fn visit_var_def(&mut self, v: &Node<Var>) {
            self.0.push(format!("def %{}", v.name));
        }
    }
    let x = v("x");
    let e = let_(
        &x,
        if_(c(1), c(2), call("f", vec![c(3)])),
        tuple(vec![x.clone().into()]),
    );
    let mut trace = Trace(vec![]);
    trace.visit_expr(&e);
    assert_eq!(
        trace.0,
        [
            "Let", "def %x", "If", "Constant", "Constant", "Call", "Constant", "Tuple", "Var"
        ]
    );
}

#[test]
fn family_conveniences() {
    let e = call("f", vec![c(1)]);
    assert!(e.is_call() && !e.is_let());
    assert_eq!(e.as_call().map(|n| n.op.as_str()), Some("f"));
    assert_eq!(e.kind_name(), "Call");
    assert_eq!(e.kind_index(), <Call as NodeKind>::INDEX);
    assert_eq!(Expr::KIND_NAMES[e.kind_index()], <Call as NodeKind>::NAME);
    assert_eq!(
        Expr::KIND_NAMES,
        ["Constant", "Var", "Call", "Let", "Tuple", "If", "Function"]
    );
    let same = e.clone();
    assert!(e.same_as(&same));
    assert!(!e.same_as(&call("f", vec![c(1)])));
}

/// A family value's address, count and downcasts are read through its
/// kind-erased handle (`Family::kind_ref`); they agree with the `Node`'s own.
#[test]
fn family_reads_its_node_through_the_erased_handle() {
    let node = call("f", vec![c(1)]).as_call().expect("a call").clone();
    // `From<Node<K>>` is one impl for the family, generic over its kinds.
    fn wrap<K: NodeKind<Family = Expr>>(node: Node<K>) -> Expr {
        node.into()
    }
    let e = wrap(node.clone());
    assert_eq!(e.addr(), node.addr());
    assert_eq!(e.strong_count(), 2);
    assert!(Call::downcast(&e).is_some_and(|n| n.same_as(&node)));
    assert!(Var::downcast(&e).is_none());
    assert_eq!(e.kind_ref().addr(), node.addr());
    let mut e = e;
    drop(node);
    let n = Call::downcast_mut(&mut e)
        .and_then(Node::get_mut)
        .expect("unique");
    n.op = "g".into();
    assert_eq!(e.as_call().map(|n| n.op.as_str()), Some("g"));
    assert!(Constant::downcast_mut(&mut e).is_none());
    assert_eq!(<Call as NodeKind>::NAME, "Call");
}
