//! Call and function attributes: `axis=0`, `padding=[1, 1]`, `dtype="int64"`.

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};

/// One attribute value.
#[derive(Debug, Clone)]
pub enum AttrValue {
    /// An integer.
    Int(i64),
    /// A float (compared bitwise).
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
    /// A list `[a, b]`.
    List(Vec<AttrValue>),
    /// `None` / `nullptr`.
    Null,
}

impl PartialEq for AttrValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (AttrValue::Int(a), AttrValue::Int(b)) => a == b,
            (AttrValue::Float(a), AttrValue::Float(b)) => a.to_bits() == b.to_bits(),
            (AttrValue::Bool(a), AttrValue::Bool(b)) => a == b,
            (AttrValue::Str(a), AttrValue::Str(b)) => a == b,
            (AttrValue::List(a), AttrValue::List(b)) => a == b,
            (AttrValue::Null, AttrValue::Null) => true,
            _ => false,
        }
    }
}

impl Eq for AttrValue {}

impl Hash for AttrValue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            AttrValue::Int(v) => v.hash(state),
            AttrValue::Float(v) => v.to_bits().hash(state),
            AttrValue::Bool(v) => v.hash(state),
            AttrValue::Str(v) => v.hash(state),
            AttrValue::List(v) => v.hash(state),
            AttrValue::Null => {}
        }
    }
}

impl AttrValue {
    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(v) => Some(*v),
            _ => None,
        }
    }
}

impl fmt::Display for AttrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Int(v) => write!(f, "{v}"),
            AttrValue::Float(v) => write!(f, "{v}f"),
            AttrValue::Bool(v) => f.write_str(if *v { "True" } else { "False" }),
            AttrValue::Str(s) => write!(f, "\"{s}\""),
            AttrValue::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            AttrValue::Null => f.write_str("None"),
        }
    }
}

/// Named attributes, sorted by name.
pub type Attrs = BTreeMap<String, AttrValue>;
