//! A replacement made at a definition, carried to every later use: the map of
//! oneDNN's consistent visitor (`ir_consistent_visitor_t::replace_map_`) and
//! of Relax's `var_remap_`, without their leak.
//!
//! The map lives as long as the pass (a field of it), so a definition
//! replaced in one call is still redirected in the next. oneDNN's map keeps
//! every replaced node alive for the visitor's lifetime; this one holds its
//! keys only while something else does: when an old node's only remaining
//! handle is the map's own, no program can present it again, and the entry
//! is dropped at the next sweep. Sweeps run when the map has doubled since
//! the last one, so their cost is amortized constant per insertion and the
//! map never holds more than about twice its live entries.

use rustc_hash::FxHashMap;

use crate::{Node, Transformed};

/// Old definition node → its replacement, keyed by identity.
///
/// ```
/// use ir_core::{Node, ReplaceMap, Transformed};
///
/// #[derive(Debug)]
/// struct Var { name: &'static str }
///
/// let mut map: ReplaceMap<Var> = ReplaceMap::new();
/// let x = Node::new(Var { name: "x" });
/// // At the definition, a pass renames `x`; the map remembers it...
/// let renamed = map.record(&x, Transformed::Replace(Node::new(Var { name: "x1" })));
/// let x1 = renamed.into_option().unwrap();
/// // ...and every later use of `x` is redirected to the same new node.
/// assert!(map.get(&x).unwrap().same_as(&x1));
///
/// // Once the program lets go of `x`, the map does not keep it alive.
/// drop(x);
/// map.sweep();
/// assert!(map.is_empty());
/// ```
pub struct ReplaceMap<K, V = Node<K>> {
    /// Keyed by the old node's address; the entry holds the old node, so the
    /// address cannot be reused while the entry lives.
    entries: FxHashMap<usize, (Node<K>, V)>,
    /// Size after the last sweep: the next one runs at twice this.
    swept_at: usize,
}

/// Below this size the map is never swept: sweeping a handful of entries
/// costs more than it saves.
const MIN_SWEEP: usize = 32;

impl<K, V> ReplaceMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        ReplaceMap {
            entries: FxHashMap::default(),
            swept_at: 0,
        }
    }

    /// The replacement recorded for `old`, if any (one step: a replacement
    /// that was itself replaced is not followed, as in oneDNN).
    #[inline]
    pub fn get(&self, old: &Node<K>) -> Option<&V> {
        if self.entries.is_empty() {
            return None;
        }
        self.entries.get(&old.addr()).map(|(_, v)| v)
    }

    /// Records `old` ↦ `new`, returning the replacement it had before.
    pub fn insert(&mut self, old: &Node<K>, new: V) -> Option<V> {
        if self.entries.len() >= MIN_SWEEP.max(2 * self.swept_at) {
            self.sweep();
        }
        self.entries
            .insert(old.addr(), (old.clone(), new))
            .map(|(_, v)| v)
    }

    /// Drops the entries whose old node nothing but the map still holds.
    /// [`insert`](Self::insert) calls it when the map has doubled; call it
    /// directly to release memory between passes.
    pub fn sweep(&mut self) {
        self.entries.retain(|_, (old, _)| old.strong_count() > 1);
        self.swept_at = self.entries.len();
    }

    /// How many replacements are recorded.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no replacement is recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every replacement.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.swept_at = 0;
    }
}

impl<K> ReplaceMap<K> {
    /// At a definition: records the outcome of a hook on `old` when it
    /// replaced the node, and passes the outcome on.
    pub fn record(&mut self, old: &Node<K>, outcome: Transformed<Node<K>>) -> Transformed<Node<K>> {
        if let Transformed::Replace(new) = &outcome
            && !new.same_as(old)
        {
            self.insert(old, new.clone());
        }
        outcome
    }

    /// At a use: the recorded replacement of `node`, else `node` itself.
    pub fn redirect(&self, node: &Node<K>) -> Node<K> {
        self.get(node).unwrap_or(node).clone()
    }

    /// At a use, as a hook's outcome: `Replace` with the recorded
    /// replacement, `Keep` when there is none.
    pub fn at_use(&self, node: &Node<K>) -> Transformed<Node<K>> {
        match self.get(node) {
            Some(new) => Transformed::Replace(new.clone()),
            None => Transformed::Keep,
        }
    }
}

impl<K, V> Default for ReplaceMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, V> std::fmt::Debug for ReplaceMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplaceMap")
            .field("len", &self.entries.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dead_keys_are_swept_as_the_map_grows() {
        let mut map: ReplaceMap<u32> = ReplaceMap::new();
        let keep: Vec<Node<u32>> = (0..10).map(Node::new).collect();
        for k in &keep {
            map.insert(k, Node::new(0));
        }
        // A long-running pass replacing a million short-lived definitions.
        for i in 0..1_000_000u32 {
            let dead = Node::new(i);
            map.insert(&dead, Node::new(i + 1));
            assert!(map.len() <= MIN_SWEEP.max(2 * (keep.len() + 1)) + 1);
        }
        for k in &keep {
            assert!(map.get(k).is_some(), "live entries survive every sweep");
        }
    }
}
