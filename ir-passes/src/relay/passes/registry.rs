//! The Relay passes by name, for pipelines such as `fold-constant,dce{inline-once=true}`.

use ir_core::pass::{
    FunctionPass, Module, ModulePass, Pass, PassContext, PassError, PassOptions, PassRegistry,
};
use ir_core::{Node, Transformed};

use super::fold_budget::{DEFAULT_MAX_TOTAL_ELEMENTS, DEFAULT_MAX_TOTAL_WORK, FoldBudget};
use super::fold_constant::{ConstantFolder, DEFAULT_MAX_ELEMENTS};
use super::{
    dead_code_elimination_with, eliminate_common_subexpr_skipping, fill_types, module_writes,
    to_anf, to_gnf_with,
};
use crate::relay::expr::{Expr, Function};
use crate::relay::module::RelayModule;
use std::sync::Arc;

/// The pipeline `ir-opt` runs on its demo model.
pub const DEFAULT_PIPELINE: &str = "infer-type,fold-constant,cse,dce";

type F = Node<Function>;

/// Runs an expression-to-expression transformation on a function's body.
fn on_body(
    name: &'static str,
    opt_level: u32,
    f: impl Fn(&Expr) -> Expr + Send + Sync + 'static,
) -> FunctionPass<F> {
    FunctionPass::new(
        name,
        opt_level,
        move |func: &F, _: &RelayModule, _: &PassContext<F>| Ok(with_body(func, f(&func.body))),
    )
}

/// `func` with `body`, or kept if the body is the same node.
fn with_body(func: &F, body: Expr) -> Transformed<F> {
    if body.same_as(&func.body) {
        return Transformed::Keep;
    }
    Transformed::Replace(Node::new(Function {
        body,
        ..(**func).clone()
    }))
}

/// [`on_body`] for a transformation that must know whether calls of unknown
/// functions may write references: whether the module writes any, found
/// once per run.
fn on_body_knowing_writes(
    name: &'static str,
    opt_level: u32,
    f: impl Fn(&Expr, bool) -> Expr + Clone + Send + Sync + 'static,
) -> ModulePass<F> {
    ModulePass::new(name, opt_level, move |m: &RelayModule, ctx| {
        let writes = module_writes(m);
        let f = f.clone();
        on_body(name, opt_level, move |e| f(e, writes)).run(m, ctx)
    })
}

/// The registry of Relay passes: `infer-type`, `fold-constant` (option
/// `max-elements`), `dce` (option `inline-once`), `cse` (option `skip`),
/// `to-anf`, `to-gnf`.
pub fn registry() -> PassRegistry<F> {
    let mut r = PassRegistry::new();
    r.register(
        "infer-type",
        "infer types; fill in let-variable and return types",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(FunctionPass::new(
                "infer-type",
                0,
                |f: &F, m: &Module<F>, _: &PassContext<F>| {
                    fill_types(m, f).map_err(|e| PassError::new(e.to_string()))
                },
            )) as Box<dyn Pass<F>>)
        },
    );
    r.register(
        "fold-constant",
        "evaluate constant subexpressions (options `max-elements`: the largest result folded; \
         `max-total-elements`: the most folded in all; `max-total-work`: the most kernel \
         steps in all)",
        |o: &PassOptions| {
            let max = o.get_u64("max-elements", DEFAULT_MAX_ELEMENTS)?;
            let total = o.get_u64("max-total-elements", DEFAULT_MAX_TOTAL_ELEMENTS)?;
            let work = o.get_u64("max-total-work", DEFAULT_MAX_TOTAL_WORK)?;
            o.expect_only(&["max-elements", "max-total-elements", "max-total-work"])?;
            Ok(Box::new(ModulePass::new(
                "fold-constant",
                2,
                move |m: &RelayModule, ctx: &PassContext<F>| {
                    // One budget for the run, drawn on by every function's folder.
                    let budget = Arc::new(FoldBudget::new(total, work));
                    FunctionPass::new(
                        "fold-constant",
                        2,
                        move |func: &F, _: &RelayModule, ctx: &PassContext<F>| {
                            let mut folder =
                                ConstantFolder::with_max_elements(max).with_budget(budget.clone());
                            let body = folder.fold(&func.body);
                            let left = folder.left_over_bound();
                            if left > 0 {
                                ctx.note(
                                    "fold-constant",
                                    format!(
                                        "{left} call{} of constants left unfolded: the result \
                                         would have more than {max} elements, or take the run \
                                         past {total} elements or {work} kernel steps in all \
                                         (options `max-elements`, `max-total-elements`, \
                                         `max-total-work`)",
                                        if left == 1 { "" } else { "s" }
                                    ),
                                );
                            }
                            Ok(with_body(func, body))
                        },
                    )
                    .run(m, ctx)
                },
            )) as Box<dyn Pass<F>>)
        },
    );
    r.register("dce", "remove unused let bindings", |o: &PassOptions| {
        let inline_once = o.get_bool("inline-once", false)?;
        o.expect_only(&["inline-once"])?;
        Ok(Box::new(on_body_knowing_writes("dce", 1, move |e, writes| {
            dead_code_elimination_with(e, inline_once, writes)
        })) as Box<dyn Pass<F>>)
    });
    r.register(
        "cse",
        "share repeated calls (option `skip`: operators never shared, `skip=add|nn.relu`)",
        |o: &PassOptions| {
            let skip: Vec<String> = o
                .get("skip")
                .map(|s| s.split('|').map(|op| op.trim().to_owned()).collect())
                .unwrap_or_default();
            o.expect_only(&["skip"])?;
            Ok(Box::new(on_body("cse", 3, move |e| {
                let skip: Vec<&str> = skip.iter().map(String::as_str).collect();
                eliminate_common_subexpr_skipping(e, &skip)
            })) as Box<dyn Pass<F>>)
        },
    );
    r.register(
        "to-anf",
        "bind every compound subexpression with a let (A-normal form)",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(on_body("to-anf", 0, to_anf)) as Box<dyn Pass<F>>)
        },
    );
    r.register(
        "to-gnf",
        "replace lets by shared nodes (graph normal form)",
        |o: &PassOptions| {
            o.expect_only(&[])?;
            Ok(Box::new(on_body_knowing_writes("to-gnf", 0, to_gnf_with)) as Box<dyn Pass<F>>)
        },
    );
    r
}
