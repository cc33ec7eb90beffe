//! InferType as a pass: infers types, then writes the inferred types into
//! unannotated let variables and function return types, so later passes and
//! readers see them. A retyped variable is remapped at its definition and at
//! every use (Relax's `var_remap_`), so both stay the same node.

use crate::relay::pattern::PatternMutator;
use ir_core::{IdMap, MemoMap, Node, Transformed};

use crate::relay::expr::{Expr, ExprMutator, Function, Var};
use crate::relay::infer::{CompleteTypes, TypeError, TypeMap, infer_function};
use crate::relay::module::RelayModule;
use crate::relay::ty::{Type, TypeMutator};

struct Fill<'a> {
    types: &'a TypeMap,
    remap: IdMap<Node<Var>, Node<Var>>,
    memo: MemoMap<Expr>,
    complete: CompleteTypes,
}

impl TypeMutator for Fill<'_> {
    // Types hold no expressions, and are shared: rebuilding each would cost
    // the depth of nested function types at every function.
    fn mutate_type(&mut self, _: &Type) -> Transformed<Type> {
        Transformed::Keep
    }
}
impl PatternMutator for Fill<'_> {}
impl ExprMutator for Fill<'_> {
    fn mutate_expr(&mut self, e: &Expr) -> Transformed<Expr> {
        ir_core::memoized(self, e, |pass| &mut pass.memo)
    }

    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        if let Some(new) = self.remap.get(&v.id()) {
            return Transformed::Replace(new.clone());
        }
        // The default recursion first: what a downstream dialect attached to
        // the variable (`Var::ext`) may name remapped variables.
        let rebuilt = v.rebuild(self);
        let current = rebuilt.as_ref_or(v);
        let new = match self.types.of_var(v) {
            Some(t) if current.annotation.is_none() && self.complete.check(t) => Node::new(Var {
                annotation: Some(t.clone()),
                ..(**current).clone()
            }),
            _ => match rebuilt {
                Transformed::Keep => return Transformed::Keep,
                Transformed::Replace(new) => new,
            },
        };
        self.remap.insert(v.id(), new.clone());
        Transformed::Replace(new)
    }

    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        self.remap.get(&v.id()).cloned().map(Expr::from).into()
    }

    fn mutate_function(&mut self, f: &Node<Function>) -> Transformed<Expr> {
        self.fill_function(f).map(Expr::from)
    }
}

impl Fill<'_> {
    fn fill_function(&mut self, f: &Node<Function>) -> Transformed<Node<Function>> {
        let rebuilt = f.rebuild(self);
        let current = rebuilt.as_ref_or(f);
        let body_type = self
            .types
            .of(&f.body)
            .filter(|t| self.complete.check(t))
            .cloned();
        match (&current.ret_type, body_type) {
            (None, Some(t)) => Transformed::Replace(Node::new(Function {
                ret_type: Some(t),
                ..(**current).clone()
            })),
            _ => rebuilt,
        }
    }
}

/// Infers the types of `f` and writes them into unannotated let variables
/// and return types. Fails on a type error.
pub fn fill_types(
    module: &RelayModule,
    f: &Node<Function>,
) -> Result<Transformed<Node<Function>>, TypeError> {
    let (types, _) = infer_function(module, f)?;
    let mut fill = Fill {
        types: &types,
        remap: IdMap::default(),
        memo: MemoMap::new(),
        complete: CompleteTypes::default(),
    };
    Ok(fill.fill_function(f))
}
