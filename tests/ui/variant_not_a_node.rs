use ir_core::Visitable;

#[derive(Clone, Visitable)]
enum Expr {
    Int(i64),
    Boxed(Box<Expr>),
}

fn main() {}
