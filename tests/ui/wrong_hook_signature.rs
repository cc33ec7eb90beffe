use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Call {
    args: Vec<Expr>,
}

#[derive(Clone, Visitable)]
enum Expr {
    Call(Node<Call>),
}

struct CountCalls(usize);

impl ExprVisitor for CountCalls {
    fn visit_call(&mut self, call: &Call) {
        self.0 += call.args.len();
    }
}

fn main() {}
