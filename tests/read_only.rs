//! A read-only IR: a family that derives only `Visitable` gets its visitor,
//! typed downcasts and identity, and nothing it did not ask for.

use irkit::prelude::*;

#[derive(Debug, Clone, Visitable)]
pub struct Leaf {
    #[ir(skip)]
    value: i64,
}
#[derive(Debug, Clone, Visitable)]
pub struct Pair {
    left: Expr,
    right: Expr,
}
#[derive(Debug, Clone, Visitable)]
pub struct Seq {
    head: Expr,
    #[ir(tail)]
    rest: Expr,
}
#[derive(Debug, Clone, Visitable)]
pub enum Expr {
    Leaf(Node<Leaf>),
    Pair(Node<Pair>),
    Seq(Node<Seq>),
}

#[derive(Default)]
struct Sum(i64);
impl ExprVisitor for Sum {
    fn visit_leaf(&mut self, n: &Node<Leaf>) {
        self.0 += n.value;
    }
}

#[test]
fn a_visitable_only_family_is_visited() {
    let leaf = |value| Expr::from(Leaf { value });
    let pair: Expr = Pair {
        left: leaf(1),
        right: leaf(2),
    }
    .into();
    let mut e = pair.clone();
    // A chain through the tail field, long enough that recursion would show.
    for i in 0..100_000 {
        e = Seq {
            head: leaf(i % 3),
            rest: e,
        }
        .into();
    }
    let mut sum = Sum::default();
    sum.visit_expr(&e);
    assert_eq!(sum.0, 3 + (0..100_000).map(|i| i % 3).sum::<i64>());
    assert!(e.is_seq());
    assert_eq!(pair.kind_name(), "Pair");
    assert!(
        pair.as_pair()
            .unwrap()
            .left
            .same_as(&pair.as_pair().unwrap().left)
    );
}
