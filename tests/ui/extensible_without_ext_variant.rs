use ir_core::{Mutable, Node, Visitable};

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Lit {
    #[ir(skip)]
    value: i64,
}

#[derive(Debug, Clone, Visitable, Mutable)]
#[ir(extensible)]
pub enum Expr {
    Lit(Node<Lit>),
}

fn main() {}
