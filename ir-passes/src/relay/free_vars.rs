//! FreeVars: the variables an expression uses but does not bind.

use std::ops::ControlFlow;

use ir_core::{IdSet, Node, VisitedSet};

use super::expr::{Expr, ExprVisitor, Function, Var};
use super::ty::{Type, TypeVisitor};

#[derive(Default)]
struct Free {
    bound: IdSet<Node<Var>>,
    seen: IdSet<Node<Var>>,
    free: Vec<Node<Var>>,
    visited: VisitedSet<Expr>,
}

// Types hold no expression variables: skip them.
impl TypeVisitor for Free {
    fn visit_type(&mut self, _: &Type) {}
}
impl ExprVisitor for Free {
    fn visit_expr(&mut self, e: &Expr) {
        // A variable use is the variable's own node every time: never skip it.
        ir_core::visit_preorder(self, e, |pass, e| {
            if e.is_var() || pass.visited.first_visit(e) {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        self.bound.insert(v.id());
        v.walk(self);
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        if !self.bound.contains(&v.id()) && self.seen.insert(v.id()) {
            self.free.push(v.clone());
        }
    }
}

/// Free variables of `e`, in order of first use.
///
/// ```
/// use ir_passes::relay::{free_vars, parse_expr};
///
/// let e = parse_expr("free_var %a; free_var %b; let %x = add(%a, 1); fn (%y) { add(%x, %b) }").unwrap();
/// let names: Vec<String> = free_vars(&e).iter().map(|v| v.name.clone()).collect();
/// assert_eq!(names, ["a", "b"]);
/// ```
pub fn free_vars(e: &Expr) -> Vec<Node<Var>> {
    let mut f = Free::default();
    f.visit_expr(e);
    f.free
}

/// Free variables of a function: used in its body, not its parameters nor bound inside.
pub fn function_free_vars(f: &Node<Function>) -> Vec<Node<Var>> {
    let mut free = Free::default();
    free.visit_function(f);
    free.free
}
