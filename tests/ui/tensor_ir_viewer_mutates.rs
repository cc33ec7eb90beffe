//! A Tensor IR viewer cannot change the IR through the node it is given.
use ir_core::Node;
use ir_passes::tensor_ir::{Constant, ExprVisitor, Value};

struct Bump;

impl ExprVisitor for Bump {
    fn visit_constant(&mut self, c: &Node<Constant>) {
        c.value = Value::Int(0);
    }
}

fn main() {}
