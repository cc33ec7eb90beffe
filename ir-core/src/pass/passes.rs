//! The [`Pass`] trait and its three shapes: function passes, module passes
//! and [`Sequential`].

use rayon::prelude::*;

use super::{Module, PassContext, PassError};
use crate::Transformed;

/// A pass's name and scheduling facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassInfo {
    /// The name used in pipelines, errors and instruments.
    pub name: String,
    /// The pass runs only when the context's opt-level is at least this, unless required.
    pub opt_level: u32,
    /// Names of passes this pass needs to have run first (informational).
    pub required: Vec<String>,
}

impl PassInfo {
    /// A pass named `name` enabled from `opt_level`.
    pub fn new(name: impl Into<String>, opt_level: u32) -> Self {
        PassInfo {
            name: name.into(),
            opt_level,
            required: Vec::new(),
        }
    }
}

/// A transformation of a module. It reads the input and returns a new module
/// (sharing every function it did not change), so a failure leaves the input intact.
pub trait Pass<F>: Send + Sync {
    /// Name and scheduling facts.
    fn info(&self) -> &PassInfo;
    /// Runs the pass itself; the context decides whether it runs and wraps
    /// it with instruments ([`PassContext::run`]).
    fn run(&self, module: &Module<F>, ctx: &PassContext<F>) -> Result<Module<F>, PassError>;
    /// `true` for containers such as [`Sequential`], which instruments do not
    /// see: they see the passes inside.
    fn is_sequence(&self) -> bool {
        false
    }
}

type FunctionFn<F> =
    dyn Fn(&F, &Module<F>, &PassContext<F>) -> Result<Transformed<F>, PassError> + Send + Sync;

/// A pass applied to each function on its own, in parallel (rayon) when the
/// context allows it and there is more than one function.
pub struct FunctionPass<F> {
    info: PassInfo,
    body: Box<FunctionFn<F>>,
}

impl<F> FunctionPass<F> {
    /// A function pass running `body` on every function.
    pub fn new(
        name: impl Into<String>,
        opt_level: u32,
        body: impl Fn(&F, &Module<F>, &PassContext<F>) -> Result<Transformed<F>, PassError>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        FunctionPass {
            info: PassInfo::new(name, opt_level),
            body: Box::new(body),
        }
    }
}

impl<F: Clone + Send + Sync> Pass<F> for FunctionPass<F> {
    fn info(&self) -> &PassInfo {
        &self.info
    }

    fn run(&self, module: &Module<F>, ctx: &PassContext<F>) -> Result<Module<F>, PassError> {
        let functions: Vec<(&str, &F)> = module.functions().collect();
        let apply = |(name, f): &(&str, &F)| -> Result<Transformed<F>, PassError> {
            (self.body)(f, module, ctx).map_err(|e| PassError {
                message: format!("in @{name}: {}", e.message),
                ..e
            })
        };
        let results: Vec<Result<Transformed<F>, PassError>> =
            if ctx.parallel() && functions.len() > 1 {
                functions.par_iter().map(apply).collect()
            } else {
                functions.iter().map(apply).collect()
            };
        let mut out = module.clone();
        for ((name, _), result) in functions.iter().zip(results) {
            if let Transformed::Replace(new) = result? {
                out.update_function(name, new)
                    .map_err(|e| PassError::new(e.to_string()))?;
            }
        }
        Ok(out)
    }
}

type ModuleFn<F> =
    dyn Fn(&Module<F>, &PassContext<F>) -> Result<Module<F>, PassError> + Send + Sync;

/// A pass over the whole module (it may add, remove or rewrite functions).
pub struct ModulePass<F> {
    info: PassInfo,
    body: Box<ModuleFn<F>>,
}

impl<F> ModulePass<F> {
    /// A module pass running `body`.
    pub fn new(
        name: impl Into<String>,
        opt_level: u32,
        body: impl Fn(&Module<F>, &PassContext<F>) -> Result<Module<F>, PassError>
        + Send
        + Sync
        + 'static,
    ) -> Self {
        ModulePass {
            info: PassInfo::new(name, opt_level),
            body: Box::new(body),
        }
    }
}

impl<F> Pass<F> for ModulePass<F> {
    fn info(&self) -> &PassInfo {
        &self.info
    }

    fn run(&self, module: &Module<F>, ctx: &PassContext<F>) -> Result<Module<F>, PassError> {
        (self.body)(module, ctx)
    }
}

/// Passes run one after another, each through the context (so each one is
/// checked against opt-level and disabled passes, and instrumented).
pub struct Sequential<F> {
    info: PassInfo,
    passes: Vec<Box<dyn Pass<F>>>,
}

impl<F> Sequential<F> {
    /// A sequence of `passes`, itself a pass named `name` (opt-level 0).
    pub fn new(name: impl Into<String>, passes: Vec<Box<dyn Pass<F>>>) -> Self {
        Sequential {
            info: PassInfo::new(name, 0),
            passes,
        }
    }

    /// The passes, in order.
    pub fn passes(&self) -> &[Box<dyn Pass<F>>] {
        &self.passes
    }
}

impl<F: Clone> Pass<F> for Sequential<F> {
    fn info(&self) -> &PassInfo {
        &self.info
    }

    fn is_sequence(&self) -> bool {
        true
    }

    fn run(&self, module: &Module<F>, ctx: &PassContext<F>) -> Result<Module<F>, PassError> {
        let mut current = module.clone();
        for pass in &self.passes {
            current = ctx.run_pass(pass.as_ref(), &current)?;
        }
        Ok(current)
    }
}
