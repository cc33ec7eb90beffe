//! Category hooks on an open family (`#[ir(extensible)]`, as Relay's `Expr`
//! is): a category groups upstream kinds, and a pass's category hook sees
//! the category's nodes wherever they sit, inside nodes of kinds another
//! crate added too (reached through the extension's trait object).

use irkit::ext::Ext;
use irkit::prelude::*;
use pretty_assertions::assert_eq;

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
    pub struct Mul {
        pub lhs: Expr,
        pub rhs: Expr,
    }
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    #[ir(extensible)]
    pub enum Expr {
        Lit(Node<Lit>),
        #[ir(category = Arith)]
        Add(Node<Add>),
        #[ir(category = Arith)]
        Mul(Node<Mul>),
        Ext(Ext<Expr>),
    }
}

mod downstream {
    use irkit::prelude::*;

    use super::upstream::{Expr, ExprMutator, ExprVisitor};

    /// A kind another crate adds.
    #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
    pub struct Neg {
        pub inner: Expr,
    }

    #[derive(Visitable, Mutable)]
    #[ir(extends(Expr))]
    pub enum MyExpr {
        Neg(Node<Neg>),
    }
}

use downstream::*;
use upstream::*;

fn lit(value: i64) -> Expr {
    Lit { value }.into()
}

/// `(neg((1 * 2)) + 3)`
fn program() -> Expr {
    let mul: Expr = Mul {
        lhs: lit(1),
        rhs: lit(2),
    }
    .into();
    Add {
        lhs: Neg { inner: mul }.into(),
        rhs: lit(3),
    }
    .into()
}

fn print(e: &Expr) -> String {
    match e {
        Expr::Lit(l) => l.value.to_string(),
        Expr::Add(a) => format!("({} + {})", print(&a.lhs), print(&a.rhs)),
        Expr::Mul(m) => format!("({} * {})", print(&m.lhs), print(&m.rhs)),
        Expr::Ext(x) => match x.downcast::<Neg>() {
            Some(n) => format!("neg({})", print(&n.inner)),
            None => x.kind_name().to_owned(),
        },
    }
}

#[derive(Default)]
struct Trace(Vec<&'static str>);
impl ExprVisitor for Trace {
    fn visit_arith(&mut self, node: Arith<'_>) {
        self.0.push(node.kind_name());
        node.walk(self)
    }
}

#[test]
fn the_category_hook_sees_its_kinds_inside_downstream_nodes() {
    let mut trace = Trace::default();
    trace.visit_expr(&program());
    assert_eq!(trace.0, ["Add", "Mul"]);
}

#[test]
fn a_downstream_pass_has_the_category_hook_and_its_own_hooks() {
    #[derive(Default)]
    struct Both(Vec<&'static str>);
    impl ExprVisitor for Both {
        fn visit_arith(&mut self, node: Arith<'_>) {
            self.0.push(node.kind_name());
            node.walk(self)
        }
        fn visit_ext(&mut self, node: &Ext<Expr>) {
            self.visit_my_expr(node)
        }
    }
    impl MyExprVisitor for Both {
        fn visit_neg(&mut self, n: &Node<Neg>) {
            self.0.push("Neg");
            n.walk(self)
        }
    }
    let mut both = Both::default();
    both.visit_expr(&program());
    assert_eq!(both.0, ["Add", "Neg", "Mul"]);
}

#[test]
fn a_specific_hook_wins_over_the_category_inside_downstream_nodes() {
    #[derive(Default)]
    struct MulApart(Vec<&'static str>);
    impl ExprVisitor for MulApart {
        fn visit_mul(&mut self, n: &Node<Mul>) {
            self.0.push("mul hook");
            n.walk(self)
        }
        fn visit_arith(&mut self, node: Arith<'_>) {
            self.0.push(node.kind_name());
            node.walk(self)
        }
    }
    let mut trace = MulApart::default();
    trace.visit_expr(&program());
    assert_eq!(trace.0, ["Add", "mul hook"]);
}

#[test]
fn a_category_mutator_rewrites_inside_downstream_nodes_copy_on_write() {
    /// Swaps the operands of every arithmetic node.
    struct Swap;
    impl ExprMutator for Swap {
        fn mutate_arith(&mut self, node: Arith<'_>) -> Transformed<Expr> {
            let e = node.rebuild(self).unwrap_or_else(|| node.to_family());
            Transformed::Replace(match &e {
                Expr::Add(a) => Add {
                    lhs: a.rhs.clone(),
                    rhs: a.lhs.clone(),
                }
                .into(),
                Expr::Mul(m) => Mul {
                    lhs: m.rhs.clone(),
                    rhs: m.lhs.clone(),
                }
                .into(),
                other => other.clone(),
            })
        }
    }
    let e = program();
    let out = Swap.mutate_expr(&e).unwrap_or_clone(&e);
    assert_eq!(print(&out), "(3 + neg((2 * 1)))");
    assert_eq!(print(&e), "(neg((1 * 2)) + 3)", "the input is untouched");
}
