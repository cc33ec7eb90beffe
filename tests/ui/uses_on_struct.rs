use ir_core::{Node, Visitable};

#[derive(Visitable)]
#[ir(uses(Expr))]
struct Leaf {}

#[derive(Clone, Visitable)]
enum Expr {
    Leaf(Node<Leaf>),
    Skipped(#[ir(skip)] Node<Leaf>),
}

fn main() {}
