//! Well-formedness (TVM's `relax.analysis.well_formed`): every variable is
//! defined once and used only in its scope, dataflow variables only inside
//! their dataflow block, arguments are in A-normal form, bindings and blocks
//! occur only where they belong, and global names refer to the module's
//! functions. Struct info cannot be missing here: every variable has it.

use std::ops::ControlFlow;

use ir_core::{Id, IdSet, Node, Walk};

use super::builder::is_leaf;
use super::expr::{Binding, BindingBlock, Call, Expr, ExprVisitor, Function, GlobalVar, If, Var};
use super::module::RelaxModule;
use super::prim::PrimExprVisitor;
use super::sinfo::StructInfoVisitor;

type Flow = ControlFlow<String>;

/// `Ok(())`, or the first violation, naming the function.
pub fn well_formed(module: &RelaxModule) -> Result<(), String> {
    for (name, f) in module.functions() {
        // Sized once for the function's own definitions, not grown by doubling.
        let definitions = f.own_definitions();
        let mut check = Check {
            module,
            defined: IdSet::with_capacity_and_hasher(definitions, Default::default()),
            scopes: Vec::new(),
            dataflow: None,
            ever: IdSet::with_capacity_and_hasher(definitions, Default::default()),
        };
        if let ControlFlow::Break(e) = check.visit_function(f) {
            return Err(format!("in function {name}: {e}"));
        }
    }
    Ok(())
}

struct Check<'a> {
    module: &'a RelaxModule,
    /// Variables in scope.
    defined: IdSet<Node<Var>>,
    /// What each open scope defined, to forget on leaving it.
    scopes: Vec<Vec<Id<Node<Var>>>>,
    /// The dataflow variables of the open dataflow block.
    dataflow: Option<IdSet<Node<Var>>>,
    /// Every variable defined so far (defined twice is an error).
    ever: IdSet<Node<Var>>,
}

impl Check<'_> {
    fn define(&mut self, v: &Node<Var>) -> Flow {
        if !self.ever.insert(v.id()) {
            return ControlFlow::Break(format!("variable {} is defined twice", v.name));
        }
        if v.dataflow {
            match &mut self.dataflow {
                Some(block) => {
                    block.insert(v.id());
                }
                None => {
                    return ControlFlow::Break(format!(
                        "dataflow variable {} is defined outside a dataflow block",
                        v.name
                    ));
                }
            }
        }
        self.defined.insert(v.id());
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(v.id());
        }
        ControlFlow::Continue(())
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self) -> Flow) -> Flow {
        self.scopes.push(Vec::new());
        let r = f(self);
        for v in self.scopes.pop().unwrap_or_default() {
            self.defined.remove(&v);
        }
        r
    }

    fn argument(&mut self, e: &Expr, what: &str) -> Flow {
        if is_leaf(e) || matches!(e, Expr::Tuple(_)) {
            return self.visit_expr(e);
        }
        ControlFlow::Break(format!(
            "{what} `{}` is not in A-normal form",
            e.kind_name()
        ))
    }
}

impl PrimExprVisitor<Flow> for Check<'_> {}
impl StructInfoVisitor<Flow> for Check<'_> {}

impl ExprVisitor<Flow> for Check<'_> {
    fn visit_var(&mut self, v: &Node<Var>) -> Flow {
        let in_block = self.dataflow.as_ref().is_some_and(|b| b.contains(&v.id()));
        if v.dataflow && !in_block && self.ever.contains(&v.id()) {
            return ControlFlow::Break(format!(
                "dataflow variable {} is used outside its dataflow block",
                v.name
            ));
        }
        if !self.defined.contains(&v.id()) {
            return ControlFlow::Break(format!("variable {} is used but not defined", v.name));
        }
        ControlFlow::Continue(())
    }

    fn visit_var_def(&mut self, v: &Node<Var>) -> Flow {
        self.define(v)
    }

    fn visit_global_var(&mut self, g: &Node<GlobalVar>) -> Flow {
        if self.module.contains(&g.name) {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(format!("global function {} is not in the module", g.name))
        }
    }

    fn visit_function(&mut self, f: &Node<Function>) -> Flow {
        // A function's body is not inside the caller's dataflow block.
        let outer = self.dataflow.take();
        let r = self.scoped(|c| {
            for p in &f.params {
                c.define(p)?;
            }
            c.visit_seq_expr(&f.body)
        });
        self.dataflow = outer;
        r
    }

    fn visit_if(&mut self, i: &Node<If>) -> Flow {
        self.argument(&i.cond, "the condition")?;
        self.scoped(|c| c.visit_seq_expr(&i.true_branch))?;
        self.scoped(|c| c.visit_seq_expr(&i.false_branch))
    }

    fn visit_call(&mut self, c: &Node<Call>) -> Flow {
        match c.op() {
            Expr::Op(_) | Expr::GlobalVar(_) | Expr::Var(_) | Expr::ExternFunc(_) => {
                self.visit_expr(c.op())?
            }
            other => {
                return ControlFlow::Break(format!(
                    "a callee `{}` is not in A-normal form",
                    other.kind_name()
                ));
            }
        }
        for a in c.args() {
            self.argument(a, "an argument")?;
        }
        ControlFlow::Continue(())
    }

    fn visit_binding_block(&mut self, b: &Node<BindingBlock>) -> Flow {
        if b.dataflow {
            let size = b.bindings.len();
            self.dataflow = Some(IdSet::with_capacity_and_hasher(size, Default::default()));
        }
        let r = b.walk(self);
        if b.dataflow {
            // Its dataflow variables go out of scope.
            for v in self.dataflow.take().unwrap_or_default() {
                self.defined.remove(&v);
            }
        }
        r
    }

    fn visit_binding(&mut self, b: &Node<Binding>) -> Flow {
        match &b.value {
            // A local function may call itself: its name is in scope in its body.
            Expr::Function(f) => {
                self.define(&b.var)?;
                self.visit_function(f)
            }
            Expr::Binding(_) | Expr::BindingBlock(_) => ControlFlow::Break(format!(
                "the value bound to {} is a {}",
                b.var.name,
                b.value.kind_name()
            )),
            value => {
                self.visit_expr(value)?;
                if let Some(c) = &b.cast {
                    self.visit_struct_info(c)?;
                }
                self.define(&b.var)
            }
        }
    }

    fn visit_expr(&mut self, e: &Expr) -> Flow {
        match e {
            Expr::Binding(_) | Expr::BindingBlock(_) => {
                ControlFlow::Break(format!("a {} stands where a value goes", e.kind_name()))
            }
            e => e.walk(self),
        }
    }
}
