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

/// The attribute map: named attributes, sorted by name. Use it as a
/// `BTreeMap` (it dereferences to one).
///
/// One pointer wide, and no allocation while empty: every call and function
/// carries one, most calls have none, and a `BTreeMap` in place would make
/// each call two words bigger and run the map's destructor on every drop.
///
/// ```
/// use ir_passes::relay::{AttrValue, Attrs};
///
/// let mut attrs = Attrs::new();
/// assert!(attrs.is_empty());
/// attrs.insert("axis".into(), AttrValue::Int(1));
/// assert_eq!(attrs.get("axis").and_then(AttrValue::as_int), Some(1));
/// assert_eq!(std::mem::size_of::<Attrs>(), std::mem::size_of::<usize>());
/// ```
#[allow(clippy::box_collection)]
#[derive(Clone, Default)]
pub struct Attrs(Option<Box<BTreeMap<String, AttrValue>>>);

/// What an empty `Attrs` dereferences to.
static NO_ATTRS: BTreeMap<String, AttrValue> = BTreeMap::new();

impl Attrs {
    /// No attributes.
    pub const fn new() -> Self {
        Attrs(None)
    }
}

impl std::ops::Deref for Attrs {
    type Target = BTreeMap<String, AttrValue>;
    #[inline]
    fn deref(&self) -> &Self::Target {
        self.0.as_deref().unwrap_or(&NO_ATTRS)
    }
}

impl std::ops::DerefMut for Attrs {
    /// The map, allocated on first write.
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.0.get_or_insert_default()
    }
}

impl PartialEq for Attrs {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Attrs {}

impl Hash for Attrs {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl fmt::Debug for Attrs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl FromIterator<(String, AttrValue)> for Attrs {
    fn from_iter<I: IntoIterator<Item = (String, AttrValue)>>(iter: I) -> Self {
        Attrs::from(iter.into_iter().collect::<BTreeMap<_, _>>())
    }
}

impl From<BTreeMap<String, AttrValue>> for Attrs {
    fn from(map: BTreeMap<String, AttrValue>) -> Self {
        if map.is_empty() {
            Attrs(None)
        } else {
            Attrs(Some(Box::new(map)))
        }
    }
}

impl<'a> IntoIterator for &'a Attrs {
    type Item = (&'a String, &'a AttrValue);
    type IntoIter = std::collections::btree_map::Iter<'a, String, AttrValue>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
