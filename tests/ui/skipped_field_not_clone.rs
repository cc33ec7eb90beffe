use ir_core::{Mutable, Node, Visitable};

struct Handle;

#[derive(Visitable, Mutable)]
struct Call {
    #[ir(skip)]
    handle: Handle,
    args: Vec<Expr>,
}

#[derive(Clone, Visitable, Mutable)]
enum Expr {
    Call(Node<Call>),
}

fn main() {}
