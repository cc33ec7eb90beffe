//! Relax passes, each usable on its own and by name from [`registry`].

mod canonicalize;
mod canonicalize_symbolic;
mod convert_to_dataflow;
mod cse;
mod dce;
mod lambda_lift;
mod normalize;
mod purity;
mod registry;
mod to_non_dataflow;
mod uses;

pub use canonicalize::canonicalize_bindings;
pub use convert_to_dataflow::convert_to_dataflow;
pub use cse::eliminate_common_subexpr;
pub use dce::{dead_code_elimination, remove_unused_bindings};
pub use lambda_lift::lambda_lift;
pub use normalize::normalize_module;
pub use registry::{DEFAULT_PIPELINE, registry};
pub use to_non_dataflow::to_non_dataflow;
pub use uses::used_vars;
