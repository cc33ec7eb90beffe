//! Well-formedness: every variable is bound once, every use is bound (or a
//! parameter), and the program type-checks.

use std::collections::HashSet;

use ir_core::{Node, VisitedSet, Walk};

use super::expr::{Expr, ExprVisitor, Var};
use super::infer::check_module;
use super::module::RelayModule;
use super::ty::TypeVisitor;

#[derive(Default)]
struct Bindings {
    bound: HashSet<usize>,
    errors: Vec<String>,
    uses: Vec<Node<Var>>,
    seen: VisitedSet<Expr>,
}

impl TypeVisitor for Bindings {}
impl ExprVisitor for Bindings {
    fn visit_expr(&mut self, e: &Expr) {
        if e.is_var() || self.seen.first_visit(e) {
            e.walk(self);
        }
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        if !self.bound.insert(v.addr()) {
            self.errors.push(format!("%{} is bound twice", v.name));
        }
        v.walk(self);
    }
    fn visit_var(&mut self, v: &Node<Var>) {
        self.uses.push(v.clone());
    }
}

/// Checks a module; the error lists what is wrong, function by function.
pub fn well_formed(module: &RelayModule) -> Result<(), String> {
    let mut problems = Vec::new();
    for (name, f) in module.functions() {
        let mut b = Bindings::default();
        b.visit_function(f);
        let mut reported = HashSet::new();
        for v in &b.uses {
            if !b.bound.contains(&v.addr()) && reported.insert(v.addr()) {
                b.errors.push(format!("%{} is used but not bound", v.name));
            }
        }
        problems.extend(b.errors.into_iter().map(|e| format!("in @{name}: {e}")));
    }
    if let Err(e) = check_module(module) {
        problems.push(e);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
