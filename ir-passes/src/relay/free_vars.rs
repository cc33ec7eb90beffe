//! FreeVars: the variables an expression uses but does not bind.

use crate::relay::pattern::PatternVisitor;
use std::ops::ControlFlow;

use ir_core::{IdMap, IdSet, Node, VisitedSet};

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
impl PatternVisitor for Free {}
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
/// let names: Vec<String> = free_vars(&e).iter().map(|v| v.name.to_string()).collect();
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

/// One function's walk in [`free_vars_of_functions`].
#[derive(Default)]
struct Frame {
    bound: IdSet<Node<Var>>,
    seen: IdSet<Node<Var>>,
    used: Vec<Node<Var>>,
    visited: VisitedSet<Expr>,
}

struct FreeOfFunctions {
    frames: Vec<Frame>,
    found: IdMap<Node<Function>, Vec<Node<Var>>>,
}

impl FreeOfFunctions {
    fn use_var(&mut self, v: &Node<Var>) {
        if let Some(frame) = self.frames.last_mut()
            && frame.seen.insert(v.id())
        {
            frame.used.push(v.clone());
        }
    }
}

impl TypeVisitor for FreeOfFunctions {
    fn visit_type(&mut self, _: &Type) {}
}
impl PatternVisitor for FreeOfFunctions {}
impl ExprVisitor for FreeOfFunctions {
    fn visit_expr(&mut self, e: &Expr) {
        // Shared nodes once per function: a node shared by two functions
        // may use variables free in both.
        ir_core::visit_preorder(self, e, |pass, e| {
            let first = pass
                .frames
                .last_mut()
                .is_none_or(|frame| e.is_var() || frame.visited.first_visit(e));
            if first {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })
    }
    fn visit_function(&mut self, f: &Node<Function>) {
        if let Some(free) = self.found.get(&f.id()) {
            for v in free.clone() {
                self.use_var(&v);
            }
            return;
        }
        self.frames.push(Frame::default());
        f.walk(self);
        let frame = self.frames.pop().unwrap_or_default();
        let free: Vec<Node<Var>> = frame
            .used
            .into_iter()
            .filter(|v| !frame.bound.contains(&v.id()))
            .collect();
        for v in &free {
            self.use_var(v);
        }
        self.found.insert(f.id(), free);
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        if let Some(frame) = self.frames.last_mut() {
            frame.bound.insert(v.id());
        }
        v.walk(self);
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        self.use_var(v);
    }
}

/// The free variables of `f` and of every function nested in it, by
/// function, each in order of first use: one walk, so that `n` nested
/// functions are not walked `n` times (as [`function_free_vars`] on each
/// would). A node shared by several functions is walked once in each.
pub fn free_vars_of_functions(f: &Node<Function>) -> IdMap<Node<Function>, Vec<Node<Var>>> {
    let mut walk = FreeOfFunctions {
        frames: Vec::new(),
        found: IdMap::default(),
    };
    walk.visit_function(f);
    walk.found
}
