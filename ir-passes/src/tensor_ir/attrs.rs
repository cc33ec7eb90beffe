//! Attributes carried on every node (oneDNN's `attr_` and `copy_attr`).

use std::collections::BTreeMap;
use std::fmt;

/// A value in an [`Attrs`] map.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AttrValue {
    /// An integer.
    Int(i64),
    /// A flag.
    Bool(bool),
    /// A string.
    Str(String),
}

impl fmt::Display for AttrValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttrValue::Int(v) => write!(f, "{v}"),
            AttrValue::Bool(v) => write!(f, "{v}"),
            AttrValue::Str(v) => write!(f, "{v:?}"),
        }
    }
}

/// A node's attribute map: pass-to-pass annotations such as "this loop may be
/// merged" or a buffer's alignment. It is a skipped field of every node, so
/// the derived rebuild carries it to the rebuilt node unchanged; a pass that
/// builds a *different* node in place of one keeps the attributes with
/// [`Attrs::merged`]. Empty maps take no allocation. Attributes never count
/// for structural equality.
// One pointer wide (a `BTreeMap` is three): every node carries one, and most are empty.
#[allow(clippy::box_collection)]
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Attrs(Option<Box<BTreeMap<String, AttrValue>>>);

impl Attrs {
    /// No attributes.
    pub const fn new() -> Self {
        Attrs(None)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&AttrValue> {
        self.0.as_ref()?.get(key)
    }

    /// Sets `key`.
    pub fn set(&mut self, key: impl Into<String>, value: AttrValue) {
        self.0.get_or_insert_default().insert(key.into(), value);
    }

    /// `self` with `key` set.
    pub fn with(mut self, key: impl Into<String>, value: AttrValue) -> Self {
        self.set(key, value);
        self
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &str) -> Option<AttrValue> {
        let map = self.0.as_mut()?;
        let old = map.remove(key);
        if map.is_empty() {
            self.0 = None;
        }
        old
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &AttrValue)> {
        self.0
            .iter()
            .flat_map(|m| m.iter().map(|(k, v)| (k.as_str(), v)))
    }

    /// `self` merged with `original`'s attributes, `self` winning on a clash:
    /// what a pass gives the node it builds in place of `original`
    /// (oneDNN's `copy_attr`).
    pub fn merged(&self, original: &Attrs) -> Attrs {
        match (&self.0, &original.0) {
            (_, None) => self.clone(),
            (None, Some(_)) => original.clone(),
            (Some(new), Some(old)) => {
                let mut map = (**old).clone();
                map.extend(new.iter().map(|(k, v)| (k.clone(), v.clone())));
                Attrs(Some(Box::new(map)))
            }
        }
    }
}

impl fmt::Debug for Attrs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
