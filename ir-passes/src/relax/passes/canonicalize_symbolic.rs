//! The first step of `canonicalize-bindings` (TVM's
//! `SymbolicVarCanonicalizer`). A `match_cast` whose pattern puts symbolic
//! variables where its value's struct info has expressions tells what they
//! are: `z = R.match_cast(x, R.Tensor((o, p)))` of an `x: R.Tensor((m, n))`
//! says that `o` is `m` and `p` is `n`. From there on every struct info and
//! shape says so, the cast becomes one that `x` already satisfies, and the
//! bindings step removes it.

use ir_core::{Id, IdMap, Node, Transformed};

use crate::relax::BuilderError;
use crate::relax::arith::const_value;
use crate::relax::expr::{Binding, Expr, ExprMutator, Function, If, Var};
use crate::relax::infer::{sinfo_of, symbolic_bindings};
use crate::relax::mutator::{self, MutatorState, run_mutator};
use crate::relax::prim::{PrimExpr, PrimExprMutator, PrimVar};
use crate::relax::sinfo::StructInfoMutator;

/// `f` with the symbolic variables its `match_cast`s pin down replaced by
/// what they stand for; an error when two casts pin one variable to two
/// different constants.
pub(super) fn substitute_known_symbolic(
    f: &Node<Function>,
) -> Result<Transformed<Node<Function>>, BuilderError> {
    let mut pass = Substitute {
        state: MutatorState::default(),
        known: IdMap::default(),
    };
    let out = run_mutator(&mut pass, &Expr::Function(f.clone()))?;
    Ok(match out {
        Expr::Function(g) if !g.same_as(f) => Transformed::Replace(g),
        _ => Transformed::Keep,
    })
}

struct Substitute {
    state: MutatorState,
    /// Symbolic variable -> what a cast showed it to be.
    known: IdMap<Node<PrimVar>, PrimExpr>,
}

impl Substitute {
    /// Learns what `cast`'s symbolic variables are from `value`'s struct info.
    fn learn(&mut self, cast: &crate::relax::StructInfo, value: &Expr) {
        let Ok(actual) = sinfo_of(value) else { return };
        for (var, expr) in symbolic_bindings(cast, &actual) {
            if matches!(&expr, PrimExpr::PrimVar(e) if e.id() == var) {
                continue;
            }
            self.record(var, expr);
        }
    }

    fn record(&mut self, var: Id<Node<PrimVar>>, expr: PrimExpr) {
        match self.known.get(&var) {
            None => {
                self.known.insert(var, expr);
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
}

impl PrimExprMutator for Substitute {
    fn mutate_prim_var(&mut self, v: &Node<PrimVar>) -> Transformed<PrimExpr> {
        match self.known.get(&v.id()) {
            Some(e) => Transformed::Replace(e.clone()),
            None => Transformed::Keep,
        }
    }
}
impl StructInfoMutator for Substitute {}

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
        match self.mutate_struct_info(&v.sinfo) {
            Transformed::Replace(s) => Transformed::Replace(Var::with_sinfo(v, s)),
            Transformed::Keep => Transformed::Keep,
        }
    }

    /// What a function's casts showed holds in it only.
    fn mutate_function(&mut self, f: &Node<Function>) -> Transformed<Expr> {
        let before = self.known.clone();
        let out = mutator::function(self, f);
        self.known = before;
        out
    }

    /// What a branch's casts showed holds in that branch only.
    fn mutate_if(&mut self, i: &Node<If>) -> Transformed<Expr> {
        let before = self.known.clone();
        mutator::if_with(self, i, |m| m.known.clone_from(&before))
    }
}
