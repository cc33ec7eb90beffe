use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Leaf {
    #[ir(def)]
    other: Node<Leaf>,
}

#[derive(Clone, Visitable)]
enum Expr {
    #[ir(skip)]
    Leaf(Node<Leaf>),
}

fn main() {}
