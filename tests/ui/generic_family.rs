use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Leaf {}

#[derive(Clone, Visitable)]
enum Expr<T> {
    Leaf(Node<Leaf>),
    Other(Node<T>),
}

fn main() {}
