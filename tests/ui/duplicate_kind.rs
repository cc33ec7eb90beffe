use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Var {}

#[derive(Clone, Visitable)]
enum Expr {
    Var(Node<Var>),
    GlobalVar(Node<Var>),
}

fn main() {}
