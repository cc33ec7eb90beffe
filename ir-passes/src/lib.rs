//! IR dialects built only with irkit's derives, and the passes over them.

#[cfg(any(feature = "relax", feature = "relay"))]
mod name_hash;
#[cfg(feature = "relax")]
pub mod relax;
#[cfg(feature = "relay")]
pub mod relay;
#[cfg(feature = "tensor-ir")]
pub mod tensor_ir;
