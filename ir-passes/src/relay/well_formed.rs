//! Well-formedness: every variable is bound once, every use is bound (or a
//! parameter), and the program type-checks.

use ir_core::{IdSet, Node, VisitedSet};

use super::expr::{Expr, ExprVisitor, Var};
use super::free_vars::function_free_vars;
use super::infer::check_module;
use super::module::RelayModule;
use super::ty::{Type, TypeVisitor};

/// Reports variables bound more than once.
#[derive(Default)]
struct Definitions {
    bound: IdSet<Node<Var>>,
    errors: Vec<String>,
    seen: VisitedSet<Expr>,
}

impl TypeVisitor for Definitions {
    // Types hold no expressions, and are shared: walking each would cost
    // the depth of nested function types at every function.
    fn visit_type(&mut self, _: &Type) {}
}
impl ExprVisitor for Definitions {
    fn visit_expr(&mut self, e: &Expr) {
        ir_core::visited(self, e, |pass| &mut pass.seen)
    }
    fn visit_var_def(&mut self, v: &Node<Var>) {
        if !self.bound.insert(v.id()) {
            self.errors.push(format!("%{} is bound twice", v.name));
        }
        v.walk(self);
    }
}

/// Checks a module; the error lists what is wrong, function by function.
pub fn well_formed(module: &RelayModule) -> Result<(), String> {
    let mut problems = Vec::new();
    for (name, f) in module.functions() {
        let mut defs = Definitions::default();
        defs.visit_function(f);
        let unbound = function_free_vars(f)
            .into_iter()
            .map(|v| format!("%{} is used but not bound", v.name));
        problems.extend(
            defs.errors
                .into_iter()
                .chain(unbound)
                .map(|e| format!("in @{name}: {e}")),
        );
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
