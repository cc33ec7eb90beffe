//! Well-formedness: every variable is bound once and every use is bound (or
//! a parameter). Type checking is a separate step ([`verify`] does both), as
//! in TVM, where well-formed but ill-typed text is valid Relay.

use crate::relay::pattern::PatternVisitor;
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
impl PatternVisitor for Definitions {}
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

/// Checks a module's scoping (not its types); the error lists what is
/// wrong, function by function.
///
/// ```
/// use ir_passes::relay::{parse_module, verify, well_formed};
///
/// // Well-formed but ill-typed: TVM's parser accepts it too.
/// let m = parse_module("#[version = \"0.0.5\"]\ndef @main() { add(1f, 1) }").unwrap();
/// assert!(well_formed(&m).is_ok());
/// assert!(verify(&m).unwrap_err().contains("operand types differ: float32 and int32"));
/// ```
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
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// [`well_formed`] and then [`check_module`]: what `--verify-each` checks
/// after every pass.
pub fn verify(module: &RelayModule) -> Result<(), String> {
    well_formed(module)?;
    check_module(module)
}
