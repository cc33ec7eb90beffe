//! The parser's variables in scope: a stack of bindings, and a table from
//! each name to its innermost binding.
//!
//! A binding is 16 bytes and a table entry 4 (an index into the stack,
//! found by the name the variable holds): a chain of ten million lets keeps
//! its names in scope in about 200 MB less than a map from names to
//! bindings would take. Closing a scope puts each name back to the binding
//! it hid, so that a lookup costs the same at any depth.

use hashbrown::HashTable;
use ir_core::Node;

use crate::name_hash::name_hash;

use super::expr::Var;

/// No binding hidden.
const NONE: u32 = u32::MAX;

struct Binding {
    var: Node<Var>,
    /// The binding of the same name this one hides, or [`NONE`].
    hidden: u32,
    /// The name's hash (32 bits are plenty to find one of a few million).
    hash: u32,
}

/// Names bound in nested scopes.
#[derive(Default)]
pub(super) struct Scopes {
    /// Every binding of the open scopes, innermost last.
    bindings: Vec<Binding>,
    /// Each name's innermost binding, as an index into `bindings`.
    table: HashTable<u32>,
    /// Where each open scope's bindings start in `bindings`.
    starts: Vec<usize>,
}

fn hash(name: &str) -> u32 {
    let h = name_hash(name);
    // Mixed, so that the 32 bits kept all depend on every byte.
    (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
}

/// The table's hash for a stored 32-bit hash: the high bits (which pick
/// the control byte) and the low bits (which pick the bucket) both vary.
fn widen(hash: u32) -> u64 {
    (u64::from(hash) << 32) | u64::from(hash)
}

impl Scopes {
    /// Whether no scope is open.
    pub(super) fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Opens a scope.
    pub(super) fn open(&mut self) {
        self.starts.push(self.bindings.len());
    }

    /// Closes the innermost scope: each name it bound is back to what it hid.
    pub(super) fn close(&mut self) {
        let start = self.starts.pop().unwrap_or(0);
        if start == 0 {
            // The outermost scope: nothing to restore (and a large one's
            // memory given back).
            if self.bindings.capacity() > 1024 {
                self.bindings = Vec::new();
                self.table = HashTable::new();
            } else {
                self.bindings.clear();
                self.table.clear();
            }
            return;
        }
        let closing = self.bindings.len() - start;
        if start < closing && closing >= self.table.capacity() / 4 {
            // Fewer bindings stay than go (as when a function body closes
            // inside its parameters' scope): the table is rebuilt from
            // those, in order, so that the innermost of each name wins.
            self.bindings.truncate(start);
            self.table.clear();
            for (i, b) in self.bindings.iter().enumerate() {
                let bindings = &self.bindings;
                let name = &b.var.name;
                match self.table.entry(
                    widen(b.hash),
                    |&j| bindings[j as usize].var.name == *name,
                    |&j| widen(bindings[j as usize].hash),
                ) {
                    hashbrown::hash_table::Entry::Occupied(mut slot) => *slot.get_mut() = i as u32,
                    hashbrown::hash_table::Entry::Vacant(slot) => {
                        slot.insert(i as u32);
                    }
                }
            }
        }
        while self.bindings.len() > start {
            let Some(b) = self.bindings.pop() else { break };
            let index = self.bindings.len() as u32;
            let Ok(entry) = self.table.find_entry(widen(b.hash), |&i| i == index) else {
                continue;
            };
            if b.hidden == NONE {
                entry.remove();
            } else {
                *entry.into_mut() = b.hidden;
            }
        }
        // A large scope gives its memory back (halving at most once per
        // doubling: linear in all).
        if self.bindings.capacity() > 1024 && self.bindings.len() < self.bindings.capacity() / 4 {
            self.bindings.shrink_to(self.bindings.len() * 2);
            let bindings = &self.bindings;
            self.table
                .shrink_to(bindings.len(), |&i| widen(bindings[i as usize].hash));
        }
    }

    /// The innermost variable bound to `name`.
    pub(super) fn lookup(&self, name: &str) -> Option<&Node<Var>> {
        let bindings = &self.bindings;
        self.table
            .find(widen(hash(name)), |&i| {
                bindings[i as usize].var.name == name
            })
            .map(|&i| &bindings[i as usize].var)
    }

    /// Binds `name`, which is `var`'s own name (the table finds bindings
    /// through it), to `var` in the innermost scope.
    pub(super) fn bind(&mut self, name: &str, var: &Node<Var>) {
        let h = hash(name);
        let index = self.bindings.len() as u32;
        let bindings = &self.bindings;
        let hidden = match self.table.entry(
            widen(h),
            |&i| bindings[i as usize].var.name == name,
            |&i| widen(bindings[i as usize].hash),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut slot) => {
                std::mem::replace(slot.get_mut(), index)
            }
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(index);
                NONE
            }
        };
        self.bindings.push(Binding {
            var: var.clone(),
            hidden,
            hash: h,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relay::Expr;

    #[test]
    fn an_inner_binding_hides_an_outer_one_until_its_scope_closes() {
        let (outer, inner, other) = (
            Expr::var("x", None),
            Expr::var("x", None),
            Expr::var("y", None),
        );
        let mut scopes = Scopes::default();
        scopes.open();
        scopes.bind("x", &outer);
        scopes.open();
        scopes.bind("x", &inner);
        scopes.bind("y", &other);
        assert!(scopes.lookup("x").is_some_and(|v| v.same_as(&inner)));
        scopes.close();
        assert!(scopes.lookup("x").is_some_and(|v| v.same_as(&outer)));
        assert!(scopes.lookup("y").is_none());
        scopes.close();
        assert!(scopes.lookup("x").is_none());
        assert!(scopes.is_empty());
    }

    #[test]
    fn closing_a_large_scope_rebuilds_the_few_names_that_stay() {
        let (a, x) = (Expr::var("a", None), Expr::var("x", None));
        let mut scopes = Scopes::default();
        scopes.open();
        scopes.bind("a", &a);
        scopes.bind("x", &x);
        scopes.open();
        let inner: Vec<_> = (0..1000)
            .map(|i| Expr::var(&format!("v{i}"), None))
            .collect();
        for v in &inner {
            scopes.bind(&v.name, v);
        }
        let inner_x = Expr::var("x", None);
        scopes.bind("x", &inner_x);
        assert!(scopes.lookup("x").is_some_and(|v| v.same_as(&inner_x)));
        scopes.close();
        assert!(scopes.lookup("x").is_some_and(|v| v.same_as(&x)));
        assert!(scopes.lookup("a").is_some_and(|v| v.same_as(&a)));
        assert!(scopes.lookup("v7").is_none());
    }
}
