//! Tensor IR expressions.

use std::marker::PhantomData;

use ir_core::{Mutable, Node, Visitable};

/// Element types of scalar expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// Signed 32-bit integer.
    S32,
    /// Signed 64-bit integer.
    S64,
    /// Boolean, the result of comparisons.
    Bool,
}

/// A scalar constant.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Constant {
    /// The value, widened to 64 bits (oneDNN's `value_[0].s64`).
    #[ir(skip)]
    pub value: i64,
    /// The element type.
    #[ir(skip)]
    pub dtype: DType,
}

/// A named scalar variable. Identity is the node: two `Var`s with the same name
/// are different variables.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Var {
    /// The name, for printing.
    #[ir(skip)]
    pub name: String,
    /// The element type.
    #[ir(skip)]
    pub dtype: DType,
}

/// Marker types naming the arithmetic operators of [`Binary`].
pub trait BinaryOp: Clone + Default + std::fmt::Debug + 'static {
    /// The operator as printed.
    const SYMBOL: &'static str;
    /// Evaluates the operator on constants; `None` when undefined (division by zero).
    fn eval(l: i64, r: i64) -> Option<i64>;
}

macro_rules! binary_ops {
    ($($(#[$doc:meta])* $name:ident $sym:literal $eval:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;
        impl BinaryOp for $name {
            const SYMBOL: &'static str = $sym;
            fn eval(l: i64, r: i64) -> Option<i64> {
                let f: fn(i64, i64) -> Option<i64> = $eval;
                f(l, r)
            }
        }
    )*};
}

binary_ops! {
    /// `+`
    AddOp "+" |l, r| l.checked_add(r);
    /// `-`
    SubOp "-" |l, r| l.checked_sub(r);
    /// `*`
    MulOp "*" |l, r| l.checked_mul(r);
    /// `/`
    DivOp "/" |l, r| l.checked_div(r);
    /// `%`
    ModOp "%" |l, r| l.checked_rem(r);
}

/// An arithmetic expression `(l op r)`; one generic node struct serves all five
/// operator kinds of the family.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Binary<Op: BinaryOp> {
    /// Left operand.
    pub l: Expr,
    /// Right operand.
    pub r: Expr,
    #[ir(skip)]
    op: PhantomData<Op>,
}

impl<Op: BinaryOp> Binary<Op> {
    /// `(l op r)`.
    pub fn new(l: Expr, r: Expr) -> Self {
        Binary {
            l,
            r,
            op: PhantomData,
        }
    }
}

/// Comparison operators of [`Cmp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator as printed.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A comparison `(l op r)` producing a boolean.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Cmp {
    /// The comparison.
    #[ir(skip)]
    pub op: CmpOp,
    /// Left operand.
    pub l: Expr,
    /// Right operand.
    pub r: Expr,
}

/// Tensor IR expressions: the family of expression node kinds.
#[derive(Debug, Clone, Visitable, Mutable)]
pub enum Expr {
    /// A constant.
    Constant(Node<Constant>),
    /// A variable use; loop variables are its definition sites.
    #[ir(def)]
    Var(Node<Var>),
    /// `l + r`
    Add(Node<Binary<AddOp>>),
    /// `l - r`
    Sub(Node<Binary<SubOp>>),
    /// `l * r`
    Mul(Node<Binary<MulOp>>),
    /// `l / r`
    Div(Node<Binary<DivOp>>),
    /// `l % r`
    Mod(Node<Binary<ModOp>>),
    /// A comparison.
    Cmp(Node<Cmp>),
}

impl Expr {
    /// The element type of the expression's value.
    pub fn dtype(&self) -> DType {
        // Iterative: the left spine of a deep expression may be long.
        let mut e = self;
        loop {
            e = match e {
                Expr::Constant(c) => return c.dtype,
                Expr::Var(v) => return v.dtype,
                Expr::Cmp(_) => return DType::Bool,
                Expr::Add(b) => &b.l,
                Expr::Sub(b) => &b.l,
                Expr::Mul(b) => &b.l,
                Expr::Div(b) => &b.l,
                Expr::Mod(b) => &b.l,
            }
        }
    }
}
