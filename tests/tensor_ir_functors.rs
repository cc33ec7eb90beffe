//! TVM's `tests/cpp/ir_functor_test.cc`, translated to the Tensor IR:
//! per-kind dispatch, visits that deduplicate shared nodes and visits that
//! do not, copy-on-write that writes into uniquely owned nodes and copies
//! below a shared one, and substitution.
//!
//! TVM's buffers and allocations become tensor definitions, its arrays of
//! statements a `{ ... }` block. TVM's `SBlock` cases have no counterpart.

use std::ops::ControlFlow;

use ir_core::{Family, Mutate, Node, Transformed, VisitedSet};
use ir_passes::tensor_ir::passes::Substitute;
use ir_passes::tensor_ir::*;
use pretty_assertions::assert_eq;

fn x() -> Node<Var> {
    var_of("x", DType::S32)
}

/// IRF.Basic: one handler per kind, with an extra argument; the `Add`
/// handler does not recurse.
#[test]
fn a_handler_per_kind_with_an_argument() {
    struct Handlers {
        b: i64,
        out: i64,
    }
    impl ExprVisitor for Handlers {
        fn visit_var(&mut self, _: &Node<Var>) {
            self.out = self.b;
        }
        fn visit_add(&mut self, _: &Node<Arith<AddOp>>) {
            self.out = self.b + 2;
        }
    }
    let x = Expr::from(x());
    let mut f = Handlers { b: 2, out: 0 };
    f.visit_expr(&x);
    assert_eq!(f.out, 2);
    f.visit_expr(&(x + constant(1)));
    assert_eq!(f.out, 4);
}

/// IRF.CountVar: a visit that skips nodes it has seen counts the shared `y`
/// once.
#[test]
fn a_deduplicating_visit_counts_a_shared_variable_once() {
    #[derive(Default)]
    struct CountVars {
        vars: usize,
        seen: VisitedSet<Expr>,
    }
    impl ExprVisitor for CountVars {
        fn visit_expr(&mut self, e: &Expr) {
            ir_core::visited(self, e, |pass| &mut pass.seen);
        }
        fn visit_var(&mut self, _: &Node<Var>) {
            self.vars += 1;
        }
    }
    // The parser gives one name one node: both `y` are the same node.
    let e = parse_expr("(((x + 1) + y) + y)").unwrap();
    let mut count = CountVars::default();
    count.visit_expr(&e);
    assert_eq!(count.vars, 2);
}

/// IRF.PreOrderVisit: a pre-order callback that declines a node skips its
/// children.
#[test]
fn a_pre_order_visit_can_skip_a_subtree() {
    #[derive(Default)]
    struct Seen {
        if_visited: bool,
        descended_into_if: bool,
        body_visited: bool,
    }
    impl StmtVisitor for Seen {
        fn visit_stmt(&mut self, s: &Stmt) {
            ir_core::visit_preorder(self, s, |seen, s| match s {
                Stmt::IfElse(_) => {
                    seen.if_visited = true;
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            })
        }
        fn visit_evaluate(&mut self, e: &Node<Evaluate>) {
            match e.value.as_value() {
                Some(Value::Int(0)) => self.descended_into_if = true,
                Some(Value::Int(1)) => self.body_visited = true,
                _ => {}
            }
        }
    }
    impl ExprVisitor for Seen {}
    let s = parse_stmt(
        "{
  if (true) {
    evaluate{0}
  } else {
    evaluate{0}
  }
  evaluate{1}
}",
    )
    .unwrap();
    let mut seen = Seen::default();
    seen.visit_stmt(&s);
    assert!(seen.if_visited && seen.body_visited);
    assert!(!seen.descended_into_if);
}

/// IRF.ExprTransform: a functor that computes a value. TVM fails on a kind
/// without a handler; every kind here has a default (visit the children), so
/// a functor that must not skip kinds silently catches the rest in its
/// category hook and reports them. The specific `Add` handler wins over it.
#[test]
fn a_value_computing_functor_reports_kinds_it_has_no_rule_for() {
    struct Eval {
        b: i64,
        stack: Vec<i64>,
    }
    impl ExprVisitor<ControlFlow<String>> for Eval {
        fn visit_var(&mut self, _: &Node<Var>) -> ControlFlow<String> {
            self.stack.push(self.b);
            ControlFlow::Continue(())
        }
        fn visit_constant(&mut self, c: &Node<Constant>) -> ControlFlow<String> {
            let Value::Int(v) = c.value else {
                return ControlFlow::Break("not an integer".into());
            };
            self.stack.push(v);
            ControlFlow::Continue(())
        }
        fn visit_add(&mut self, n: &Node<Arith<AddOp>>) -> ControlFlow<String> {
            n.walk(self)?;
            let (r, l) = (self.stack.pop().unwrap(), self.stack.pop().unwrap());
            self.stack.push(l + r);
            ControlFlow::Continue(())
        }
        fn visit_binary(&mut self, n: Binary<'_>) -> ControlFlow<String> {
            ControlFlow::Break(format!("no rule for `{}`", n.kind_name()))
        }
    }
    let run = |text: &str| -> Result<i64, String> {
        let mut f = Eval {
            b: 2,
            stack: vec![],
        };
        match f.visit_expr(&parse_expr(text).unwrap()) {
            ControlFlow::Continue(()) => Ok(f.stack[0]),
            ControlFlow::Break(error) => Err(error),
        }
    };
    assert_eq!(run("x"), Ok(2));
    assert_eq!(run("x + 1"), Ok(3));
    assert_eq!(run("((x + 1) - 1)"), Err("no rule for `Sub`".into()));
}

/// IRF.ExprVisit: a statement's expression is visited through the
/// expression visitor.
#[test]
fn a_statement_visitor_reaches_expressions() {
    #[derive(Default)]
    struct CountVars(usize);
    impl ExprVisitor for CountVars {
        fn visit_var(&mut self, _: &Node<Var>) {
            self.0 += 1;
        }
    }
    impl StmtVisitor for CountVars {}
    let s = evaluate(Expr::from(x()) + constant(1));
    let mut count = CountVars::default();
    count.visit_stmt(&s);
    assert_eq!(count.0, 1);
}

/// IRF.StmtVisitor: a plain visit does not deduplicate: a node shared three
/// times is visited three times. (TVM's `AllocBuffer` with shape `{z, z}`
/// becomes a tensor with dims `[4, z]`, whose dense strides `[z, 1]` hold
/// the second `z`.)
#[test]
fn a_plain_visit_visits_a_shared_node_once_per_reference() {
    #[derive(Default)]
    struct CountVars(usize);
    impl ExprVisitor for CountVars {
        fn visit_var(&mut self, _: &Node<Var>) {
            self.0 += 1;
        }
    }
    impl StmtVisitor for CountVars {}
    let z = Expr::from(x()) + constant(1);
    let b = tensor_of("b", DType::F32, vec![constant(4), z.clone()]);
    assert!(b.strides[0].same_as(&z));
    let s = stmts(vec![define_tensor(b), evaluate(z)]);
    assert_eq!(
        s.to_string(),
        "{\n  tensor b: [f32 * 4 * (x + 1)]\n  evaluate{(x + 1)}\n}"
    );
    let mut count = CountVars::default();
    count.visit_stmt(&s);
    assert_eq!(count.0, 3);
}

/// TVM's test mutator: `(a + b)` becomes `a`.
struct TakeLeft;
impl ExprMutator for TakeLeft {
    fn mutate_add(&mut self, n: &Node<Arith<AddOp>>) -> Transformed<Expr> {
        Transformed::Replace(n.l.clone())
    }
}
impl StmtMutator for TakeLeft {}

/// Splices nested blocks into their parent, keeping every other statement
/// as the same node (TVM's `SeqStmt::Flatten`).
struct Flatten;
impl ExprMutator for Flatten {}
impl StmtMutator for Flatten {
    fn mutate_stmts(&mut self, s: &Node<Stmts>) -> Transformed<Stmt> {
        if !s.seq.iter().any(|st| matches!(st, Stmt::Stmts(_))) {
            return Transformed::Keep;
        }
        let mut flat = Vec::new();
        for st in &s.seq {
            match st {
                Stmt::Stmts(inner) => flat.extend(inner.seq.iter().cloned()),
                other => flat.push(other.clone()),
            }
        }
        Transformed::Replace(stmts(flat))
    }
}

fn block(s: &Stmt) -> &Node<Stmts> {
    match s {
        Stmt::Stmts(b) => b,
        other => panic!("not a block: {other}"),
    }
}

fn defined_tensor(s: &Stmt) -> &Node<Tensor> {
    match s {
        Stmt::DefineTensor(d) => &d.tensor,
        other => panic!("not a tensor definition: {other}"),
    }
}

/// `tensor b: [f32 * 1 * z]`, with `z = (x + 1)`.
fn alloc(z: &Expr) -> Stmt {
    define_tensor(tensor_of("b", DType::F32, vec![constant(1), z.clone()]))
}

/// IRF.StmtMutator (a): a uniquely owned block is updated in place; a
/// statement shared inside it stays as it is.
#[test]
fn in_place_mode_writes_into_a_unique_block() {
    let x = Expr::from(x());
    let z = x.clone() + constant(1);
    let e1 = evaluate(constant(1));
    let mut arr = stmts(vec![alloc(&z), e1.clone(), e1.clone()]);
    drop(z);
    let before = arr.addr();
    // TVM checks the unique arrays are reused (`extents.get() == extentptr`).
    let seq_before = block(&arr).seq.as_ptr();
    let tensor_before = defined_tensor(&block(&arr).seq[0]).addr();
    let dims_before = defined_tensor(&block(&arr).seq[0]).dims.as_ptr();
    assert!(arr.mutate_in_place(&mut TakeLeft));
    assert_eq!(arr.addr(), before, "unique: the same block");
    assert_eq!(block(&arr).seq.as_ptr(), seq_before, "and the same vector");
    assert!(block(&arr).seq[1].same_as(&e1) && block(&arr).seq[2].same_as(&e1));
    // The tensor is uniquely owned too, so it is written in place, dims
    // vector included (TVM's buffers are immutable, and it gets a new one).
    let b = defined_tensor(&block(&arr).seq[0]);
    assert_eq!(b.addr(), tensor_before, "the same tensor node");
    assert_eq!(b.dims.as_ptr(), dims_before, "the same dims vector");
    assert!(b.dims[1].same_as(&x));
    assert_eq!(
        arr.to_string(),
        "{\n  tensor b: [f32 * 1 * x]\n  evaluate{1}\n  evaluate{1}\n}"
    );
}

/// IRF.StmtMutator (b): a shared block is copied, its other owner sees the
/// old program; when nothing changes, nothing is copied even if shared.
#[test]
fn in_place_mode_copies_a_shared_block_and_nothing_when_unchanged() {
    let z = Expr::from(x()) + constant(1);
    let mut arr = stmts(vec![alloc(&z)]);
    let arr2 = arr.clone();
    assert!(arr.mutate_in_place(&mut TakeLeft));
    assert!(!arr.same_as(&arr2));
    let (new, old) = (&block(&arr).seq[0], &block(&arr2).seq[0]);
    assert!(!defined_tensor(new).same_as(defined_tensor(old)));
    assert_eq!(arr2.to_string(), "{\n  tensor b: [f32 * 1 * (x + 1)]\n}");

    let arr2 = arr.clone();
    assert!(!arr.mutate_in_place(&mut TakeLeft));
    assert!(arr.same_as(&arr2));
}

/// IRF.StmtMutator (c): an if/else, then unchanged on a second run.
#[test]
fn in_place_mode_reaches_an_else_branch() {
    let x = Expr::from(x());
    // TVM's condition is the integer `x`; ours is a comparison.
    let cond = cmp_ne(x.clone(), constant(0));
    let mut arr = stmts(vec![if_else(
        cond,
        evaluate(constant(0)),
        Some(evaluate(x.clone() + constant(1))),
    )]);
    assert!(arr.mutate_in_place(&mut TakeLeft));
    let Stmt::IfElse(s) = &block(&arr).seq[0] else {
        panic!()
    };
    let Some(Stmt::Evaluate(e)) = &s.else_case else {
        panic!()
    };
    assert!(e.value.same_as(&x));
    let arr2 = arr.clone();
    assert!(!arr.mutate_in_place(&mut TakeLeft));
    assert!(arr.same_as(&arr2));
}

/// IRF.StmtMutator (d): a call's argument (TVM's `call_extern` with a
/// string first argument; ours calls a module function).
#[test]
fn in_place_mode_reaches_call_arguments() {
    let x = Expr::from(x());
    let mut arr = stmts(vec![evaluate(call(
        "xyz",
        vec![x.clone() + constant(1)],
        DType::S32,
    ))]);
    assert!(arr.mutate_in_place(&mut TakeLeft));
    let Stmt::Evaluate(e) = &block(&arr).seq[0] else {
        panic!()
    };
    let Expr::Call(c) = &e.value else { panic!() };
    assert!(c.args[0].same_as(&x));
}

/// `for k in (1, end, 1) { body }`: TVM's 2023 stand-in for an allocation
/// whose extent is `end`.
fn loop_to(end: Expr, body: Stmt) -> Stmt {
    for_loop(var_of("k", DType::S32), constant(1), end, constant(1), body)
}

/// IRF.StmtMutator (e), in TVM's 2023 form: a loop standing for the
/// allocation (its end and its body share `z`), nested in a block, updated
/// in place and then flattened: the loop is the same node, the evaluate
/// too.
#[test]
fn in_place_then_flatten_keeps_unique_nodes() {
    let x = Expr::from(x());
    let z = x.clone() + constant(1);
    let n = loop_to(z.clone(), evaluate(z));
    let n_addr = n.addr();
    let e = evaluate(constant(1));
    let mut body = stmts(vec![stmts(vec![n, e.clone()]), e.clone()]);
    assert!(body.mutate_in_place(&mut TakeLeft));
    let body = Flatten.mutate_stmt(&body).unwrap_or_clone(&body);
    let seq = &block(&body).seq;
    assert_eq!(seq.len(), 3);
    assert_eq!(seq[0].addr(), n_addr, "the loop was written in place");
    assert!(seq[1].same_as(&e));
    assert_eq!(
        body.to_string(),
        "{\n  for k in (1, x, 1) {\n    evaluate{x}\n  }\n  evaluate{1}\n  evaluate{1}\n}"
    );
}

/// IRF.StmtMutator (f) and the 2023 form of (a): a node reached through a
/// shared one is copied, and the other owner keeps the old program.
#[test]
fn in_place_mode_copies_below_a_shared_node() {
    let x = Expr::from(x());
    let z = x.clone() + constant(1);
    let n = loop_to(z.clone(), evaluate(z));
    let n_addr = n.addr();
    let e = evaluate(constant(1));
    let inner = stmts(vec![n, e.clone()]);
    let bref = inner.clone();
    let mut body = stmts(vec![inner, e]);
    assert!(body.mutate_in_place(&mut TakeLeft));
    let body = Flatten.mutate_stmt(&body).unwrap_or_clone(&body);
    let seq = &block(&body).seq;
    assert_eq!(seq.len(), 3);
    assert_ne!(
        seq[0].addr(),
        n_addr,
        "reached through a shared block: copied"
    );
    assert!(!body.same_as(&bref));
    assert_eq!(
        bref.to_string(),
        "{\n  for k in (1, (x + 1), 1) {\n    evaluate{(x + 1)}\n  }\n  evaluate{1}\n}"
    );

    // 2023 (a): the loop is unique in its block, its body has another owner.
    let z = x.clone() + constant(1);
    let body_ref = evaluate(z.clone());
    let loop_ = loop_to(z, body_ref.clone());
    let loop_addr = loop_.addr();
    let e1 = evaluate(constant(1));
    let mut arr = stmts(vec![loop_, e1.clone(), e1]);
    assert!(arr.mutate_in_place(&mut TakeLeft));
    let Stmt::ForLoop(l) = &block(&arr).seq[0] else {
        panic!()
    };
    assert_eq!(l.addr(), loop_addr, "the loop is written in place");
    assert!(l.end.same_as(&x));
    assert!(!l.body.same_as(&body_ref), "the shared body is copied");
    let Stmt::Evaluate(new_body) = &l.body else {
        panic!()
    };
    assert!(new_body.value.same_as(&x));
    assert_eq!(body_ref.to_string(), "evaluate{(x + 1)}");
}

/// IRF.Substitute: a tensor whose dims change gets one new identity, shared
/// by its definition and its uses; the identity substitution returns the
/// very same node.
#[test]
fn substitution_gives_a_changed_tensor_one_new_identity() {
    let s = parse_stmt("{ tensor buf: [f32 * n]  buf[0] = 0.0f }").unwrap();
    let old = defined_tensor(&block(&s).seq[0]).clone();
    let Expr::Var(n) = &old.dims[0] else { panic!() };
    let m = var_of("m", DType::S32);
    let out = Substitute::var(n, Expr::from(m.clone())).apply_stmt(&s);
    assert_eq!(
        out.to_string(),
        "{\n  tensor buf: [f32 * m]\n  buf[0] = 0.0f\n}"
    );
    let new = defined_tensor(&block(&out).seq[0]);
    assert!(new.dims[0].same_as(&Expr::from(m)));
    assert!(!new.same_as(&old));
    let Stmt::Assign(store) = &block(&out).seq[1] else {
        panic!()
    };
    let Expr::Indexing(at) = &store.lhs else {
        panic!()
    };
    assert!(at.tensor.same_as(&Expr::Tensor(new.clone())));

    let load = indexing(&old, vec![constant(0)]);
    let out = Substitute::var(n, Expr::Var(n.clone())).apply(&load);
    assert!(out.same_as(&load));
}

/// A variable mapped to a variable is renamed at its definitions and uses
/// alike, a loop's included; a tensor mapped to a tensor likewise, with one
/// node for the definition and every use; the identity map returns the very
/// same statement.
#[test]
fn substitution_renames_definitions_and_uses_consistently() {
    let s = parse_stmt(
        "{ tensor A: [s32 * 8]  var x: s32 = 1
           for i in (0, 8, 1) { x = (x + i)  A[i] = x } }",
    )
    .unwrap();
    let seq = &block(&s).seq;
    let a = defined_tensor(&seq[0]).clone();
    let Stmt::Define(d) = &seq[1] else { panic!() };
    let Stmt::ForLoop(l) = &seq[2] else { panic!() };
    let (x, i) = (d.var.clone(), l.var.clone());

    let identity = Substitute::new()
        .insert_var(&x, Expr::Var(x.clone()))
        .insert_var(&i, Expr::Var(i.clone()))
        .insert_tensor(&a, a.clone())
        .apply_stmt(&s);
    assert!(identity.same_as(&s));

    let y = var_of("y", DType::S32);
    let k = var_of("k", DType::S32);
    let mut b = (*a).clone();
    b.name = "B".into();
    let b = Node::new(b);
    let out = Substitute::new()
        .insert_var(&x, Expr::Var(y.clone()))
        .insert_var(&i, Expr::Var(k.clone()))
        .insert_tensor(&a, b.clone())
        .apply_stmt(&s);
    assert_eq!(
        out.to_string(),
        "{\n  tensor B: [s32 * 8]\n  var y: s32 = 1\n  for k in (0, 8, 1) {\n    y = (y + k)\n    B[k] = y\n  }\n}"
    );
    let seq = &block(&out).seq;
    assert!(defined_tensor(&seq[0]).same_as(&b));
    let Stmt::Define(d) = &seq[1] else { panic!() };
    assert!(d.var.same_as(&y));
    let Stmt::ForLoop(l) = &seq[2] else { panic!() };
    assert!(l.var.same_as(&k));
    let Stmt::Assign(store) = &block(&l.body).seq[1] else {
        panic!()
    };
    let Expr::Indexing(at) = &store.lhs else {
        panic!()
    };
    assert!(at.tensor.same_as(&Expr::Tensor(b)));
    assert!(at.index[0].same_as(&Expr::Var(k)));
}
