//! The printer's variable names: each variable of a function is printed
//! under a name no other variable of the function has.
//!
//! Most programs already have unique names, and checking each name against
//! a table of the names given costs a cache miss per variable once the table
//! outgrows the cache (a hash table of ten million names). So a function is
//! printed first *optimistically*: every variable under its own name, with
//! the hash of each name logged in order. Sorting the log (one radix pass,
//! then sorts that fit in the cache) finds the names given twice. When there
//! are none, the text stands. Otherwise the function is printed again with
//! what the log says: names given once are printed as they are, without a
//! table; a repeated name goes to its first variable and the others get
//! `name_1`, `name_2`, …, never a name any variable of the function has.

use crate::name_hash::name_hash;
use rustc_hash::{FxHashMap, FxHashSet};

/// Whether `name` prints as itself: an identifier.
fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The names of one function being printed.
#[derive(Default)]
pub(super) struct Names {
    /// The first printing: every hint taken as it is, and logged.
    optimistic: bool,
    /// The hashes of the names the variables were defined with, in order
    /// (optimistic), or sorted without repeats (the second printing).
    defined: Vec<u64>,
    /// A hint that is not an identifier was met (optimistic).
    needs_renaming: bool,
    /// The names given to more than one variable (second printing).
    repeated: FxHashSet<u64>,
    /// Names given in the second printing that are repeated or made here,
    /// with the next suffix to try for each base.
    taken: FxHashMap<u64, usize>,
}

impl Names {
    /// Starts a function: its first, optimistic printing.
    pub(super) fn begin(&mut self) {
        self.optimistic = true;
        self.defined.clear();
        self.needs_renaming = false;
        self.repeated.clear();
        self.taken.clear();
    }

    /// After the first printing: `true` if it stands (no name was given
    /// twice, every hint was an identifier). Otherwise the names are set up
    /// for the second printing, which the caller starts from scratch.
    pub(super) fn first_printing_stands(&mut self) -> bool {
        sort(&mut self.defined);
        let before = self.repeated.len();
        for pair in self.defined.windows(2) {
            if pair[0] == pair[1] {
                self.repeated.insert(pair[0]);
            }
        }
        if self.repeated.len() == before && !self.needs_renaming {
            return true;
        }
        self.defined.dedup();
        self.optimistic = false;
        false
    }

    /// The name a variable defined with `hint` is printed under: `None` for
    /// the hint itself.
    pub(super) fn define(&mut self, hint: &str) -> Option<Box<str>> {
        let identifier = is_identifier(hint);
        let key = name_hash(hint);
        if self.optimistic {
            self.defined.push(key);
            self.needs_renaming |= !identifier;
            return None;
        }
        if identifier && !self.repeated.contains(&key) {
            // Given to this variable alone: no name made here equals it.
            return None;
        }
        if identifier && !self.taken.contains_key(&key) {
            self.taken.insert(key, 1);
            return None;
        }
        Some(self.suffixed(hint).into())
    }

    /// Whether `key` is a name a variable of the function was defined with.
    fn is_defined(&self, key: u64) -> bool {
        self.defined.binary_search(&key).is_ok()
    }

    /// The hint made an identifier, then `hint_1`, `hint_2`, …: the first not
    /// given and not any variable's own name. Each base remembers where its
    /// suffixes stopped, so that many variables of one name cost linear time.
    fn suffixed(&mut self, hint: &str) -> String {
        let mut base: String = hint
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if !base
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        {
            base.insert(0, 'v');
        }
        let key = name_hash(&base);
        let mut k = match self.taken.get(&key) {
            Some(&k) => k,
            None if !self.is_defined(key) => {
                self.taken.insert(key, 1);
                return base;
            }
            None => 1,
        };
        let name = loop {
            let candidate = format!("{base}_{k}");
            k += 1;
            let candidate_key = name_hash(&candidate);
            if !self.taken.contains_key(&candidate_key) && !self.is_defined(candidate_key) {
                break candidate;
            }
        };
        self.taken.insert(key, k);
        self.taken.insert(name_hash(&name), 1);
        name
    }
}

/// Sorts hashes: spread by their top bits into buckets that fit in the
/// cache, then each bucket sorted (a comparison sort over all of ten
/// million would cost several times more).
fn sort(keys: &mut Vec<u64>) {
    const BITS: u32 = 16;
    if keys.len() < 1 << BITS {
        keys.sort_unstable();
        return;
    }
    let bucket = |k: u64| (k >> (64 - BITS)) as usize;
    let mut starts = vec![0usize; (1 << BITS) + 1];
    for &k in keys.iter() {
        starts[bucket(k) + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    let mut spread = vec![0u64; keys.len()];
    for &k in keys.iter() {
        let b = bucket(k);
        spread[next[b]] = k;
        next[b] += 1;
    }
    for b in 0..1 << BITS {
        spread[starts[b]..starts[b + 1]].sort_unstable();
    }
    *keys = spread;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_large_and_small_logs() {
        for n in [0usize, 1, 5, 70_000] {
            let mut keys: Vec<u64> = (0..n as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            sort(&mut keys);
            assert_eq!(keys, expected);
        }
    }

    #[test]
    fn repeated_names_are_suffixed_past_every_defined_name() {
        let mut names = Names::default();
        names.begin();
        for hint in ["x", "x_1", "x", "y"] {
            assert_eq!(names.define(hint), None);
        }
        assert!(!names.first_printing_stands());
        let given: Vec<Option<Box<str>>> = ["x", "x_1", "x", "y"]
            .iter()
            .map(|h| names.define(h))
            .collect();
        assert_eq!(given, [None, None, Some("x_2".into()), None]);
    }

    #[test]
    fn unique_identifiers_stand_at_the_first_printing() {
        let mut names = Names::default();
        names.begin();
        for hint in ["a", "b", "c"] {
            assert_eq!(names.define(hint), None);
        }
        assert!(names.first_printing_stands());
    }
}
