//! One hash of a variable's name, for the printers' and the parser's name
//! tables: FxHash, fast on the short names IR text is made of.

use std::hash::{BuildHasher, BuildHasherDefault};

use rustc_hash::FxHasher;

/// The 64-bit hash of `name`.
pub(crate) fn name_hash(name: &str) -> u64 {
    BuildHasherDefault::<FxHasher>::default().hash_one(name)
}
