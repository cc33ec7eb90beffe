//! `cse`: common subexpression elimination (TVM's `EliminateCommonSubexpr`).
//!
//! A binding whose value (with its match_cast type) is structurally equal
//! to an earlier binding's in scope becomes a trivial binding of that
//! earlier variable, and later uses of its variable use the earlier one
//! (`canonicalize-bindings` then removes the trivial binding). Calls that
//! may have effects are never merged; with `call_only`, only calls are.
//!
//! Functions and `if`s bound to variables are not merged (see
//! `eligible`).
//!
//! Scopes: what a dataflow block binds to dataflow variables is forgotten
//! at its end; an `if` branch forgets what it learned; a nested function is
//! rewritten on its own, from nothing. Each scope is undone from a log of
//! what it added, so nested scopes cost what they add, not what encloses
//! them.

use ir_core::structural::{structural_eq, structural_hash};
use ir_core::{Node, Transformed};
use rustc_hash::FxHashMap;

use super::purity::contains_impure_call;
use crate::relax::BuilderError;
use crate::relax::expr::{
    Binding, BindingBlock, Expr, ExprMutator, ExprVisitor, Function, If, Var,
};
use crate::relax::mutator::{self, MutatorState, run_mutator};
use crate::relax::prim::PrimExprMutator;
use crate::relax::sinfo::{StructInfo, StructInfoMutator};

/// A value seen bound, and the variables bound to it in scope (the first
/// is the one later duplicates become).
struct Seen {
    value: Expr,
    cast: Option<StructInfo>,
    vars: Vec<Node<Var>>,
}

/// What a scope added, to undo at its end.
enum Added {
    /// `var` was appended to the entry `table[hash][index]`.
    Bound {
        hash: u64,
        index: usize,
        var: Node<Var>,
    },
    /// `var`'s uses were remapped.
    Remap(Node<Var>),
}

struct Cse {
    state: MutatorState,
    call_only: bool,
    table: FxHashMap<u64, Vec<Seen>>,
    log: Vec<Added>,
}

impl Cse {
    fn new(call_only: bool) -> Self {
        Cse {
            state: MutatorState::default(),
            call_only,
            table: FxHashMap::default(),
            log: Vec::new(),
        }
    }

    fn is_clean(&self) -> bool {
        self.log.is_empty()
    }

    /// Undoes what was added after `mark`; with `only_dataflow`, only the
    /// dataflow variables' entries (a dataflow block's end) and every remap.
    fn undo_to(&mut self, mark: usize, only_dataflow: bool) {
        let added: Vec<Added> = self.log.drain(mark..).collect();
        let mut kept = Vec::new();
        for a in added.into_iter().rev() {
            match a {
                Added::Remap(var) => {
                    self.state.var_remap.remove(&var.id());
                }
                Added::Bound { hash, index, var } => {
                    if only_dataflow && !var.dataflow {
                        kept.push(Added::Bound { hash, index, var });
                        continue;
                    }
                    if let Some(entry) = self.table.get_mut(&hash).and_then(|e| e.get_mut(index))
                        && let Some(at) = entry.vars.iter().rposition(|v| v.same_as(&var))
                    {
                        entry.vars.remove(at);
                    }
                }
            }
        }
        kept.reverse();
        self.log.extend(kept);
    }

    /// The value's slot in the table: (hash, index of an equal entry).
    fn find(&self, value: &Expr, cast: &Option<StructInfo>) -> (u64, Option<usize>) {
        // Structural hashing sees a free variable only by its contents, so
        // `add(lv1, x)` and `add(lv2, x)` would share a bucket (and a chain
        // of such bindings, one bucket); the identities of the variables
        // used tell them apart.
        let mut ids = VarIds(0);
        ir_core::Walk::walk(value, &mut ids);
        let mut hash = structural_hash(value) ^ ids.0;
        if let Some(c) = cast {
            hash = hash.rotate_left(17) ^ structural_hash(c);
        }
        let index = self.table.get(&hash).and_then(|entries| {
            entries.iter().position(|e| {
                structural_eq(&e.value, value)
                    && match (&e.cast, cast) {
                        (None, None) => true,
                        (Some(a), Some(b)) => structural_eq(a, b),
                        _ => false,
                    }
            })
        });
        (hash, index)
    }

    fn eligible(&self, value: &Expr) -> bool {
        // Values that are scopes (functions, `if`s) are not merged: hashing
        // each one of a nest of them would cost the nest's size per level.
        // (TVM merges equal local functions; this pass does not.)
        if matches!(value, Expr::Function(_) | Expr::If(_) | Expr::SeqExpr(_)) {
            return false;
        }
        // Two allocations are two objects, however alike (TVM's `TAllocator`).
        let allocates = matches!(value, Expr::Call(c)
            if matches!(c.op(), Expr::Op(op) if op.def().is_some_and(|d| d.allocator)));
        (matches!(value, Expr::Call(_)) || !self.call_only)
            && !allocates
            && !contains_impure_call(value)
    }
}

/// An order-insensitive hash of the variables an expression uses.
struct VarIds(u64);

impl crate::relax::prim::PrimExprVisitor for VarIds {}
impl crate::relax::sinfo::StructInfoVisitor for VarIds {}
impl ExprVisitor for VarIds {
    fn visit_var(&mut self, v: &Node<Var>) {
        let id = v.id();
        let mut h = rustc_hash::FxHasher::default();
        std::hash::Hash::hash(&id, &mut h);
        self.0 = self.0.wrapping_add(std::hash::Hasher::finish(&h));
    }
    fn visit_var_def(&mut self, _: &Node<Var>) {}
}

impl PrimExprMutator for Cse {}
impl StructInfoMutator for Cse {}

impl ExprMutator for Cse {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.state
    }

    fn mutate_binding(&mut self, b: &Node<Binding>) -> Transformed<Expr> {
        let value = self.mutate_expr(&b.value);
        let new_value = value.as_ref_or(&b.value).clone();
        if self.eligible(&new_value) {
            let (hash, found) = self.find(&new_value, &b.cast);
            let entries = self.table.entry(hash).or_default();
            let index = found.unwrap_or_else(|| {
                entries.push(Seen {
                    value: new_value.clone(),
                    cast: b.cast.clone(),
                    vars: Vec::new(),
                });
                entries.len() - 1
            });
            let vars = &mut entries[index].vars;
            let first = vars.first().filter(|first| !first.same_as(&b.var)).cloned();
            vars.push(b.var.clone());
            self.log.push(Added::Bound {
                hash,
                index,
                var: b.var.clone(),
            });
            if let Some(first) = first {
                // The duplicate becomes `var = first`, and its uses `first`.
                self.state.remap(&b.var, &first);
                self.log.push(Added::Remap(b.var.clone()));
                let trivial = Node::new(Binding {
                    value: Expr::Var(first),
                    cast: None,
                    var: b.var.clone(),
                });
                if let Err(e) = self.state.builder.emit_normalized(trivial) {
                    self.state.fail(e);
                }
                return Transformed::Keep;
            }
        }
        mutator::binding_with_value(self, b, value)
    }

    fn mutate_binding_block(&mut self, block: &Node<BindingBlock>) -> Transformed<Expr> {
        let mark = self.log.len();
        let out = mutator::binding_block(self, block);
        if block.dataflow {
            self.undo_to(mark, true);
        }
        out
    }

    fn mutate_if(&mut self, i: &Node<If>) -> Transformed<Expr> {
        // Each branch starts from what was known before the `if` (its
        // condition, a variable, binds nothing).
        let mark = self.log.len();
        mutator::if_with(self, i, |cse| cse.undo_to(mark, false))
    }

    fn mutate_function(&mut self, f: &Node<Function>) -> Transformed<Expr> {
        if self.is_clean() {
            return mutator::function(self, f);
        }
        // A nested function is rewritten from nothing, so that no binding
        // of one scope stands for a value of the other.
        let mut inner = Cse::new(self.call_only);
        match run_mutator(&mut inner, &Expr::Function(f.clone())) {
            Ok(Expr::Function(g)) if !g.same_as(f) => Transformed::Replace(Expr::Function(g)),
            Ok(_) => Transformed::Keep,
            Err(e) => {
                self.state.fail(e);
                Transformed::Keep
            }
        }
    }
}

/// `f` with common subexpressions eliminated; `call_only` merges calls only.
pub fn eliminate_common_subexpr(
    f: &Node<Function>,
    call_only: bool,
) -> Result<Transformed<Node<Function>>, BuilderError> {
    match run_mutator(&mut Cse::new(call_only), &Expr::Function(f.clone()))? {
        Expr::Function(g) if !g.same_as(f) => Ok(Transformed::Replace(g)),
        _ => Ok(Transformed::Keep),
    }
}
