use ir_core::{Mutable, Node, StructuralEq, Visitable};

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Lit {
    #[ir(skip)]
    value: i64,
}

/// Not declared `#[ir(extensible)]`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub enum Expr {
    Lit(Node<Lit>),
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Extra {
    inner: Expr,
}

#[derive(Visitable, Mutable)]
#[ir(extends(Expr))]
pub enum MoreExpr {
    Extra(Node<Extra>),
}

fn main() {}
