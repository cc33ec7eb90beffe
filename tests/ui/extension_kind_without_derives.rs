use ir_core::ext::Ext;
use ir_core::{Mutable, Node, StructuralEq, Visitable};

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Lit {
    #[ir(skip)]
    value: i64,
}

#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(extensible)]
pub enum Expr {
    Lit(Node<Lit>),
    Ext(Ext<Expr>),
}

/// A kind added to `Expr` without the derives.
#[derive(Debug, Clone)]
pub struct Plain {
    value: i64,
}

#[derive(Visitable, Mutable)]
#[ir(extends(Expr))]
pub enum MoreExpr {
    Plain(Node<Plain>),
}

fn main() {}
