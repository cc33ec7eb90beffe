//! Tensor IR statements and functions. Field order is visit order: a
//! definition visits its initializer before its variable, a loop its
//! variable, bounds, step and body, an assignment its left side first.

use ir_core::{Mutable, Node, StructuralEq, Visitable};

use super::attrs::Attrs;
use super::dtype::DType;
// The visitor traits are named by the code `#[ir(uses(Expr))]` generates.
use super::expr::{Expr, ExprMutator, ExprRewriter, ExprVisitor, Tensor, Var};

/// `lhs = rhs`, to a variable or a tensor element.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Assign {
    /// The assigned location: a `Var` or an `Indexing`.
    pub lhs: Expr,
    /// The value.
    pub rhs: Expr,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `{ s1 s2 ... }`: a sequence (oneDNN's `stmts`).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Stmts {
    /// The statements, in order.
    pub seq: Vec<Stmt>,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `if (cond) { then_case } else { else_case }`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct IfElse {
    /// The condition.
    pub cond: Expr,
    /// Runs when it holds.
    pub then_case: Stmt,
    /// Runs otherwise, if present.
    pub else_case: Option<Stmt>,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// How a loop's iterations may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ForKind {
    /// One after another.
    #[default]
    Serial,
    /// On several threads.
    Parallel,
    /// To be unrolled.
    Unroll,
    /// On vector lanes.
    Vectorized,
}

impl ForKind {
    /// The keyword printed after the loop's range; empty for `Serial`.
    pub fn keyword(self) -> &'static str {
        match self {
            ForKind::Serial => "",
            ForKind::Parallel => "parallel",
            ForKind::Unroll => "unroll",
            ForKind::Vectorized => "vectorized",
        }
    }
}

/// `for var in (begin, end, step) kind { body }`: `var` takes `begin`,
/// `begin + step`, ... while below `end`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct ForLoop {
    /// The loop variable: a definition site (`visit_var_def`).
    pub var: Node<Var>,
    /// First value.
    pub begin: Expr,
    /// Bound (exclusive).
    pub end: Expr,
    /// Increment (positive).
    pub step: Expr,
    /// The body.
    pub body: Stmt,
    /// How the iterations may run.
    #[ir(skip)]
    pub kind: ForKind,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `evaluate{value}`: an expression run for its effect.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Evaluate {
    /// The expression.
    pub value: Expr,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `return value`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Return {
    /// The returned value, if the function returns one.
    pub value: Option<Expr>,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `var x: dtype = init`: defines a scalar variable.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Define {
    /// The initial value, visited before the variable.
    pub init: Option<Expr>,
    /// The defined variable (`visit_var_def`).
    pub var: Node<Var>,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// `tensor A: [f32 * 10 * 20]`: defines (allocates) a tensor; with an
/// initializer, `tensor B: [f32 * 4] = &A[2]`, a view of existing memory
/// starting at the element the tensor pointer names (oneDNN's `define_node`
/// with an `init` for a tensor: an alias, nothing allocated).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct DefineTensor {
    /// Where the tensor's elements start (a `TensorPtr`), visited before the
    /// tensor; `None` allocates fresh zeroed memory.
    pub init: Option<Expr>,
    /// The defined tensor (`visit_tensor_def`).
    pub tensor: Node<Tensor>,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

/// Tensor IR statements: the family of statement kinds.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(uses(Expr), rewriter, in_place)]
pub enum Stmt {
    /// `lhs = rhs`
    Assign(Node<Assign>),
    /// `{ ... }`
    Stmts(Node<Stmts>),
    /// `if (...) { ... } else { ... }`
    IfElse(Node<IfElse>),
    /// `for i in (...) { ... }`
    ForLoop(Node<ForLoop>),
    /// `evaluate{...}`
    Evaluate(Node<Evaluate>),
    /// `return ...`
    Return(Node<Return>),
    /// `var x: s32 = ...`
    Define(Node<Define>),
    /// `tensor A: [...]`
    DefineTensor(Node<DefineTensor>),
}

impl Stmt {
    /// Whether this is `{ }`, a block with nothing in it.
    pub fn is_empty_block(&self) -> bool {
        matches!(self, Stmt::Stmts(b) if b.seq.is_empty())
    }

    /// The node's attributes.
    pub fn attrs(&self) -> &Attrs {
        match self {
            Stmt::Assign(n) => &n.attrs,
            Stmt::Stmts(n) => &n.attrs,
            Stmt::IfElse(n) => &n.attrs,
            Stmt::ForLoop(n) => &n.attrs,
            Stmt::Evaluate(n) => &n.attrs,
            Stmt::Return(n) => &n.attrs,
            Stmt::Define(n) => &n.attrs,
            Stmt::DefineTensor(n) => &n.attrs,
        }
    }

    /// The node's attributes, to change: the node is copied first when it
    /// is shared.
    pub fn attrs_mut(&mut self) -> &mut Attrs {
        match self {
            Stmt::Assign(n) => &mut n.make_mut().attrs,
            Stmt::Stmts(n) => &mut n.make_mut().attrs,
            Stmt::IfElse(n) => &mut n.make_mut().attrs,
            Stmt::ForLoop(n) => &mut n.make_mut().attrs,
            Stmt::Evaluate(n) => &mut n.make_mut().attrs,
            Stmt::Return(n) => &mut n.make_mut().attrs,
            Stmt::Define(n) => &mut n.make_mut().attrs,
            Stmt::DefineTensor(n) => &mut n.make_mut().attrs,
        }
    }
}

/// `func name(params): ret { body }`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Func {
    /// The name, as calls name it.
    #[ir(skip)]
    pub name: String,
    /// The parameters: `Var` and `Tensor` nodes.
    pub params: Vec<Expr>,
    /// The body.
    pub body: Stmt,
    /// The return type (`void` for none).
    #[ir(skip)]
    pub ret: DType,
    /// Attributes.
    #[ir(skip, eq = false)]
    pub attrs: Attrs,
}

impl IfElse {
    /// The branch taken when the condition is the constant `cond` (an empty
    /// block for a missing else); `None` when `cond` is not a constant.
    pub fn taken(&self, cond: &Expr) -> Option<Stmt> {
        if cond.as_value()?.as_bool()? {
            Some(self.then_case.clone())
        } else {
            Some(
                self.else_case
                    .clone()
                    .unwrap_or_else(|| super::build::stmts(Vec::new())),
            )
        }
    }
}

impl Func {
    /// The function with its body replaced by `f(body)`: itself (a clone
    /// sharing every node) when `f` hands back the very same body.
    pub fn map_body(&self, f: impl FnOnce(&Stmt) -> Stmt) -> Func {
        let body = f(&self.body);
        if body.same_as(&self.body) {
            return self.clone();
        }
        Func {
            body,
            ..self.clone()
        }
    }
}

/// A module of Tensor IR functions, under the framework's pass manager.
pub type Module = ir_core::pass::Module<Func>;
