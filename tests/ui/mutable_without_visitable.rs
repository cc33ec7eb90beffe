use ir_core::{Mutable, Node, Visitable};

#[derive(Clone, Visitable, Mutable)]
struct Leaf {}

#[derive(Clone, Mutable)]
enum Expr {
    Leaf(Node<Leaf>),
}

fn main() {}
