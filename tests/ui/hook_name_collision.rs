use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct A {}
#[derive(Visitable)]
struct B {}
#[derive(Visitable)]
struct C {}

#[derive(Clone, Visitable)]
enum Expr {
    Expr(Node<A>),
    #[ir(def)]
    Var(Node<B>),
    VarDef(Node<C>),
}

fn main() {}
