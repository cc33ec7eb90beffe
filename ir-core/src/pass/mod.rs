//! Passes over modules: function and module passes, `Sequential`, a pass
//! context with opt-level, required/disabled passes, config and instruments,
//! and a registry so that a pipeline is a list of names.
//!
//! ```
//! use ir_core::pass::{FunctionPass, Module, PassContext, PassError, Sequential};
//! use ir_core::Transformed;
//!
//! // Functions here are plain integers; real ones are IR nodes.
//! let double = FunctionPass::new("double", 1, |f: &i64, _: &Module<i64>, _: &PassContext<i64>| {
//!     Ok(Transformed::Replace(f * 2))
//! });
//! let reject = FunctionPass::new("reject-big", 1, |f: &i64, _: &Module<i64>, _: &PassContext<i64>| {
//!     if *f > 10 { Err(PassError::new(format!("{f} is too big"))) } else { Ok(Transformed::Keep) }
//! });
//! let pipeline = Sequential::new("pipeline", vec![Box::new(double), Box::new(reject)]);
//!
//! let module = Module::from_functions([("a".to_string(), 3), ("b".to_string(), 4)]);
//! let out = PassContext::default().run(&pipeline, &module).unwrap();
//! assert_eq!(out.get("a"), Some(&6));
//!
//! let big = Module::from_functions([("a".to_string(), 6)]);
//! let err = PassContext::default().run(&pipeline, &big).unwrap_err();
//! assert_eq!(err.to_string(), "pass `reject-big` failed: in @a: 12 is too big");
//! assert_eq!(big.get("a"), Some(&6)); // the input is unchanged
//! ```

mod context;
mod error;
mod instrument;
mod module;
mod note;
mod passes;
mod pipeline;
mod registry;

pub use context::PassContext;
pub use error::{FailureKind, PassError};
pub use instrument::{PassInstrument, PassTimer, PrintIr, VerifyEach};
pub use module::{Module, ModuleError};
pub use note::Note;
pub use passes::{FunctionPass, ModulePass, Pass, PassInfo, Sequential};
pub use pipeline::{PassOptions, PipelineError, PipelineStep, parse_pipeline};
pub use registry::PassRegistry;
