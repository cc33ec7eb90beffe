use ir_core::{Mutable, Node, StructuralEq, Visitable};

// `in_place` marks a family enum, not a node struct.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(in_place)]
pub struct Lit {
    #[ir(skip)]
    value: i64,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(extensible)]
pub enum Expr {
    Lit(Node<Lit>),
    Ext(ir_core::ext::Ext<Expr>),
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Extra {
    inner: Expr,
}

// Kinds added to an open family take part in in-place mode when that family
// does: the mark goes on the open family.
#[derive(Visitable, Mutable)]
#[ir(extends(Expr), in_place)]
pub enum MoreExpr {
    Extra(Node<Extra>),
}

fn main() {}
