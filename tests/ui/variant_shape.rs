use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Leaf {}

#[derive(Clone, Visitable)]
enum Expr {
    Leaf(Node<Leaf>),
    Pair(Node<Leaf>, Node<Leaf>),
    Named { leaf: Node<Leaf> },
    Empty,
}

fn main() {}
