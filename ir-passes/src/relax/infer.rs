//! The struct info of an expression, derived from its parts. In A-normal
//! form every part is a leaf or a variable, so this is a constant amount of
//! work per node; nothing is cached on the nodes (TVM stores it in a
//! write-once field instead), so a rebuilt node can never carry stale info.

use ir_core::stack;

use super::expr::{Call, Expr};
use super::ops;
use super::sinfo::{FuncStructInfo, PrimStructInfo, StructInfo, lca};

/// What is known about the value of `e`; an error for an ill-typed call.
pub fn sinfo_of(e: &Expr) -> Result<StructInfo, String> {
    stack::guarded(|| match e {
        Expr::Constant(c) => Ok(StructInfo::tensor(
            c.data.shape.iter().map(|&d| d.into()).collect(),
            c.data.dtype,
        )),
        Expr::Var(v) => Ok(v.sinfo.clone()),
        Expr::ShapeExpr(s) => Ok(StructInfo::shape(s.values.clone())),
        Expr::PrimValue(p) => Ok(PrimStructInfo {
            dtype: super::dtype::DataType::I64,
            value: Some(p.value.clone()),
        }
        .into()),
        Expr::StringImm(_) | Expr::Op(_) | Expr::ExternFunc(_) => Ok(StructInfo::object()),
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
    if let Some(first) = c.sinfo_args.first() {
        return Ok(first.clone());
    }
    match &c.op {
        Expr::Op(op) => {
            let args = c.args.iter().map(sinfo_of).collect::<Result<Vec<_>, _>>()?;
            ops::infer_call(&op.name, &args, &c.attrs).map_err(|e| format!("R.{}: {e}", op.name))
        }
        callee => match sinfo_of(callee)? {
            StructInfo::FuncStructInfo(f) => {
                if let Some(params) = &f.params
                    && params.len() != c.args.len()
                {
                    return Err(format!(
                        "the callee takes {} arguments, got {}",
                        params.len(),
                        c.args.len()
                    ));
                }
                Ok(f.ret.clone())
            }
            StructInfo::ObjectStructInfo(_) => Ok(StructInfo::object()),
            _ => Err("the callee is not a function".to_owned()),
        },
    }
}
