//! Constructors, the Tensor IR's `builder::make_*`.

use std::ops;

use ir_core::Node;

use super::expr::{AddOp, Binary, Constant, DType, DivOp, Expr, ModOp, MulOp, SubOp, Var};
use super::stmt::{Assign, Attrs, Evaluate, ForLoop, IfElse, Seq, Stmt};

/// An `s32` constant.
pub fn constant(value: i64) -> Expr {
    constant_of(value, DType::S32)
}

/// A constant of the given type.
pub fn constant_of(value: i64, dtype: DType) -> Expr {
    Constant { value, dtype }.into()
}

/// A fresh `s32` variable.
pub fn var(name: &str) -> Expr {
    var_of(name, DType::S32).into()
}

/// A fresh variable handle, for definition sites such as loop variables.
pub fn var_of(name: &str, dtype: DType) -> Node<Var> {
    Node::new(Var {
        name: name.to_owned(),
        dtype,
    })
}

macro_rules! operator {
    ($trait:ident $method:ident $op:ident) => {
        impl ops::$trait for Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                Binary::<$op>::new(self, rhs).into()
            }
        }
    };
}
operator!(Add add AddOp);
operator!(Sub sub SubOp);
operator!(Mul mul MulOp);
operator!(Div div DivOp);
operator!(Rem rem ModOp);

/// `var = value`
pub fn assign(var: Expr, value: Expr) -> Stmt {
    Assign {
        var,
        value,
        attrs: Attrs::new(),
    }
    .into()
}

/// A sequence of statements.
pub fn seq(stmts: Vec<Stmt>) -> Stmt {
    Seq {
        stmts,
        attrs: Attrs::new(),
    }
    .into()
}

/// `if (condition) { then_case } else { else_case }`
pub fn if_else(condition: Expr, then_case: Stmt, else_case: Option<Stmt>) -> Stmt {
    IfElse {
        condition,
        then_case,
        else_case,
        attrs: Attrs::new(),
    }
    .into()
}

/// `for var in (begin, end, step) { body }`, incrementing.
pub fn for_loop(var: Node<Var>, begin: Expr, end: Expr, step: Expr, body: Stmt) -> Stmt {
    ForLoop {
        var,
        iter_begin: begin,
        iter_end: end,
        step,
        body,
        incremental: true,
        attrs: Attrs::new(),
    }
    .into()
}

/// An expression statement.
pub fn evaluate(value: Expr) -> Stmt {
    Evaluate {
        value,
        attrs: Attrs::new(),
    }
    .into()
}
