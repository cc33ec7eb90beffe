use ir_core::{Node, Visitable};

#[derive(Clone, Visitable)]
struct Call {
    #[ir(skip)]
    op: String,
    args: Vec<Expr>,
}

#[derive(Clone, Visitable)]
enum Expr {
    Call(Node<Call>),
}

struct Rename;

impl ExprVisitor for Rename {
    fn visit_call(&mut self, call: &Node<Call>) {
        call.op = String::from("renamed");
        call.make_mut().args.clear();
    }
}

fn main() {}
