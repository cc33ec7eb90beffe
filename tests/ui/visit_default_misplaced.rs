use irkit::prelude::*;

#[derive(Debug, Clone, Visitable)]
pub struct Num {
    #[ir(skip)]
    pub value: i64,
}

#[derive(Debug, Clone, Visitable)]
pub struct Add {
    pub lhs: Expr,
    pub rhs: Expr,
}

fn walk_nothing<V: ?Sized, T, R: irkit::VisitResult>(_: &mut V, _: &T) -> R {
    R::output()
}

// A kind in a category defaults to the category hook, so it takes no
// `visit` default of its own.
#[derive(Debug, Clone, Visitable)]
pub enum Expr {
    Num(Node<Num>),
    #[ir(category = Binary, visit = walk_nothing)]
    Add(Node<Add>),
}

fn main() {}
