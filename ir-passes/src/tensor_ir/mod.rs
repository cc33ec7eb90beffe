//! A loop-level Tensor IR in the style of the oneDNN Graph Compiler: an
//! [`Expr`] family (constants, variables, casts, the `Binary`, `Cmp` and
//! `Logic` categories, select, calls, tensors and indexing), a [`Stmt`]
//! family (assign, blocks, if/else, loops, evaluate, return, definitions),
//! functions and a [`Module`] under the framework's pass manager.
//! Everything traversal-related is derived.
//!
//! ```
//! use ir_passes::tensor_ir::{constant, var, ConstantFolder};
//!
//! let b = constant(1) + constant(2) + var("var_b");
//! assert_eq!(b.to_string(), "((1 + 2) + var_b)");
//! assert_eq!(ConstantFolder::new().fold(&b).to_string(), "(var_b + 3)");
//! ```

mod attrs;
mod build;
mod dtype;
mod expr;
mod ops;
mod parse;
mod print;
mod stmt;

pub mod consistent;
pub mod interp;
pub mod passes;

pub use attrs::{AttrValue, Attrs};
pub use build::*;
pub use dtype::{DType, Value};
pub use expr::{
    Arith, Binary, Call, Cast, Cmp, Compare, Constant, Expr, ExprMutator, ExprRewriter,
    ExprVisitor, Indexing, Intrin, IntrinsicCall, Logic, Logical, Not, Select, Tensor, TensorPtr,
    Var,
};
pub use ops::{
    AddOp, AndOp, ArithOp, DivOp, EqOp, GeOp, GtOp, LeOp, LogicOp, LtOp, MaxOp, MinOp, ModOp,
    MulOp, NeOp, OrOp, RelOp, SubOp, compare, eval_arith,
};
pub use parse::{ParseError, parse_expr, parse_func, parse_module, parse_stmt};
pub use passes::ConstantFolder;
pub use print::{print_expr, print_func, print_module, print_stmt};
pub use stmt::{
    Assign, Define, DefineTensor, Evaluate, ForKind, ForLoop, Func, IfElse, Module, Return, Stmt,
    StmtMutator, StmtRewriter, StmtVisitor, Stmts,
};
