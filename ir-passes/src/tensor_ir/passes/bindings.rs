//! Variables that hold one value for their whole scope, found before a pass
//! starts (oneDNN's `constant_fold_analysis_t`, made sound):
//!
//! - a loop variable its body never assigns;
//! - a variable defined with an initializer and never assigned;
//! - a variable defined without one and assigned exactly once before any
//!   read of it, outside any branch or loop that its definition is not in
//!   (nested plain blocks run unconditionally): the assignment comes before
//!   every use.
//!
//! oneDNN also counts a variable assigned once anywhere (inside an `if` or a
//! loop, or after a read), which lets it use a value the variable does not
//! hold yet. Here such a variable varies.
//!
//! For a stable variable whose value is made only of constants and other
//! stable variables (no call, no tensor element: a store could change one),
//! that value can stand for the variable wherever it is in scope.

use ir_core::{IdMap, Node};

use crate::tensor_ir::expr::{Expr, ExprVisitor, Var};
use crate::tensor_ir::stmt::{Assign, Define, ForLoop, IfElse, Stmt, StmtVisitor};

/// The stable variables of a program, and the value of each that can be
/// substituted for it.
#[derive(Default)]
pub(crate) struct Bindings {
    stable: IdMap<Node<Var>, Option<Expr>>,
}

impl Bindings {
    /// The stable variables of `program`. The analysis is one walk, then one
    /// check of each recorded value.
    pub(crate) fn of(program: &Stmt) -> Self {
        let mut finder = Finder::default();
        finder.visit_stmt(program);
        let states = finder.states;
        let is_stable = |v: &Node<Var>| matches!(states.get(&v.id()), Some(State::Stable(_)));
        let stable = states
            .iter()
            .filter_map(|(id, state)| match state {
                State::Stable(value) => Some((
                    *id,
                    value
                        .as_ref()
                        .filter(|e| substitutable(e, &is_stable))
                        .cloned(),
                )),
                _ => None,
            })
            .collect();
        Bindings { stable }
    }

    /// Whether some variable is stable here and not in `before`: folding
    /// removed the last other assignment or read that kept it varying.
    pub(crate) fn gained_over(&self, before: &Bindings) -> bool {
        self.stable.keys().any(|id| !before.stable.contains_key(id))
    }

    /// Whether `v` holds one value for its whole scope.
    pub(crate) fn is_stable(&self, v: &Node<Var>) -> bool {
        self.stable.contains_key(&v.id())
    }

    /// What `e` stands for: the value of the stable variable `e`, followed
    /// through variables bound to variables; `None` when `e` is not such a
    /// variable.
    pub(crate) fn resolve(&self, e: &Expr) -> Option<Expr> {
        let mut current = e;
        let mut found = None;
        // Values are defined before their uses, so chains end; the bound
        // only keeps a pathological program from walking far.
        for _ in 0..64 {
            let Expr::Var(v) = current else { break };
            let Some(Some(value)) = self.stable.get(&v.id()) else {
                break;
            };
            found = Some(value);
            current = value;
        }
        found.cloned()
    }
}

/// Made only of constants and stable variables, with no call or tensor read.
fn substitutable(e: &Expr, is_stable: &dyn Fn(&Node<Var>) -> bool) -> bool {
    use std::ops::ControlFlow;
    struct Check<'a>(&'a dyn Fn(&Node<Var>) -> bool);
    impl ExprVisitor<ControlFlow<()>> for Check<'_> {
        fn visit_var(&mut self, v: &Node<Var>) -> ControlFlow<()> {
            if (self.0)(v) {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        }
        fn visit_call(&mut self, _: &Node<crate::tensor_ir::Call>) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
        fn visit_indexing(&mut self, _: &Node<crate::tensor_ir::Indexing>) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
        fn visit_tensor_ptr(&mut self, _: &Node<crate::tensor_ir::TensorPtr>) -> ControlFlow<()> {
            ControlFlow::Break(())
        }
    }
    Check(is_stable).visit_expr(e).is_continue()
}

/// What the walk knows of a variable so far.
enum State {
    /// Defined without a value in scope `scope`, not read yet.
    Unset { scope: u32 },
    /// One value for its whole scope: the expression when known.
    Stable(Option<Expr>),
    /// Assigned twice, or elsewhere than its block, or read first.
    Varying,
}

/// Walks a program in execution order, following each variable's state.
#[derive(Default)]
struct Finder {
    states: IdMap<Node<Var>, State>,
    /// The branches and loop bodies around the statement being walked,
    /// innermost last.
    scopes: Vec<u32>,
    next_scope: u32,
}

impl Finder {
    fn scope(&self) -> u32 {
        self.scopes.last().copied().unwrap_or(u32::MAX)
    }

    fn in_scope(&mut self, s: &Stmt) {
        self.scopes.push(self.next_scope);
        self.next_scope += 1;
        self.visit_stmt(s);
        self.scopes.pop();
    }

    /// A definition: a second one of the same node makes it vary.
    fn define(&mut self, v: &Node<Var>, state: State) {
        let id = v.id();
        let state = if self.states.contains_key(&id) {
            State::Varying
        } else {
            state
        };
        self.states.insert(id, state);
    }
}

impl ExprVisitor for Finder {
    fn visit_var(&mut self, v: &Node<Var>) {
        // A read before the variable has its value, or of a variable defined
        // outside the program (a parameter), makes it vary.
        match self.states.get(&v.id()) {
            Some(State::Stable(_) | State::Varying) => {}
            _ => {
                self.states.insert(v.id(), State::Varying);
            }
        }
    }
}

impl StmtVisitor for Finder {
    fn visit_define(&mut self, d: &Node<Define>) {
        match &d.init {
            Some(init) => {
                self.visit_expr(init);
                let value = (init.dtype() == d.var.dtype).then(|| init.clone());
                self.define(&d.var, State::Stable(value));
            }
            None => {
                let scope = self.scope();
                self.define(&d.var, State::Unset { scope });
            }
        }
    }

    fn visit_assign(&mut self, a: &Node<Assign>) {
        // The value is read before the variable is written.
        self.visit_expr(&a.rhs);
        let Expr::Var(v) = &a.lhs else {
            self.visit_expr(&a.lhs);
            return;
        };
        let scope = self.scope();
        let next = match self.states.get(&v.id()) {
            Some(State::Unset { scope: s }) if *s == scope => {
                // A value of another type is stored converted: it cannot stand for the variable.
                State::Stable((a.rhs.dtype() == v.dtype).then(|| a.rhs.clone()))
            }
            _ => State::Varying,
        };
        self.states.insert(v.id(), next);
    }

    fn visit_for_loop(&mut self, l: &Node<ForLoop>) {
        self.visit_expr(&l.begin);
        self.visit_expr(&l.end);
        self.visit_expr(&l.step);
        self.define(&l.var, State::Stable(None));
        self.in_scope(&l.body);
    }

    fn visit_if_else(&mut self, s: &Node<IfElse>) {
        self.visit_expr(&s.cond);
        self.in_scope(&s.then_case);
        if let Some(e) = &s.else_case {
            self.in_scope(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor_ir::parse_stmt;

    /// The names of the stable variables of `text`, and of those with a
    /// value that can stand for them.
    fn stable(text: &str) -> (Vec<String>, Vec<String>) {
        let s = parse_stmt(text).unwrap();
        let b = Bindings::of(&s);
        let mut all = Vec::new();
        let mut valued = Vec::new();
        struct Names<'a>(&'a Bindings, &'a mut Vec<String>, &'a mut Vec<String>);
        impl ExprVisitor for Names<'_> {
            fn visit_var_def(&mut self, v: &Node<Var>) {
                if self.0.is_stable(v) {
                    self.1.push(v.name.clone());
                    if self.0.resolve(&Expr::Var(v.clone())).is_some() {
                        self.2.push(v.name.clone());
                    }
                }
            }
        }
        impl StmtVisitor for Names<'_> {}
        Names(&b, &mut all, &mut valued).visit_stmt(&s);
        (all, valued)
    }

    #[test]
    fn one_assignment_before_every_read_in_the_defining_block() {
        let (all, valued) = stable(
            "{ var a: index  a = 1UL  var b: index = (a + 2UL)  var c: index  c = 1UL  c = 2UL
               var d: index  if ((b < 3UL)) { d = 1UL }
               var h: index  { h = 2UL }
               var e: index  evaluate{e}  e = 1UL
               tensor A: [index * 4]  var f: index = A[0]
               for i in (0UL, 4UL, 1UL) { var g: index = (i + b) }
               for j in (0UL, 4UL, 1UL) { j = 1UL } }",
        );
        assert_eq!(all, ["a", "b", "h", "f", "i", "g"]);
        // `f` reads a tensor element, which a store could change.
        assert_eq!(valued, ["a", "b", "h", "g"]);
    }
}
