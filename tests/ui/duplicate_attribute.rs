use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Var {
    #[ir(skip, skip)]
    name: String,
}

#[derive(Clone, Visitable)]
enum Expr {
    Var(Node<Var>),
}

fn main() {}
