//! Free variables: those an expression uses but does not define (TVM's
//! `relax.analysis.free_vars`).

use ir_core::{Id, IdMap, IdSet, Node, Walk};

use super::expr::{Call, Expr, ExprVisitor, Function, Var};
use super::prim::PrimExprVisitor;
use super::sinfo::StructInfoVisitor;

/// The definitions met, and the uses not yet defined where they were met
/// (in first-use order): in a well-formed program a use follows its
/// definition, so only candidates are kept.
///
/// Definitions go to a list first and into the set only when a use does
/// not find its definition among the latest few: most uses read a value
/// bound just before (A-normal form), and then no hashing happens at all.
#[derive(Default)]
struct Scan {
    defined: IdSet<Node<Var>>,
    /// Definitions not yet in `defined`, in order.
    recent: Vec<Id<Node<Var>>>,
    seen: IdSet<Node<Var>>,
    candidates: Vec<Node<Var>>,
}

/// How many of the latest definitions a use compares with before it
/// hashes.
const RECENT: usize = 4;

impl Scan {
    fn is_defined(&mut self, v: Id<Node<Var>>) -> bool {
        if self.recent.iter().rev().take(RECENT).any(|&d| d == v) {
            return true;
        }
        self.flush();
        self.defined.contains(&v)
    }

    /// Moves the pending definitions into the set.
    fn flush(&mut self) {
        self.defined.extend(self.recent.drain(..));
    }

    /// The candidates that were never defined.
    fn free(mut self) -> Vec<Node<Var>> {
        if self.candidates.is_empty() {
            return Vec::new();
        }
        self.flush();
        let defined = self.defined;
        self.candidates
            .into_iter()
            .filter(|v| !defined.contains(&v.id()))
            .collect()
    }
}

impl PrimExprVisitor for Scan {}
impl StructInfoVisitor for Scan {}
impl ExprVisitor for Scan {
    fn visit_var(&mut self, v: &Node<Var>) {
        if !self.is_defined(v.id()) && self.seen.insert(v.id()) {
            self.candidates.push(v.clone());
        }
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        self.recent.push(v.id());
    }
    fn visit_call(&mut self, c: &Node<Call>) {
        operands(self, c);
    }
}

/// The callee and arguments of `c` (its struct info arguments hold no
/// variables), the leaves among them met here rather than through a walk
/// each: a binding in A-normal form is a call of variables and constants.
fn operands<V: ExprVisitor>(v: &mut V, c: &Call) {
    for e in std::iter::once(c.op()).chain(c.args()) {
        match e {
            Expr::Var(x) => v.visit_var(x),
            Expr::Op(_) | Expr::Constant(_) | Expr::GlobalVar(_) | Expr::ExternFunc(_) => {}
            other => other.walk(v),
        }
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
    // the list is sized once rather than grown by doubling.
    if let Expr::Function(f) = e {
        scan.recent.reserve(f.own_definitions());
    }
    e.walk(&mut scan);
    // A candidate may be defined after its use (a recursive local function).
    scan.free()
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
    fn visit_call(&mut self, c: &Node<Call>) {
        operands(self, c);
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
        let free = scan.free();
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
