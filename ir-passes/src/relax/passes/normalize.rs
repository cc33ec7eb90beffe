//! `normalize`: every function in A-normal form, with struct info derived
//! (TVM's `relax.transform.Normalize`).

use ir_core::Transformed;

use crate::relax::builder::{BlockBuilder, BuilderError};
use crate::relax::expr::{Expr, Function};
use crate::relax::infer::sinfo_of;
use crate::relax::sinfo::is_base_of;
use ir_core::Node;
use ir_core::structural::structural_eq;

/// The function in normal form; `Keep` when it already is. Its declared
/// result is refined to what the body is known to be, when that is more
/// specific (as TVM's Normalize does).
pub fn normalize_module_function(
    f: &Node<Function>,
) -> Result<Transformed<Node<Function>>, BuilderError> {
    let mut bb = BlockBuilder::new();
    let out = match bb.normalize(Expr::Function(f.clone()))? {
        Expr::Function(g) => g,
        _ => {
            return Err(BuilderError(
                "normalizing a function gave something else".into(),
            ));
        }
    };
    let actual = sinfo_of(&out.body.body).map_err(BuilderError)?;
    let refine = is_base_of(&out.ret_sinfo, &actual) && !structural_eq(&out.ret_sinfo, &actual);
    let out = if refine {
        Node::new(Function {
            ret_sinfo: actual,
            ..(*out).clone()
        })
    } else {
        out
    };
    Ok(if out.same_as(f) {
        Transformed::Keep
    } else {
        Transformed::Replace(out)
    })
}

/// Normalizes every function of `module`.
pub fn normalize_module(
    module: &crate::relax::RelaxModule,
) -> Result<crate::relax::RelaxModule, BuilderError> {
    let mut out = module.clone();
    for (name, f) in module.functions() {
        if let Transformed::Replace(g) = normalize_module_function(f)? {
            out.update_function(name, g)
                .map_err(|e| BuilderError(e.to_string()))?;
        }
    }
    Ok(out)
}
