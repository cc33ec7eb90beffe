//! The constant-folding example of the oneDNN Graph Compiler's Tensor IR
//! visitor tutorial, on the derived Tensor IR.
//!
//! First the tutorial's `simple_constant_folder`: it overrides the `add` and
//! `sub` hooks and folds `s32` constants, printing the seed's two lines. Then
//! the dialect's full constant folder (reassociation, identities, loops) on a
//! function written in the text format.
//!
//! Run with `cargo run --example tensor_ir_fold`.

use ir_passes::tensor_ir::{
    AddOp, Arith, ArithOp, ConstantFolder, DType, Expr, ExprMutator, SubOp, Value, constant,
    constant_of, parse_func, var,
};
use irkit::{Node, Transformed};

/// The tutorial's folder: `s32` `+` and `-` of two constants.
struct SimpleConstantFolder;

impl SimpleConstantFolder {
    /// Folds `v` once its operands are folded; copy-on-write otherwise.
    fn fold<Op: ArithOp>(
        &mut self,
        v: &Node<Arith<Op>>,
        wrap: fn(Node<Arith<Op>>) -> Expr,
    ) -> Transformed<Expr>
    where
        Arith<Op>: irkit::RebuildFields<Self>,
    {
        // The rebuilt contents, allocated only if the node stays.
        let rebuilt = v.rebuild_fields(self);
        let v = rebuilt.as_ref_or(v);
        if let (Some(l), Some(r)) = (v.l.as_constant(), v.r.as_constant())
            && l.dtype == DType::S32
            && r.dtype == DType::S32
            && let (Value::Int(l), Value::Int(r)) = (l.value, r.value)
            && let Some(value) = Op::int(l, r)
        {
            return Transformed::Replace(constant_of(Value::Int(value), DType::S32));
        }
        rebuilt.map(|contents| wrap(Node::new(contents)))
    }
}

impl ExprMutator for SimpleConstantFolder {
    fn mutate_add(&mut self, v: &Node<Arith<AddOp>>) -> Transformed<Expr> {
        self.fold(v, Expr::Add)
    }
    fn mutate_sub(&mut self, v: &Node<Arith<SubOp>>) -> Transformed<Expr> {
        self.fold(v, Expr::Sub)
    }
}

/// The seed's two lines: `a` and `b` before and after the tutorial's folder.
pub fn seed_lines() -> [String; 2] {
    let mut folder = SimpleConstantFolder;
    let mut fold = |e: &Expr| folder.mutate_expr(e).unwrap_or_clone(e);
    let a = constant(1) + constant(2) - constant(3);
    let b = constant(1) + constant(2) + var("var_b");
    [
        format!("expr a before folder:{a}, after folder:{}", fold(&a)),
        format!("expr b before folder:{b}, after folder:{}", fold(&b)),
    ]
}

fn main() {
    for line in seed_lines() {
        println!("{line}");
    }

    let f = parse_func(
        "func scale(A: [s32 * 100], n: s32): void {
  for i in (0, 100, 1) {
    A[i] = (((1 + A[i]) + 2) * 1)
  }
  for j in (0, 1, 1) {
    A[j] = ((n - n) + j)
  }
  if ((2 < 1)) {
    A[0] = 0
  }
}",
    )
    .expect("the example parses");
    let folded = ConstantFolder::new().fold_stmt(&f.body);
    println!();
    println!("before the full folder:\n{f}");
    println!(
        "after:\n{}",
        ir_passes::tensor_ir::Func {
            body: folded,
            ..f.clone()
        }
    );
}
