//! Stack safety for recursive traversals.
//!
//! Every generated dispatch is guarded ([`reenter`] for a family's, and
//! [`guarded`] for a typed node's). While enough stack is left that costs
//! one thread-local load and a compare; when the stack runs low,
//! the traversal continues on another stack segment, so recursion depth is
//! bounded by memory, not by the thread's stack. A few segments are pooled
//! per thread, so repeated deep traversals do not pay for mapping and
//! faulting in fresh stack memory each time: by default
//! [`DEFAULT_POOL_LIMIT`] (4 segments of 8 MiB, so at most 32 MiB stays
//! mapped per thread after a deep pass); [`set_pool_limit`] changes it and
//! [`release_pooled`] unmaps them.
//! Pass authors never call this themselves, but may, for their own recursion.

use std::cell::Cell;

mod segment_pool;
pub use segment_pool::{DEFAULT_POOL_LIMIT, POOLED_SEGMENTS, release_pooled, set_pool_limit};

/// Stack that must stay free below the current frame; recursion between two
/// guarded calls (a hook body, one node's destructor) must fit in it.
pub const RED_ZONE: usize = 256 * 1024;

/// Size of each stack segment allocated when the stack runs low.
pub const SEGMENT: usize = 8 * 1024 * 1024;

thread_local! {
    /// Lowest stack address this thread may reach before growing; 0 = not yet known.
    static LIMIT: Cell<usize> = const { Cell::new(0) };
}

#[inline(always)]
fn stack_pointer() -> usize {
    let marker = 0u8;
    std::ptr::addr_of!(marker) as usize
}

/// Runs `f`, first switching to a new stack segment if the current one is nearly used up.
///
/// ```
/// fn depth(n: u64) -> u64 {
///     ir_core::stack::guarded(|| if n == 0 { 0 } else { 1 + depth(n - 1) })
/// }
/// assert_eq!(depth(1_000_000), 1_000_000);
/// ```
#[inline(always)]
pub fn guarded<R>(f: impl FnOnce() -> R) -> R {
    let limit = LIMIT.with(Cell::get);
    if limit != 0 && stack_pointer() > limit {
        f()
    } else {
        slow_path(f)
    }
}

/// The guard of a recursive function that calls itself back: `None` while
/// enough stack is left (the caller goes on with its body, on this stack),
/// otherwise `Some` of `again` run on a new stack segment, where `again`
/// calls the caller once more.
///
/// Unlike [`guarded`], the caller's body is not a closure reached from two
/// places (the fast path and the slow one): it stays in the caller, compiled
/// once and free to be inlined there, and the cold path holds only the call
/// back. A family's generated dispatch (walk, rebuild, equality, hash) is
/// guarded this way: with [`guarded`], a pass's whole dispatch was either
/// compiled a second time for the slow path or left out of line in a
/// closure (20% slower on a let chain's visit).
///
/// ```
/// fn depth(n: u64) -> u64 {
///     if let Some(d) = ir_core::stack::reenter(|| depth(n)) {
///         return d;
///     }
///     if n == 0 { 0 } else { 1 + depth(n - 1) }
/// }
/// assert_eq!(depth(1_000_000), 1_000_000);
/// ```
#[inline(always)]
pub fn reenter<R>(again: impl FnOnce() -> R) -> Option<R> {
    let limit = LIMIT.with(Cell::get);
    if limit != 0 && stack_pointer() > limit {
        None
    } else {
        Some(reenter_slow(again))
    }
}

/// [`reenter`]'s slow path, out of line: its closure only calls back.
#[cold]
#[inline(never)]
fn reenter_slow<R>(again: impl FnOnce() -> R) -> R {
    slow_path(again)
}

/// `true` when the current frame is in the red zone of its stack segment
/// (the point where [`guarded`] would switch segments). Used by node drops
/// to defer releases instead of recursing further. `None` if this thread's
/// stack bounds are unknown.
#[inline(always)]
pub(crate) fn is_low() -> Option<bool> {
    let mut limit = LIMIT.try_with(Cell::get).ok()?;
    if limit == 0 {
        set_limit_for_current_segment();
        limit = LIMIT.try_with(Cell::get).ok()?;
    }
    if limit == 1 {
        return None;
    }
    Some(stack_pointer() <= limit)
}

/// The generic part of the slow path, kept small: everything else is
/// compiled once, not once per call site (each generated dispatch is one).
///
/// `#[inline]` makes it a local copy in its caller's codegen unit: as a
/// separate instance it was a root the compiler placed in a codegen unit of
/// its own, and every `#[inline]` function its closure reaches (a pass's
/// whole dispatch) was compiled a second time there. `#[cold]` keeps it out
/// of line all the same: inlined, its slots would widen every guarded frame
/// (about 90 bytes per level of a deep recursion instead of 46).
#[cold]
#[inline]
fn slow_path<R>(f: impl FnOnce() -> R) -> R {
    let mut f = Some(f);
    let mut out = None;
    grow_and_run(&mut || {
        if let Some(f) = f.take() {
            out = Some(f());
        }
    });
    match out {
        Some(r) => r,
        None => unreachable!("grow_and_run runs its callback exactly once"),
    }
}

#[cold]
#[inline(never)]
fn grow_and_run(f: &mut dyn FnMut()) {
    if LIMIT.with(Cell::get) == 0 {
        set_limit_for_current_segment();
        if stack_pointer() > LIMIT.with(Cell::get) {
            return f();
        }
    }
    let saved = LIMIT.with(Cell::get);
    let restore = RestoreLimit(saved);
    segment_pool::run_on_segment(
        |base| LIMIT.with(|l| l.set(base.saturating_add(RED_ZONE).max(2))),
        f,
    );
    drop(restore);
}

fn set_limit_for_current_segment() {
    let sp = stack_pointer();
    let limit = match stacker::remaining_stack() {
        Some(remaining) => sp.saturating_sub(remaining).saturating_add(RED_ZONE),
        // Unknown stack bounds: never grow, behave like plain recursion.
        None => 1,
    };
    LIMIT.with(|l| l.set(limit.max(1)));
}

struct RestoreLimit(usize);

impl Drop for RestoreLimit {
    fn drop(&mut self) {
        LIMIT.with(|l| l.set(self.0));
    }
}

#[cfg(test)]
mod tests {
    use super::guarded;

    fn sum(n: u64) -> u64 {
        guarded(|| if n == 0 { 0 } else { n + sum(n - 1) })
    }

    #[test]
    fn deep_recursion_on_a_small_thread() {
        let r = std::thread::Builder::new()
            .stack_size(64 * 1024 * 4)
            .spawn(|| sum(2_000_000))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(r, 2_000_000 * 2_000_001 / 2);
    }

    #[test]
    fn a_panic_deep_on_a_segment_reaches_the_caller() {
        fn dive(n: u64) -> u64 {
            guarded(|| {
                if n == 0 {
                    panic!("bottom")
                } else {
                    1 + dive(n - 1)
                }
            })
        }
        let caught = std::panic::catch_unwind(|| dive(300_000));
        assert!(caught.is_err());
        // Segments went back to the pool and are reused.
        assert_eq!(sum(300_000), 300_000 * 300_001 / 2);
        super::release_pooled();
        assert_eq!(sum(300_000), 300_000 * 300_001 / 2);
    }

    #[test]
    fn a_deep_traversal_leaves_a_bounded_pool() {
        std::thread::spawn(|| {
            // About 30 segments deep at the bottom.
            assert_eq!(sum(3_000_000), 3_000_000 * 3_000_001 / 2);
            assert!(super::segment_pool::pooled() <= super::DEFAULT_POOL_LIMIT);
            super::set_pool_limit(0);
            let _ = sum(1_000_000);
            assert_eq!(super::segment_pool::pooled(), 0);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn limit_is_restored_after_growth() {
        let _ = sum(500_000);
        // Still works, and shallow calls take the fast path again.
        assert_eq!(sum(10), 55);
    }
}
