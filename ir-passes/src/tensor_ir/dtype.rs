//! Scalar element types and constant values.

use std::fmt;
use std::hash::{Hash, Hasher};

/// The element type of a scalar expression or of a tensor's elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// Signed 32-bit integer (`1`).
    S32,
    /// Signed 64-bit integer (`1L`).
    S64,
    /// Unsigned 64-bit index, loop counters and offsets (`1UL`).
    Index,
    /// 32-bit float (`1.5f`).
    F32,
    /// Boolean: comparisons and logic (`true`).
    Bool,
    /// No value: the return type of a function that returns nothing.
    Void,
}

impl DType {
    /// Every type, in the order the parser tries their names.
    pub const ALL: [DType; 6] = [
        DType::S32,
        DType::S64,
        DType::Index,
        DType::F32,
        DType::Bool,
        DType::Void,
    ];

    /// The name as printed (`s32`, `index`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DType::S32 => "s32",
            DType::S64 => "s64",
            DType::Index => "index",
            DType::F32 => "f32",
            DType::Bool => "bool",
            DType::Void => "void",
        }
    }

    /// The type named `name`.
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Integer types (`s32`, `s64`, `index`).
    pub fn is_int(self) -> bool {
        matches!(self, DType::S32 | DType::S64 | DType::Index)
    }

    /// `v` wrapped to this integer type's width, as the machine would hold it.
    pub fn wrap(self, v: i64) -> i64 {
        match self {
            DType::S32 => v as i32 as i64,
            DType::Bool => i64::from(v != 0),
            _ => v,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The value of a constant. Integers of every width are held as `i64`
/// (an `index` as its bit pattern); floats as `f32` compared by bits, so that
/// equality and hashing are total.
#[derive(Debug, Clone, Copy)]
pub enum Value {
    /// An integer of type `s32`, `s64` or `index`.
    Int(i64),
    /// An `f32`.
    Float(f32),
    /// A `bool`.
    Bool(bool),
}

impl Value {
    /// The integer, if this is one.
    pub fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// Zero of `dtype` (`false` for `bool`).
    pub fn zero(dtype: DType) -> Value {
        match dtype {
            DType::F32 => Value::Float(0.0),
            DType::Bool => Value::Bool(false),
            _ => Value::Int(0),
        }
    }

    /// Whether this is zero (or `false`).
    pub fn is_zero(self) -> bool {
        match self {
            Value::Int(v) => v == 0,
            Value::Float(v) => v == 0.0,
            Value::Bool(b) => !b,
        }
    }

    /// Whether this is one (or `true`).
    pub fn is_one(self) -> bool {
        match self {
            Value::Int(v) => v == 1,
            Value::Float(v) => v == 1.0,
            Value::Bool(b) => b,
        }
    }
}

impl Value {
    /// `v` converted to `dtype`, as a cast does.
    pub fn convert(self, dtype: DType) -> Option<Value> {
        Some(match (self, dtype) {
            (Value::Int(i), DType::F32) => Value::Float(i as f32),
            (Value::Float(f), d) if d.is_int() => Value::Int(d.wrap(f as i64)),
            (Value::Bool(b), d) if d.is_int() => Value::Int(i64::from(b)),
            (Value::Bool(b), DType::F32) => Value::Float(if b { 1.0 } else { 0.0 }),
            (Value::Int(i), DType::Bool) => Value::Bool(i != 0),
            (Value::Float(f), DType::Bool) => Value::Bool(f != 0.0),
            (Value::Int(i), d) if d.is_int() => Value::Int(d.wrap(i)),
            (v @ Value::Float(_), DType::F32) | (v @ Value::Bool(_), DType::Bool) => v,
            _ => return None,
        })
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Value::Int(v) => (0u8, *v).hash(state),
            Value::Float(v) => (1u8, v.to_bits()).hash(state),
            Value::Bool(v) => (2u8, *v).hash(state),
        }
    }
}

/// Prints `value` of type `dtype` in the text format: `1`, `1L`, `1UL`, `1.5f`, `true`.
pub fn write_constant(out: &mut impl fmt::Write, value: Value, dtype: DType) -> fmt::Result {
    match (value, dtype) {
        (Value::Int(v), DType::S64) => write!(out, "{v}L"),
        (Value::Int(v), DType::Index) => write!(out, "{}UL", v as u64),
        (Value::Int(v), _) => write!(out, "{v}"),
        (Value::Float(v), _) if v.is_finite() => write!(out, "{v:?}f"),
        (Value::Float(v), _) if v.is_nan() => write!(out, "nan_f32"),
        (Value::Float(v), _) if v > 0.0 => write!(out, "inf_f32"),
        (Value::Float(_), _) => write!(out, "-inf_f32"),
        (Value::Bool(b), _) => write!(out, "{b}"),
    }
}
