//! InferType as a pass: infers types, then writes the inferred types into
//! unannotated let variables and function return types, so later passes and
//! readers see them. A retyped variable is remapped at its definition and at
//! every use (Relax's `var_remap_`), so both stay the same node.
//!
//! Only a type of at most [`MAX_ANNOTATION`] nodes, as printed, is written:
//! types are shared, so the type of each of `n` nested functions holds the
//! next one's, and annotating every level would print `n^2` type nodes from
//! a program of `n` (an annotation is optional; the types stay inferable).

use crate::relay::pattern::PatternMutator;
use ir_core::{Family, IdMap, MemoMap, Node, Transformed};

use crate::relay::expr::{Expr, ExprMutator, Function, Var};
use crate::relay::infer::{CompleteTypes, TypeError, TypeMap, infer_function};
use crate::relay::module::RelayModule;
use crate::relay::ty::{Type, TypeMutator};

/// The most type nodes, as printed, `infer-type` writes into one annotation.
pub const MAX_ANNOTATION: usize = 256;

struct Fill<'a> {
    types: &'a TypeMap,
    remap: IdMap<Node<Var>, Node<Var>>,
    memo: MemoMap<Expr>,
    complete: CompleteTypes,
    /// The printed size of each type node met, up to `MAX_ANNOTATION + 1`.
    sizes: IdMap<Type, usize>,
}

impl Fill<'_> {
    /// Whether `t` is complete and small enough to write down.
    fn writable(&mut self, t: &Type) -> bool {
        self.complete.check(t) && self.printed_size(t) <= MAX_ANNOTATION
    }

    /// `t`'s size as printed (each shared node counted where it is printed),
    /// saturating just past the bound: remembered per node, so linear in the
    /// type nodes, not in the printed size.
    fn printed_size(&mut self, t: &Type) -> usize {
        ir_core::stack::guarded(|| {
            let children: &[Type] = match t {
                Type::TensorType(tensor) => return 1 + tensor.shape.len(),
                Type::IncompleteType(_) | Type::TypeVar(_) => return 1,
                Type::TupleType(tuple) => &tuple.fields,
                Type::TypeCall(call) => &call.args,
                Type::FuncType(_) | Type::RefType(_) => &[],
            };
            if let Some(&n) = self.sizes.get(&t.id()) {
                return n;
            }
            let mut n = 1usize;
            let mut add = |this: &mut Self, child: &Type| {
                n = (n + this.printed_size(child)).min(MAX_ANNOTATION + 1);
            };
            for child in children {
                add(self, child);
            }
            match t {
                Type::FuncType(f) => {
                    for p in &f.params {
                        add(self, p);
                    }
                    add(self, &f.ret);
                }
                Type::RefType(r) => add(self, &r.value),
                _ => {}
            }
            self.sizes.insert(t.id(), n);
            n
        })
    }
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
            Some(t) if current.annotation.is_none() && self.writable(t) => Node::new(Var {
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
        let body_type = self.types.of(&f.body).cloned().filter(|t| self.writable(t));
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
        sizes: IdMap::default(),
    };
    Ok(fill.fill_function(f))
}
