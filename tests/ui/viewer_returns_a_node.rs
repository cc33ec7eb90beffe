use ir_core::{Node, Visitable};

#[derive(Visitable)]
struct Constant {
    #[ir(skip)]
    value: i64,
}

#[derive(Clone, Visitable)]
enum Expr {
    Constant(Node<Constant>),
}

struct Fold;

impl ExprVisitor for Fold {
    fn visit_constant(&mut self, c: &Node<Constant>) -> Expr {
        Node::new(Constant { value: c.value + 1 }).into()
    }
}

fn main() {}
