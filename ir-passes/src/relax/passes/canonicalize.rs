//! `canonicalize-bindings` (TVM's `CanonicalizeBindings`): trivial bindings
//! go and their uses name the original, as far as scoping allows.
//!
//! * `y = x` (and `y = R.match_cast(x, S)` when `x` is already known to be
//!   `S`): uses of `y` become `x`, and the binding goes.
//! * An output `gv = lv` of a variable defined in the same dataflow block:
//!   `lv`'s definition is renamed `gv` instead (a dataflow variable cannot
//!   be used after its block, and the output's name is the one that stays),
//!   and every use of `lv` becomes `gv`, earlier ones included.
//! * `w = t[i]` of a tuple `t = (.., x, ..)` bound in the function is `w = x`;
//!   `(t[0], .., t[n-1])` of an `n`-tuple `t` is `t`.
//! * A variable bound to a constant (or to a constant field of a tuple
//!   literal) is replaced by the constant where it is used.
//! * A variable defined in a dataflow block and used only inside it becomes
//!   a dataflow variable.
//! * First of all, symbolic variables that a `match_cast` pins down to its
//!   value's dimensions are replaced by them (`canonicalize_symbolic.rs`):
//!   the cast then holds already, and goes as `y = x` does.
//!
//! An analysis finds all of it first (a use may come before the trivial
//! binding that renames its variable), then a normalizing mutator applies
//! it; it re-derives the struct info of bindings whose values changed.

use ir_core::{Id, IdMap, IdSet, Node, Transformed};

use super::canonicalize_symbolic::substitute_known_symbolic;
use crate::relax::BuilderError;
use crate::relax::expr::{Binding, Expr, ExprMutator, ExprVisitor, Function, SeqExpr, Var};
use crate::relax::mutator::{self, MutatorState, run_mutator};
use crate::relax::prim::{PrimExprMutator, PrimExprVisitor};
use crate::relax::sinfo::{StructInfo, StructInfoMutator, StructInfoVisitor, is_base_of};

/// What the analysis decided.
#[derive(Default)]
struct Plan {
    /// Variable -> the variable its uses become.
    replace: IdMap<Node<Var>, Node<Var>>,
    /// Bindings (by variable) that go.
    drop: IdSet<Node<Var>>,
    /// Definition of a dataflow variable -> the output variable it becomes.
    rename_def: IdMap<Node<Var>, Node<Var>>,
    /// Variables bound to tuple literals: their fields.
    tuples: IdMap<Node<Var>, Vec<Expr>>,
    /// Variables bound to constants (directly, or as a field of a tuple
    /// literal): their uses become the constant; the binding stays.
    constants: IdMap<Node<Var>, Expr>,
    /// `w = t[i]`: w -> (t, i).
    items: IdMap<Node<Var>, (Node<Var>, usize)>,
    /// The dataflow block (an index) each variable was defined in.
    home: IdMap<Node<Var>, usize>,
    /// Variables used outside their home dataflow block, after the plan's
    /// replacements.
    used_outside: IdSet<Node<Var>>,
    /// The same, before any replacement.
    used_outside_raw: IdSet<Node<Var>>,
    /// Output variables to turn into dataflow variables.
    demote: IdSet<Node<Var>>,
    blocks: usize,
}

impl Plan {
    fn resolve(&self, v: &Node<Var>) -> Node<Var> {
        let mut v = v.clone();
        if self.replace.is_empty() {
            return v;
        }
        let mut steps = 0;
        while let Some(next) = self.replace.get(&v.id()) {
            if next.same_as(&v) || steps > self.replace.len() {
                break;
            }
            v = next.clone();
            steps += 1;
        }
        v
    }

    /// [`Self::resolve`] by identity.
    fn resolve_id(&self, mut v: Id<Node<Var>>) -> Id<Node<Var>> {
        if self.replace.is_empty() {
            return v;
        }
        let mut steps = 0;
        while let Some(next) = self.replace.get(&v) {
            if next.id() == v || steps > self.replace.len() {
                break;
            }
            v = next.id();
            steps += 1;
        }
        v
    }

    /// The constant a binding's value is, if it is one.
    fn constant(&self, b: &Binding) -> Option<Expr> {
        match (&b.value, &b.cast) {
            (Expr::Constant(_), None) => Some(b.value.clone()),
            (Expr::TupleGetItem(g), None) => {
                let Expr::Var(t) = &g.tuple else { return None };
                match self.tuples.get(&self.resolve(t).id())?.get(g.index)? {
                    c @ Expr::Constant(_) => Some(c.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The variable a trivial value stands for, if it is one.
    fn trivial(&self, b: &Binding) -> Option<Node<Var>> {
        match (&b.value, &b.cast) {
            (Expr::Var(u), None) => Some(u.clone()),
            (Expr::Var(u), Some(cast)) if is_base_of(cast, &u.sinfo) => Some(u.clone()),
            (Expr::TupleGetItem(g), None) => {
                let Expr::Var(t) = &g.tuple else { return None };
                match self.tuples.get(&self.resolve(t).id())?.get(g.index)? {
                    Expr::Var(field) => Some(field.clone()),
                    _ => None,
                }
            }
            (Expr::Tuple(t), None) if !t.fields.is_empty() => {
                // (t[0], ..., t[n-1]) of one n-tuple t is t itself.
                let mut whole: Option<Node<Var>> = None;
                for (i, f) in t.fields.iter().enumerate() {
                    let Expr::Var(f) = f else { return None };
                    let (src, idx) = self.items.get(&f.id())?;
                    if *idx != i || whole.as_ref().is_some_and(|w| !w.same_as(src)) {
                        return None;
                    }
                    whole = Some(src.clone());
                }
                let whole = whole?;
                match &whole.sinfo {
                    StructInfo::TupleStructInfo(s) if s.fields.len() == t.fields.len() => {
                        Some(whole)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn seq(&mut self, seq: &SeqExpr) {
        ir_core::stack::guarded(|| self.seq_inner(seq))
    }

    fn seq_inner(&mut self, seq: &SeqExpr) {
        for block in &seq.blocks {
            let id = block.dataflow.then(|| {
                self.blocks += 1;
                self.blocks
            });
            for b in &block.bindings {
                self.binding(b, id);
            }
        }
    }

    fn binding(&mut self, b: &Binding, block: Option<usize>) {
        match &b.value {
            Expr::Function(f) => self.function(f),
            Expr::If(i) => {
                self.seq(&i.true_branch);
                self.seq(&i.false_branch);
            }
            Expr::Tuple(t) => {
                self.tuples.insert(b.var.id(), t.fields.clone());
            }
            Expr::TupleGetItem(g) => {
                if let Expr::Var(t) = &g.tuple {
                    self.items.insert(b.var.id(), (self.resolve(t), g.index));
                }
            }
            _ => {}
        }
        // (`home` is the use scan's: every definition's block is known.)
        if let Some(c) = self.constant(b) {
            self.constants.insert(b.var.id(), c);
            return;
        }
        let Some(u) = self.trivial(b) else { return };
        let cu = self.resolve(&u);
        let v = &b.var;
        self.drop.insert(v.id());
        let same_block = block.is_some() && self.home.get(&cu.id()) == block.as_ref();
        // (Only a definition that stays can be renamed: `cu` may itself be
        // the new name of an earlier one.)
        let stays = !self.drop.contains(&cu.id()) && !self.rename_def.contains_key(&cu.id());
        // Only an output used after its block needs to keep its name.
        let needed = self.used_outside_raw.contains(&v.id());
        if !v.dataflow && same_block && stays && needed {
            // In a dataflow block, the definition takes the output's name.
            self.rename_def.insert(cu.id(), v.clone());
            self.replace.insert(cu.id(), v.clone());
        } else if !v.dataflow && cu.dataflow && needed {
            // Not expressible by renaming: keep the binding.
            self.drop.remove(&v.id());
        } else {
            self.replace.insert(v.id(), cu);
        }
    }

    fn function(&mut self, f: &Function) {
        self.seq(&f.body);
    }
}

/// Where a variable is used: at one site (a dataflow block, or outside
/// any), or at several.
#[derive(Clone, Copy)]
enum Site {
    One(Option<usize>),
    Many,
}

/// Where each variable is used, recorded in one walk, so that which
/// variables are used outside their block can be told both before the
/// plan and after its replacements without walking again. A use inside a
/// binding the plan drops still counts, as in TVM (whose analysis reads
/// the program before any binding goes): `y = a` after `a`'s dataflow
/// block keeps `a` an output even when `y` is unused.
#[derive(Default)]
struct Uses {
    sites: IdMap<Node<Var>, Site>,
}

impl Uses {
    /// The variables used outside their home block, with `plan`'s
    /// replacements made.
    fn outside(&self, plan: &Plan) -> IdSet<Node<Var>> {
        let mut out = IdSet::default();
        for (&used, &site) in &self.sites {
            let r = plan.resolve_id(used);
            if let Some(&home) = plan.home.get(&r)
                // Several sites: at least one is not the home block.
                && !matches!(site, Site::One(Some(h)) if h == home)
            {
                out.insert(r);
            }
        }
        out
    }
}

/// Records each variable's home block (dataflow blocks numbered in visit
/// order, as [`Plan`] numbers them) and its uses.
#[derive(Default)]
struct UseScan {
    home: IdMap<Node<Var>, usize>,
    uses: Uses,
    block: Option<usize>,
    blocks: usize,
    /// Whether any binding is a `match_cast`.
    casts: bool,
}

impl UseScan {
    fn of(f: &Function) -> UseScan {
        let mut scan = UseScan::default();
        // About one definition and one used variable per binding: room for
        // them now, rather than rehashing as the tables double.
        let bindings: usize = f.body.blocks.iter().map(|b| b.bindings.len()).sum();
        scan.home.reserve(bindings);
        scan.uses.sites.reserve(bindings);
        scan.visit_seq_expr(&f.body);
        scan
    }
}

impl PrimExprVisitor for UseScan {}
impl StructInfoVisitor for UseScan {}
impl ExprVisitor for UseScan {
    fn visit_var_def(&mut self, v: &Node<Var>) {
        if let Some(block) = self.block {
            self.home.insert(v.id(), block);
        }
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        let here = self.block;
        self.uses
            .sites
            .entry(v.id())
            .and_modify(|s| {
                if !matches!(s, Site::One(b) if *b == here) {
                    *s = Site::Many;
                }
            })
            .or_insert(Site::One(here));
    }
    fn visit_binding_block(&mut self, b: &Node<crate::relax::expr::BindingBlock>) {
        let saved = self.block;
        if b.dataflow {
            self.blocks += 1;
            self.block = Some(self.blocks);
        } else {
            self.block = None;
        }
        for binding in &b.bindings {
            self.casts |= binding.cast.is_some();
            self.visit_binding(binding);
        }
        self.block = saved;
    }
    fn visit_seq_expr(&mut self, s: &Node<SeqExpr>) {
        for b in &s.blocks {
            self.visit_binding_block(b);
        }
        let saved = self.block.take();
        self.visit_expr(&s.body);
        self.block = saved;
    }
}

struct Canonicalize {
    state: MutatorState,
    plan: Plan,
}

impl PrimExprMutator for Canonicalize {}
impl StructInfoMutator for Canonicalize {}

impl ExprMutator for Canonicalize {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.state
    }

    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        let r = self.plan.resolve(v);
        if !self.plan.constants.is_empty()
            && let Some(c) = self.plan.constants.get(&r.id())
        {
            return Transformed::Replace(c.clone());
        }
        match mutator::var_use(self, &r) {
            Transformed::Keep if r.same_as(v) => Transformed::Keep,
            Transformed::Keep => Transformed::Replace(Expr::Var(r)),
            replaced => replaced,
        }
    }

    fn mutate_var_def(&mut self, v: &Node<Var>) -> Transformed<Node<Var>> {
        let target = self.plan.rename_def.get(&v.id()).cloned();
        let current = target.clone().unwrap_or_else(|| v.clone());
        if !self.plan.demote.is_empty() && self.plan.demote.contains(&current.id()) {
            let demoted = Var::with_dataflow(&current, true);
            // Uses name the renamed variable: they follow to the new one.
            self.state.remap(&current, &demoted);
            return Transformed::Replace(demoted);
        }
        match target {
            Some(t) => Transformed::Replace(t),
            None => Transformed::Keep,
        }
    }

    fn mutate_binding(&mut self, b: &Node<Binding>) -> Transformed<Expr> {
        if self.plan.drop.contains(&b.var.id()) {
            return Transformed::Keep;
        }
        mutator::binding(self, b)
    }
}

/// `f` with its bindings canonicalized.
pub fn canonicalize_bindings(
    f: &Node<Function>,
) -> Result<Transformed<Node<Function>>, BuilderError> {
    let scan = UseScan::of(f);
    // Symbolic variables a cast pins down are replaced first; the plan is
    // made for the program that results.
    if scan.casts
        && let Transformed::Replace(g) = substitute_known_symbolic(f)?
    {
        let rest = canonicalize_scanned(&g, UseScan::of(&g))?;
        return Ok(Transformed::Replace(rest.unwrap_or_clone(&g)));
    }
    canonicalize_scanned(f, scan)
}

/// [`canonicalize_bindings`] once `f`'s uses are known.
fn canonicalize_scanned(
    f: &Node<Function>,
    scan: UseScan,
) -> Result<Transformed<Node<Function>>, BuilderError> {
    // Where each variable lives and is used, then the plan, then which
    // variables are used outside their block with its replacements.
    let UseScan { home, uses, .. } = scan;
    let mut plan = Plan {
        home,
        ..Plan::default()
    };
    plan.used_outside_raw = uses.outside(&plan);
    plan.function(f);
    if plan.drop.is_empty() && plan.home.is_empty() && plan.constants.is_empty() {
        return Ok(Transformed::Keep);
    }
    plan.used_outside = uses.outside(&plan);
    drop(uses);
    // Outputs of dataflow blocks used only inside them become dataflow variables.
    let outputs: Vec<(Id<Node<Var>>, Node<Var>)> = collect_outputs(f, &plan);
    for (id, var) in outputs {
        if !plan.used_outside.contains(&id) && !var.dataflow {
            plan.demote.insert(id);
        }
    }
    let mut pass = Canonicalize {
        state: MutatorState::default(),
        plan,
    };
    let out = run_mutator(&mut pass, &Expr::Function(f.clone()))?;
    Ok(match out {
        Expr::Function(g) if !g.same_as(f) => Transformed::Replace(g),
        _ => Transformed::Keep,
    })
}

/// The variables that end up defined in dataflow blocks as outputs (after
/// renaming), by the identity of the variable that will hold the name.
fn collect_outputs(f: &Function, plan: &Plan) -> Vec<(Id<Node<Var>>, Node<Var>)> {
    let mut out = Vec::new();
    let mut stack: Vec<&SeqExpr> = vec![&f.body];
    while let Some(seq) = stack.pop() {
        for block in &seq.blocks {
            for b in &block.bindings {
                match &b.value {
                    Expr::Function(g) => stack.push(&g.body),
                    Expr::If(i) => {
                        stack.push(&i.true_branch);
                        stack.push(&i.false_branch);
                    }
                    _ => {}
                }
                if !block.dataflow || plan.drop.contains(&b.var.id()) {
                    continue;
                }
                let v = plan.rename_def.get(&b.var.id()).unwrap_or(&b.var);
                out.push((v.id(), v.clone()));
            }
        }
    }
    out
}
