//! Well-formedness (TVM's `relax.analysis.well_formed`): every variable is
//! defined once and used only in its scope, dataflow variables only inside
//! their dataflow block, arguments are in A-normal form, bindings and blocks
//! occur only where they belong, and global names refer to the module's
//! functions. Struct info cannot be missing here: every variable has it.

use std::collections::hash_map::Entry;
use std::ops::ControlFlow;

use ir_core::{Id, IdMap, Node, Walk};

use super::builder::is_leaf;
use super::expr::{Binding, BindingBlock, Call, Expr, ExprVisitor, Function, GlobalVar, If, Var};
use super::module::{RelaxModule, is_global, module_externs};
use super::prim::PrimExprVisitor;
use super::sinfo::StructInfoVisitor;

type Flow = ControlFlow<String>;

/// `Ok(())`, or the first violation, naming the function.
pub fn well_formed(module: &RelaxModule) -> Result<(), String> {
    if let Some((name, _)) = module_externs(module).find(|(name, _)| module.contains(name)) {
        return Err(format!(
            "`{name}` is both a function and an external function"
        ));
    }
    for (name, f) in module.functions() {
        // Sized once for the function's own definitions, not grown by doubling.
        let definitions = f.own_definitions();
        let mut check = Check {
            module,
            defs: IdMap::with_capacity_and_hasher(definitions, Default::default()),
            scopes: Vec::new(),
            dataflow: None,
            blocks: 0,
        };
        if let ControlFlow::Break(e) = check.visit_function(f) {
            return Err(format!("in function {name}: {e}"));
        }
    }
    Ok(())
}

/// What the checker knows of a variable defined so far.
#[derive(Clone, Copy)]
struct Def {
    /// Whether it is still in scope.
    in_scope: bool,
    /// The dataflow block that defined it (numbered from 1), or 0.
    block: u32,
}

/// One table for every question asked of a variable (defined before? in
/// scope? of which block?): one hash insert per definition and one probe
/// per use.
struct Check<'a> {
    module: &'a RelaxModule,
    /// Every variable defined so far (defined twice is an error).
    defs: IdMap<Node<Var>, Def>,
    /// What each open scope defined, to put out of scope on leaving it.
    scopes: Vec<Vec<Id<Node<Var>>>>,
    /// The dataflow block in view (a function's body hides its caller's):
    /// its number and its variables.
    dataflow: Option<(u32, Vec<Id<Node<Var>>>)>,
    /// How many dataflow blocks were opened.
    blocks: u32,
}

impl Check<'_> {
    fn define(&mut self, v: &Node<Var>) -> Flow {
        // One probe: the slot found is the one filled.
        let Entry::Vacant(slot) = self.defs.entry(v.id()) else {
            return ControlFlow::Break(format!("variable {} is defined twice", v.name));
        };
        let block = if v.dataflow {
            match &mut self.dataflow {
                Some((number, vars)) => {
                    vars.push(v.id());
                    *number
                }
                None => {
                    return ControlFlow::Break(format!(
                        "dataflow variable {} is defined outside a dataflow block",
                        v.name
                    ));
                }
            }
        } else {
            0
        };
        let def = Def {
            in_scope: true,
            block,
        };
        slot.insert(def);
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(v.id());
        }
        ControlFlow::Continue(())
    }

    fn out_of_scope(&mut self, vars: Vec<Id<Node<Var>>>) {
        for v in vars {
            if let Some(d) = self.defs.get_mut(&v) {
                d.in_scope = false;
            }
        }
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self) -> Flow) -> Flow {
        self.scopes.push(Vec::new());
        let r = f(self);
        let vars = self.scopes.pop().unwrap_or_default();
        self.out_of_scope(vars);
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
        let Some(def) = self.defs.get(&v.id()) else {
            return ControlFlow::Break(format!("variable {} is used but not defined", v.name));
        };
        let in_view = self.dataflow.as_ref().map(|(number, _)| *number);
        if v.dataflow && in_view != Some(def.block) {
            return ControlFlow::Break(format!(
                "dataflow variable {} is used outside its dataflow block",
                v.name
            ));
        }
        if !def.in_scope {
            return ControlFlow::Break(format!("variable {} is used but not defined", v.name));
        }
        ControlFlow::Continue(())
    }

    fn visit_var_def(&mut self, v: &Node<Var>) -> Flow {
        self.define(v)
    }

    fn visit_global_var(&mut self, g: &Node<GlobalVar>) -> Flow {
        if is_global(self.module, &g.name) {
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
            Expr::Op(op) if op.def().is_none() => {
                return ControlFlow::Break(format!("unknown operator R.{}", op.name()));
            }
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
            self.blocks += 1;
            self.dataflow = Some((self.blocks, Vec::with_capacity(b.bindings.len())));
        }
        let r = b.walk(self);
        if b.dataflow {
            // Its dataflow variables go out of scope.
            let (_, vars) = self.dataflow.take().unwrap_or_default();
            self.out_of_scope(vars);
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
