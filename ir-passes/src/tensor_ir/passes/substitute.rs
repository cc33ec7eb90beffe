//! Substitution of variables and tensors, consistent at definitions and uses.

use ir_core::{IdMap, Node, ReplaceMap, Transformed};

use crate::tensor_ir::expr::{Expr, ExprMutator, Tensor, Var};
use crate::tensor_ir::stmt::{Func, Stmt, StmtMutator};

/// Replaces variables by expressions and tensors by tensors. A variable
/// mapped to another variable is replaced at its definitions too (a loop
/// variable, a `var`), so the result stays well scoped; a variable mapped to
/// any other expression is replaced at its uses. A tensor whose dims mention
/// a substituted variable gets one new identity, shared by its definition and
/// every use. The empty and the identity substitution return the very same
/// nodes.
///
/// ```
/// use ir_passes::tensor_ir::{constant, var_of, DType, Expr};
/// use ir_passes::tensor_ir::passes::Substitute;
///
/// let i = var_of("i", DType::S32);
/// let e = Expr::from(i.clone()) + constant(1);
/// let out = Substitute::var(&i, constant(4)).apply(&e);
/// assert_eq!(out.to_string(), "(4 + 1)");
/// ```
#[derive(Default)]
pub struct Substitute {
    vars: IdMap<Node<Var>, Expr>,
    tensors: IdMap<Node<Tensor>, Node<Tensor>>,
    /// Tensors rebuilt because their dims changed, so every occurrence of
    /// one gets the same new node.
    rebuilt: ReplaceMap<Tensor>,
}

impl Substitute {
    /// An empty substitution.
    pub fn new() -> Self {
        Self::default()
    }

    /// `var` replaced by `value`.
    pub fn var(var: &Node<Var>, value: Expr) -> Self {
        let mut s = Self::new();
        s.insert_var(var, value);
        s
    }

    /// Adds `var` ↦ `value`.
    pub fn insert_var(&mut self, var: &Node<Var>, value: Expr) -> &mut Self {
        self.vars.insert(var.id(), value);
        self
    }

    /// Adds `tensor` ↦ `replacement`.
    pub fn insert_tensor(&mut self, tensor: &Node<Tensor>, replacement: Node<Tensor>) -> &mut Self {
        self.tensors.insert(tensor.id(), replacement);
        self
    }

    /// Whether the substitution maps nothing.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty() && self.tensors.is_empty()
    }

    /// Applies it to an expression.
    pub fn apply(&mut self, e: &Expr) -> Expr {
        if self.is_empty() {
            return e.clone();
        }
        self.mutate_expr(e).unwrap_or_clone(e)
    }

    /// Applies it to a statement.
    pub fn apply_stmt(&mut self, s: &Stmt) -> Stmt {
        if self.is_empty() {
            return s.clone();
        }
        self.mutate_stmt(s).unwrap_or_clone(s)
    }

    /// Applies it to a function, parameters included.
    pub fn apply_func(&mut self, f: &Func) -> Func {
        if self.is_empty() {
            return f.clone();
        }
        ir_core::Mutate::mutate(f, self).unwrap_or_clone(f)
    }
}

impl Substitute {
    /// A tensor at a definition or a use: its mapped replacement, else one
    /// rebuild for all its occurrences when its dims changed.
    fn tensor(&mut self, t: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        if let Some(to) = self.tensors.get(&t.id()) {
            return changed(t, to);
        }
        if let Some(to) = self.rebuilt.get(t) {
            return Transformed::Replace(to.clone());
        }
        let outcome = t.rebuild(self);
        self.rebuilt.record(t, outcome)
    }
}

/// `Replace(to)` unless `to` is `from` itself.
fn changed<T>(from: &Node<T>, to: &Node<T>) -> Transformed<Node<T>> {
    if to.same_as(from) {
        Transformed::Keep
    } else {
        Transformed::Replace(to.clone())
    }
}

impl ExprMutator for Substitute {
    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        match self.vars.get(&v.id()) {
            Some(Expr::Var(to)) => changed(v, to).map(Expr::Var),
            Some(e) => Transformed::Replace(e.clone()),
            None => Transformed::Keep,
        }
    }

    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        match self.vars.get(&v.id()) {
            Some(Expr::Var(to)) => changed(v, to),
            _ => Transformed::Keep,
        }
    }

    fn mutate_tensor(&mut self, t: &Node<Tensor>) -> Transformed<Expr> {
        self.tensor(t).map(Expr::Tensor)
    }

    fn mutate_tensor_def(&mut self, t: &Node<Tensor>) -> Transformed<Node<Tensor>> {
        self.tensor(t)
    }
}

impl StmtMutator for Substitute {}
