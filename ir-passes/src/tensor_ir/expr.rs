//! Tensor IR expressions: oneDNN's set, every kind derived.
//!
//! Arithmetic, comparison and logic kinds form the categories `Binary`,
//! `Cmp` and `Logic` (`#[ir(category = ..)]`): a pass can override
//! `visit_binary` once for all seven arithmetic kinds, or `visit_add` for one.

use std::marker::PhantomData;

use ir_core::{Mutable, Node, StructuralEq, Visitable};

use super::attrs::Attrs;
use super::dtype::{DType, Value};
use super::ops::{
    AddOp, AndOp, ArithOp, DivOp, EqOp, GeOp, GtOp, LeOp, LogicOp, LtOp, MaxOp, MinOp, ModOp,
    MulOp, NeOp, OrOp, RelOp, SubOp,
};

/// A scalar constant.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Constant {
    /// The value.
    #[ir(skip)]
    pub value: Value,
    /// Its type.
    #[ir(skip)]
    pub dtype: DType,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// A scalar variable. Identity is the node: two `Var`s with the same name are
/// different variables. Its definition sites are loop variables, `var`
/// definitions and parameters.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Var {
    /// The name, for printing.
    #[ir(skip, eq = false)]
    pub name: String,
    /// Its type.
    #[ir(skip)]
    pub dtype: DType,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `dtype(value)`: a conversion.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Cast {
    /// The target type.
    #[ir(skip)]
    pub dtype: DType,
    /// The converted value.
    pub value: Expr,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `(l op r)` for an arithmetic operator `Op` (one node struct serves the
/// seven kinds of the `Binary` category).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Arith<Op: ArithOp> {
    /// Left operand.
    pub l: Expr,
    /// Right operand.
    pub r: Expr,
    /// The result type (the left operand's), kept so that asking a deep
    /// expression its type costs O(1), not its depth.
    #[ir(skip, eq = false)]
    pub dtype: DType,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
    #[ir(skip, eq = false)]
    op: PhantomData<Op>,
}

/// `(l op r)` for a comparison `Op`: a `bool`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Compare<Op: RelOp> {
    /// Left operand.
    pub l: Expr,
    /// Right operand.
    pub r: Expr,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
    #[ir(skip, eq = false)]
    op: PhantomData<Op>,
}

/// `(l && r)` or `(l || r)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Logical<Op: LogicOp> {
    /// Left operand.
    pub l: Expr,
    /// Right operand.
    pub r: Expr,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
    #[ir(skip, eq = false)]
    op: PhantomData<Op>,
}

macro_rules! binary_ctor {
    ($($ty:ident: $bound:ident),*) => {$(
        impl<Op: $bound> $ty<Op> {
            /// `(l op r)`.
            pub fn new(l: Expr, r: Expr) -> Self {
                $ty { l, r, attrs: Attrs::new(), op: PhantomData }
            }
        }
    )*};
}
binary_ctor!(Compare: RelOp, Logical: LogicOp);

impl<Op: ArithOp> Arith<Op> {
    /// `(l op r)`, typed as `l`.
    pub fn new(l: Expr, r: Expr) -> Self {
        Arith {
            dtype: l.dtype(),
            l,
            r,
            attrs: Attrs::new(),
            op: PhantomData,
        }
    }
}

/// `!(value)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Not {
    /// The negated condition.
    pub value: Expr,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `(cond ? then_value : else_value)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Select {
    /// The condition.
    pub cond: Expr,
    /// The value when it holds.
    pub then_value: Expr,
    /// The value otherwise.
    pub else_value: Expr,
    /// The result type (`then_value`'s), kept for O(1) typing.
    #[ir(skip, eq = false)]
    pub dtype: DType,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `f(args)`: a call of a function of the module.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Call {
    /// The callee's name.
    #[ir(skip)]
    pub func: String,
    /// The arguments.
    pub args: Vec<Expr>,
    /// The callee's return type.
    #[ir(skip)]
    pub dtype: DType,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// The intrinsic functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intrin {
    /// `abs(x)`
    Abs,
    /// `sqrt(x)`
    Sqrt,
    /// `exp(x)`
    Exp,
    /// `log(x)`
    Log,
    /// `floor(x)`
    Floor,
    /// `ceil(x)`
    Ceil,
    /// `round(x)`
    Round,
}

impl Intrin {
    /// Every intrinsic.
    pub const ALL: [Intrin; 7] = [
        Intrin::Abs,
        Intrin::Sqrt,
        Intrin::Exp,
        Intrin::Log,
        Intrin::Floor,
        Intrin::Ceil,
        Intrin::Round,
    ];

    /// The name as printed; intrinsic names are reserved.
    pub fn name(self) -> &'static str {
        match self {
            Intrin::Abs => "abs",
            Intrin::Sqrt => "sqrt",
            Intrin::Exp => "exp",
            Intrin::Log => "log",
            Intrin::Floor => "floor",
            Intrin::Ceil => "ceil",
            Intrin::Round => "round",
        }
    }

    /// The intrinsic named `name`.
    pub fn from_name(name: &str) -> Option<Intrin> {
        Intrin::ALL.into_iter().find(|i| i.name() == name)
    }
}

/// `abs(x)`, `sqrt(x)`, ...: an intrinsic call.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct IntrinsicCall {
    /// Which intrinsic.
    #[ir(skip)]
    pub intrin: Intrin,
    /// The arguments.
    pub args: Vec<Expr>,
    /// The result type (the first argument's), kept for O(1) typing.
    #[ir(skip, eq = false)]
    pub dtype: DType,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// A tensor: a named buffer of `elem` values with the given dims and strides
/// (both in elements). Its definition sites are `tensor` definitions and
/// parameters; elsewhere it is used through indexing.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Tensor {
    /// The name, for printing.
    #[ir(skip, eq = false)]
    pub name: String,
    /// The element type.
    #[ir(skip)]
    pub elem: DType,
    /// The dimensions.
    pub dims: Vec<Expr>,
    /// The strides, innermost last; dense (row-major) when built by the
    /// constructors.
    pub strides: Vec<Expr>,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `tensor[index...]`: an element of a tensor.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Indexing {
    /// The tensor (a `Tensor` use).
    pub tensor: Expr,
    /// One index per dimension.
    pub index: Vec<Expr>,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `&tensor[index...]`: the address of an element.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TensorPtr {
    /// The element.
    pub base: Node<Indexing>,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// Tensor IR expressions: the family of expression kinds.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(rewriter, in_place)]
pub enum Expr {
    /// A constant.
    Constant(Node<Constant>),
    /// A scalar variable.
    #[ir(def)]
    Var(Node<Var>),
    /// A conversion.
    Cast(Node<Cast>),
    /// `(l + r)`
    #[ir(category = Binary)]
    Add(Node<Arith<AddOp>>),
    /// `(l - r)`
    #[ir(category = Binary)]
    Sub(Node<Arith<SubOp>>),
    /// `(l * r)`
    #[ir(category = Binary)]
    Mul(Node<Arith<MulOp>>),
    /// `(l / r)`
    #[ir(category = Binary)]
    Div(Node<Arith<DivOp>>),
    /// `(l % r)`
    #[ir(category = Binary)]
    Mod(Node<Arith<ModOp>>),
    /// `min(l, r)`
    #[ir(category = Binary)]
    Min(Node<Arith<MinOp>>),
    /// `max(l, r)`
    #[ir(category = Binary)]
    Max(Node<Arith<MaxOp>>),
    /// `(l == r)`
    #[ir(category = Cmp)]
    Eq(Node<Compare<EqOp>>),
    /// `(l != r)`
    #[ir(category = Cmp)]
    Ne(Node<Compare<NeOp>>),
    /// `(l < r)`
    #[ir(category = Cmp)]
    Lt(Node<Compare<LtOp>>),
    /// `(l <= r)`
    #[ir(category = Cmp)]
    Le(Node<Compare<LeOp>>),
    /// `(l > r)`
    #[ir(category = Cmp)]
    Gt(Node<Compare<GtOp>>),
    /// `(l >= r)`
    #[ir(category = Cmp)]
    Ge(Node<Compare<GeOp>>),
    /// `(l && r)`
    #[ir(category = Logic)]
    And(Node<Logical<AndOp>>),
    /// `(l || r)`
    #[ir(category = Logic)]
    Or(Node<Logical<OrOp>>),
    /// `!(value)`
    #[ir(category = Logic)]
    Not(Node<Not>),
    /// `(cond ? a : b)`
    Select(Node<Select>),
    /// A call of a module function.
    Call(Node<Call>),
    /// An intrinsic call.
    Intrinsic(Node<IntrinsicCall>),
    /// A tensor.
    #[ir(def)]
    Tensor(Node<Tensor>),
    /// `A[i, j]`
    Indexing(Node<Indexing>),
    /// `&A[i, j]`
    TensorPtr(Node<TensorPtr>),
}

/// `$body` on the node of whichever kind `$e` is, bound to `$n`.
macro_rules! each_node {
    ($e:expr, $n:ident => $body:expr) => {
        match $e {
            Expr::Constant($n) => $body,
            Expr::Var($n) => $body,
            Expr::Cast($n) => $body,
            Expr::Add($n) => $body,
            Expr::Sub($n) => $body,
            Expr::Mul($n) => $body,
            Expr::Div($n) => $body,
            Expr::Mod($n) => $body,
            Expr::Min($n) => $body,
            Expr::Max($n) => $body,
            Expr::Eq($n) => $body,
            Expr::Ne($n) => $body,
            Expr::Lt($n) => $body,
            Expr::Le($n) => $body,
            Expr::Gt($n) => $body,
            Expr::Ge($n) => $body,
            Expr::And($n) => $body,
            Expr::Or($n) => $body,
            Expr::Not($n) => $body,
            Expr::Select($n) => $body,
            Expr::Call($n) => $body,
            Expr::Intrinsic($n) => $body,
            Expr::Tensor($n) => $body,
            Expr::Indexing($n) => $body,
            Expr::TensorPtr($n) => $body,
        }
    };
}

/// Both operands of a binary node, whatever its kind.
macro_rules! operands {
    ($view:ident { $($v:ident),* }) => {
        impl<'a> $view<'a> {
            /// The left operand.
            pub fn l(self) -> &'a Expr {
                match self { $($view::$v(n) => &n.l,)* }
            }
            /// The right operand.
            pub fn r(self) -> &'a Expr {
                match self { $($view::$v(n) => &n.r,)* }
            }
            /// The operator as printed (`+`, `min`, `==`, ...).
            pub fn symbol(self) -> &'static str {
                match self { $($view::$v(n) => n.symbol(),)* }
            }
        }
    };
}
operands!(Binary {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Min,
    Max
});
operands!(Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge
});

impl<Op: ArithOp> Arith<Op> {
    /// The operator as printed.
    pub fn symbol(&self) -> &'static str {
        Op::SYMBOL
    }
}

impl<Op: RelOp> Compare<Op> {
    /// The operator as printed.
    pub fn symbol(&self) -> &'static str {
        Op::SYMBOL
    }
}

impl Expr {
    /// The type of the expression's value.
    pub fn dtype(&self) -> DType {
        match self {
            Expr::Constant(c) => c.dtype,
            Expr::Var(v) => v.dtype,
            Expr::Cast(c) => c.dtype,
            Expr::Add(n) => n.dtype,
            Expr::Sub(n) => n.dtype,
            Expr::Mul(n) => n.dtype,
            Expr::Div(n) => n.dtype,
            Expr::Mod(n) => n.dtype,
            Expr::Min(n) => n.dtype,
            Expr::Max(n) => n.dtype,
            Expr::Eq(_)
            | Expr::Ne(_)
            | Expr::Lt(_)
            | Expr::Le(_)
            | Expr::Gt(_)
            | Expr::Ge(_)
            | Expr::And(_)
            | Expr::Or(_)
            | Expr::Not(_) => DType::Bool,
            Expr::Select(s) => s.dtype,
            Expr::Call(c) => c.dtype,
            Expr::Intrinsic(c) => c.dtype,
            Expr::Tensor(_) | Expr::TensorPtr(_) => DType::Index,
            Expr::Indexing(i) => match &i.tensor {
                Expr::Tensor(t) => t.elem,
                _ => DType::Void,
            },
        }
    }

    /// The constant's value, if this is a constant.
    pub fn as_value(&self) -> Option<Value> {
        self.as_constant().map(|c| c.value)
    }

    /// The node's attributes, to change: the node is copied first when it
    /// is shared.
    pub fn attrs_mut(&mut self) -> &mut Attrs {
        each_node!(self, n => &mut n.make_mut().attrs)
    }

    /// Whether no other handle shares this node.
    pub fn is_unique(&mut self) -> bool {
        each_node!(self, n => n.is_unique())
    }

    /// The node's attributes.
    pub fn attrs(&self) -> &Attrs {
        each_node!(self, n => &n.attrs)
    }
}
