//! Symbolic shape arithmetic (TVM's `PrimExpr`): integer constants, symbolic
//! variables (`n = T.int64()`) and the operations shapes use.
//!
//! The binary operations form the category `PrimBinary`: a pass overrides
//! `visit_prim_binary` to see them all.

use std::fmt;

use ir_core::{Mutable, Node, StructuralEq, Visitable};

use super::dtype::DataType;

/// An integer constant.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct IntImm {
    /// The value.
    #[ir(skip)]
    pub value: i64,
    /// Its type (`int64` for shapes).
    #[ir(skip)]
    pub dtype: DataType,
}

/// A symbolic variable. Identity is the node; the name is a hint. It is
/// defined where it first appears in a function's parameters (or a
/// `match_cast`), as in TVM.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct PrimVar {
    /// Name hint.
    #[ir(skip, eq = false)]
    pub name: String,
    /// Its type.
    #[ir(skip, eq = true)]
    pub dtype: DataType,
}

macro_rules! binary_kinds {
    ($($(#[$doc:meta])* $name:ident),*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
        pub struct $name {
            /// Left operand.
            pub a: PrimExpr,
            /// Right operand.
            pub b: PrimExpr,
        }
    )*};
}

binary_kinds!(
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a // b`, rounding toward negative infinity.
    FloorDiv,
    /// `a % b`, with the sign of `b`.
    FloorMod,
    /// `T.min(a, b)`.
    Min,
    /// `T.max(a, b)`.
    Max
);

/// The family of symbolic expressions.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(rewriter)]
pub enum PrimExpr {
    /// A constant.
    IntImm(Node<IntImm>),
    /// A symbolic variable: a free variable of the expression, mapped by
    /// first occurrence when comparing programs.
    #[ir(def)]
    PrimVar(Node<PrimVar>),
    /// `a + b`.
    #[ir(category = PrimBinary)]
    Add(Node<Add>),
    /// `a - b`.
    #[ir(category = PrimBinary)]
    Sub(Node<Sub>),
    /// `a * b`.
    #[ir(category = PrimBinary)]
    Mul(Node<Mul>),
    /// `a // b`.
    #[ir(category = PrimBinary)]
    FloorDiv(Node<FloorDiv>),
    /// `a % b`.
    #[ir(category = PrimBinary)]
    FloorMod(Node<FloorMod>),
    /// `T.min(a, b)`.
    #[ir(category = PrimBinary)]
    Min(Node<Min>),
    /// `T.max(a, b)`.
    #[ir(category = PrimBinary)]
    Max(Node<Max>),
}

/// The operation of a binary node, for code that treats them alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `//`
    FloorDiv,
    /// `%`
    FloorMod,
    /// `T.min`
    Min,
    /// `T.max`
    Max,
}

impl PrimExpr {
    /// An `int64` constant.
    pub fn int(value: i64) -> PrimExpr {
        IntImm {
            value,
            dtype: DataType::I64,
        }
        .into()
    }

    /// A fresh `int64` symbolic variable.
    pub fn var(name: &str) -> Node<PrimVar> {
        Node::new(PrimVar {
            name: name.to_owned(),
            dtype: DataType::I64,
        })
    }

    /// `op(a, b)`.
    pub fn binary(op: BinOp, a: PrimExpr, b: PrimExpr) -> PrimExpr {
        match op {
            BinOp::Add => Add { a, b }.into(),
            BinOp::Sub => Sub { a, b }.into(),
            BinOp::Mul => Mul { a, b }.into(),
            BinOp::FloorDiv => FloorDiv { a, b }.into(),
            BinOp::FloorMod => FloorMod { a, b }.into(),
            BinOp::Min => Min { a, b }.into(),
            BinOp::Max => Max { a, b }.into(),
        }
    }

    /// The operation and operands of a binary node.
    pub fn as_binary_parts(&self) -> Option<(BinOp, &PrimExpr, &PrimExpr)> {
        Some(match self {
            PrimExpr::Add(n) => (BinOp::Add, &n.a, &n.b),
            PrimExpr::Sub(n) => (BinOp::Sub, &n.a, &n.b),
            PrimExpr::Mul(n) => (BinOp::Mul, &n.a, &n.b),
            PrimExpr::FloorDiv(n) => (BinOp::FloorDiv, &n.a, &n.b),
            PrimExpr::FloorMod(n) => (BinOp::FloorMod, &n.a, &n.b),
            PrimExpr::Min(n) => (BinOp::Min, &n.a, &n.b),
            PrimExpr::Max(n) => (BinOp::Max, &n.a, &n.b),
            PrimExpr::IntImm(_) | PrimExpr::PrimVar(_) => return None,
        })
    }

    /// The value, if it is a constant.
    pub fn as_int(&self) -> Option<i64> {
        self.as_int_imm().map(|n| n.value)
    }
}

impl From<i64> for PrimExpr {
    fn from(value: i64) -> PrimExpr {
        PrimExpr::int(value)
    }
}

impl BinOp {
    /// Binding strength in TVMScript's printed form (higher binds tighter);
    /// `None` for the function-call forms.
    fn precedence(self) -> Option<u8> {
        match self {
            BinOp::Add | BinOp::Sub => Some(1),
            BinOp::Mul | BinOp::FloorDiv | BinOp::FloorMod => Some(2),
            BinOp::Min | BinOp::Max => None,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::FloorDiv => "//",
            BinOp::FloorMod => "%",
            BinOp::Min => "T.min",
            BinOp::Max => "T.max",
        }
    }
}

/// TVMScript's form: `n + 1`, `n * (m + 1)`, `T.min(n, 4)`; parentheses only
/// where precedence needs them (left-associative).
impl fmt::Display for PrimExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_prim(self, f, 0)
    }
}

/// Writes `e` in a context that binds with strength `outer`. Symbolic
/// expressions are shallow in practice; this recursion is bounded by the
/// stack guard of the derived walks elsewhere, and by `stack::guarded` here.
fn write_prim(e: &PrimExpr, f: &mut fmt::Formatter<'_>, outer: u8) -> fmt::Result {
    ir_core::stack::guarded(|| match e {
        PrimExpr::IntImm(n) => write!(f, "{}", n.value),
        PrimExpr::PrimVar(v) => f.write_str(&v.name),
        _ => {
            let Some((op, a, b)) = e.as_binary_parts() else {
                unreachable!("leaves are handled above")
            };
            match op.precedence() {
                None => {
                    write!(f, "{}(", op.symbol())?;
                    write_prim(a, f, 0)?;
                    f.write_str(", ")?;
                    write_prim(b, f, 0)?;
                    f.write_str(")")
                }
                Some(p) => {
                    let paren = p < outer;
                    if paren {
                        f.write_str("(")?;
                    }
                    write_prim(a, f, p)?;
                    write!(f, " {} ", op.symbol())?;
                    // The right operand of a left-associative operator binds tighter.
                    write_prim(b, f, p + 1)?;
                    if paren {
                        f.write_str(")")?;
                    }
                    Ok(())
                }
            }
        }
    })
}
