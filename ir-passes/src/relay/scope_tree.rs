//! A tree of nested scopes in which the innermost scope enclosing two
//! others is found in time logarithmic in their depth: the printer places
//! shared nodes with it, and `to-anf` its bindings, so that a node used at
//! every level of a deep nesting (a shared constant) costs no walk to the
//! root per use.

/// Nested scopes (blocks) as a tree, with jump pointers, so that the
/// innermost scope enclosing two scopes is found in time logarithmic in
/// their depth (Myers' skew-binary jump pointers: one extra index per block).
pub(crate) struct ScopeTree {
    parent: Vec<usize>,
    depth: Vec<usize>,
    jump: Vec<usize>,
}

impl ScopeTree {
    /// The tree of the function body alone, block 0.
    pub(crate) fn new() -> Self {
        ScopeTree {
            parent: vec![0],
            depth: vec![0],
            jump: vec![0],
        }
    }

    pub(crate) fn add(&mut self, parent: usize) -> usize {
        let up = self.jump[parent];
        let jump =
            if self.depth[parent] - self.depth[up] == self.depth[up] - self.depth[self.jump[up]] {
                self.jump[up]
            } else {
                parent
            };
        self.parent.push(parent);
        self.depth.push(self.depth[parent] + 1);
        self.jump.push(jump);
        self.parent.len() - 1
    }

    /// The ancestor of `b` at `depth` (at most `b`'s own).
    fn ancestor(&self, mut b: usize, depth: usize) -> usize {
        while self.depth[b] > depth {
            b = if self.depth[self.jump[b]] >= depth {
                self.jump[b]
            } else {
                self.parent[b]
            };
        }
        b
    }

    /// The innermost block enclosing both `a` and `b`.
    pub(crate) fn common(&self, a: usize, b: usize) -> usize {
        let (mut a, mut b) = if self.depth[a] >= self.depth[b] {
            (self.ancestor(a, self.depth[b]), b)
        } else {
            (a, self.ancestor(b, self.depth[a]))
        };
        // Same depth from here on, so the jumps of both land at one depth.
        while a != b {
            if self.jump[a] == self.jump[b] {
                a = self.parent[a];
                b = self.parent[b];
            } else {
                a = self.jump[a];
                b = self.jump[b];
            }
        }
        a
    }
}
