//! One hash of a variable's name, for the printers' and the parser's name
//! tables: FxHash, fast on the short names IR text is made of, with
//! neighbouring counters (`lv7`, `lv8`) kept neighbours.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

use rustc_hash::FxHasher;

/// hashbrown's per-bucket tag: the top seven bits.
const TAG: u64 = 0xfe00_0000_0000_0000;

/// The 64-bit hash of `name`. Tables keyed by it count two names of one
/// hash as one: the second then gets a suffix it did not need, which keeps
/// every given name unique and spares storing the names.
///
/// A name that ends in a counter (`lv123`: digits, no leading zero) hashes
/// its stem and adds the counter, so that in a [`NameMap`] the names a
/// builder hands out one after another land in neighbouring buckets: a
/// table of a million names is then read and written in order, not at a
/// cache miss per name. The top bits, which the table uses to tell
/// neighbours apart, are scrambled.
pub(crate) fn name_hash(name: &str) -> u64 {
    let fx = |parts: (&str, u8)| BuildHasherDefault::<FxHasher>::default().hash_one(parts);
    let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
    let (stem, suffix) = name.split_at(name.len() - digits);
    let counter = match suffix.as_bytes() {
        [] | [b'0', _, ..] => None,
        s if s.len() <= 18 => suffix.parse::<u64>().ok(),
        _ => None,
    };
    match counter {
        // The second part keeps `lv` and `lv0` apart.
        None => fx((name, 0)),
        Some(n) => {
            let h = fx((stem, 1));
            let tag = (h ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            (h.wrapping_add(n) & !TAG) | (tag & TAG)
        }
    }
}

/// A table keyed by [`name_hash`]: the key is its own hash.
pub(crate) type NameMap<V> = HashMap<u64, V, BuildHasherDefault<KeyIsHash>>;

/// Hashes a `u64` key to itself (it is a [`name_hash`] already).
#[derive(Default)]
pub(crate) struct KeyIsHash(u64);

impl Hasher for KeyIsHash {
    fn write(&mut self, bytes: &[u8]) {
        // Not used by `u64` keys; any other key still hashes.
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    #[inline]
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_differ_hash_apart() {
        let names = [
            "lv",
            "lv0",
            "lv1",
            "lv01",
            "lv10",
            "gv1",
            "x",
            "x_1",
            "v12345678901234567890",
        ];
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                assert_ne!(name_hash(a), name_hash(b), "{a} and {b}");
            }
        }
    }

    #[test]
    fn counters_of_one_stem_are_neighbours() {
        let (a, b) = (name_hash("lv41"), name_hash("lv42"));
        assert_eq!((b & !TAG).wrapping_sub(a & !TAG), 1);
    }
}
