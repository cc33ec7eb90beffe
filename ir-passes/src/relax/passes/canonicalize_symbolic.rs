//! The first step of `canonicalize-bindings` (TVM's
//! `SymbolicVarCanonicalizer`). A `match_cast` whose pattern puts symbolic
//! variables where its value's struct info has expressions tells what they
//! are: `z = R.match_cast(x, R.Tensor((o, p)))` of an `x: R.Tensor((m, n))`
//! says that `o` is `m` and `p` is `n`. From there on every struct info and
//! shape says so; a cast whose pattern is made of such variables then
//! holds already, and the bindings step removes it.

use ir_core::{Family, Id, IdMap, Node, Rebuild, Transformed};

use crate::relax::BuilderError;
use crate::relax::arith::const_value;
use crate::relax::expr::{Binding, Expr, ExprMutator, Function, If, Var};
use crate::relax::infer::{sinfo_of, symbolic_bindings};
use crate::relax::mutator::{self, MutatorState, run_mutator};
use crate::relax::prim::{PrimExpr, PrimExprMutator, PrimVar};
use crate::relax::sinfo::{StructInfo, StructInfoMutator};

/// `f` with the symbolic variables its `match_cast`s pin down replaced by
/// what they stand for; an error when two casts pin one variable to two
/// different constants.
pub(super) fn substitute_known_symbolic(
    f: &Node<Function>,
) -> Result<Transformed<Node<Function>>, BuilderError> {
    let mut pass = Substitute {
        state: MutatorState::default(),
        known: IdMap::default(),
        learned: Vec::new(),
        retyped: IdMap::default(),
    };
    let out = run_mutator(&mut pass, &Expr::Function(f.clone()))?;
    Ok(match out {
        Expr::Function(g) if !g.same_as(f) => Transformed::Replace(g),
        _ => Transformed::Keep,
    })
}

struct Substitute {
    state: MutatorState,
    /// Symbolic variable -> what a cast showed it to be (itself, when a
    /// cast matched it against itself: TVM records that too, and a later
    /// cast cannot pin it then).
    known: IdMap<Node<PrimVar>, PrimExpr>,
    /// The variables of `known`, in the order they were learned: a scope
    /// forgets what it learned by truncating this (an undo log, so that
    /// leaving a scope costs what the scope learned, not all that is known).
    learned: Vec<Id<Node<PrimVar>>>,
    /// Struct info -> the same with `known` substituted, while `known` is
    /// unchanged: struct info is shared (a tuple's holds its fields'), and
    /// each node is rewritten once. The key node is held, so that its
    /// address is not reused while it is a key.
    retyped: IdMap<StructInfo, (StructInfo, Transformed<StructInfo>)>,
}

impl Substitute {
    /// Learns what `cast`'s symbolic variables are from `value`'s struct info.
    fn learn(&mut self, cast: &StructInfo, value: &Expr) {
        let Ok(actual) = sinfo_of(value) else { return };
        for (var, expr) in symbolic_bindings(cast, &actual) {
            self.record(var, expr);
        }
    }

    fn record(&mut self, var: Id<Node<PrimVar>>, expr: PrimExpr) {
        match self.known.get(&var) {
            None => {
                self.known.insert(var, expr);
                self.learned.push(var);
                self.retyped.clear();
            }
            Some(before) => {
                if let (Some(a), Some(b)) = (const_value(before), const_value(&expr))
                    && a != b
                {
                    self.state.fail(BuilderError(format!(
                        "match_cast statements must be consistent: one symbolic variable \
                         is {a} by one and {b} by another"
                    )));
                }
            }
        }
    }

    /// Forgets what was learned since `mark` (a length of `learned`).
    fn forget_since(&mut self, mark: usize) {
        if self.learned.len() == mark {
            return;
        }
        for var in self.learned.drain(mark..) {
            self.known.remove(&var);
        }
        self.retyped.clear();
    }
}

impl PrimExprMutator for Substitute {
    fn mutate_prim_var(&mut self, v: &Node<PrimVar>) -> Transformed<PrimExpr> {
        match self.known.get(&v.id()) {
            Some(PrimExpr::PrimVar(w)) if w.same_as(v) => Transformed::Keep,
            Some(e) => Transformed::Replace(e.clone()),
            None => Transformed::Keep,
        }
    }
}
impl StructInfoMutator for Substitute {
    fn mutate_struct_info(&mut self, s: &StructInfo) -> Transformed<StructInfo> {
        if let Some((_, done)) = self.retyped.get(&s.id()) {
            return done.clone();
        }
        let done = s.rebuild(self);
        self.retyped.insert(s.id(), (s.clone(), done.clone()));
        done
    }
}

impl ExprMutator for Substitute {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.state
    }

    fn mutate_binding(&mut self, b: &Node<Binding>) -> Transformed<Expr> {
        let value = self.mutate_expr(&b.value);
        if let Some(cast) = &b.cast {
            self.learn(cast, value.as_ref_or(&b.value));
        }
        mutator::binding_with_value(self, b, value)
    }

    /// A variable's struct info says what is known too.
    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        if self.known.is_empty() {
            return Transformed::Keep;
        }
        self.mutate_struct_info(&v.sinfo)
            .map(|s| Var::with_sinfo(v, s))
    }

    /// What a function's casts showed holds in it only.
    fn mutate_function(&mut self, f: &Node<Function>) -> Transformed<Expr> {
        let mark = self.learned.len();
        let out = mutator::function(self, f);
        self.forget_since(mark);
        out
    }

    /// What a branch's casts showed holds in that branch only.
    fn mutate_if(&mut self, i: &Node<If>) -> Transformed<Expr> {
        let mark = self.learned.len();
        mutator::if_with(self, i, |m| m.forget_since(mark))
    }
}
