//! Pass instruments: hooks around every pass, and the three built-in ones.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{FailureKind, Module, PassError, PassInfo};

/// Hooks the context calls around passes (TVM's `PassInstrument`). All
/// methods have defaults; `&self` because instruments are shared with the
/// run, so keep mutable state behind a `Mutex`.
pub trait PassInstrument<F>: Send + Sync {
    /// Once, when a run starts.
    fn enter_pass_ctx(&self) {}
    /// Once, when a run ends (also after a failure).
    fn exit_pass_ctx(&self) {}
    /// Whether the pass runs at all; every instrument must agree.
    fn should_run(&self, info: &PassInfo, module: &Module<F>) -> bool {
        let _ = (info, module);
        true
    }
    /// Before the pass, with its input. An error stops the run.
    fn run_before_pass(&self, info: &PassInfo, module: &Module<F>) -> Result<(), PassError> {
        let _ = (info, module);
        Ok(())
    }
    /// After the pass, with its output. An error stops the run.
    fn run_after_pass(&self, info: &PassInfo, module: &Module<F>) -> Result<(), PassError> {
        let _ = (info, module);
        Ok(())
    }
}

/// A shared instrument: keep an `Arc` to read results (timings) after the run.
impl<F, I: PassInstrument<F> + ?Sized> PassInstrument<F> for std::sync::Arc<I> {
    fn enter_pass_ctx(&self) {
        (**self).enter_pass_ctx()
    }
    fn exit_pass_ctx(&self) {
        (**self).exit_pass_ctx()
    }
    fn should_run(&self, info: &PassInfo, module: &Module<F>) -> bool {
        (**self).should_run(info, module)
    }
    fn run_before_pass(&self, info: &PassInfo, module: &Module<F>) -> Result<(), PassError> {
        (**self).run_before_pass(info, module)
    }
    fn run_after_pass(&self, info: &PassInfo, module: &Module<F>) -> Result<(), PassError> {
        (**self).run_after_pass(info, module)
    }
}

/// Times each pass.
#[derive(Default)]
pub struct PassTimer {
    started: Mutex<Vec<Instant>>,
    times: Mutex<Vec<(String, Duration)>>,
}

impl PassTimer {
    /// A timer with no measurements.
    pub fn new() -> Self {
        Self::default()
    }

    /// `(pass, time)` for each pass that ran, in the order they finished.
    pub fn times(&self) -> Vec<(String, Duration)> {
        self.times.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// A table of the times, one pass a line, with the total.
    pub fn report(&self) -> String {
        let times = self.times();
        let total: Duration = times.iter().map(|(_, d)| *d).sum();
        let mut out = String::new();
        for (name, d) in &times {
            out.push_str(&format!("{:>12.3} ms  {name}\n", d.as_secs_f64() * 1e3));
        }
        out.push_str(&format!("{:>12.3} ms  total\n", total.as_secs_f64() * 1e3));
        out
    }
}

impl<F> PassInstrument<F> for PassTimer {
    fn run_before_pass(&self, _: &PassInfo, _: &Module<F>) -> Result<(), PassError> {
        if let Ok(mut s) = self.started.lock() {
            s.push(Instant::now());
        }
        Ok(())
    }
    fn run_after_pass(&self, info: &PassInfo, _: &Module<F>) -> Result<(), PassError> {
        let start = self.started.lock().ok().and_then(|mut s| s.pop());
        if let (Some(start), Ok(mut times)) = (start, self.times.lock()) {
            times.push((info.name.clone(), start.elapsed()));
        }
        Ok(())
    }
}

type Printer<F> = dyn Fn(&Module<F>) -> String + Send + Sync;
type Sink = dyn Fn(&str) + Send + Sync;

/// Prints the IR before and/or after each pass.
pub struct PrintIr<F> {
    print: Box<Printer<F>>,
    sink: Box<Sink>,
    before: bool,
    after: bool,
}

impl<F> PrintIr<F> {
    /// Prints with `print` into `sink`; choose when with [`PrintIr::before`] / [`PrintIr::after`].
    pub fn new(
        print: impl Fn(&Module<F>) -> String + Send + Sync + 'static,
        sink: impl Fn(&str) + Send + Sync + 'static,
    ) -> Self {
        PrintIr {
            print: Box::new(print),
            sink: Box::new(sink),
            before: false,
            after: true,
        }
    }

    /// Also print before each pass.
    pub fn before(mut self, on: bool) -> Self {
        self.before = on;
        self
    }

    /// Print after each pass (the default).
    pub fn after(mut self, on: bool) -> Self {
        self.after = on;
        self
    }
}

impl<F> PassInstrument<F> for PrintIr<F> {
    fn run_before_pass(&self, info: &PassInfo, module: &Module<F>) -> Result<(), PassError> {
        if self.before {
            (self.sink)(&format!(
                "// IR before {}\n{}",
                info.name,
                (self.print)(module)
            ));
        }
        Ok(())
    }
    fn run_after_pass(&self, info: &PassInfo, module: &Module<F>) -> Result<(), PassError> {
        if self.after {
            (self.sink)(&format!(
                "// IR after {}\n{}",
                info.name,
                (self.print)(module)
            ));
        }
        Ok(())
    }
}

type Verifier<F> = dyn Fn(&Module<F>) -> Result<(), String> + Send + Sync;

/// Verifies the IR after each pass; a failure names the pass that broke it.
pub struct VerifyEach<F> {
    verify: Box<Verifier<F>>,
}

impl<F> VerifyEach<F> {
    /// Verifies with `verify` (e.g. a well-formedness check).
    pub fn new(verify: impl Fn(&Module<F>) -> Result<(), String> + Send + Sync + 'static) -> Self {
        VerifyEach {
            verify: Box::new(verify),
        }
    }
}

impl<F> PassInstrument<F> for VerifyEach<F> {
    fn run_after_pass(&self, info: &PassInfo, module: &Module<F>) -> Result<(), PassError> {
        (self.verify)(module).map_err(|message| PassError {
            pass: info.name.clone(),
            kind: FailureKind::Verification,
            message,
        })
    }
}
