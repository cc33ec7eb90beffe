use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Constant {}

#[derive(Clone, Visitable)]
enum Expr {
    Constant(Node<Constant>),
}

#[derive(Visitable)]
struct Evaluate {
    value: Expr,
}

// Missing `#[ir(uses(Expr))]`: statement kinds hold expressions.
#[derive(Clone, Visitable)]
enum Stmt {
    Evaluate(Node<Evaluate>),
}

fn main() {}
