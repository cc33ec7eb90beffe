//! Passes over the Tensor IR.

mod fold;
pub mod substitute;
mod trip_count;
mod unroll;

pub use fold::ConstantFolder;
pub use substitute::Substitute;
pub use trip_count::trip_count;
pub use unroll::{MAX_EXPANSION, Unroll, UnrollConfig};
