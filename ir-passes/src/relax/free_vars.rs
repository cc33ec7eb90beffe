//! Free variables: those an expression uses but does not define (TVM's
//! `relax.analysis.free_vars`).

use ir_core::{IdSet, Node, Walk};

use super::expr::{Expr, ExprVisitor, Var};
use super::prim::PrimExprVisitor;
use super::sinfo::StructInfoVisitor;

/// The definitions met, and the uses not yet defined where they were met
/// (in first-use order): in a well-formed program a use follows its
/// definition, so most uses cost one lookup and only candidates are kept.
#[derive(Default)]
struct Scan {
    defined: IdSet<Node<Var>>,
    seen: IdSet<Node<Var>>,
    candidates: Vec<Node<Var>>,
}

impl PrimExprVisitor for Scan {}
impl StructInfoVisitor for Scan {}
impl ExprVisitor for Scan {
    fn visit_var(&mut self, v: &Node<Var>) {
        if !self.defined.contains(&v.id()) && self.seen.insert(v.id()) {
            self.candidates.push(v.clone());
        }
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        self.defined.insert(v.id());
    }
}

/// The variables `e` uses without defining them, in the order of their first
/// use; nested functions included (their parameters and bindings are
/// defined inside `e`).
///
/// ```
/// use ir_passes::relax::{BlockBuilder, DataType, Expr, StructInfo, Var, free_vars};
///
/// let x = Var::new("x", StructInfo::tensor(vec![4.into()], DataType::F32));
/// let y = Var::new("y", StructInfo::tensor(vec![4.into()], DataType::F32));
/// let e = Expr::call_op("add", vec![Expr::Var(x.clone()), Expr::Var(y.clone())]);
/// let free = free_vars(&e);
/// assert!(free.len() == 2 && free[0].same_as(&x) && free[1].same_as(&y));
/// ```
pub fn free_vars(e: &Expr) -> Vec<Node<Var>> {
    let mut scan = Scan::default();
    e.walk(&mut scan);
    // A candidate may be defined after its use (a recursive local function).
    let Scan {
        defined,
        candidates,
        ..
    } = scan;
    candidates
        .into_iter()
        .filter(|v| !defined.contains(&v.id()))
        .collect()
}
