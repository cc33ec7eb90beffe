//! IR dialects built only with irkit's derives, and the passes over them.

pub mod relay;
pub mod tensor_ir;
