//! A Relax-style dialect (TVM's current IR): expressions with struct info
//! and symbolic shapes, binding blocks and dataflow blocks, a block builder
//! that normalizes to A-normal form, a normalizing mutator whose default
//! hooks emit into it — all from the derives — TVMScript text, and passes.
//!
//! A pass overrides only the kinds it cares about. This one rewrites
//! `R.subtract(a, b)` into `R.add(a, R.negative(b))`; it returns a nested
//! call, and the normalizing mutator binds the inner one and re-derives
//! struct info:
//!
//! ```
//! use ir_passes::relax::*;
//! use ir_core::{Node, Transformed};
//!
//! #[derive(Default)]
//! struct SubToAdd(MutatorState);
//! impl PrimExprMutator for SubToAdd {}
//! impl StructInfoMutator for SubToAdd {}
//! impl ExprMutator for SubToAdd {
//!     fn mutator_state(&mut self) -> &mut MutatorState {
//!         &mut self.0
//!     }
//!     fn mutate_call(&mut self, call: &Node<Call>) -> Transformed<Expr> {
//!         let new = call.rebuild(self);
//!         let call = new.as_ref_or(call);
//!         match (call.op(), call.args()) {
//!             (Expr::Op(op), [a, b]) if op.name() == "subtract" => Transformed::Replace(
//!                 Expr::call_op("add", vec![a.clone(), Expr::call_op("negative", vec![b.clone()])]),
//!             ),
//!             _ => new.into(),
//!         }
//!     }
//! }
//!
//! let text = r#"# from tvm.script import ir as I
//! ## from tvm.script import relax as R
//!
//! @I.ir_module
//! class Module:
//!     @R.function
//!     def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
//!         z: R.Tensor((4,), dtype="float32") = R.subtract(x, y)
//!         return z"#;
//! let module = parse_module(text).unwrap();
//! let main = Expr::Function(module.get("main").unwrap().clone());
//! let Expr::Function(out) = run_mutator(&mut SubToAdd::default(), &main).unwrap() else { panic!() };
//! assert_eq!(
//!     print_function("main", &out),
//!     r#"# from tvm.script import relax as R
//!
//! @R.function
//! def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
//!     gv: R.Tensor((4,), dtype="float32") = R.negative(y)
//!     z: R.Tensor((4,), dtype="float32") = R.add(x, gv)
//!     return z"#
//! );
//! ```

mod arith;
mod builder;
mod dot;
mod dtype;
pub(crate) mod erase;
mod expr;
mod flatten;
mod free_vars;
mod function_dedup;
mod infer;
pub mod interp;
mod lexer;
mod module;
pub mod mutator;
mod ops;
mod parser;
pub mod passes;
mod prim;
mod printer;
mod rename_globals;
mod sinfo;
mod well_formed;

pub use arith::{can_prove_equal, const_value, simplify};
pub use builder::{BlockBuilder, BuilderError, is_leaf};
pub use dot::module_to_dot;
pub use dtype::DataType;
pub use expr::{
    AttrValue, Attrs, Binding, BindingBlock, Call, ConstData, Constant, DataTypeImm, Expr,
    ExprMutator, ExprVisitor, ExternFunc, Function, GlobalVar, If, Op, PrimValue, SeqExpr,
    ShapeExpr, StringImm, Tuple, TupleGetItem, Var,
};
pub use free_vars::{free_vars, free_vars_of_functions};
pub use infer::sinfo_of;
pub use module::{
    ExternGlobals, RelaxModule, add_extern, add_externs, extern_sinfo, is_global, module_externs,
    same_externs,
};
pub use mutator::{MutatorState, run_mutator};
pub use ops::{OpDef, canonical_attrs, infer_call, lookup as lookup_op, op_names};
pub use parser::{ParseError, parse_module};
pub use prim::{
    Add, BinOp, FloorDiv, FloorMod, IntImm, Max, Min, Mul, PrimBinary, PrimExpr, PrimExprMutator,
    PrimExprRewriter, PrimExprVisitor, PrimVar, Sub,
};
pub use printer::{print_expr, print_function, print_module};
pub use rename_globals::rename_globals;
pub use sinfo::{
    FuncStructInfo, ObjectStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo,
    StructInfoMutator, StructInfoRewriter, StructInfoVisitor, TensorStructInfo, TupleStructInfo,
    is_base_of, lca,
};
pub use well_formed::well_formed;

use ir_core::{Node, ShortVec};

/// Constructors for passes and tests.
impl Expr {
    /// `R.<name>(args)`; the arguments in an array, a `Vec` or a
    /// [`ShortVec`](ir_core::ShortVec).
    pub fn call_op(name: &str, args: impl Into<ShortVec<Expr>>) -> Expr {
        Expr::call_op_with(name, args, Vec::new())
    }

    /// `R.<name>(args, attrs)`, the operator's other attributes at their
    /// defaults. Attributes the operator does not take are kept as given;
    /// the parser reports them instead.
    pub fn call_op_with(name: &str, args: impl Into<ShortVec<Expr>>, attrs: Attrs) -> Expr {
        let (op, defaults) = ops::op_with_defaults(name);
        let attrs = if attrs.is_empty() {
            defaults
        } else {
            ops::canonical_attrs(name, attrs.clone()).unwrap_or(attrs)
        };
        let call = Call::new(op, args);
        if attrs.is_empty() {
            call.into()
        } else {
            call.with_attrs(attrs).into()
        }
    }

    /// The operator `R.<name>` as a callee. A registered operator is one
    /// node shared by every call of it; any other name gives a new node
    /// (which inference and `well_formed` then report).
    pub fn op(name: &str) -> Expr {
        ops::op_expr(name)
    }

    /// A scalar constant: `R.const(value, dtype)`.
    pub fn scalar(value: f64, dtype: DataType) -> Expr {
        Constant::new(ConstData {
            dtype,
            shape: Vec::new(),
            values: vec![value],
        })
        .into()
    }

    /// `(fields)`.
    pub fn tuple(fields: Vec<Expr>) -> Expr {
        Tuple { fields }.into()
    }

    /// `t[index]`.
    pub fn get_item(tuple: Expr, index: usize) -> Expr {
        TupleGetItem { tuple, index }.into()
    }

    /// `R.shape(values)`.
    pub fn shape(values: Vec<PrimExpr>) -> Expr {
        ShapeExpr { values }.into()
    }

    /// A sequence with no bindings.
    pub fn seq(blocks: Vec<Node<BindingBlock>>, body: Expr) -> Node<SeqExpr> {
        Node::new(SeqExpr { blocks, body })
    }

    /// `if cond: then else: otherwise`, wrapping plain branches in sequences.
    pub fn if_(cond: Expr, then: Expr, otherwise: Expr) -> Expr {
        let wrap = |e: Expr| match e {
            Expr::SeqExpr(s) => s,
            e => Expr::seq(Vec::new(), e),
        };
        If {
            cond,
            true_branch: wrap(then),
            false_branch: wrap(otherwise),
        }
        .into()
    }
}

impl Var {
    /// A new variable.
    pub fn new(name: &str, sinfo: StructInfo) -> Node<Var> {
        Node::new(Var {
            name: name.into(),
            dataflow: false,
            sinfo,
        })
    }

    /// A new variable of the same kind and struct info, named `name`.
    pub fn with_name(v: &Var, name: &str) -> Node<Var> {
        Node::new(Var {
            name: name.into(),
            dataflow: v.dataflow,
            sinfo: v.sinfo.clone(),
        })
    }

    /// A new variable of the same name and struct info: a dataflow variable
    /// if `dataflow`, else a plain one (the name is copied, not re-read).
    pub fn with_dataflow(v: &Var, dataflow: bool) -> Node<Var> {
        Node::new(Var {
            name: v.name.clone(),
            dataflow,
            sinfo: v.sinfo.clone(),
        })
    }

    /// A new variable of the same name and kind, of struct info `sinfo`.
    pub fn with_sinfo(v: &Var, sinfo: StructInfo) -> Node<Var> {
        Node::new(Var {
            name: v.name.clone(),
            dataflow: v.dataflow,
            sinfo,
        })
    }

    /// A new dataflow variable.
    pub fn dataflow(name: &str, sinfo: StructInfo) -> Node<Var> {
        Node::new(Var {
            name: name.into(),
            dataflow: true,
            sinfo,
        })
    }
}
