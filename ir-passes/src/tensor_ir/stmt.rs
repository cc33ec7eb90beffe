//! Tensor IR statements; their kinds hold expressions.

use std::collections::BTreeMap;

use ir_core::{Mutable, Node, Visitable};

use super::expr::{Expr, ExprMutator, ExprRewriter, ExprVisitor, Var};

/// Free-form attributes on a statement (oneDNN's `attr_`), carried over
/// unchanged when a statement is rebuilt (its `copy_attr`).
pub type Attrs = BTreeMap<String, String>;

/// `var = value`
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Assign {
    /// The assigned location.
    pub var: Expr,
    /// The assigned value.
    pub value: Expr,
    /// Attributes.
    #[ir(skip)]
    pub attrs: Attrs,
}

/// A sequence of statements.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Seq {
    /// The statements, in order.
    pub stmts: Vec<Stmt>,
    /// Attributes.
    #[ir(skip)]
    pub attrs: Attrs,
}

/// `if (cond) { then_case } else { else_case }`
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct IfElse {
    /// The condition.
    pub condition: Expr,
    /// Runs when the condition holds.
    pub then_case: Stmt,
    /// Runs otherwise, if present.
    pub else_case: Option<Stmt>,
    /// Attributes.
    #[ir(skip)]
    pub attrs: Attrs,
}

/// `for var in (begin, end, step) { body }`
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct ForLoop {
    /// The loop variable: a definition site (`visit_var_def`).
    pub var: Node<Var>,
    /// First value.
    pub iter_begin: Expr,
    /// Bound (exclusive).
    pub iter_end: Expr,
    /// Increment.
    pub step: Expr,
    /// The loop body.
    pub body: Stmt,
    /// Whether the loop variable increases.
    #[ir(skip)]
    pub incremental: bool,
    /// Attributes.
    #[ir(skip)]
    pub attrs: Attrs,
}

/// Evaluates an expression for its effect.
#[derive(Debug, Clone, Visitable, Mutable)]
pub struct Evaluate {
    /// The expression.
    pub value: Expr,
    /// Attributes.
    #[ir(skip)]
    pub attrs: Attrs,
}

/// Tensor IR statements: the family of statement node kinds.
#[derive(Debug, Clone, Visitable, Mutable)]
#[ir(uses(Expr))]
pub enum Stmt {
    /// `var = value`
    Assign(Node<Assign>),
    /// A sequence.
    Seq(Node<Seq>),
    /// A conditional.
    IfElse(Node<IfElse>),
    /// A counted loop.
    ForLoop(Node<ForLoop>),
    /// An expression statement.
    Evaluate(Node<Evaluate>),
}
