//! [`PassContext`]: what decides whether and how passes run.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

use super::{FailureKind, Module, Note, Pass, PassError, PassInfo, PassInstrument};

/// Settings for a run of passes (TVM's `PassContext`): opt-level, required
/// and disabled passes, free-form config, instruments, and whether function
/// passes may run functions in parallel.
///
/// Instrument order: `enter_pass_ctx` once, then per pass `should_run`,
/// `run_before_pass`, the pass, `run_after_pass`; `exit_pass_ctx` at the end,
/// also after a failure.
pub struct PassContext<F> {
    opt_level: u32,
    required: BTreeSet<String>,
    disabled: BTreeSet<String>,
    config: BTreeMap<String, String>,
    instruments: Vec<Box<dyn PassInstrument<F>>>,
    parallel: bool,
    /// What passes noted during runs (a mutex: function passes may run
    /// functions on several threads).
    notes: Mutex<Vec<Note>>,
}

impl<F> Default for PassContext<F> {
    /// Opt-level 2 (TVM's default), nothing required or disabled, parallel.
    fn default() -> Self {
        PassContext {
            opt_level: 2,
            required: BTreeSet::new(),
            disabled: BTreeSet::new(),
            config: BTreeMap::new(),
            instruments: Vec::new(),
            parallel: true,
            notes: Mutex::new(Vec::new()),
        }
    }
}

impl<F: Clone> PassContext<F> {
    /// Sets the opt-level: passes above it are skipped unless required.
    pub fn with_opt_level(mut self, level: u32) -> Self {
        self.opt_level = level;
        self
    }

    /// Runs `pass` whatever its opt-level.
    pub fn require(mut self, pass: impl Into<String>) -> Self {
        self.required.insert(pass.into());
        self
    }

    /// Never runs `pass`.
    pub fn disable(mut self, pass: impl Into<String>) -> Self {
        self.disabled.insert(pass.into());
        self
    }

    /// Sets a config entry, for passes to read with [`PassContext::config`].
    pub fn with_config(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.config.insert(key.into(), value.into());
        self
    }

    /// Adds an instrument; instruments are called in the order added.
    pub fn with_instrument(mut self, instrument: impl PassInstrument<F> + 'static) -> Self {
        self.instruments.push(Box::new(instrument));
        self
    }

    /// Allows or forbids running functions in parallel.
    pub fn with_parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// The opt-level.
    pub fn opt_level(&self) -> u32 {
        self.opt_level
    }

    /// A config entry.
    pub fn config(&self, key: &str) -> Option<&str> {
        self.config.get(key).map(String::as_str)
    }

    /// Whether function passes may run functions in parallel.
    pub fn parallel(&self) -> bool {
        self.parallel
    }

    /// The instruments, in order.
    pub fn instruments(&self) -> &[Box<dyn PassInstrument<F>>] {
        &self.instruments
    }

    /// Runs `pass` on `module` under this context: the entry point. The
    /// input module is never changed; on failure the error names the pass.
    pub fn run(&self, pass: &dyn Pass<F>, module: &Module<F>) -> Result<Module<F>, PassError> {
        for instrument in &self.instruments {
            instrument.enter_pass_ctx();
        }
        let result = self.run_pass(pass, module);
        for instrument in &self.instruments {
            instrument.exit_pass_ctx();
        }
        result
    }

    /// Records a note from `pass` (see [`Note`]): for passes, during a run.
    pub fn note(&self, pass: &str, message: impl Into<String>) {
        let note = Note {
            pass: pass.to_owned(),
            message: message.into(),
        };
        // A poisoned lock still holds every note pushed before the panic.
        self.notes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(note);
    }

    /// The notes passes made in this context's runs, in the order made.
    ///
    /// ```
    /// use ir_core::pass::{FunctionPass, Module, PassContext};
    /// use ir_core::Transformed;
    ///
    /// let shy = FunctionPass::new("shy", 0, |f: &i64, _: &Module<i64>, ctx: &PassContext<i64>| {
    ///     if *f > 100 {
    ///         ctx.note("shy", format!("{f} left as it is"));
    ///     }
    ///     Ok(Transformed::Keep)
    /// });
    /// let ctx = PassContext::default().with_parallel(false);
    /// ctx.run(&shy, &Module::from_functions([("a".to_string(), 500)])).unwrap();
    /// assert_eq!(ctx.notes()[0].to_string(), "shy: 500 left as it is");
    /// ```
    pub fn notes(&self) -> Vec<Note> {
        self.notes.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether the context's settings let `info` run (opt-level, required, disabled).
    pub fn is_enabled(&self, info: &PassInfo) -> bool {
        if self.disabled.contains(&info.name) {
            return false;
        }
        info.opt_level <= self.opt_level || self.required.contains(&info.name)
    }

    /// Runs one pass with its checks and instruments (used by `Sequential` for
    /// each of its passes). A skipped pass returns the module unchanged.
    pub fn run_pass(&self, pass: &dyn Pass<F>, module: &Module<F>) -> Result<Module<F>, PassError> {
        let info = pass.info();
        if !self.is_enabled(info) {
            return Ok(module.clone());
        }
        if pass.is_sequence() {
            return pass.run(module, self);
        }
        if !self.instruments.iter().all(|i| i.should_run(info, module)) {
            return Ok(module.clone());
        }
        for instrument in &self.instruments {
            instrument
                .run_before_pass(info, module)
                .map_err(|e| e.in_pass(&info.name))?;
        }
        let output = match catch_unwind(AssertUnwindSafe(|| pass.run(module, self))) {
            Ok(result) => result.map_err(|e| e.in_pass(&info.name))?,
            Err(payload) => {
                return Err(PassError {
                    pass: info.name.clone(),
                    kind: FailureKind::Panicked,
                    message: panic_message(payload.as_ref()),
                });
            }
        };
        for instrument in &self.instruments {
            instrument
                .run_after_pass(info, &output)
                .map_err(|e| e.in_pass(&info.name))?;
        }
        Ok(output)
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_owned()
    }
}
