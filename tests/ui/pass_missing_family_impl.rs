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

#[derive(Clone, Visitable)]
#[ir(uses(Expr))]
enum Stmt {
    Evaluate(Node<Evaluate>),
}

struct CountStmts(usize);

// Missing `impl ExprVisitor for CountStmts {}`.
impl StmtVisitor for CountStmts {}

fn main() {}
