//! Constructors, the Tensor IR's `builder::make_*`, and operator overloads
//! on [`Expr`] (`a + b` builds an `Add` node).

use std::ops;

use ir_core::Node;

use super::attrs::Attrs;
use super::dtype::{DType, Value};
use super::expr::{
    Arith, Call, Cast, Compare, Constant, Expr, Indexing, Intrin, IntrinsicCall, Logical, Not,
    Select, Tensor, TensorPtr, Var,
};
use super::ops::{
    AddOp, AndOp, DivOp, EqOp, GeOp, GtOp, LeOp, LtOp, MaxOp, MinOp, ModOp, MulOp, NeOp, OrOp,
    SubOp,
};
use super::stmt::{
    Assign, Define, DefineTensor, Evaluate, ForKind, ForLoop, Func, IfElse, Return, Stmt, Stmts,
};

/// An `s32` constant.
pub fn constant(value: i64) -> Expr {
    constant_of(Value::Int(DType::S32.wrap(value)), DType::S32)
}

/// An `index` constant.
pub fn index(value: u64) -> Expr {
    constant_of(Value::Int(value as i64), DType::Index)
}

/// An `f32` constant.
pub fn float(value: f32) -> Expr {
    constant_of(Value::Float(value), DType::F32)
}

/// A `bool` constant.
pub fn boolean(value: bool) -> Expr {
    constant_of(Value::Bool(value), DType::Bool)
}

/// A constant of the given type.
pub fn constant_of(value: Value, dtype: DType) -> Expr {
    Constant {
        value,
        dtype,
        attrs: Attrs::new(),
    }
    .into()
}

/// A fresh `s32` variable, as an expression.
pub fn var(name: &str) -> Expr {
    var_of(name, DType::S32).into()
}

/// A fresh variable handle, for definition sites (loop variables, `var`).
pub fn var_of(name: &str, dtype: DType) -> Node<Var> {
    Node::new(Var {
        name: name.to_owned(),
        dtype,
        attrs: Attrs::new(),
    })
}

/// A fresh dense tensor with constant dims (s32, as the parser reads them).
pub fn tensor(name: &str, elem: DType, dims: &[u32]) -> Node<Tensor> {
    tensor_of(
        name,
        elem,
        dims.iter().map(|&d| constant(d.into())).collect(),
    )
}

/// A fresh dense (row-major) tensor with the given dims.
pub fn tensor_of(name: &str, elem: DType, dims: Vec<Expr>) -> Node<Tensor> {
    let mut strides = Vec::with_capacity(dims.len());
    let mut stride = constant(1);
    for d in dims.iter().rev() {
        strides.push(stride.clone());
        stride = match (stride.as_value(), d.as_value()) {
            (Some(Value::Int(1)), _) => d.clone(),
            (Some(Value::Int(s)), Some(Value::Int(d)))
                if s.checked_mul(d).is_some_and(|p| p <= i32::MAX.into()) =>
            {
                constant(s * d)
            }
            _ => stride * d.clone(),
        };
    }
    strides.reverse();
    Node::new(Tensor {
        name: name.to_owned(),
        elem,
        dims,
        strides,
        attrs: Attrs::new(),
    })
}

/// `dtype(value)`
pub fn cast(dtype: DType, value: Expr) -> Expr {
    Cast {
        dtype,
        value,
        attrs: Attrs::new(),
    }
    .into()
}

macro_rules! binary_fns {
    ($($(#[$doc:meta])* $fn:ident $node:ident $op:ident;)*) => {$(
        $(#[$doc])*
        pub fn $fn(l: Expr, r: Expr) -> Expr {
            $node::<$op>::new(l, r).into()
        }
    )*};
}

binary_fns! {
    /// `min(l, r)`
    min Arith MinOp;
    /// `max(l, r)`
    max Arith MaxOp;
    /// `(l == r)`
    cmp_eq Compare EqOp;
    /// `(l != r)`
    cmp_ne Compare NeOp;
    /// `(l < r)`
    cmp_lt Compare LtOp;
    /// `(l <= r)`
    cmp_le Compare LeOp;
    /// `(l > r)`
    cmp_gt Compare GtOp;
    /// `(l >= r)`
    cmp_ge Compare GeOp;
    /// `(l && r)`
    logic_and Logical AndOp;
    /// `(l || r)`
    logic_or Logical OrOp;
}

/// `!(value)`
pub fn logic_not(value: Expr) -> Expr {
    Not {
        value,
        attrs: Attrs::new(),
    }
    .into()
}

/// `(cond ? then_value : else_value)`
pub fn select(cond: Expr, then_value: Expr, else_value: Expr) -> Expr {
    Select {
        dtype: then_value.dtype(),
        cond,
        then_value,
        else_value,
        attrs: Attrs::new(),
    }
    .into()
}

/// `func(args)`, a call returning `dtype`.
pub fn call(func: &str, args: Vec<Expr>, dtype: DType) -> Expr {
    Call {
        func: func.to_owned(),
        args,
        dtype,
        attrs: Attrs::new(),
    }
    .into()
}

/// `intrin(args)`
pub fn intrinsic(intrin: Intrin, args: Vec<Expr>) -> Expr {
    IntrinsicCall {
        intrin,
        dtype: args.first().map_or(DType::Void, Expr::dtype),
        args,
        attrs: Attrs::new(),
    }
    .into()
}

/// `tensor[index...]`
pub fn indexing(tensor: &Node<Tensor>, index: Vec<Expr>) -> Expr {
    indexing_node(tensor, index).into()
}

fn indexing_node(tensor: &Node<Tensor>, index: Vec<Expr>) -> Node<Indexing> {
    Node::new(Indexing {
        tensor: tensor.clone().into(),
        index,
        attrs: Attrs::new(),
    })
}

/// `&tensor[index...]`
pub fn tensor_ptr(tensor: &Node<Tensor>, index: Vec<Expr>) -> Expr {
    TensorPtr {
        base: indexing_node(tensor, index),
        attrs: Attrs::new(),
    }
    .into()
}

macro_rules! operator {
    ($trait:ident $method:ident $op:ident) => {
        impl ops::$trait for Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                Arith::<$op>::new(self, rhs).into()
            }
        }
    };
}
operator!(Add add AddOp);
operator!(Sub sub SubOp);
operator!(Mul mul MulOp);
operator!(Div div DivOp);
operator!(Rem rem ModOp);

/// `lhs = rhs`
pub fn assign(lhs: Expr, rhs: Expr) -> Stmt {
    Assign {
        lhs,
        rhs,
        attrs: Attrs::new(),
    }
    .into()
}

/// `{ stmts... }`
pub fn stmts(seq: Vec<Stmt>) -> Stmt {
    Stmts {
        seq,
        attrs: Attrs::new(),
    }
    .into()
}

/// `if (cond) { then_case } else { else_case }`
pub fn if_else(cond: Expr, then_case: Stmt, else_case: Option<Stmt>) -> Stmt {
    IfElse {
        cond,
        then_case,
        else_case,
        attrs: Attrs::new(),
    }
    .into()
}

/// `for var in (begin, end, step) { body }`, serial.
pub fn for_loop(var: Node<Var>, begin: Expr, end: Expr, step: Expr, body: Stmt) -> Stmt {
    for_loop_of(ForKind::Serial, var, begin, end, step, body)
}

/// A loop of the given kind.
pub fn for_loop_of(
    kind: ForKind,
    var: Node<Var>,
    begin: Expr,
    end: Expr,
    step: Expr,
    body: Stmt,
) -> Stmt {
    ForLoop {
        var,
        begin,
        end,
        step,
        body,
        kind,
        attrs: Attrs::new(),
    }
    .into()
}

/// `evaluate{value}`
pub fn evaluate(value: Expr) -> Stmt {
    Evaluate {
        value,
        attrs: Attrs::new(),
    }
    .into()
}

/// `return value`
pub fn returns(value: Option<Expr>) -> Stmt {
    Return {
        value,
        attrs: Attrs::new(),
    }
    .into()
}

/// `var x: dtype = init`
pub fn define(var: Node<Var>, init: Option<Expr>) -> Stmt {
    Define {
        init,
        var,
        attrs: Attrs::new(),
    }
    .into()
}

/// `tensor A: [...]`
pub fn define_tensor(tensor: Node<Tensor>) -> Stmt {
    define_tensor_at(tensor, None)
}

/// `tensor A: [...] = &B[...]` (a view) when `init` is given, else `tensor A: [...]`.
pub fn define_tensor_at(tensor: Node<Tensor>, init: Option<Expr>) -> Stmt {
    DefineTensor {
        init,
        tensor,
        attrs: Attrs::new(),
    }
    .into()
}

/// `func name(params): ret { body }`
pub fn func(name: &str, params: Vec<Expr>, body: Stmt, ret: DType) -> Func {
    Func {
        name: name.to_owned(),
        params,
        body,
        ret,
        attrs: Attrs::new(),
    }
}
