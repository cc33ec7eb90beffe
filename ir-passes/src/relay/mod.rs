//! A Relay-style dialect: expressions and types defined with the derives
//! only, TVM's text format (version 0.0.5), and passes.
//!
//! ```
//! use ir_passes::relay::{parse_module, print_module};
//!
//! let text = r#"#[version = "0.0.5"]
//! def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
//!   let %y = add(%x, 1f);
//!   multiply(%y, %y)
//! }
//! "#;
//! let module = parse_module(text).unwrap();
//! assert_eq!(print_module(&module), text);
//! ```

mod adt;
mod attrs;
pub mod demo;
mod dot;
mod dtype;
mod exhaustive;
mod expr;
mod extension;
mod free_vars;
mod infer;
mod interp;
mod lexer;
mod module;
mod ops;
mod parse_scopes;
mod parser;
pub mod passes;
mod pattern;
mod pending_lets;
mod print_names;
mod printer;
mod scope_tree;
mod tensor;
mod tvm_metadata;
mod ty;
mod well_formed;

pub use adt::{ConstructorDef, TypeData, TypeDefs};
pub use attrs::{AttrValue, Attrs};
pub use dot::module_to_dot;
pub use dtype::{DType, DTypeCode};
pub use expr::{
    Call, Clause, Constant, Constructor, Expr, ExprMutator, ExprRewriter, ExprVisitor, Function,
    GlobalVar, If, Let, Match, Op, RefCreate, RefRead, RefWrite, Span, Tuple, TupleGetItem, Var,
};
pub use extension::{ExtPrinter, RelayExtension};
pub use free_vars::{free_vars, function_free_vars};
pub use infer::{CompleteTypes, TypeError, TypeMap, check_module, infer_function, is_complete};
pub use interp::{
    AdtValue, Closure, MAX_CALL_DEPTH, MAX_ELEMENTS, Value, eval_expr, run_main, run_main_limited,
};
pub use module::RelayModule;
pub use ops::{MAX_WORK, OpDef, OpValue, elements, extent_span, op, op_names, value_type};
pub use parser::{ParseError, parse_expr, parse_module};
pub use pattern::{
    Pattern, PatternConstructor, PatternMutator, PatternRewriter, PatternTuple, PatternVar,
    PatternVisitor, PatternWildcard, mutate_match, visit_match,
};
pub use printer::{MAX_INDENT, print_expr, print_module, print_type};
pub use tensor::Tensor;
pub use ty::{
    Dim, FuncType, IncompleteType, RefType, TensorType, TupleType, Type, TypeCall, TypeMutator,
    TypeRewriter, TypeVar, TypeVisitor,
};
pub use well_formed::{verify, well_formed};
