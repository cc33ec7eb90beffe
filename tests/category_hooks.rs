//! Category hooks (`#[ir(category = Binary)]`, the oneDNN visitor's
//! `visit(binary_c)`): one hook for a group of kinds, which the kinds' own
//! hooks default to. The most specific overridden hook wins.

use ir_passes::tensor_ir::{
    Arith, Binary, Cmp, Expr, ExprMutator, ExprRewriter, ExprVisitor, Logic, Stmt, StmtMutator,
    SubOp, Var, parse_expr, parse_stmt,
};
use irkit::prelude::*;
use pretty_assertions::assert_eq;

/// Records which hook saw which node.
#[derive(Default)]
struct Trace(Vec<String>);

impl Trace {
    fn of(text: &str, visitor: &mut impl ExprVisitor) {
        visitor.visit_expr(&parse_expr(text).unwrap());
    }
}

impl ExprVisitor for Trace {
    fn visit_binary(&mut self, node: Binary<'_>) {
        self.0.push(format!("binary {}", node.kind_name()));
        node.walk(self)
    }
    fn visit_cmp(&mut self, node: Cmp<'_>) {
        self.0.push(format!("cmp {}", node.kind_name()));
        node.walk(self)
    }
    fn visit_logic(&mut self, node: Logic<'_>) {
        self.0.push(format!("logic {}", node.kind_name()));
        node.walk(self)
    }
}

#[test]
fn the_category_hook_catches_every_kind_of_its_category() {
    let mut trace = Trace::default();
    Trace::of(
        "!((min(a + b, c - d) * 2 / 3 % 4 == max(a, b)) && (a < b || a >= b))",
        &mut trace,
    );
    assert_eq!(
        trace.0,
        [
            "logic Not",
            "logic And",
            "cmp Eq",
            "binary Mod",
            "binary Div",
            "binary Mul",
            "binary Min",
            "binary Add",
            "binary Sub",
            "binary Max",
            "logic Or",
            "cmp Lt",
            "cmp Ge",
        ]
    );
}

#[test]
fn a_specific_hook_wins_over_its_category() {
    #[derive(Default)]
    struct AddsApart(Vec<String>);
    impl ExprVisitor for AddsApart {
        fn visit_add(&mut self, node: &Node<Arith<ir_passes::tensor_ir::AddOp>>) {
            self.0.push("add".into());
            node.walk(self)
        }
        fn visit_binary(&mut self, node: Binary<'_>) {
            self.0.push(format!("binary {}", node.kind_name()));
            node.walk(self)
        }
    }
    let mut trace = AddsApart::default();
    trace.visit_expr(&parse_expr("(a + b) - (c * (d + e))").unwrap());
    // oneDNN: overriding `visit(add_c)` means `visit(binary_c)` is not called for `a + b`.
    assert_eq!(trace.0, ["binary Sub", "add", "binary Mul", "add"]);
}

#[test]
fn without_overrides_the_default_walk_passes_through_the_category() {
    #[derive(Default)]
    struct Vars(Vec<String>);
    impl ExprVisitor for Vars {
        fn visit_var(&mut self, v: &Node<Var>) {
            self.0.push(v.name.clone());
        }
    }
    let mut vars = Vars::default();
    vars.visit_expr(&parse_expr("min(a + b, c) == !(d)").unwrap());
    assert_eq!(vars.0, ["a", "b", "c", "d"]);
}

/// Swaps the operands of every commutative arithmetic node; subtraction
/// keeps its own order through a specific hook.
struct Swap;
impl ExprMutator for Swap {
    fn mutate_binary(&mut self, node: Binary<'_>) -> Transformed<Expr> {
        let rebuilt = node.rebuild(self).unwrap_or_else(|| node.to_family());
        let b = rebuilt.as_binary().expect("same kind");
        Transformed::Replace(match b {
            Binary::Add(_) => b.r().clone() + b.l().clone(),
            Binary::Mul(_) => b.r().clone() * b.l().clone(),
            _ => return Transformed::Replace(rebuilt),
        })
    }
    fn mutate_sub(&mut self, node: &Node<Arith<SubOp>>) -> Transformed<Expr> {
        node.rebuild(self).into()
    }
}
impl StmtMutator for Swap {}

#[test]
fn a_mutator_overrides_a_category_and_a_specific_kind() {
    let e = parse_expr("(a + b) * (c - (d + e))").unwrap();
    let out = Swap.mutate_expr(&e).unwrap_or_clone(&e);
    assert_eq!(out.to_string(), "((c - (e + d)) * (b + a))");
}

#[test]
fn a_category_mutator_leaves_other_kinds_untouched_and_allocates_nothing_when_it_keeps() {
    struct Keep;
    impl ExprMutator for Keep {
        fn mutate_binary(&mut self, node: Binary<'_>) -> Transformed<Expr> {
            node.rebuild(self)
        }
    }
    let e = parse_expr("((a + 1) * 2 < b) && c == d").unwrap();
    assert!(Keep.mutate_expr(&e).is_keep());
}

#[test]
fn in_place_mode_runs_through_the_category_hook() {
    let mut s = parse_stmt("{ x = (a + b) * c  y = d - e }").unwrap();
    let before = s.as_stmts().unwrap().seq[1].clone();
    assert!(s.mutate_in_place(&mut Swap));
    assert_eq!(s.to_string(), "{\n  x = (c * (b + a))\n  y = (d - e)\n}");
    // The unchanged statement is the very same node.
    assert!(s.as_stmts().unwrap().seq[1].same_as(&before));
}

#[test]
fn a_post_order_rewriter_has_category_hooks() {
    #[derive(Default)]
    struct Count(usize);
    impl ExprRewriter for Count {
        fn rewrite_cmp(&mut self, pre: Cmp<'_>, post: Cmp<'_>) -> Transformed<Expr> {
            assert_eq!(pre.kind_name(), post.kind_name());
            self.0 += 1;
            Transformed::Keep
        }
    }
    let e = parse_expr("(a < b) == (c != d)").unwrap();
    let mut count = Count::default();
    assert!(count.rewrite_expr(&e).same_as(&e));
    assert_eq!(count.0, 3);
}

#[test]
fn a_family_value_is_viewed_as_its_category() {
    let e = parse_expr("a + b").unwrap();
    let b = e.as_binary().expect("an add is a binary");
    assert_eq!(b.kind_name(), "Add");
    assert!(b.to_family().same_as(&e));
    assert_eq!(b.addr(), Family::addr(&e));
    assert!(e.is_binary() && !e.is_cmp() && !e.is_logic());
    assert!(parse_expr("a").unwrap().as_binary().is_none());
    let _: Stmt = parse_stmt("x = 1").unwrap();
}

/// Relax opts in too: its symbolic shape expressions declare the category
/// `PrimBinary`, so a pass over shapes handles the seven arithmetic kinds in
/// one hook, and a specific hook still wins for its kind.
#[test]
fn relax_shape_arithmetic_has_a_category_hook() {
    use ir_passes::relax::{BinOp, PrimBinary, PrimExpr, PrimExprMutator, PrimExprVisitor};
    let n = || PrimExpr::PrimVar(PrimExpr::var("n"));
    // `max((n + 1) * 2, n // 4) - n % 3`
    let shape = PrimExpr::binary(
        BinOp::Sub,
        PrimExpr::binary(
            BinOp::Max,
            PrimExpr::binary(
                BinOp::Mul,
                PrimExpr::binary(BinOp::Add, n(), PrimExpr::int(1)),
                PrimExpr::int(2),
            ),
            PrimExpr::binary(BinOp::FloorDiv, n(), PrimExpr::int(4)),
        ),
        PrimExpr::binary(BinOp::FloorMod, n(), PrimExpr::int(3)),
    );
    #[derive(Default)]
    struct Count {
        binary: usize,
        adds: usize,
    }
    impl PrimExprVisitor for Count {
        fn visit_prim_binary(&mut self, node: PrimBinary<'_>) {
            self.binary += 1;
            node.walk(self)
        }
        fn visit_add(&mut self, node: &Node<ir_passes::relax::Add>) {
            self.adds += 1;
            node.walk(self)
        }
    }
    let mut count = Count::default();
    count.visit_prim_expr(&shape);
    // Sub, Max, Mul, FloorDiv, FloorMod reach the category; Add its own hook.
    assert_eq!((count.binary, count.adds), (5, 1));

    // A mutator over the category: every arithmetic node becomes a `max`.
    struct AllMax;
    impl PrimExprMutator for AllMax {
        fn mutate_prim_binary(&mut self, node: PrimBinary<'_>) -> Transformed<PrimExpr> {
            let e = PrimExpr::from(node);
            let (_, a, b) = e.as_binary_parts().expect("a binary node");
            let a = self.mutate_prim_expr(a).unwrap_or_clone(a);
            let b = self.mutate_prim_expr(b).unwrap_or_clone(b);
            Transformed::Replace(PrimExpr::binary(BinOp::Max, a, b))
        }
    }
    let out = AllMax.mutate_prim_expr(&shape).unwrap_or_clone(&shape);
    let mut ops = Vec::new();
    struct Ops<'a>(&'a mut Vec<BinOp>);
    impl PrimExprVisitor for Ops<'_> {
        fn visit_prim_binary(&mut self, node: PrimBinary<'_>) {
            let e = PrimExpr::from(node);
            self.0.push(e.as_binary_parts().expect("binary").0);
            node.walk(self)
        }
    }
    Ops(&mut ops).visit_prim_expr(&out);
    assert_eq!(ops, [BinOp::Max; 6]);
}
