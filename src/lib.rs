#![doc = include_str!("../README.md")]
//!
//! This facade re-exports the runtime (`ir_core`) and the derives, and, with
//! the feature `dialects`, the dialects built with them as `passes`.

extern crate self as irkit;

pub use ir_core::*;

/// The runtime crate, for paths in generated code.
#[doc(hidden)]
pub use ir_core as __core;

/// IR dialects built with the derives, and passes over them (feature `dialects`).
#[cfg(feature = "dialects")]
pub use ir_passes as passes;
