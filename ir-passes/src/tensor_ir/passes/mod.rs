//! Passes over the Tensor IR.

mod fold;
pub mod substitute;

pub use fold::ConstantFolder;
pub use substitute::Substitute;
