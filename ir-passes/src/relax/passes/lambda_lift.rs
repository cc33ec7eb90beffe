//! `lambda-lift`: every function bound inside another becomes a private
//! global function (TVM's `LambdaLift`). The input module is not modified.
//!
//! * The lifted function of `f = fn` inside global `g` is `g_f` (then the
//!   path of enclosing local functions, then `_0`, `_1`, … while taken).
//! * Its captured variables (free in it) become extra parameters, after its
//!   own. Without any, uses of `f` name the global and the binding goes;
//!   with some, `f` is bound to `R.make_closure(cls.g_f, (captured,))`, an
//!   opaque object (`R.Any`).
//! * A call of a local variable of function type that is not a lifted
//!   global is a call of a closure: `R.invoke_pure_closure(f, (args,),
//!   ty_args=(result,))` (`R.invoke_closure` for an impure function).
//! * Inside a lifted function, a recursive call of itself calls the global
//!   directly, passing its captured parameters on.

use ir_core::{IdMap, Node, Transformed};
use rustc_hash::FxHashSet;

use crate::relax::BuilderError;
use crate::relax::erase::function_result;
use crate::relax::expr::{Binding, Call, Expr, ExprMutator, Function, GlobalVar, Var};
use crate::relax::free_vars::free_vars_of_functions;
use crate::relax::module::{RelaxModule, module_externs};
use crate::relax::mutator::{self, MutatorState, run_mutator};
use crate::relax::ops::op_expr;
use crate::relax::prim::PrimExprMutator;
use crate::relax::sinfo::{StructInfo, StructInfoMutator};
use crate::relax::sinfo_of;

/// How a lifted local function is reached.
#[derive(Clone)]
struct Lifted {
    global: Node<GlobalVar>,
    /// Inside the lifted function itself: its captured parameters, passed
    /// on by a recursive call. Empty elsewhere.
    pass_on: Vec<Node<Var>>,
}

struct LambdaLift<'a> {
    state: MutatorState,
    /// The global function being rewritten.
    global_name: String,
    /// Names of the enclosing local functions (for a second name choice).
    path: Vec<String>,
    /// Names in use in the module, lifted ones included.
    taken: &'a mut FxHashSet<String>,
    /// The lifted functions, in the order they were made.
    lifted: &'a mut Vec<(String, Node<Function>)>,
    /// Local function variables (without captures, or inside themselves)
    /// -> how they are now reached.
    direct: IdMap<Node<Var>, Lifted>,
    /// The free variables of every function of the global one.
    free: IdMap<Node<Function>, Vec<Node<Var>>>,
}

impl LambdaLift<'_> {
    fn fresh_name(&mut self, local: &str) -> String {
        let first = format!("{}_{local}", self.global_name);
        let name = if self.taken.contains(&first) {
            // Only then the path (building it at every level of a nest of
            // functions would cost the depth each time).
            let mut full = self.global_name.clone();
            for p in &self.path {
                full.push('_');
                full.push_str(p);
            }
            full.push('_');
            full.push_str(local);
            std::iter::once(full.clone())
                .chain((0..).map(|i| format!("{full}_{i}")))
                .find(|n| !self.taken.contains(n))
                .unwrap_or(full)
        } else {
            first
        };
        self.taken.insert(name.clone());
        name
    }

    /// Lifts `f`, bound to `var`: adds the global and binds or forgets `var`.
    fn lift(&mut self, var: &Node<Var>, f: &Node<Function>) {
        // Captured: free in `f`, other than itself and lifted globals.
        let captured: Vec<Node<Var>> = self
            .free
            .get(&f.id())
            .into_iter()
            .flatten()
            .filter(|v| !v.same_as(var) && !self.direct.contains_key(&v.id()))
            .cloned()
            .collect();
        // Inside, a captured variable is a new parameter of the same name and
        // of the struct info it has now (a closure is an object).
        let now = |s: &MutatorState, v: &Node<Var>| s.remapped(v).cloned().unwrap_or(v.clone());
        let params: Vec<Node<Var>> = captured
            .iter()
            .map(|v| Var::new(&v.name, now(&self.state, v).sinfo.clone()))
            .collect();
        let name = self.fresh_name(&var.name);
        let mut all_params = f.params.clone();
        all_params.extend(params.iter().cloned());
        let widened = Node::new(Function {
            params: all_params,
            body: f.body.clone(),
            ret_sinfo: f.ret_sinfo.clone(),
            pure: f.pure,
            private: true,
            attrs: f.attrs.clone(),
        });
        // A global's struct info is its function's signature.
        let global_of = |g: &Node<Function>| {
            Node::new(GlobalVar {
                name: name.clone(),
                sinfo: sinfo_of(&Expr::Function(g.clone())).ok(),
            })
        };
        let global = global_of(&widened);
        // The body, with captured variables as the new parameters and a
        // recursive call passing them on.
        let saved: Vec<_> = captured
            .iter()
            .map(|v| self.state.var_remap.get(&v.id()).cloned())
            .collect();
        for (old, new) in captured.iter().zip(&params) {
            self.state.remap(old, new);
        }
        let outside = self.direct.insert(
            var.id(),
            Lifted {
                global: global.clone(),
                pass_on: params.clone(),
            },
        );
        self.path.push(var.name.to_string());
        let body = match mutator::function(self, &widened) {
            // A lifted function's result is its new body's, as TVM's
            // LambdaLift makes it (a closure it returns is now an object).
            Transformed::Replace(Expr::Function(g)) => match sinfo_of(&g.body.body) {
                Ok(actual) if !actual.same_as(&g.ret_sinfo) => Node::new(Function {
                    ret_sinfo: function_result(&actual, &g.params),
                    ..(*g).clone()
                }),
                _ => g,
            },
            _ => widened,
        };
        self.path.pop();
        match outside {
            Some(o) => self.direct.insert(var.id(), o),
            None => self.direct.remove(&var.id()),
        };
        for (v, before) in captured.iter().zip(saved) {
            match before {
                Some(entry) => self.state.var_remap.insert(v.id(), entry),
                None => self.state.var_remap.remove(&v.id()),
            };
        }
        let global = global_of(&body);
        self.lifted.push((name, body));
        if captured.is_empty() {
            // Uses name the global; the binding goes.
            self.direct.insert(
                var.id(),
                Lifted {
                    global,
                    pass_on: Vec::new(),
                },
            );
            return;
        }
        let args: Vec<Expr> = captured
            .iter()
            .map(|v| Expr::Var(now(&self.state, v)))
            .collect();
        let closure = Expr::call_op(
            "make_closure",
            vec![Expr::GlobalVar(global), Expr::tuple(args)],
        );
        let bound = Var::new(&var.name, StructInfo::object());
        self.state.remap(var, &bound);
        let binding = Node::new(Binding {
            value: closure,
            cast: None,
            var: bound,
        });
        if let Err(e) = self.state.builder.emit_normalized(binding) {
            self.state.fail(e);
        }
    }
}

impl PrimExprMutator for LambdaLift<'_> {}
impl StructInfoMutator for LambdaLift<'_> {}

impl ExprMutator for LambdaLift<'_> {
    fn mutator_state(&mut self) -> &mut MutatorState {
        &mut self.state
    }

    fn mutate_binding(&mut self, b: &Node<Binding>) -> Transformed<Expr> {
        match (&b.value, &b.cast) {
            (Expr::Function(f), None) => {
                self.lift(&b.var, f);
                Transformed::Keep
            }
            _ => mutator::binding(self, b),
        }
    }

    fn mutate_var(&mut self, v: &Node<Var>) -> Transformed<Expr> {
        match self.direct.get(&v.id()) {
            Some(l) if l.pass_on.is_empty() => {
                Transformed::Replace(Expr::GlobalVar(l.global.clone()))
            }
            _ => mutator::var_use(self, v),
        }
    }

    fn mutate_call(&mut self, c: &Node<Call>) -> Transformed<Expr> {
        let Expr::Var(callee) = c.op() else {
            return c.rebuild(self).into();
        };
        let args = |m: &mut Self| -> Vec<Expr> {
            c.args()
                .iter()
                .map(|a| m.mutate_expr(a).unwrap_or_clone(a))
                .collect()
        };
        if let Some(l) = self.direct.get(&callee.id()).cloned() {
            // A lifted global: called directly, captured parameters passed on.
            let mut args = args(self);
            args.extend(l.pass_on.iter().cloned().map(Expr::Var));
            return Transformed::Replace(
                Call::new(Expr::GlobalVar(l.global), args)
                    .with_attrs(c.attrs().to_vec())
                    .with_sinfo_args(c.sinfo_args().to_vec())
                    .into(),
            );
        }
        let StructInfo::FuncStructInfo(fs) = &callee.sinfo else {
            return c.rebuild(self).into();
        };
        // A closure value: invoked.
        let closure = self.mutate_expr(c.op()).unwrap_or_clone(c.op());
        let op = if fs.pure {
            "invoke_pure_closure"
        } else {
            "invoke_closure"
        };
        let args = args(self);
        Transformed::Replace(
            Call::new(op_expr(op), [closure, Expr::tuple(args)])
                .with_sinfo_args(vec![fs.ret.clone()])
                .into(),
        )
    }
}

/// `module` with every local function lifted to a private global.
pub fn lambda_lift(module: &RelaxModule) -> Result<RelaxModule, BuilderError> {
    let mut taken: FxHashSet<String> = module
        .names()
        .chain(module_externs(module).map(|(name, _)| name))
        .map(str::to_owned)
        .collect();
    let mut lifted = Vec::new();
    let mut rewritten = Vec::new();
    for (name, f) in module.functions() {
        let mut pass = LambdaLift {
            state: MutatorState::default(),
            global_name: name.to_owned(),
            path: Vec::new(),
            taken: &mut taken,
            lifted: &mut lifted,
            direct: IdMap::default(),
            free: free_vars_of_functions(&Expr::Function(f.clone())),
        };
        if let Expr::Function(g) = run_mutator(&mut pass, &Expr::Function(f.clone()))?
            && !g.same_as(f)
        {
            rewritten.push((name.to_owned(), g));
        }
    }
    if lifted.is_empty() && rewritten.is_empty() {
        return Ok(module.clone());
    }
    let mut out = module.clone();
    for (name, g) in rewritten {
        out.update_function(&name, g)
            .map_err(|e| BuilderError(e.to_string()))?;
    }
    for (name, g) in lifted {
        out.add_function(&name, g)
            .map_err(|e| BuilderError(e.to_string()))?;
    }
    Ok(out)
}
