//! The normalizing mutator's state and default hooks (TVM's `ExprMutator`).
//!
//! Every [`ExprMutator`](super::ExprMutator) holds a [`MutatorState`]: a
//! block builder that binding hooks emit into, and the variable remap. The
//! family's derive makes these functions the default hooks, so a pass that
//! overrides one kind gets the rest:
//!
//! * every expression a hook returns, if it changed, is normalized into the
//!   current block (A-normal form, struct info re-derived; a call rebuilt
//!   over operands of the very same struct info keeps what it remembered);
//! * a block begins and ends a builder block; a binding re-emits itself with
//!   its visited value and variable, and a variable whose struct info
//!   changed is replaced, at its definition and at every later use;
//! * function bodies and `if` branches are visited in a new scope;
//! * nothing changed means the very same handles, and no allocation once
//!   the builder is warm.

use std::borrow::Cow;

use ir_core::{IdMap, Node, Rebuild, Transformed};

use super::builder::{BlockBuilder, BuilderError, is_leaf};
use super::erase::function_result;
use super::expr::{Binding, BindingBlock, Expr, ExprMutator, Function, If, SeqExpr, Var};
use super::infer::{carry_inferred, sinfo_of};
use super::sinfo::{StructInfo, is_base_of};

/// What a normalizing mutator carries.
#[derive(Default)]
pub struct MutatorState {
    /// Where binding hooks emit.
    pub builder: BlockBuilder,
    /// Variable -> its replacement, by identity (TVM's `var_remap_`).
    pub var_remap: IdMap<Node<Var>, (Node<Var>, Node<Var>)>,
    /// The first error met; hooks cannot return one, so it is kept here and
    /// [`run_mutator`] reports it.
    pub error: Option<BuilderError>,
    /// The last expression the entry hook normalized, with the struct info
    /// it derived: the binding hook that re-emits it reads the struct info
    /// here instead of deriving it again. Not kept for a call, which
    /// remembers its own.
    last_normalized: Option<(Expr, StructInfo)>,
}

impl MutatorState {
    /// A state over a builder for `module` (passes that add functions).
    pub fn with_builder(builder: BlockBuilder) -> Self {
        MutatorState {
            builder,
            ..MutatorState::default()
        }
    }

    /// Records that uses of `old` now mean `new`.
    pub fn remap(&mut self, old: &Node<Var>, new: &Node<Var>) {
        self.var_remap.insert(old.id(), (old.clone(), new.clone()));
    }

    /// The replacement of `var`, if any.
    pub fn remapped(&self, var: &Node<Var>) -> Option<&Node<Var>> {
        if self.var_remap.is_empty() {
            return None;
        }
        self.var_remap
            .get(&var.id())
            .filter(|(old, _)| old.same_as(var))
            .map(|(_, new)| new)
    }

    /// Records `e` unless an earlier error is already kept (for hooks,
    /// which cannot return one).
    pub fn fail(&mut self, e: BuilderError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }
}

/// Runs `pass` over `e` and reports the first error its hooks met.
pub fn run_mutator<M: ExprMutator + ?Sized>(pass: &mut M, e: &Expr) -> Result<Expr, BuilderError> {
    let out = pass.mutate_expr(e).unwrap_or_clone(e);
    match pass.mutator_state().error.take() {
        Some(err) => Err(err),
        None => Ok(out),
    }
}

/// The entry hook: dispatch, then normalize what changed.
pub fn entry<M: ExprMutator + ?Sized>(m: &mut M, e: &Expr) -> Transformed<Expr> {
    let out = e.rebuild(m);
    match out {
        Transformed::Keep => Transformed::Keep,
        Transformed::Replace(mut new) => {
            if let (Expr::Call(old), Expr::Call(call)) = (e, &mut new) {
                carry_inferred(old, call);
            }
            // A leaf (a remapped variable use, most often) is in normal
            // form already, and its struct info is read off it when needed.
            if matches!(new, Expr::Binding(_) | Expr::BindingBlock(_)) || is_leaf(&new) {
                return Transformed::Replace(new);
            }
            let state = m.mutator_state();
            match state.builder.normalize_checked(new) {
                Ok((n, sinfo)) => {
                    // A call remembers its own struct info.
                    state.last_normalized = sinfo.map(|s| (n.clone(), s));
                    Transformed::Replace(n)
                }
                Err(err) => {
                    // Reported by `run_mutator`; the input stands meanwhile.
                    state.fail(err);
                    Transformed::Keep
                }
            }
        }
    }
}

/// A use: its replacement, if its definition was replaced.
pub fn var_use<M: ExprMutator + ?Sized>(m: &mut M, v: &Node<Var>) -> Transformed<Expr> {
    match m.mutator_state().remapped(v) {
        Some(new) => Transformed::Replace(Expr::Var(new.clone())),
        None => Transformed::Keep,
    }
}

/// A definition: kept (a pass that replaces one overrides this hook; the
/// binding and function defaults then remap its uses).
pub fn var_def<M: ExprMutator + ?Sized>(_: &mut M, _: &Node<Var>) -> Transformed<Node<Var>> {
    Transformed::Keep
}

/// Re-emits a binding with its visited value and variable (TVM's
/// `ReEmitBinding`). The result is `Keep`: the binding is in the builder.
pub fn binding<M: ExprMutator + ?Sized>(m: &mut M, b: &Node<Binding>) -> Transformed<Expr> {
    let value = m.mutate_expr(&b.value);
    binding_with_value(m, b, value)
}

/// [`binding`] once its value was visited (for a pass's binding hook that
/// looks at the visited value first: visiting it again would cost the
/// value's size once more, and nested functions twice per level).
pub fn binding_with_value<M: ExprMutator + ?Sized>(
    m: &mut M,
    b: &Node<Binding>,
    value: Transformed<Expr>,
) -> Transformed<Expr> {
    let cast = match &b.cast {
        Some(c) => m.mutate_struct_info(c).map(Some),
        None => Transformed::Keep,
    };
    let visited = m.mutate_var_def(&b.var);
    let state = m.mutator_state();
    if value.is_keep() && cast.is_keep() && visited.is_keep() {
        if let Err(e) = state.builder.emit_normalized(b.clone()) {
            state.fail(e);
        }
        return Transformed::Keep;
    }
    let value = value.unwrap_or_clone(&b.value);
    let cast = cast.unwrap_or_clone(&b.cast);
    let var = visited.unwrap_or_clone(&b.var);
    // The variable takes the struct info its value (or cast) now has: a
    // call remembers it, the entry hook derived any other's.
    let derived = state
        .last_normalized
        .take()
        .filter(|(e, _)| e.same_as(&value));
    let remembered = match &value {
        Expr::Call(c) => c.inferred(),
        _ => None,
    };
    let sinfo = match (&cast, remembered, derived) {
        (Some(c), _, _) => Ok(Cow::Borrowed(c)),
        (None, Some(s), _) => Ok(Cow::Borrowed(s)),
        (None, None, Some((_, s))) => Ok(Cow::Owned(s)),
        (None, None, None) => sinfo_of(&value).map(Cow::Owned),
    };
    let sinfo = match sinfo {
        Ok(s) => s,
        Err(e) => {
            state.fail(BuilderError(e));
            Cow::Owned(var.sinfo.clone())
        }
    };
    // The kind (dataflow or not) is the one the definition hook chose: a
    // pass turning dataflow variables into outputs returns plain ones.
    // Uses of the original, and of the variable a pass produced, mean the
    // final one (TVM #16367).
    // A function's variable keeps its signature while it still describes
    // the function: a recursive function's body, visited already, calls it
    // by that variable.
    let final_var = if sinfo.same_as(&var.sinfo)
        || (matches!(value, Expr::Function(_)) && is_base_of(&var.sinfo, &sinfo))
        || ir_core::structural::structural_eq(&*sinfo, &var.sinfo)
    {
        var
    } else {
        let retyped = Var::with_sinfo(&var, sinfo.into_owned());
        if !var.same_as(&b.var) {
            state.remap(&var, &retyped);
        }
        retyped
    };
    if !final_var.same_as(&b.var) {
        state.remap(&b.var, &final_var);
    }
    let new = Node::new(Binding {
        value,
        cast,
        var: final_var,
    });
    if let Err(e) = state.builder.emit_normalized(new) {
        state.fail(e);
    }
    Transformed::Keep
}

/// A block: a builder block around its bindings' hooks. A binding hook that
/// returns a binding (rather than emitting) has it emitted.
pub fn binding_block<M: ExprMutator + ?Sized>(
    m: &mut M,
    block: &Node<BindingBlock>,
) -> Transformed<Expr> {
    m.mutator_state().builder.begin_block_like(block);
    for b in &block.bindings {
        if let Transformed::Replace(Expr::Binding(new)) = m.mutate_binding(b) {
            let state = m.mutator_state();
            if let Err(e) = state.builder.emit_normalized(new) {
                state.fail(e);
            }
        }
    }
    let state = m.mutator_state();
    match state.builder.end_block_like(block) {
        Ok(t) => t.map(Expr::BindingBlock),
        Err(e) => {
            state.fail(e);
            Transformed::Keep
        }
    }
}

/// A sequence: its blocks, then its result in a last block of bindings the
/// result needs; empty blocks drop.
pub fn seq_expr<M: ExprMutator + ?Sized>(m: &mut M, seq: &Node<SeqExpr>) -> Transformed<Expr> {
    let mut blocks: Option<Vec<Node<BindingBlock>>> = None;
    for (i, block) in seq.blocks.iter().enumerate() {
        let new = match m.mutate_binding_block(block) {
            Transformed::Keep => None,
            Transformed::Replace(Expr::BindingBlock(b)) => Some(b),
            Transformed::Replace(_) => {
                m.mutator_state().fail(BuilderError(
                    "a block hook returned something other than a block".into(),
                ));
                None
            }
        };
        match (&mut blocks, new) {
            (Some(out), new) => {
                let b = new.unwrap_or_else(|| block.clone());
                if !b.bindings.is_empty() {
                    out.push(b);
                }
            }
            (None, Some(b)) => {
                let mut out: Vec<Node<BindingBlock>> = seq.blocks[..i].to_vec();
                if !b.bindings.is_empty() {
                    out.push(b);
                }
                blocks = Some(out);
            }
            (None, None) => {}
        }
    }
    let _ = m.mutator_state().builder.begin_binding_block();
    let body = m.mutate_expr(&seq.body);
    let state = m.mutator_state();
    let prologue = match state.builder.end_block_if_any() {
        Ok(b) => b,
        Err(e) => {
            state.fail(e);
            return Transformed::Keep;
        }
    };
    if blocks.is_none() && body.is_keep() && prologue.is_none() {
        return Transformed::Keep;
    }
    let mut blocks = blocks.unwrap_or_else(|| seq.blocks.to_vec());
    blocks.extend(prologue);
    // A sequence a hook emitted that would have split its block is bound
    // unflattened by the builder: flattened here, as TVM's normalizer does.
    let blocks = match crate::relax::flatten::flatten_blocks(blocks) {
        Ok(b) => b,
        Err(e) => {
            m.mutator_state().fail(e);
            return Transformed::Keep;
        }
    };
    Transformed::Replace(
        SeqExpr {
            blocks,
            body: body.unwrap_or_clone(&seq.body),
        }
        .into(),
    )
}

/// Visits `seq` in a new scope (TVM's `VisitWithNewScope`): the result is a
/// sequence.
pub fn visit_with_new_scope<M: ExprMutator + ?Sized>(
    m: &mut M,
    seq: &Node<SeqExpr>,
    params: &[Node<Var>],
) -> Transformed<Node<SeqExpr>> {
    m.mutator_state().builder.begin_scope(params);
    let _ = m.mutator_state().builder.begin_binding_block();
    let out = m.mutate_expr(&Expr::SeqExpr(seq.clone()));
    let state = m.mutator_state();
    let prologue = state.builder.end_block_if_any();
    let _ = state.builder.end_scope();
    let prologue = match prologue {
        Ok(p) => p,
        Err(e) => {
            state.fail(e);
            return Transformed::Keep;
        }
    };
    if out.is_keep() && prologue.is_none() {
        return Transformed::Keep;
    }
    let out = out.unwrap_or_else(|| Expr::SeqExpr(seq.clone()));
    let mut result = match out {
        Expr::SeqExpr(s) => (*s).clone(),
        other => SeqExpr {
            blocks: Vec::new(),
            body: other,
        },
    };
    if let Some(prologue) = prologue {
        result.blocks.insert(0, prologue);
    }
    Transformed::Replace(Node::new(result))
}

/// A function: its parameters (a replaced one is remapped in the body), its
/// body in a new scope. A rebuilt function's result is, as TVM's mutator
/// makes it: the declared one while the new body's is coarser (it still
/// holds, and says more); else the new body's, made well defined by the
/// parameters (symbolic variables a body's `match_cast` defines are
/// forgotten). (It is not visited: a pass that rewrites types in
/// signatures overrides this hook.)
pub fn function<M: ExprMutator + ?Sized>(m: &mut M, f: &Node<Function>) -> Transformed<Expr> {
    let mut params: Option<Vec<Node<Var>>> = None;
    for (i, p) in f.params.iter().enumerate() {
        let new = m.mutate_var_def(p);
        if let Transformed::Replace(new) = &new {
            m.mutator_state().remap(p, new);
        }
        match (&mut params, new) {
            (Some(out), new) => out.push(new.unwrap_or_clone(p)),
            (None, Transformed::Replace(new)) => {
                let mut out = f.params[..i].to_vec();
                out.push(new);
                params = Some(out);
            }
            (None, Transformed::Keep) => {}
        }
    }
    let body = visit_with_new_scope(m, &f.body, params.as_deref().unwrap_or(&f.params));
    if params.is_none() && body.is_keep() {
        return Transformed::Keep;
    }
    let body = body.unwrap_or_clone(&f.body);
    let params = params.unwrap_or_else(|| f.params.clone());
    let declared = &f.ret_sinfo;
    let ret_sinfo = match sinfo_of(&body.body) {
        Ok(actual) if actual.same_as(declared) => actual,
        Ok(actual) if is_base_of(&actual, declared) && !is_base_of(declared, &actual) => {
            declared.clone()
        }
        Ok(actual) => function_result(&actual, &params),
        Err(_) => declared.clone(),
    };
    Transformed::Replace(
        Function {
            params,
            body,
            ret_sinfo,
            pure: f.pure,
            private: f.private,
            attrs: f.attrs.clone(),
        }
        .into(),
    )
}

/// `if`: the condition, then each branch in a new scope.
#[allow(non_snake_case)]
pub fn if_<M: ExprMutator + ?Sized>(m: &mut M, i: &Node<If>) -> Transformed<Expr> {
    if_with(m, i, |_| {})
}

/// [`if_`], calling `after_branch` after each branch: a pass that learns
/// facts inside a branch forgets them there, so that the other branch and
/// what follows the `if` start from what held before it.
pub fn if_with<M: ExprMutator + ?Sized>(
    m: &mut M,
    i: &Node<If>,
    mut after_branch: impl FnMut(&mut M),
) -> Transformed<Expr> {
    let cond = m.mutate_expr(&i.cond);
    let t = visit_with_new_scope(m, &i.true_branch, &[]);
    after_branch(m);
    let f = visit_with_new_scope(m, &i.false_branch, &[]);
    after_branch(m);
    if cond.is_keep() && t.is_keep() && f.is_keep() {
        return Transformed::Keep;
    }
    Transformed::Replace(
        If {
            cond: cond.unwrap_or_clone(&i.cond),
            true_branch: t.unwrap_or_clone(&i.true_branch),
            false_branch: f.unwrap_or_clone(&i.false_branch),
        }
        .into(),
    )
}

/// The struct info of a visited value, for passes.
pub fn value_sinfo(e: &Expr) -> Option<StructInfo> {
    sinfo_of(e).ok()
}
