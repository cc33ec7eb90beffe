//! Releasing deep node chains without deep recursion.
//!
//! Dropping the last handle to a node drops its children, which drop theirs:
//! plain `Arc` chains overflow the main thread's stack near 260,000 levels and
//! a spawned thread's near 65,000. Here releases nest at most
//! [`NESTING_LIMIT`] deep (less if the stack reaches its red zone, see
//! [`crate::stack`]); a deeper release parks the node on a per-thread list
//! instead, and the outermost release drains that list in a loop. Stack use
//! is bounded at any depth.
//!
//! The bound is small on purpose, not only where the stack runs out:
//! recursing until the red zone wrote a frame per level across megabytes of
//! stack, far outside the caches, and dropping a 10-million-level let chain
//! took 79 ns per level; parked every 128 levels it takes 39-44 (the
//! derived-against-hand-written benchmark's rebuilds, which allocate from
//! the memory such drops free, were no slower: 28.8 and 22.6 ns per node
//! side by side on the let chain).

use std::cell::{Cell, RefCell};

/// How many node releases may nest before inner ones are deferred. Small
/// enough to fit in any red zone, and to keep the frames in the cache.
pub const NESTING_LIMIT: u32 = 128;

thread_local! {
    static NESTING: Cell<u32> = const { Cell::new(0) };
    static PARKED: RefCell<Vec<Parked>> = const { RefCell::new(Vec::new()) };
}

/// A node whose last handle was dropped: its allocation, and how to free it
/// (the one piece of per-type code a release needs).
pub(crate) struct Parked {
    pub(crate) ptr: *mut (),
    pub(crate) release: unsafe fn(*mut ()),
}

/// Frees a node whose last handle was just dropped, or parks it for later if
/// releases are already nested deeply. The decision (nesting depth, red zone,
/// parking) is compiled once, here; each node type adds only its `release`.
#[inline(never)]
pub(crate) fn release_raw(node: Parked) {
    let Ok(depth) = NESTING.try_with(Cell::get) else {
        // Thread teardown: no bookkeeping left, release directly.
        // SAFETY: released once, here.
        return unsafe { (node.release)(node.ptr) };
    };
    // The outermost release never parks: it is the one that drains.
    let park = depth > 0 && (depth >= NESTING_LIMIT || crate::stack::is_low() == Some(true));
    if park {
        // The outermost release is still on the stack and drains this list
        // before it returns, so everything parked is released while its
        // borrowed data is alive.
        let mut node = Some(node);
        let _ = PARKED.try_with(|p| p.borrow_mut().extend(node.take()));
        let Some(node) = node else { return };
        // The list is gone (a thread-local destructor dropping nodes at
        // thread teardown): recurse while the stack is known to allow it,
        // leak past that.
        if crate::stack::is_low() == Some(false) {
            // SAFETY: released once, here.
            unsafe { (node.release)(node.ptr) };
        }
        return;
    }
    NESTING.set(depth + 1);
    let guard = Restore(depth);
    // SAFETY: released once, here.
    unsafe { (node.release)(node.ptr) };
    if depth == 0 {
        drain();
    }
    drop(guard);
}

/// Releases parked nodes until none are left; runs in the outermost release
/// with the nesting counter at 1, so each parked node may nest again.
#[cold]
fn drain() {
    loop {
        let next = PARKED.try_with(|p| p.borrow_mut().pop()).ok().flatten();
        let Some(parked) = next else { break };
        // SAFETY: each parked entry is released exactly once, here.
        unsafe { (parked.release)(parked.ptr) };
    }
}

/// Restores the nesting counter even if a destructor panics.
struct Restore(u32);

impl Drop for Restore {
    fn drop(&mut self) {
        NESTING.set(self.0);
        if self.0 == 0 && std::thread::panicking() {
            // Unwinding out of the outermost release: parked nodes may borrow
            // data that is about to go away, so leak them rather than keep them.
            let _ = PARKED.try_with(|p| {
                let mut p = p.borrow_mut();
                p.clear();
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Node;

    struct Chain(#[allow(dead_code)] Option<Node<Chain>>);

    fn chain(depth: usize) -> Node<Chain> {
        let mut n = Node::new(Chain(None));
        for _ in 0..depth {
            n = Node::new(Chain(Some(n)));
        }
        n
    }

    #[test]
    fn drops_a_million_deep_chain_on_a_test_thread() {
        drop(chain(1_000_000));
    }

    #[test]
    fn drops_a_deep_chain_on_a_small_thread() {
        std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(|| drop(chain(300_000)))
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn shared_tail_survives() {
        let tail = chain(1_000);
        let head = Node::new(Chain(Some(tail.clone())));
        drop(head);
        assert_eq!(tail.strong_count(), 1);
    }
}
