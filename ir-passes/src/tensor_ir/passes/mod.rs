//! Passes over the Tensor IR.

mod bindings;
mod canonical;
mod facts;
mod fold;
mod mark_unroll;
mod ranges;
mod registry;
mod simplify;
pub mod substitute;
mod trip_count;
mod unroll;

pub use fold::ConstantFolder;
pub use mark_unroll::MarkUnroll;
pub use registry::{DEFAULT_PIPELINE, registry};
pub use simplify::Simplify;
pub use substitute::Substitute;
pub use trip_count::trip_count;
pub use unroll::{MAX_EXPANSION, MAX_STEP_ATTR, UNROLL_ATTR, Unroll, UnrollConfig};
