//! Free variables: those an expression uses but does not define (TVM's
//! `relax.analysis.free_vars`).

use ir_core::{IdMap, IdSet, Node, Walk};

use super::expr::{Expr, ExprVisitor, Function, Var};
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
    // A function's own definitions are counted from its blocks' lengths, so
    // the set is sized once rather than grown by doubling.
    if let Expr::Function(f) = e {
        scan.defined.reserve(f.own_definitions());
    }
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

/// One open function of [`free_vars_of_functions`]'s walk.
struct Frame {
    function: Node<Function>,
    scan: Scan,
}

/// The walk of [`free_vars_of_functions`]: a [`Scan`] per open function.
#[derive(Default)]
struct Frames {
    open: Vec<Frame>,
    done: IdMap<Node<Function>, Vec<Node<Var>>>,
}

impl Frames {
    fn used(&mut self, v: &Node<Var>) {
        if let Some(top) = self.open.last_mut() {
            top.scan.visit_var(v);
        }
    }
}

impl PrimExprVisitor for Frames {}
impl StructInfoVisitor for Frames {}
impl ExprVisitor for Frames {
    fn visit_var(&mut self, v: &Node<Var>) {
        self.used(v);
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        if let Some(top) = self.open.last_mut() {
            top.scan.visit_var_def(v);
        }
    }
    fn visit_function(&mut self, f: &Node<Function>) {
        self.open.push(Frame {
            function: f.clone(),
            scan: Scan::default(),
        });
        (**f).walk(self);
        let Some(Frame { function, scan }) = self.open.pop() else {
            return;
        };
        let free: Vec<Node<Var>> = scan
            .candidates
            .into_iter()
            .filter(|v| !scan.defined.contains(&v.id()))
            .collect();
        // What is free in a nested function is used by the one around it.
        for v in &free {
            self.used(v);
        }
        self.done.insert(function.id(), free);
    }
}

/// The free variables of every function in `e` (nested ones included), by
/// function, each as [`free_vars`] gives it: one walk, where calling
/// `free_vars` on each function of a nest would walk the inner ones again
/// at every level.
pub fn free_vars_of_functions(e: &Expr) -> IdMap<Node<Function>, Vec<Node<Var>>> {
    let mut frames = Frames::default();
    e.walk(&mut frames);
    frames.done
}
