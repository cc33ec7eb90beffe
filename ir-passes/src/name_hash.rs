//! One hash of a variable's name, for the printers' and the parser's name
//! tables: FxHash, fast on the short names IR text is made of.

use std::hash::{BuildHasher, BuildHasherDefault};

use rustc_hash::FxHasher;

/// The 64-bit hash of `name`. Tables keyed by it count two names of one
/// hash as one: the second then gets a suffix it did not need, which keeps
/// every given name unique and spares storing the names.
pub(crate) fn name_hash(name: &str) -> u64 {
    BuildHasherDefault::<FxHasher>::default().hash_one(name)
}
