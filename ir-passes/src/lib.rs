//! IR dialects built only with irkit's derives, and the passes over them.

pub mod tensor_ir;
