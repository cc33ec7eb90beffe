//! The consistent visitor of the oneDNN Graph Compiler
//! (`ir_consistent_visitor_t`): a replacement made at a definition (a `var`,
//! a `tensor`, a loop variable, a parameter) is carried to every later use,
//! in the same run and in later runs of the same pass.
//!
//! [`Replacements`] holds what was replaced; a pass owns one and routes its
//! four definition and use hooks through it. Unlike oneDNN's map, it does not
//! keep every replaced node alive for the pass's lifetime: an entry goes once
//! nothing but the map holds its old node (see [`ir_core::ReplaceMap`]).

use ir_core::{Node, ReplaceMap, Transformed};

use super::expr::{Expr, Tensor, Var};

/// Variables and tensors replaced at their definitions, by identity.
///
/// ```
/// use ir_core::{Node, Transformed};
/// use ir_passes::tensor_ir::consistent::Replacements;
/// use ir_passes::tensor_ir::*;
///
/// /// Renames the variable `x` at its definition; every use follows.
/// #[derive(Default)]
/// struct RenameX(Replacements);
/// impl ExprMutator for RenameX {
///     fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
///         let outcome = if v.name == "x" {
///             Transformed::Replace(var_of("y", v.dtype))
///         } else {
///             Transformed::Keep
///         };
///         self.0.var_def(v, outcome)
///     }
///     fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
///         self.0.var_use(v)
///     }
///     fn mutate_tensor_def(&mut self, t: &Node<Tensor>) -> Transformed<Node<Tensor>> {
///         self.0.tensor_def(t, Transformed::Keep)
///     }
///     fn mutate_tensor(&mut self, t: &Node<Tensor>) -> Transformed<Expr> {
///         self.0.tensor_use(t)
///     }
/// }
/// impl StmtMutator for RenameX {}
///
/// let s = parse_stmt("{ var x: s32 = 1  x = (x + 2) }").unwrap();
/// let out = RenameX::default().mutate_stmt(&s).unwrap_or_clone(&s);
/// assert_eq!(out.to_string(), "{\n  var y: s32 = 1\n  y = (y + 2)\n}");
/// ```
#[derive(Debug, Default)]
pub struct Replacements {
    vars: ReplaceMap<Var>,
    tensors: ReplaceMap<Tensor>,
}

impl Replacements {
    /// No replacements.
    pub fn new() -> Self {
        Self::default()
    }

    /// At a variable's definition: the hook's `outcome`, recorded for every
    /// later use. A definition the hook keeps takes the replacement an
    /// earlier run made for it, if any.
    pub fn var_def(
        &mut self,
        v: &Node<Var>,
        outcome: Transformed<Node<Var>>,
    ) -> Transformed<Node<Var>> {
        at_definition(&mut self.vars, v, outcome)
    }

    /// At a use of a variable: its replacement, if its definition was replaced.
    pub fn var_use(&self, v: &Node<Var>) -> Transformed<Expr> {
        self.vars.at_use(v).map(Expr::Var)
    }

    /// At a tensor's definition: as [`Replacements::var_def`].
    pub fn tensor_def(
        &mut self,
        t: &Node<Tensor>,
        outcome: Transformed<Node<Tensor>>,
    ) -> Transformed<Node<Tensor>> {
        at_definition(&mut self.tensors, t, outcome)
    }

    /// At a use of a tensor: its replacement, if its definition was replaced.
    pub fn tensor_use(&self, t: &Node<Tensor>) -> Transformed<Expr> {
        self.tensors.at_use(t).map(Expr::Tensor)
    }

    /// How many replacements are held (after dropping those whose old node
    /// nothing else holds any more).
    pub fn len(&mut self) -> usize {
        self.vars.sweep();
        self.tensors.sweep();
        self.vars.len() + self.tensors.len()
    }

    /// `true` when no replacement is held (see [`Replacements::len`]).
    pub fn is_empty(&mut self) -> bool {
        self.len() == 0
    }
}

/// A definition's outcome, or the replacement an earlier run made for a
/// definition the hook keeps, recorded for later uses.
fn at_definition<K>(
    map: &mut ReplaceMap<K>,
    old: &Node<K>,
    outcome: Transformed<Node<K>>,
) -> Transformed<Node<K>> {
    let outcome = match outcome {
        Transformed::Keep => map.at_use(old),
        replaced => replaced,
    };
    map.record(old, outcome)
}
