//! oneDNN Graph Compiler's `test_visitor.cpp`, translated: for each node
//! kind, which leaves a pass reaches and in which order, in the three modes
//! (copy-on-write, in place, read-only), and the consistent visitor's
//! three-step scenario.
//!
//! The harness is oneDNN's `type_check`: a pass that records every constant
//! and variable and replaces it by a fresh copy runs over the input
//! copy-on-write (the result is a new root, equal to the input) and in place
//! (the same root, equal to the input), and a viewer records the same leaves
//! without changing anything. Leaves are compared by identity with the
//! viewer's and by their printed form with the expected list.
//!
//! Two deliberate differences from oneDNN, both documented on
//! `Mutate::mutate_in_place`:
//! * in-place mode reports whether anything below the node changed, where
//!   oneDNN's `changed_` says whether a *direct* child was replaced. They
//!   differ in two tests (a select over indexings, a tensor pointer), where
//!   oneDNN reports `false` although leaves were replaced;
//! * a variable at a definition (a loop variable, `var x`) reaches the
//!   definition hook (`mutate_var_def`), not the use hook.

use ir_core::structural::structural_eq_map_free_vars;
use ir_core::{Family, Mutate, Node, StructuralEq, Transformed, Visit};
use ir_passes::tensor_ir::consistent::Replacements;
use ir_passes::tensor_ir::*;
use pretty_assertions::assert_eq;

/// A leaf as recorded: its identity and its printed form.
type Leaf = (usize, String);

fn constant_leaf(c: &Node<Constant>) -> Leaf {
    (c.addr(), Expr::Constant(c.clone()).to_string())
}

fn var_leaf(v: &Node<Var>) -> Leaf {
    (v.addr(), v.name.clone())
}

/// oneDNN's `viewer_test_base_t`: records constants and variables.
#[derive(Default)]
struct RecordingViewer {
    leaves: Vec<Leaf>,
}

impl ExprVisitor for RecordingViewer {
    fn visit_constant(&mut self, c: &Node<Constant>) {
        self.leaves.push(constant_leaf(c));
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        self.leaves.push(var_leaf(v));
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        self.leaves.push(var_leaf(v));
    }
}
impl StmtVisitor for RecordingViewer {}

/// oneDNN's `visitor_test_base_t` and `ip_visitor_test_base_t`: records
/// constants and variables and replaces each by a fresh copy.
#[derive(Default)]
struct Remake {
    leaves: Vec<Leaf>,
}

impl ExprMutator for Remake {
    fn mutate_constant(&mut self, c: &Node<Constant>) -> Transformed<Expr> {
        self.leaves.push(constant_leaf(c));
        Transformed::Replace(Expr::Constant(Node::new((**c).clone())))
    }
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.leaves.push(var_leaf(v));
        Transformed::Replace(Expr::Var(Node::new((**v).clone())))
    }
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        self.leaves.push(var_leaf(v));
        Transformed::Replace(Node::new((**v).clone()))
    }
}
impl StmtMutator for Remake {}

fn printed(leaves: &[Leaf]) -> Vec<&str> {
    leaves.iter().map(|(_, p)| p.as_str()).collect()
}

fn addrs(leaves: &[Leaf]) -> Vec<usize> {
    leaves.iter().map(|(a, _)| *a).collect()
}

/// oneDNN's `type_check`: `make` builds the input (each call a fresh,
/// uniquely owned copy); `expected` lists the leaves in visit order;
/// `changed` is what in-place mode reports.
fn type_check<T>(make: impl Fn() -> T, expected: &[&str], changed: bool)
where
    T: Family
        + Clone
        + StructuralEq
        + std::fmt::Display
        + Mutate<Remake>
        + Visit<RecordingViewer, ()>,
{
    let reference = make();
    let mut input = make();
    let text = input.to_string();

    // Read-only: the viewer records the leaves and changes nothing.
    let mut viewer = RecordingViewer::default();
    input.visit(&mut viewer);
    assert_eq!(printed(&viewer.leaves), expected, "viewer on {text}");
    let identities = addrs(&viewer.leaves);

    // Copy-on-write: the same leaves, the input untouched, a new root equal
    // to it (every leaf was replaced, so every ancestor was rebuilt).
    let mut copy = Remake::default();
    let out = input.mutate(&mut copy).unwrap_or_clone(&input);
    assert_eq!(addrs(&copy.leaves), identities, "copy on {text}");
    assert_eq!(input.to_string(), text, "copy mode changed its input");
    assert!(
        structural_eq_map_free_vars(&out, &reference),
        "{out} vs {text}"
    );
    assert_eq!(
        out.same_as(&input),
        expected.is_empty(),
        "copy root on {text}"
    );
    drop(out);

    // In place: the same leaves (the originals, recorded before replacement),
    // the same root, equal to the input.
    let root = input.addr();
    let mut in_place = Remake::default();
    let reported = input.mutate_in_place(&mut in_place);
    assert_eq!(addrs(&in_place.leaves), identities, "in place on {text}");
    assert_eq!(reported, changed, "in-place report on {text}");
    assert_eq!(input.addr(), root, "in place keeps the root");
    assert!(structural_eq_map_free_vars(&input, &reference));
}

fn expr(text: &str) -> impl Fn() -> Expr + '_ {
    move || parse_expr(text).unwrap()
}

fn stmt(text: &str) -> impl Fn() -> Stmt + '_ {
    move || parse_stmt(text).unwrap()
}

/// `AAA`: s32, dims `[100, 200]`, dense strides `[200, 1]` (as oneDNN's test
/// gives them explicitly).
fn aaa() -> Node<Tensor> {
    let t = tensor("AAA", DType::S32, &[100, 200]);
    assert_eq!(t.strides.len(), 2);
    t
}

/// A pass that treats one root kind as a leaf (oneDNN's tests that
/// override `add`, `cmp_eq` or `logic_and`); it also records constants and
/// category hooks, which must not be reached.
#[derive(Default)]
struct SpecificHook {
    fresh: bool,
    leaves: Vec<String>,
}

impl ExprVisitor for SpecificHook {
    fn visit_add(&mut self, n: &Node<Arith<AddOp>>) {
        self.leaves.push(Expr::Add(n.clone()).to_string());
    }
    fn visit_eq(&mut self, n: &Node<Compare<EqOp>>) {
        self.leaves.push(Expr::Eq(n.clone()).to_string());
    }
    fn visit_and(&mut self, n: &Node<Logical<AndOp>>) {
        self.leaves.push(Expr::And(n.clone()).to_string());
    }
    fn visit_binary(&mut self, _: Binary<'_>) {
        self.leaves.push("binary hook".into());
    }
    fn visit_cmp(&mut self, _: Cmp<'_>) {
        self.leaves.push("cmp hook".into());
    }
    fn visit_logic(&mut self, _: Logic<'_>) {
        self.leaves.push("logic hook".into());
    }
    fn visit_constant(&mut self, c: &Node<Constant>) {
        self.leaves.push(constant_leaf(c).1);
    }
}

impl ExprMutator for SpecificHook {
    fn mutate_add(&mut self, n: &Node<Arith<AddOp>>) -> Transformed<Expr> {
        self.leaves.push(Expr::Add(n.clone()).to_string());
        self.remake(Expr::Add(n.clone()), || Expr::Add(Node::new((**n).clone())))
    }
    fn mutate_eq(&mut self, n: &Node<Compare<EqOp>>) -> Transformed<Expr> {
        self.leaves.push(Expr::Eq(n.clone()).to_string());
        self.remake(Expr::Eq(n.clone()), || Expr::Eq(Node::new((**n).clone())))
    }
    fn mutate_and(&mut self, n: &Node<Logical<AndOp>>) -> Transformed<Expr> {
        self.leaves.push(Expr::And(n.clone()).to_string());
        self.remake(Expr::And(n.clone()), || Expr::And(Node::new((**n).clone())))
    }
    fn mutate_binary(&mut self, _: Binary<'_>) -> Transformed<Expr> {
        self.leaves.push("binary hook".into());
        Transformed::Keep
    }
    fn mutate_constant(&mut self, c: &Node<Constant>) -> Transformed<Expr> {
        self.leaves.push(constant_leaf(c).1);
        Transformed::Keep
    }
}

impl SpecificHook {
    fn remake(&self, _: Expr, copy: impl FnOnce() -> Expr) -> Transformed<Expr> {
        if self.fresh {
            Transformed::Replace(copy())
        } else {
            Transformed::Keep
        }
    }
}

/// oneDNN's `TestVisitorBinary`, `TestVisitorCmp`, `TestVisitorLogic`: the
/// specific hook is the only one called, its operands are never reached.
fn specific_hook_wins(text: &str, build: impl Fn() -> Expr) {
    let mut input = build();
    let mut viewer = SpecificHook::default();
    viewer.visit_expr(&input);
    assert_eq!(viewer.leaves, [text]);

    let mut copy = SpecificHook {
        fresh: true,
        ..Default::default()
    };
    let out = copy.mutate_expr(&input).unwrap_or_clone(&input);
    assert_eq!(copy.leaves, [text]);
    assert!(!out.same_as(&input));
    assert!(structural_eq_map_free_vars(&out, &input));

    let root = input.addr();
    let mut in_place = SpecificHook::default();
    assert!(
        !input.mutate_in_place(&mut in_place),
        "oneDNN: changed_ = false"
    );
    assert_eq!(in_place.leaves, [text]);
    assert_eq!(input.addr(), root);
}

#[test]
fn a_constant_is_its_own_leaf() {
    // The hook returns a fresh copy in copy mode, the node itself in place.
    let mut input = parse_expr("1").unwrap();
    let mut viewer = RecordingViewer::default();
    input.visit(&mut viewer);
    assert_eq!(printed(&viewer.leaves), ["1"]);
    assert_eq!(addrs(&viewer.leaves), [input.addr()], "the root itself");
    let out = Remake::default()
        .mutate_expr(&input)
        .unwrap_or_clone(&input);
    assert!(!out.same_as(&input) && structural_eq_map_free_vars(&out, &input));
    struct Keep;
    impl ExprMutator for Keep {}
    let root = input.addr();
    assert!(!input.mutate_in_place(&mut Keep));
    assert_eq!(input.addr(), root);
}

#[test]
fn a_variable_is_its_own_leaf() {
    let input = parse_expr("a").unwrap();
    let mut viewer = RecordingViewer::default();
    input.visit(&mut viewer);
    assert_eq!(viewer.leaves, [(input.addr(), "a".to_string())]);
    let out = Remake::default()
        .mutate_expr(&input)
        .unwrap_or_clone(&input);
    assert!(!out.same_as(&input));
    assert_eq!(out.to_string(), "a");
}

#[test]
fn cast_visits_its_value() {
    type_check(expr("f32(32)"), &["32"], true);
}

#[test]
fn a_specific_binary_hook_replaces_the_category() {
    specific_hook_wins("(12 + 13)", expr("12 + 13"));
}

#[test]
fn a_specific_cmp_hook_replaces_the_category() {
    specific_hook_wins("(12 == 13)", expr("12 == 13"));
}

#[test]
fn a_specific_logic_hook_replaces_the_category() {
    specific_hook_wins("(false && false)", expr("false && false"));
}

#[test]
fn binaries_visit_left_then_right() {
    type Build = fn(Expr, Expr) -> Expr;
    let operators: [(&str, Build); 13] = [
        ("+", |l, r| l + r),
        ("-", |l, r| l - r),
        ("*", |l, r| l * r),
        ("/", |l, r| l / r),
        ("%", |l, r| l % r),
        ("<", cmp_lt),
        ("<=", cmp_le),
        (">", cmp_gt),
        (">=", cmp_ge),
        ("==", cmp_eq),
        ("!=", cmp_ne),
        // oneDNN builds these on integers too: the builder does not check.
        ("&&", logic_and),
        ("||", logic_or),
    ];
    for (op, build) in operators {
        let make = || build(constant(12), constant(13));
        assert_eq!(make().to_string(), format!("(12 {op} 13)"));
        type_check(make, &["12", "13"], true);
    }
}

#[test]
fn logic_not_visits_its_operand() {
    type_check(expr("!(false)"), &["false"], true);
}

#[test]
fn select_visits_condition_then_else() {
    type_check(expr("(true ? 1 : 0)"), &["true", "1", "0"], true);
}

#[test]
fn select_over_indexings_visits_each_tensor_before_its_index() {
    // oneDNN's vector slices `t[span_t({0}, 16)]` become scalar elements.
    let make = || {
        let t = |name| tensor(name, DType::F32, &[16]);
        let at0 = |t: &Node<Tensor>| indexing(t, vec![constant(0)]);
        select(
            cmp_lt(at0(&t("cond_l")), at0(&t("cond_r"))),
            at0(&t("l")),
            at0(&t("r")),
        )
    };
    assert_eq!(
        make().to_string(),
        "((cond_l[0] < cond_r[0]) ? l[0] : r[0])"
    );
    // Each indexing: its tensor's dims and strides, then its index.
    let one_element = ["16", "1", "0"];
    // oneDNN's `changed_` is false here (the select's direct children were
    // updated in place); ours reports the replaced leaves.
    type_check(make, &one_element.repeat(4), true);
}

#[test]
fn call_visits_arguments_not_the_callee() {
    let make = || call("aaaa", vec![constant(1), constant(2)], DType::F32);
    type_check(make, &["1", "2"], true);
}

#[test]
fn intrinsic_call_visits_its_arguments() {
    // oneDNN's `intrin_call(max, ...)` is our `Max` kind.
    type_check(expr("max(1, 2)"), &["1", "2"], true);
    let make = || intrinsic(Intrin::Abs, vec![constant(1)]);
    type_check(make, &["1"], true);
}

#[test]
fn indexing_visits_dims_strides_then_indices() {
    let make = || indexing(&aaa(), vec![constant(10), constant(20)]);
    type_check(make, &["100", "200", "200", "1", "10", "20"], true);
}

#[test]
fn tensor_ptr_visits_its_element() {
    // oneDNN's `changed_` is false (the base indexing was updated in place).
    let make = || tensor_ptr(&aaa(), vec![constant(10), constant(20)]);
    type_check(make, &["100", "200", "200", "1", "10", "20"], true);
}

#[test]
fn tensor_visits_dims_then_strides() {
    let make = || Expr::Tensor(aaa());
    type_check(make, &["100", "200", "200", "1"], true);
}

#[test]
fn assign_visits_the_whole_left_side_first() {
    let make = || {
        assign(
            indexing(&aaa(), vec![constant(10), constant(20)]),
            constant(123),
        )
    };
    type_check(make, &["100", "200", "200", "1", "10", "20", "123"], true);
}

#[test]
fn stmts_in_order() {
    let text = "{\n  evaluate{1}\n  evaluate{2}\n  evaluate{3}\n}";
    type_check(stmt(text), &["1", "2", "3"], true);
}

#[test]
fn evaluate_visits_its_value() {
    type_check(stmt("evaluate{1}"), &["1"], true);
}

#[test]
fn return_visits_its_value() {
    type_check(stmt("return 1"), &["1"], true);
    // Nothing to visit: every mode hands back the very same node.
    type_check(stmt("return"), &[], false);
}

#[test]
fn a_definition_visits_its_initializer_before_its_variable() {
    type_check(stmt("var a: f32"), &["a"], true);
    type_check(stmt("var a: f32 = 1.0f"), &["1.0f", "a"], true);
}

#[test]
fn a_tensor_definition_visits_its_initializer_before_its_tensor() {
    // `tensor B: [s32 * 2] = &AAA[10, 20]`: the initializer (`AAA`'s dims and
    // strides, the index), then `B`'s dims and strides.
    let make = || {
        define_tensor_at(
            tensor("B", DType::S32, &[2]),
            Some(tensor_ptr(&aaa(), vec![constant(10), constant(20)])),
        )
    };
    type_check(
        make,
        &["100", "200", "200", "1", "10", "20", "2", "1"],
        true,
    );
}

#[test]
fn if_else_visits_condition_then_else() {
    let text = "{
  if (false) {
    evaluate{12}
  }
  if (true) {
    evaluate{14}
  } else {
    evaluate{15}
  }
}";
    type_check(stmt(text), &["false", "12", "true", "14", "15"], true);
}

#[test]
fn for_loop_visits_var_bounds_step_body() {
    let text = "{\n  for i in (0, 100, 1) {\n    evaluate{123}\n  }\n}";
    type_check(stmt(text), &["i", "0", "100", "1", "123"], true);
}

/// oneDNN's `TestConsistentVisitor`: a pass that may rename `AAA` and
/// replace the tensor `BBB` at their definitions. The replacement maps live
/// as long as the pass, so a replacement made in one run redirects the uses
/// met in the next.
#[derive(Default)]
struct Consistent {
    change_var: bool,
    change_tensor: bool,
    replaced: Replacements,
}

impl ExprMutator for Consistent {
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        let outcome = if self.change_var && v.name == "AAA" {
            Transformed::Replace(var_of("AAA2", DType::F32))
        } else {
            Transformed::Keep
        };
        self.replaced.var_def(v, outcome)
    }
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.replaced.var_use(v)
    }
    fn mutate_tensor_def(&mut self, t: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        let outcome = if self.change_tensor && t.name == "BBB" {
            Transformed::Replace(tensor("BBB2", DType::F32, &[200]))
        } else {
            Transformed::Keep
        };
        self.replaced.tensor_def(t, outcome)
    }
    fn mutate_tensor(&mut self, t: &Node<Tensor>) -> Transformed<Expr> {
        self.replaced.tensor_use(t)
    }
}
impl StmtMutator for Consistent {}

/// The defined var, defined tensor, assigned var and indexed tensor of the
/// scenario's four statements.
fn parts(s: &Stmt) -> (Node<Var>, Node<Tensor>, Node<Var>, Node<Tensor>) {
    let Stmt::Stmts(block) = s else { panic!() };
    let Stmt::Define(d) = &block.seq[0] else {
        panic!()
    };
    let Stmt::DefineTensor(t) = &block.seq[1] else {
        panic!()
    };
    let Stmt::Assign(a) = &block.seq[2] else {
        panic!()
    };
    let Stmt::Assign(store) = &block.seq[3] else {
        panic!()
    };
    let Expr::Var(lhs) = &a.lhs else { panic!() };
    let Expr::Indexing(at) = &store.lhs else {
        panic!()
    };
    let Expr::Tensor(indexed) = &at.tensor else {
        panic!()
    };
    (
        d.var.clone(),
        t.tensor.clone(),
        lhs.clone(),
        indexed.clone(),
    )
}

#[test]
fn the_consistent_visitor_carries_replacements_to_later_uses_across_runs() {
    let mut s = parse_stmt("{ var AAA: f32  tensor BBB: [f32 * 100]  AAA = 1.2f  BBB[10] = 1.2f }")
        .unwrap();
    let (aaa, bbb, aaa_use, bbb_use) = parts(&s);
    assert!(aaa.same_as(&aaa_use) && bbb.same_as(&bbb_use));
    let mut v = Consistent::default();

    // Step 1: nothing replaced, nothing changed.
    assert!(v.mutate_stmt(&s).is_keep());
    let now = parts(&s);
    assert!(now.0.same_as(&aaa) && now.1.same_as(&bbb));
    assert!(now.2.same_as(&aaa) && now.3.same_as(&bbb));
    drop(now);

    // Step 2: the tensor is replaced at its definition; its later use follows.
    v.change_tensor = true;
    s = v.mutate_stmt(&s).unwrap_or_clone(&s);
    let (a, t2, a_use, b_use) = parts(&s);
    assert!(a.same_as(&aaa) && a_use.same_as(&aaa));
    assert!(!t2.same_as(&bbb));
    assert!(b_use.same_as(&t2), "the use is the very node defined");
    drop((a, a_use, b_use));
    assert_eq!(
        s.to_string(),
        "{\n  var AAA: f32\n  tensor BBB2: [f32 * 200]\n  AAA = 1.2f\n  BBB2[10] = 1.2f\n}"
    );

    // Step 3: the var is replaced; the map still holds the tensor.
    v.change_tensor = false;
    v.change_var = true;
    s = v.mutate_stmt(&s).unwrap_or_clone(&s);
    let (v2, t, v2_use, t_use) = parts(&s);
    assert!(!v2.same_as(&aaa));
    assert!(v2_use.same_as(&v2));
    assert!(t.same_as(&t2) && t_use.same_as(&t2));
    assert_eq!(
        s.to_string(),
        "{\n  var AAA2: f32\n  tensor BBB2: [f32 * 200]\n  AAA2 = 1.2f\n  BBB2[10] = 1.2f\n}"
    );

    // Once the old program is gone, the map does not keep its nodes alive.
    assert_eq!(v.replaced.len(), 2);
    drop((aaa, bbb, aaa_use, bbb_use, v2, v2_use));
    assert!(v.replaced.is_empty());
}
