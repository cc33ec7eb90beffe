use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Call {
    #[ir(skp)]
    name: String,
    args: Vec<Expr>,
}

#[derive(Clone, Visitable)]
enum Expr {
    Call(Node<Call>),
}

fn main() {}
