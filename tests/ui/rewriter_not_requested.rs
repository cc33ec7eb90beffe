use irkit::prelude::*;

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Num {
    #[ir(skip)]
    pub value: i64,
}

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Neg {
    pub arg: Expr,
}

// No `#[ir(rewriter)]`: the family has a visitor and a mutator, and no
// post-order rewriter trait.
#[derive(Debug, Clone, Visitable, Mutable)]
pub enum Expr {
    Num(Node<Num>),
    Neg(Node<Neg>),
}

struct Fold;
impl ExprRewriter for Fold {}

fn main() {}
