//! A small Tensor IR in the style of the oneDNN Graph Compiler: an [`Expr`]
//! family (constants, variables, arithmetic, comparisons) and a [`Stmt`]
//! family (assignment, sequence, if/else, for loop, evaluate) whose kinds
//! hold expressions. Everything traversal-related is derived.
//!
//! ```
//! use ir_passes::tensor_ir::{constant, var, ConstantFolder};
//!
//! let b = constant(1) + constant(2) + var("var_b");
//! assert_eq!(b.to_string(), "((1 + 2) + var_b)");
//! assert_eq!(ConstantFolder.fold(&b).to_string(), "(3 + var_b)");
//! ```

mod build;
mod expr;
mod fold;
mod print;
mod stmt;

pub use build::{assign, constant, constant_of, evaluate, for_loop, if_else, seq, var, var_of};
pub use expr::{
    AddOp, Binary, BinaryOp, Cmp, CmpOp, Constant, DType, DivOp, Expr, ExprMutator, ExprRewriter,
    ExprVisitor, ModOp, MulOp, SubOp, Var,
};
pub use fold::ConstantFolder;
pub use stmt::{
    Assign, Attrs, Evaluate, ForLoop, IfElse, Seq, Stmt, StmtMutator, StmtRewriter, StmtVisitor,
};
