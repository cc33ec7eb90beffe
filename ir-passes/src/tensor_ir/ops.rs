//! Operator markers of the binary kinds, with their evaluation on constants
//! (shared by the constant folder and the interpreter).

use std::cmp::Ordering;

use super::dtype::{DType, Value};

/// An arithmetic operator: the `Op` of [`super::Arith`].
pub trait ArithOp: Clone + Default + std::fmt::Debug + 'static {
    /// As printed: `+`, or `min` for the operators printed as calls.
    const SYMBOL: &'static str;
    /// Printed as `min(l, r)` rather than `(l op r)`.
    const CALL_SYNTAX: bool = false;
    /// On integers of the given width (already wrapped); `None` when undefined
    /// (division by zero).
    fn int(l: i64, r: i64) -> Option<i64>;
    /// On floats.
    fn float(l: f32, r: f32) -> f32;
}

/// A comparison: the `Op` of [`super::Compare`].
pub trait RelOp: Clone + Default + std::fmt::Debug + 'static {
    /// As printed.
    const SYMBOL: &'static str;
    /// Whether the comparison holds for operands ordered as `ord`.
    fn holds(ord: Ordering) -> bool;
}

/// `&&` or `||`: the `Op` of [`super::Logical`].
pub trait LogicOp: Clone + Default + std::fmt::Debug + 'static {
    /// As printed.
    const SYMBOL: &'static str;
    /// The operand value that decides the result alone (`false` for `&&`).
    const ABSORBING: bool;
    /// On booleans.
    fn eval(l: bool, r: bool) -> bool;
}

macro_rules! markers {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;
    )*};
}

markers! {
    /// `+`
    AddOp;
    /// `-`
    SubOp;
    /// `*`
    MulOp;
    /// `/` (integers: truncating)
    DivOp;
    /// `%` (integers: remainder with the sign of the dividend)
    ModOp;
    /// `min`
    MinOp;
    /// `max`
    MaxOp;
    /// `==`
    EqOp;
    /// `!=`
    NeOp;
    /// `<`
    LtOp;
    /// `<=`
    LeOp;
    /// `>`
    GtOp;
    /// `>=`
    GeOp;
    /// `&&`
    AndOp;
    /// `||`
    OrOp;
}

macro_rules! arith {
    ($($name:ident $sym:literal $call:literal |$l:ident, $r:ident| $int:expr, $float:expr;)*) => {$(
        impl ArithOp for $name {
            const SYMBOL: &'static str = $sym;
            const CALL_SYNTAX: bool = $call;
            fn int($l: i64, $r: i64) -> Option<i64> {
                $int
            }
            fn float($l: f32, $r: f32) -> f32 {
                $float
            }
        }
    )*};
}

arith! {
    AddOp "+" false |l, r| Some(l.wrapping_add(r)), l + r;
    SubOp "-" false |l, r| Some(l.wrapping_sub(r)), l - r;
    MulOp "*" false |l, r| Some(l.wrapping_mul(r)), l * r;
    DivOp "/" false |l, r| (r != 0).then(|| l.wrapping_div(r)), l / r;
    ModOp "%" false |l, r| (r != 0).then(|| l.wrapping_rem(r)), l % r;
    MinOp "min" true |l, r| Some(l.min(r)), l.min(r);
    MaxOp "max" true |l, r| Some(l.max(r)), l.max(r);
}

macro_rules! rel {
    ($($name:ident $sym:literal |$o:ident| $holds:expr;)*) => {$(
        impl RelOp for $name {
            const SYMBOL: &'static str = $sym;
            fn holds($o: Ordering) -> bool {
                $holds
            }
        }
    )*};
}

rel! {
    EqOp "==" |o| o == Ordering::Equal;
    NeOp "!=" |o| o != Ordering::Equal;
    LtOp "<" |o| o == Ordering::Less;
    LeOp "<=" |o| o != Ordering::Greater;
    GtOp ">" |o| o == Ordering::Greater;
    GeOp ">=" |o| o != Ordering::Less;
}

impl LogicOp for AndOp {
    const SYMBOL: &'static str = "&&";
    const ABSORBING: bool = false;
    fn eval(l: bool, r: bool) -> bool {
        l && r
    }
}

impl LogicOp for OrOp {
    const SYMBOL: &'static str = "||";
    const ABSORBING: bool = true;
    fn eval(l: bool, r: bool) -> bool {
        l || r
    }
}

/// Evaluates `op` on two constants of type `dtype`.
pub fn eval_arith<Op: ArithOp>(l: Value, r: Value, dtype: DType) -> Option<Value> {
    match (l, r) {
        (Value::Int(a), Value::Int(b)) if dtype == DType::Index => {
            // Unsigned: compare and divide as u64.
            let (a, b) = (a as u64, b as u64);
            let v = match Op::SYMBOL {
                "/" => a.checked_div(b)?,
                "%" => a.checked_rem(b)?,
                "min" => a.min(b),
                "max" => a.max(b),
                _ => Op::int(a as i64, b as i64)? as u64,
            };
            Some(Value::Int(v as i64))
        }
        (Value::Int(a), Value::Int(b)) => Some(Value::Int(dtype.wrap(Op::int(a, b)?))),
        (Value::Float(a), Value::Float(b)) => Some(Value::Float(Op::float(a, b))),
        _ => None,
    }
}

/// Compares two constants of the same type.
pub fn compare(l: Value, r: Value, dtype: DType) -> Option<Ordering> {
    match (l, r) {
        (Value::Int(a), Value::Int(b)) if dtype == DType::Index => {
            Some((a as u64).cmp(&(b as u64)))
        }
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(&b)),
        (Value::Float(a), Value::Float(b)) => a.partial_cmp(&b),
        (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(&b)),
        _ => None,
    }
}
