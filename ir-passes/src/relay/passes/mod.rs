//! Passes over the Relay dialect, each a few dozen lines on the framework.

mod dce;
mod effects;
mod eliminate_cse;
mod fold_budget;
mod fold_constant;
mod infer_type;
mod rebind;
mod registry;
mod to_anf;
mod to_gnf;

pub use dce::{dead_code_elimination, dead_code_elimination_with};
pub use effects::{Effect, Effects, module_writes, writes_somewhere};
pub use eliminate_cse::{eliminate_common_subexpr, eliminate_common_subexpr_skipping};
pub use fold_budget::{DEFAULT_MAX_TOTAL_ELEMENTS, DEFAULT_MAX_TOTAL_WORK, FoldBudget};
pub use fold_constant::{ConstantChecker, ConstantFolder, DEFAULT_MAX_ELEMENTS, fold_constant};
pub use infer_type::{MAX_ANNOTATION, fill_types};
pub use registry::{DEFAULT_PIPELINE, registry};
pub use to_anf::to_anf;
pub use to_gnf::{to_gnf, to_gnf_with};
