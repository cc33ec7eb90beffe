use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Var {
    name: String,
    span: (u32, u32),
}

#[derive(Clone, Visitable)]
enum Expr {
    Var(Node<Var>),
}

fn main() {}
