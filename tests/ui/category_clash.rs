use ir_core::{Mutable, Node, Visitable};

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Leaf {
    #[ir(skip)]
    value: i64,
}

#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Pair {
    l: Expr,
    r: Expr,
}

// The category's hook `visit_pair` would be the hook of kind `Pair`.
#[derive(Debug, Clone, Visitable, Mutable)]
pub enum Expr {
    Leaf(Node<Leaf>),
    #[ir(category = Pair)]
    Pair(Node<Pair>),
}

fn main() {}
