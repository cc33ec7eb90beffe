//! The block builder's table of the module's functions by structure, which
//! `add_function` consults so that a function structurally equal to one
//! already there is not added twice (TVM's `ctx_func_dedup_map_`).
//!
//! Each function maps to a *set* of names: two names may hold equal
//! functions, and updating one of them leaves the other found (a TVM
//! regression).
//!
//! Hashing a function is a walk of all of it, so it is done only when a
//! lookup needs it: a function is recorded unhashed, and hashed when a later
//! function is looked up. A module built with one function, the common case
//! of a builder made for one function, never hashes it; otherwise each
//! function is hashed once.

use ir_core::Node;
use ir_core::structural::{structural_eq, structural_hash};
use rustc_hash::FxHashMap;

use super::expr::{Expr, Function};

/// A function of the module and the names it is bound to.
type NamedFunction = (Node<Function>, Vec<String>);

/// How many unhashed records `forget` looks through one by one; past
/// that it hashes them all, so that updating each function of a wide
/// module costs linear time, not quadratic.
const SCANNED: usize = 8;

/// Functions by structural hash, and those not hashed yet.
#[derive(Default)]
pub(super) struct FunctionDedup {
    /// Structural hash -> functions with that hash and their names, in the
    /// order recorded.
    hashed: FxHashMap<u64, Vec<NamedFunction>>,
    /// Recorded since the last lookup, in order; not hashed.
    pending: Vec<(Node<Function>, String)>,
}

fn hash_of(f: &Node<Function>) -> u64 {
    structural_hash(&Expr::Function(f.clone()))
}

impl FunctionDedup {
    /// Records that `name` holds `f`.
    pub(super) fn record(&mut self, name: &str, f: &Node<Function>) {
        self.pending.push((f.clone(), name.to_owned()));
    }

    /// Records that `name` no longer holds `f`.
    pub(super) fn forget(&mut self, name: &str, f: &Node<Function>) {
        if self.pending.len() <= SCANNED
            && let Some(i) = self
                .pending
                .iter()
                .position(|(g, n)| g.same_as(f) && n == name)
        {
            self.pending.remove(i);
            return;
        }
        self.settle();
        if let Some(entries) = self.hashed.get_mut(&hash_of(f)) {
            for (_, names) in entries.iter_mut() {
                names.retain(|n| n != name);
            }
            entries.retain(|(_, names)| !names.is_empty());
        }
    }

    /// The first name recorded for a function structurally equal to `f`.
    pub(super) fn find(&mut self, f: &Node<Function>) -> Option<&str> {
        if self.hashed.is_empty() && self.pending.is_empty() {
            return None;
        }
        self.settle();
        self.hashed
            .get(&hash_of(f))?
            .iter()
            .find(|(g, _)| structural_eq(&**g, &**f))
            .and_then(|(_, names)| names.first())
            .map(String::as_str)
    }

    /// Forgets every function.
    pub(super) fn clear(&mut self) {
        self.hashed.clear();
        self.pending.clear();
    }

    /// Hashes the pending functions into the table, merging each into an
    /// equal one already there.
    fn settle(&mut self) {
        for (f, name) in self.pending.drain(..) {
            let entries = self.hashed.entry(hash_of(&f)).or_default();
            match entries.iter_mut().find(|(g, _)| structural_eq(&**g, &*f)) {
                Some((_, held)) => held.push(name),
                None => entries.push((f, vec![name])),
            }
        }
    }
}
