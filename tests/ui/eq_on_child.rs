use ir_core::{Node, StructuralEq, Visitable};

#[derive(Visitable, StructuralEq)]
struct Call {
    #[ir(eq = false)]
    args: Vec<Expr>,
    #[ir(skip, eq = false)]
    span: (u32, u32),
}

#[derive(Clone, Visitable, StructuralEq)]
enum Expr {
    #[ir(graph)]
    Call(Node<Call>),
}

fn main() {}
