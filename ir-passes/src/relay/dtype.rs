//! Element types: `float32`, `int64`, `bool`, `int8x4`, ...

use std::fmt;
use std::str::FromStr;

/// The kind of an element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DTypeCode {
    /// Signed integer.
    Int,
    /// Unsigned integer.
    UInt,
    /// IEEE float.
    Float,
    /// Boolean.
    Bool,
}

/// An element type: code, bit width and vector lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DType {
    /// The kind.
    pub code: DTypeCode,
    /// Bits per lane.
    pub bits: u16,
    /// Vector lanes (1 for scalars).
    pub lanes: u16,
}

impl DType {
    /// `bool`
    pub const BOOL: DType = DType::new(DTypeCode::Bool, 1);
    /// `int16`
    pub const I16: DType = DType::new(DTypeCode::Int, 16);
    /// `int32`
    pub const I32: DType = DType::new(DTypeCode::Int, 32);
    /// `int64`
    pub const I64: DType = DType::new(DTypeCode::Int, 64);
    /// `float16`
    pub const F16: DType = DType::new(DTypeCode::Float, 16);
    /// `float32`
    pub const F32: DType = DType::new(DTypeCode::Float, 32);
    /// `float64`
    pub const F64: DType = DType::new(DTypeCode::Float, 64);

    /// A scalar type.
    pub const fn new(code: DTypeCode, bits: u16) -> Self {
        DType {
            code,
            bits,
            lanes: 1,
        }
    }

    /// `true` for floating-point types.
    pub fn is_float(self) -> bool {
        self.code == DTypeCode::Float
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.code {
            DTypeCode::Bool => f.write_str("bool")?,
            DTypeCode::Int => write!(f, "int{}", self.bits)?,
            DTypeCode::UInt => write!(f, "uint{}", self.bits)?,
            DTypeCode::Float => write!(f, "float{}", self.bits)?,
        }
        if self.lanes != 1 {
            write!(f, "x{}", self.lanes)?;
        }
        Ok(())
    }
}

impl FromStr for DType {
    type Err = String;

    /// Any name starting with `int`, `uint`, `float` or `bool`; the width defaults to 32.
    fn from_str(s: &str) -> Result<Self, String> {
        let (code, rest) = if let Some(r) = s.strip_prefix("uint") {
            (DTypeCode::UInt, r)
        } else if let Some(r) = s.strip_prefix("int") {
            (DTypeCode::Int, r)
        } else if let Some(r) = s.strip_prefix("float") {
            (DTypeCode::Float, r)
        } else if let Some(r) = s.strip_prefix("bool") {
            (DTypeCode::Bool, r)
        } else {
            return Err(format!("`{s}` is not a dtype"));
        };
        let (bits, lanes) = match rest.split_once('x') {
            Some((b, l)) => (b, Some(l)),
            None => (rest, None),
        };
        let bits = match (code, bits) {
            (DTypeCode::Bool, "") => 1,
            (_, "") => 32,
            (_, b) => b.parse().map_err(|_| format!("`{s}` is not a dtype"))?,
        };
        let lanes = match lanes {
            None => 1,
            Some(l) => l.parse().map_err(|_| format!("`{s}` is not a dtype"))?,
        };
        Ok(DType { code, bits, lanes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        for (text, printed) in [
            ("float32", "float32"),
            ("float", "float32"),
            ("int", "int32"),
            ("int64", "int64"),
            ("uint8", "uint8"),
            ("bool", "bool"),
            ("int8x4", "int8x4"),
        ] {
            assert_eq!(text.parse::<DType>().unwrap().to_string(), printed);
        }
        assert!("tensor".parse::<DType>().is_err());
    }
}
