//! The struct info of an expression, derived from its parts. In A-normal
//! form every part is a leaf or a variable, so this is a constant amount of
//! work per node. Only a call remembers its own (the builder sets it when it
//! binds the call, as TVM sets `struct_info_`), in a cache field that a
//! rebuild changing an operand resets; a rebuild over operands of the very
//! same struct info gets it carried over ([`carry_inferred`]).

use std::borrow::Cow;

use ir_core::{Id, IdMap, Node, Transformed, stack};

use super::expr::{AttrValue, Call, Expr};
use super::ops;
use super::prim::{PrimExpr, PrimExprMutator, PrimVar};
use super::sinfo::{FuncStructInfo, PrimStructInfo, StructInfo, StructInfoMutator, lca};

/// What is known about the value of `e`; an error for an ill-typed call.
pub fn sinfo_of(e: &Expr) -> Result<StructInfo, String> {
    // The operands of a call in A-normal form, and the call itself: answered
    // without the stack check, which is only needed to recurse (`call_sinfo`
    // sends its callee and any operand that is not a leaf through it).
    match e {
        Expr::Var(v) => Ok(v.sinfo.clone()),
        Expr::Constant(c) => Ok(c.sinfo().clone()),
        Expr::Call(c) => call_sinfo(c),
        _ => nested_sinfo_of(e),
    }
}

/// [`sinfo_of`] for an expression about to be bound: a call that no one
/// else holds remembers what was inferred for it, so a pass that rebuilds
/// it with operands of the same struct info need not infer it again
/// ([`carry_inferred`]).
pub(crate) fn sinfo_of_owned(e: &mut Expr) -> Result<StructInfo, String> {
    if let Expr::Call(node) = e
        && node.inferred().is_none()
        && node.sinfo_args().is_empty()
        && let Some(c) = node.get_mut()
    {
        let sinfo = call_sinfo(c)?;
        c.remember(sinfo.clone());
        return Ok(sinfo);
    }
    sinfo_of(e)
}

/// Gives `new`, a rebuild of the call `old`, the struct info remembered for
/// `old` when that still holds: the same callee, attributes and struct info
/// arguments, and operands that are the same or have the very same struct
/// info (a renamed variable). Inference reads nothing else, so the result
/// would be the same.
pub(crate) fn carry_inferred(old: &Call, new: &mut Node<Call>) {
    let Some(known) = old.inferred() else {
        return;
    };
    if new.inferred().is_some() || !new.op().same_as(old.op()) || !new.same_extra(old) {
        return;
    }
    let (now, before) = (new.args(), old.args());
    if now.len() != before.len() {
        return;
    }
    // A plain loop: this runs for every rebuilt call of a pass.
    for i in 0..now.len() {
        let same = match (&now[i], &before[i]) {
            (Expr::Var(a), Expr::Var(b)) => a.sinfo.same_as(&b.sinfo),
            (a, b) => a.same_as(b),
        };
        if !same {
            return;
        }
    }
    if let Some(c) = new.get_mut() {
        c.remember(known.clone());
    }
}

/// [`sinfo_of`] for an operand: a variable's or constant's own struct info
/// is borrowed, not copied. Inlined: returned through memory, the result
/// was read back before its stores had landed, which stalled.
#[inline(always)]
fn operand_sinfo(e: &Expr) -> Result<Cow<'_, StructInfo>, String> {
    match e {
        Expr::Var(v) => Ok(Cow::Borrowed(&v.sinfo)),
        Expr::Constant(c) => Ok(Cow::Borrowed(c.sinfo())),
        _ => nested_sinfo_of(e).map(Cow::Owned),
    }
}

fn nested_sinfo_of(e: &Expr) -> Result<StructInfo, String> {
    stack::guarded(|| match e {
        Expr::Constant(c) => Ok(c.sinfo().clone()),
        Expr::Var(v) => Ok(v.sinfo.clone()),
        Expr::ShapeExpr(s) => Ok(StructInfo::shape(s.values.clone())),
        Expr::PrimValue(p) => Ok(PrimStructInfo {
            dtype: super::dtype::DataType::I64,
            value: Some(p.value.clone()),
        }
        .into()),
        Expr::StringImm(_) | Expr::DataTypeImm(_) | Expr::Op(_) | Expr::ExternFunc(_) => {
            Ok(StructInfo::object())
        }
        Expr::Tuple(t) => Ok(StructInfo::tuple(
            t.fields.iter().map(sinfo_of).collect::<Result<_, _>>()?,
        )),
        Expr::TupleGetItem(t) => {
            let tuple = sinfo_of(&t.tuple)?;
            match &tuple {
                StructInfo::TupleStructInfo(fields) => {
                    fields.fields.get(t.index).cloned().ok_or_else(|| {
                        format!(
                            "index {} is out of range for a tuple of {} fields",
                            t.index,
                            fields.fields.len()
                        )
                    })
                }
                StructInfo::ObjectStructInfo(_) => Ok(StructInfo::object()),
                _ => Err("a projection `t[i]` needs a tuple".to_owned()),
            }
        }
        Expr::Call(c) => call_sinfo(c),
        Expr::If(i) => Ok(lca(
            &sinfo_of(&i.true_branch.body)?,
            &sinfo_of(&i.false_branch.body)?,
        )),
        Expr::Function(f) => Ok(FuncStructInfo {
            params: Some(f.params.iter().map(|p| p.sinfo.clone()).collect()),
            ret: f.ret_sinfo.clone(),
            pure: f.pure,
        }
        .into()),
        Expr::SeqExpr(s) => sinfo_of(&s.body),
        Expr::GlobalVar(g) => Ok(g.sinfo.clone().unwrap_or_else(StructInfo::object)),
        Expr::BindingBlock(_) | Expr::Binding(_) => {
            Err("a block or binding is not a value".to_owned())
        }
    })
}

/// A call's result: the operator's inference, the callee's declared result,
/// or the call's `sinfo_args`.
fn call_sinfo(c: &Call) -> Result<StructInfo, String> {
    // What the call says it yields: one, or a tuple of several (TVM's rule
    // for calls of packed functions).
    match c.sinfo_args() {
        [] => {}
        [one] => return Ok(one.clone()),
        many => return Ok(StructInfo::tuple(many.to_vec())),
    }
    if let Some(known) = c.inferred() {
        return Ok(known.clone());
    }
    match c.op() {
        Expr::Op(op) => {
            // The operator carries its registry entry. An element type
            // given as an argument (`R.dtype`) reaches inference as the
            // `dtype` attribute.
            let def = op
                .def()
                .ok_or_else(|| format!("unknown operator R.{}", op.name()))?;
            let with_dtype: Option<Vec<(String, AttrValue)>> =
                def.dtype_arg.and_then(|i| match c.args().get(i) {
                    Some(Expr::DataTypeImm(d)) => {
                        let mut attrs = c.attrs().to_vec();
                        attrs.push(("dtype".into(), AttrValue::Str(d.value.to_string())));
                        Some(attrs)
                    }
                    _ => None,
                });
            let attrs = with_dtype.as_deref().unwrap_or(c.attrs());
            let infer = |args: &[&StructInfo]| {
                ops::infer_with(def, args, attrs).map_err(|e| format!("R.{}: {e}", def.name))
            };
            // Most operators take one or two arguments: no vector for them.
            match c.args() {
                [a] => infer(&[&*operand_sinfo(a)?]),
                [a, b] => infer(&[&*operand_sinfo(a)?, &*operand_sinfo(b)?]),
                args => {
                    let owned = args
                        .iter()
                        .map(operand_sinfo)
                        .collect::<Result<Vec<_>, _>>()?;
                    infer(&owned.iter().map(|s| &**s).collect::<Vec<_>>())
                }
            }
        }
        // Recursion goes through the stack check: `sinfo_of` skips it for
        // calls.
        callee => match nested_sinfo_of(callee)? {
            StructInfo::FuncStructInfo(f) => {
                let Some(params) = &f.params else {
                    return Ok(f.ret.clone());
                };
                if params.len() != c.args().len() {
                    return Err(format!(
                        "the callee takes {} arguments, got {}",
                        params.len(),
                        c.args().len()
                    ));
                }
                let args = c
                    .args()
                    .iter()
                    .map(|a| operand_sinfo(a).map(Cow::into_owned))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(derive_ret(params, &args, &f.ret))
            }
            StructInfo::ObjectStructInfo(_) => Ok(StructInfo::object()),
            _ => Err("the callee is not a function".to_owned()),
        },
    }
}

/// A callee's result in the caller's terms: the symbolic variables of its
/// parameters' shapes, matched against the arguments' shapes, are replaced
/// in its result (TVM's `DeriveCallRetStructInfo`), so that
/// `f(x: (n, m)) -> (n, m)` called on `(a, 4)` gives `(a, 4)`.
fn derive_ret(params: &[StructInfo], args: &[StructInfo], ret: &StructInfo) -> StructInfo {
    let mut bind = Bind::default();
    for (p, a) in params.iter().zip(args) {
        bind.unify(p, a);
    }
    if bind.map.is_empty() {
        return ret.clone();
    }
    bind.mutate_struct_info(ret).unwrap_or_clone(ret)
}

/// What the symbolic variables of `pattern` stand for in `actual`: each
/// dimension of `pattern` that is a variable, against `actual`'s, as TVM's
/// `InferSymbolicVarMap` reads a `match_cast` (a variable named twice in
/// one pattern takes its first place here, its last in TVM).
pub(crate) fn symbolic_bindings(
    pattern: &StructInfo,
    actual: &StructInfo,
) -> Vec<(Id<Node<PrimVar>>, PrimExpr)> {
    let mut bind = Bind::default();
    bind.unify(pattern, actual);
    bind.map.into_iter().collect()
}

/// Symbolic variable -> what it stands for at a call.
#[derive(Default)]
struct Bind {
    map: IdMap<Node<PrimVar>, PrimExpr>,
}

impl Bind {
    fn unify(&mut self, param: &StructInfo, arg: &StructInfo) {
        stack::guarded(|| match (param, arg) {
            (StructInfo::TensorStructInfo(p), StructInfo::TensorStructInfo(a)) => {
                if let (Some(ps), Some(xs)) = (&p.shape, &a.shape) {
                    self.dims(ps, xs);
                }
            }
            (StructInfo::ShapeStructInfo(p), StructInfo::ShapeStructInfo(a)) => {
                if let (Some(ps), Some(xs)) = (&p.values, &a.values) {
                    self.dims(ps, xs);
                }
            }
            (StructInfo::TupleStructInfo(p), StructInfo::TupleStructInfo(a)) => {
                for (p, a) in p.fields.iter().zip(&a.fields) {
                    self.unify(p, a);
                }
            }
            _ => {}
        })
    }

    fn dims(&mut self, params: &[PrimExpr], args: &[PrimExpr]) {
        if params.len() != args.len() {
            return;
        }
        for (p, a) in params.iter().zip(args) {
            if let PrimExpr::PrimVar(v) = p {
                self.map.entry(v.id()).or_insert_with(|| a.clone());
            }
        }
    }
}

impl PrimExprMutator for Bind {
    fn mutate_prim_var(&mut self, v: &Node<PrimVar>) -> Transformed<PrimExpr> {
        match self.map.get(&v.id()) {
            Some(e) => Transformed::Replace(e.clone()),
            None => Transformed::Keep,
        }
    }
}
impl StructInfoMutator for Bind {}

#[cfg(test)]
mod tests {
    use ir_core::Node;

    use super::{carry_inferred, sinfo_of_owned};
    use crate::relax::{Call, DataType, Expr, StructInfo, Var};

    fn tensor(n: i64) -> StructInfo {
        StructInfo::tensor(vec![n.into()], DataType::F32)
    }

    /// `R.add(x, x)` with its struct info remembered, as the builder binds it.
    fn bound_add(x: &Node<Var>) -> Node<Call> {
        let mut e: Expr = Call::new(
            Expr::op("add"),
            [Expr::Var(x.clone()), Expr::Var(x.clone())],
        )
        .into();
        sinfo_of_owned(&mut e).unwrap();
        let Expr::Call(c) = e else { unreachable!() };
        assert!(c.inferred().is_some());
        c
    }

    fn rebuilt(op: &str, args: [&Node<Var>; 2]) -> Node<Call> {
        Node::new(Call::new(Expr::op(op), args.map(|v| Expr::Var(v.clone()))))
    }

    #[test]
    fn the_builder_remembers_and_a_rebuild_over_a_retyped_operand_forgets() {
        use crate::relax::{BlockBuilder, MutatorState, run_mutator};
        use crate::relax::{ExprMutator, PrimExprMutator, StructInfoMutator};
        let (x, y) = (Var::new("x", tensor(4)), Var::new("y", tensor(8)));
        let bound = BlockBuilder::new()
            .normalize(Expr::call_op("negative", [Expr::Var(x.clone())]))
            .unwrap();
        let Expr::Call(c) = &bound else {
            unreachable!()
        };
        assert!(c.inferred().is_some(), "the builder remembers");

        #[derive(Default)]
        struct Retype(MutatorState);
        impl PrimExprMutator for Retype {}
        impl StructInfoMutator for Retype {}
        impl ExprMutator for Retype {
            fn mutator_state(&mut self) -> &mut MutatorState {
                &mut self.0
            }
        }
        let mut pass = Retype::default();
        pass.0.remap(&x, &y);
        let Expr::Call(c) = run_mutator(&mut pass, &bound).unwrap() else {
            unreachable!()
        };
        // Inferred again for the new operand (and remembered by the builder).
        assert!(ir_core::structural::structural_eq(
            c.inferred().unwrap(),
            &tensor(8)
        ));
        let Expr::Call(mut c) = bound else {
            unreachable!()
        };
        assert!(ir_core::Node::mutate_in_place(&mut c, &mut pass));
        assert!(c.inferred().is_none(), "reset in place");
    }

    #[test]
    fn a_call_rebuilt_over_renamed_operands_keeps_its_struct_info() {
        let x = Var::new("x", tensor(4));
        let old = bound_add(&x);
        let renamed = Var::new("y", x.sinfo.clone());
        let mut new = rebuilt("add", [&renamed, &renamed]);
        carry_inferred(&old, &mut new);
        assert!(new.inferred().unwrap().same_as(old.inferred().unwrap()));
    }

    #[test]
    fn a_call_whose_operands_changed_struct_info_is_inferred_again() {
        let x = Var::new("x", tensor(4));
        let old = bound_add(&x);
        // Equal struct info but not the same: inference is asked again.
        let twin = Var::new("y", tensor(4));
        let mut new = rebuilt("add", [&x, &twin]);
        carry_inferred(&old, &mut new);
        assert!(new.inferred().is_none());
        let other = Var::new("z", tensor(8));
        let mut new = rebuilt("add", [&other, &other]);
        carry_inferred(&old, &mut new);
        assert!(new.inferred().is_none());
    }

    #[test]
    fn a_call_of_another_operator_or_shared_is_not_given_struct_info() {
        let x = Var::new("x", tensor(4));
        let old = bound_add(&x);
        let mut new = rebuilt("multiply", [&x, &x]);
        carry_inferred(&old, &mut new);
        assert!(new.inferred().is_none());
        // A call someone else holds too is never written to.
        let mut new = rebuilt("add", [&x, &x]);
        let other_handle = new.clone();
        carry_inferred(&old, &mut new);
        assert!(other_handle.inferred().is_none());
    }
}
