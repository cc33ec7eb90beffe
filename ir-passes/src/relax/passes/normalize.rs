//! `normalize`: every function in A-normal form, with struct info derived
//! (TVM's `relax.transform.Normalize`).

use ir_core::Transformed;

use crate::relax::builder::{BlockBuilder, BuilderError};
use crate::relax::expr::{Expr, Function};
use ir_core::Node;

/// The function in normal form; `Keep` when it already is.
pub fn normalize_module_function(
    f: &Node<Function>,
) -> Result<Transformed<Node<Function>>, BuilderError> {
    let mut bb = BlockBuilder::new();
    let e = Expr::Function(f.clone());
    let out = bb.normalize(e.clone())?;
    Ok(match out {
        Expr::Function(g) if !g.same_as(f) => Transformed::Replace(g),
        _ => Transformed::Keep,
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
