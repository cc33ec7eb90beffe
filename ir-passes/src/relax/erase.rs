//! Struct info made well defined outside the scope that gave it meaning
//! (TVM's `EraseToWellDefined`): a dimension that names a symbolic variable
//! defined only inside a function body (by a `match_cast`) means nothing in
//! the function's signature, so the shape that holds it is forgotten and
//! its rank kept.

use std::ops::ControlFlow;

use ir_core::{IdSet, Node};

use super::expr::Var;
use super::prim::{PrimExpr, PrimExprVisitor, PrimVar};
use super::sinfo::{
    FuncStructInfo, PrimStructInfo, ShapeStructInfo, StructInfo, StructInfoVisitor,
    TensorStructInfo,
};

/// The symbolic variables `params` define: those their struct info names
/// (function-typed parameters' own signatures define none).
pub fn defined_by(params: &[Node<Var>]) -> IdSet<Node<PrimVar>> {
    let mut found = Defined(IdSet::default());
    for p in params {
        found.visit_struct_info(&p.sinfo);
    }
    found.0
}

struct Defined(IdSet<Node<PrimVar>>);

impl PrimExprVisitor for Defined {
    fn visit_prim_var(&mut self, v: &Node<PrimVar>) {
        self.0.insert(v.id());
    }
}
impl StructInfoVisitor for Defined {
    fn visit_func_struct_info(&mut self, _: &Node<FuncStructInfo>) {}
}

/// `sinfo` with every shape or value that names a symbolic variable not in
/// `defined` forgotten (a tensor keeps its rank and element type, a shape
/// its rank, a scalar its type). Function struct info is kept as it is.
pub fn erase_to_well_defined(sinfo: &StructInfo, defined: &IdSet<Node<PrimVar>>) -> StructInfo {
    ir_core::stack::guarded(|| match sinfo {
        StructInfo::TensorStructInfo(t) => match &t.shape {
            Some(shape) if !all_defined(shape, defined) => TensorStructInfo {
                shape: None,
                ndim: t.ndim,
                dtype: t.dtype,
            }
            .into(),
            _ => sinfo.clone(),
        },
        StructInfo::ShapeStructInfo(s) => match &s.values {
            Some(values) if !all_defined(values, defined) => ShapeStructInfo {
                values: None,
                ndim: s.ndim,
            }
            .into(),
            _ => sinfo.clone(),
        },
        StructInfo::PrimStructInfo(p) => match &p.value {
            Some(value) if !all_defined(std::slice::from_ref(value), defined) => PrimStructInfo {
                dtype: p.dtype,
                value: None,
            }
            .into(),
            _ => sinfo.clone(),
        },
        StructInfo::TupleStructInfo(t) => {
            let fields: Vec<StructInfo> = t
                .fields
                .iter()
                .map(|f| erase_to_well_defined(f, defined))
                .collect();
            if fields.iter().zip(&t.fields).all(|(a, b)| a.same_as(b)) {
                sinfo.clone()
            } else {
                StructInfo::tuple(fields)
            }
        }
        StructInfo::ObjectStructInfo(_) | StructInfo::FuncStructInfo(_) => sinfo.clone(),
    })
}

/// `body`'s struct info as the result of a function of `params`: made well
/// defined by what the parameters define.
pub fn function_result(body: &StructInfo, params: &[Node<Var>]) -> StructInfo {
    erase_to_well_defined(body, &defined_by(params))
}

fn all_defined(exprs: &[PrimExpr], defined: &IdSet<Node<PrimVar>>) -> bool {
    let mut check = Undefined(defined);
    exprs.iter().all(|e| check.visit_prim_expr(e).is_continue())
}

/// Stops at the first symbolic variable not in the set.
struct Undefined<'a>(&'a IdSet<Node<PrimVar>>);

impl PrimExprVisitor<ControlFlow<()>> for Undefined<'_> {
    fn visit_prim_var(&mut self, v: &Node<PrimVar>) -> ControlFlow<()> {
        if self.0.contains(&v.id()) {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(())
        }
    }
}
