//! Element types of Relax tensors and symbolic values: `float32`, `int64`, ...

use std::fmt;
use std::str::FromStr;

/// An element type. `Void` is TVM's "unknown dtype" (`R.Tensor((2, 3))`
/// printed without a dtype).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DataType {
    /// Signed integer of that many bits.
    Int(u16),
    /// Unsigned integer of that many bits.
    UInt(u16),
    /// IEEE float of that many bits.
    Float(u16),
    /// `bool`.
    Bool,
    /// Unknown.
    #[default]
    Void,
}

impl DataType {
    /// `int64`, the type of shape values.
    pub const I64: DataType = DataType::Int(64);
    /// `float32`.
    pub const F32: DataType = DataType::Float(32);

    /// Whether it is known.
    pub fn is_void(self) -> bool {
        self == DataType::Void
    }

    /// Whether it is an integer type (signed or not).
    pub fn is_int(self) -> bool {
        matches!(self, DataType::Int(_) | DataType::UInt(_))
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataType::Int(b) => write!(f, "int{b}"),
            DataType::UInt(b) => write!(f, "uint{b}"),
            DataType::Float(b) => write!(f, "float{b}"),
            DataType::Bool => f.write_str("bool"),
            DataType::Void => Ok(()),
        }
    }
}

impl FromStr for DataType {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bits = |rest: &str| -> Result<u16, String> {
            match rest.parse::<u16>() {
                Ok(b @ (8 | 16 | 32 | 64)) => Ok(b),
                Ok(1) if s.starts_with("uint") => Ok(1),
                _ => Err(format!("unknown dtype `{s}`")),
            }
        };
        if s.is_empty() || s == "void" {
            Ok(DataType::Void)
        } else if s == "bool" {
            Ok(DataType::Bool)
        } else if let Some(rest) = s.strip_prefix("uint") {
            bits(rest).map(DataType::UInt)
        } else if let Some(rest) = s.strip_prefix("int") {
            bits(rest).map(DataType::Int)
        } else if let Some(rest) = s.strip_prefix("float") {
            bits(rest).map(DataType::Float)
        } else {
            Err(format!("unknown dtype `{s}`"))
        }
    }
}
