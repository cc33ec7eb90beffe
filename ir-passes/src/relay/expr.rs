//! Relay expressions.

use ecow::EcoString;
use ir_core::ext::Ext;
use ir_core::{Mutable, Node, Rare, ShortVec, StructuralEq, Visitable};

use super::extension::RelayExtension;

use std::sync::Arc;

use super::adt::TypeData;
use super::attrs::Attrs;
use super::pattern::{Pattern, PatternMutator, PatternRewriter, PatternVisitor};
use super::tensor::Tensor;
// `uses(Type)` makes the type traits supertraits of the expression traits.
use super::ty::{Type, TypeMutator, TypeRewriter, TypeVisitor};

/// Where a node came from in the source text (1-based), or `0:0` when made by a pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

/// A constant tensor.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Constant {
    /// The data.
    #[ir(skip)]
    pub data: Tensor,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// A local variable. Identity is the node; the name is only a hint.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Var {
    /// Name hint, without `%`. Names of up to 15 bytes are stored in place:
    /// a variable costs one allocation, not two.
    #[ir(skip, eq = false)]
    pub name: EcoString,
    /// The annotated type, if any.
    pub annotation: Option<Type>,
    /// What a downstream dialect attaches to the variable: a node of a kind
    /// it added to [`Expr`] (`Expr::Ext`), such as RAF's `may_share`. It is
    /// a child ([`Rare`]: out of line, so Relay's own variables pay a null
    /// check), so passes visit it, rewrite it copy-on-write and compare it,
    /// and every pass that carries the variable over carries it too. Printed
    /// at definition sites after the name, `%b{...}`, through the kind's
    /// [`RelayExtension::print`]. `None` for Relay's own variables.
    ///
    /// A pass that changes it at a definition builds a new variable: it then
    /// maps the old variable to the new one at every use, overriding
    /// `mutate_var_def` to record and `mutate_var` to redirect (an
    /// [`ir_core::ReplaceMap`]; `infer-type`, `fold-constant`, `to-gnf` and
    /// `dce` do). Left at their defaults, both hooks rebuild the variable
    /// where they meet it, a new node at every use. `dce` never inlines a
    /// variable that carries one.
    pub ext: Rare<Expr>,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// A global function name, `@main`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct GlobalVar {
    /// The name, without `@`.
    #[ir(skip)]
    pub name: String,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// A primitive operator, by name: `add`, `nn.relu`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Op {
    /// The registered name.
    #[ir(skip)]
    pub name: String,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `(a, b)`; `()` is the unit value.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Tuple {
    /// The fields.
    pub fields: Vec<Expr>,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `%t.0`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct TupleGetItem {
    /// The tuple.
    pub tuple: Expr,
    /// The field index.
    #[ir(skip)]
    pub index: usize,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `fn (%x: T) -> R { body }`, or generic: `fn [A](%x: A) -> A { %x }`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Function {
    /// Type parameters, by name, in scope in the signature and the body.
    #[ir(skip)]
    pub type_params: Vec<String>,
    /// Parameters: definition sites.
    pub params: Vec<Node<Var>>,
    /// The annotated return type, if any.
    pub ret_type: Option<Type>,
    /// The body.
    pub body: Expr,
    /// Function attributes (`Primitive=1`).
    #[ir(skip)]
    pub attrs: Attrs,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `op(args, attrs)`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Call {
    /// The callee: an op, a function, a variable or a global.
    pub op: Expr,
    /// The arguments: two or fewer are stored in the node, so most calls
    /// cost one allocation.
    pub args: ShortVec<Expr>,
    /// Operator attributes.
    #[ir(skip)]
    pub attrs: Attrs,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `let %x = value; body`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Let {
    /// The bound variable: a definition site.
    pub var: Node<Var>,
    /// The bound value (the variable is in scope in it, for recursion).
    pub value: Expr,
    /// The rest of the sequence: let chains are walked in a loop, not by recursion.
    #[ir(tail)]
    pub body: Expr,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `if (cond) { then } else { else }`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct If {
    /// The condition, a rank-0 bool.
    pub cond: Expr,
    /// The true branch.
    pub then_branch: Expr,
    /// The false branch.
    pub else_branch: Expr,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// A constructor of an algebraic data type, `Cons` or `Nil`: called with
/// its fields, it makes a value of the type.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Constructor {
    /// The constructor's name.
    #[ir(skip)]
    pub name: String,
    /// Its position in its type's definition.
    #[ir(skip)]
    pub tag: usize,
    /// The type definition it belongs to (its fields' types, its type's
    /// parameters and its siblings), shared by every use.
    #[ir(skip, eq = false)]
    pub adt: Arc<TypeData>,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// One arm of a `match`: `pattern => { body }`. The pattern's variables
/// are in scope in the body.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Clause {
    /// The pattern.
    pub lhs: Pattern,
    /// The body.
    pub rhs: Expr,
}

/// `match (data) { clauses }`; `match?` when the clauses need not cover
/// every value (`complete` false).
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct Match {
    /// The value matched.
    pub data: Expr,
    /// The arms, tried in order.
    pub clauses: Vec<Clause>,
    /// `match` (true) or `match?` (false).
    #[ir(skip)]
    pub complete: bool,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `ref(value)`: a new reference cell holding `value`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct RefCreate {
    /// The initial value.
    pub value: Expr,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `ref_read(r)`: the value a reference holds.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct RefRead {
    /// The reference.
    pub reference: Expr,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// `ref_write(r, value)`: stores `value` into `r`; its value is `()`.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
pub struct RefWrite {
    /// The reference.
    pub reference: Expr,
    /// The value stored.
    pub value: Expr,
    /// Source position.
    #[ir(skip, eq = false)]
    pub span: Span,
}

/// The family of Relay expressions. Var, Call, Let, If, Function and Tuple
/// are graph nodes for structural equality: sharing them is observable.
///
/// The family is open: other crates add kinds to it (`Ext`), which implement
/// [`RelayExtension`](super::RelayExtension) for Relay's passes.
#[derive(Debug, Clone, Visitable, Mutable, StructuralEq)]
#[ir(uses(Type, Pattern), extensible(interface = RelayExtension), rewriter, in_place)]
pub enum Expr {
    /// A constant.
    Constant(Node<Constant>),
    /// A variable use; let variables and parameters are its definition sites.
    #[ir(def)]
    Var(Node<Var>),
    /// A global function.
    GlobalVar(Node<GlobalVar>),
    /// An operator.
    Op(Node<Op>),
    /// A tuple.
    #[ir(graph)]
    Tuple(Node<Tuple>),
    /// A projection.
    TupleGetItem(Node<TupleGetItem>),
    /// A function.
    #[ir(graph)]
    Function(Node<Function>),
    /// A call.
    #[ir(graph)]
    Call(Node<Call>),
    /// A let binding.
    #[ir(graph)]
    Let(Node<Let>),
    /// A conditional.
    #[ir(graph)]
    If(Node<If>),
    /// A constructor of an algebraic data type.
    Constructor(Node<Constructor>),
    /// A pattern match: its clauses' variables are definition sites,
    /// visited after their pattern and before their body.
    #[ir(graph, visit = super::pattern::visit_match, mutate = super::pattern::mutate_match)]
    Match(Node<Match>),
    /// A new reference.
    #[ir(graph)]
    RefCreate(Node<RefCreate>),
    /// A reference read.
    #[ir(graph)]
    RefRead(Node<RefRead>),
    /// A reference write.
    #[ir(graph)]
    RefWrite(Node<RefWrite>),
    /// A node of a kind added by another crate.
    Ext(Ext<Expr>),
}

/// Constructors for pass authors and tests.
impl Expr {
    /// A constant.
    pub fn constant(data: Tensor) -> Expr {
        Constant {
            data,
            span: Span::default(),
        }
        .into()
    }

    /// A fresh variable handle.
    pub fn var(name: &str, annotation: Option<Type>) -> Node<Var> {
        Node::new(Var {
            name: name.into(),
            annotation,
            ext: Rare::none(),
            span: Span::default(),
        })
    }

    /// An operator reference.
    pub fn op(name: &str) -> Expr {
        Op {
            name: name.to_owned(),
            span: Span::default(),
        }
        .into()
    }

    /// A call of `op` (any callee) with no attributes; `args` is a `Vec`,
    /// an array or a [`ShortVec`].
    pub fn call(op: Expr, args: impl Into<ShortVec<Expr>>) -> Expr {
        Call {
            op,
            args: args.into(),
            attrs: Attrs::new(),
            span: Span::default(),
        }
        .into()
    }

    /// A call of the operator named `op`.
    pub fn call_op(op: &str, args: impl Into<ShortVec<Expr>>) -> Expr {
        Expr::call(Expr::op(op), args)
    }

    /// `let var = value; body`.
    pub fn let_(var: Node<Var>, value: Expr, body: Expr) -> Expr {
        Let {
            var,
            value,
            body,
            span: Span::default(),
        }
        .into()
    }

    /// A tuple.
    pub fn tuple(fields: Vec<Expr>) -> Expr {
        Tuple {
            fields,
            span: Span::default(),
        }
        .into()
    }
}
