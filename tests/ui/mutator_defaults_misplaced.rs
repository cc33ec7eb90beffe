use irkit::prelude::*;

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Num {
    #[ir(skip)]
    pub value: i64,
}

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Add {
    pub lhs: Expr,
    pub rhs: Expr,
}

fn keep<M: ?Sized, T>(_: &mut M, _: &T) -> Transformed<Expr> {
    Transformed::Keep
}

// `mutate_def` needs definition sites; a kind in a category defaults to the
// category hook, so it takes no `mutate` default of its own.
#[derive(Debug, Clone, Visitable, Mutable)]
pub enum Expr {
    #[ir(mutate_def = keep)]
    Num(Node<Num>),
    #[ir(category = Binary, mutate = keep)]
    Add(Node<Add>),
}

fn main() {}
