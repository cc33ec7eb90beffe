//! The constant-folding example of the oneDNN Graph Compiler's Tensor IR
//! visitor tutorial, on the derived Tensor IR: fold two expressions, then the
//! same folding inside a loop body, and count nodes with a read-only viewer.
//!
//! Run with `cargo run --example tensor_ir_fold`.

use ir_passes::tensor_ir::{
    ConstantFolder, ExprVisitor, Stmt, StmtVisitor, assign, constant, for_loop, var, var_of,
};
use irkit::{Node, Walk};

/// A read-only viewer: it can look at every node but has no way to change one.
#[derive(Default)]
struct NodeCounter {
    exprs: usize,
    stmts: usize,
}

impl ExprVisitor for NodeCounter {
    fn visit_expr(&mut self, e: &ir_passes::tensor_ir::Expr) {
        self.exprs += 1;
        e.walk(self);
    }
    fn visit_var_def(&mut self, v: &Node<ir_passes::tensor_ir::Var>) {
        self.exprs += 1;
        v.walk(self);
    }
}

impl StmtVisitor for NodeCounter {
    fn visit_stmt(&mut self, s: &Stmt) {
        self.stmts += 1;
        s.walk(self);
    }
}

fn count(s: &Stmt) -> NodeCounter {
    let mut counter = NodeCounter::default();
    counter.visit_stmt(s);
    counter
}

fn main() {
    let mut folder = ConstantFolder;

    let a = constant(1) + constant(2) - constant(3);
    let b = constant(1) + constant(2) + var("var_b");
    println!("expr a before folder:{a}, after folder:{}", folder.fold(&a));
    println!("expr b before folder:{b}, after folder:{}", folder.fold(&b));

    let i = var_of("i", ir_passes::tensor_ir::DType::S32);
    let loop_ = for_loop(
        i.clone(),
        constant(0),
        constant(4) * constant(2),
        constant(1),
        assign(var("c"), constant(1) + constant(2) + i.into()),
    );
    let folded = folder.fold_stmt(&loop_);
    let (before, after) = (count(&loop_), count(&folded));
    println!();
    println!(
        "loop before folder ({} stmts, {} exprs):",
        before.stmts, before.exprs
    );
    println!("{loop_}");
    println!(
        "loop after folder ({} stmts, {} exprs):",
        after.stmts, after.exprs
    );
    println!("{folded}");
}
