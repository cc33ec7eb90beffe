//! Stack segments for deep recursion, kept per thread and reused.
//!
//! A fresh segment costs an `mmap`, a page fault for every page the recursion
//! touches, and an `munmap`: at a million levels that is most of a traversal's
//! time. Segments here are returned to a per-thread pool instead, so the next
//! deep traversal runs on pages that are already mapped. Each has a guard page
//! below it, like a thread stack.

use std::cell::RefCell;

use super::SEGMENT;

/// The most segments a thread can keep for reuse ([`set_pool_limit`]).
pub const POOLED_SEGMENTS: usize = 32;

/// Segments a thread keeps for reuse unless told otherwise: 4 segments, so
/// at most 32 MiB of stack memory stays mapped per thread after a deep pass.
pub const DEFAULT_POOL_LIMIT: usize = 4;

thread_local! {
    static LIMIT: std::cell::Cell<usize> = const { std::cell::Cell::new(DEFAULT_POOL_LIMIT) };
}

/// Sets how many stack segments this thread keeps mapped for the next deep
/// traversal (at most [`POOLED_SEGMENTS`]; default [`DEFAULT_POOL_LIMIT`]).
/// More make repeated very deep passes faster (no mapping and first-touch
/// page faults each time) at the price of memory held between them; segments
/// beyond the limit are unmapped as a traversal returns. Lowering it does not
/// unmap segments already kept: [`release_pooled`] does.
pub fn set_pool_limit(segments: usize) {
    let _ = LIMIT.try_with(|l| l.set(segments.min(POOLED_SEGMENTS)));
}

fn limit() -> usize {
    LIMIT
        .try_with(std::cell::Cell::get)
        .unwrap_or(DEFAULT_POOL_LIMIT)
}

psm::psm_stack_manipulation! {
    yes {
        struct Segment {
            mapping: *mut u8,
            len: usize,
            page: usize,
        }

        impl Segment {
            fn map() -> Segment {
                // SAFETY: plain anonymous mappings; the guard page is made inaccessible.
                unsafe {
                    let page = usize::try_from(libc::sysconf(libc::_SC_PAGESIZE))
                        .ok()
                        .filter(|&p| p > 0)
                        .unwrap_or(4096);
                    let len = SEGMENT + page;
                    let mapping = libc::mmap(
                        std::ptr::null_mut(),
                        len,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANON,
                        -1,
                        0,
                    );
                    if mapping == libc::MAP_FAILED {
                        // Out of address space: the traversal cannot continue.
                        std::alloc::handle_alloc_error(
                            std::alloc::Layout::from_size_align(len, page).unwrap_or(std::alloc::Layout::new::<u8>()),
                        );
                    }
                    libc::mprotect(mapping, page, libc::PROT_NONE);
                    Segment { mapping: mapping.cast(), len, page }
                }
            }

            /// Lowest usable address (just above the guard page).
            fn base(&self) -> *mut u8 {
                // SAFETY: within the mapping.
                unsafe { self.mapping.add(self.page) }
            }
        }

        impl Drop for Segment {
            fn drop(&mut self) {
                // SAFETY: the mapping is ours and nothing runs on it any more.
                unsafe { libc::munmap(self.mapping.cast(), self.len) };
            }
        }

        /// A fixed array, so that pooling allocates nothing on the heap.
        struct Pool {
            segments: [Option<Segment>; POOLED_SEGMENTS],
            len: usize,
        }

        impl Pool {
            fn pop(&mut self) -> Option<Segment> {
                let last = self.len.checked_sub(1)?;
                self.len = last;
                self.segments[last].take()
            }

            /// Keeps `segment` if the thread's limit allows; otherwise it is unmapped.
            fn push(&mut self, segment: Segment) {
                if self.len < limit() {
                    self.segments[self.len] = Some(segment);
                    self.len += 1;
                }
            }
        }

        thread_local! {
            static POOL: RefCell<Pool> = const {
                RefCell::new(Pool { segments: [const { None }; POOLED_SEGMENTS], len: 0 })
            };
        }

        /// Runs `f` on a pooled segment; `on_entry` gets the segment's lowest
        /// usable address first (to set the thread's stack limit).
        pub(super) fn run_on_segment<R>(on_entry: impl FnOnce(usize), f: impl FnOnce() -> R) -> R {
            let segment = POOL
                .try_with(|p| p.borrow_mut().pop())
                .ok()
                .flatten()
                .unwrap_or_else(Segment::map);
            let base = segment.base();
            // SAFETY: `base..base + SEGMENT` is mapped read-write and used by nothing else;
            // panics are caught on the segment and resumed after switching back.
            let outcome = unsafe {
                psm::on_stack(base, SEGMENT, move || {
                    on_entry(base as usize);
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
                })
            };
            let _ = POOL.try_with(|p| p.borrow_mut().push(segment));
            match outcome {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }

        /// How many segments this thread keeps now.
        #[cfg_attr(not(test), allow(dead_code))]
        pub(crate) fn pooled() -> usize {
            POOL.try_with(|p| p.borrow().len).unwrap_or(0)
        }

        /// Unmaps this thread's pooled segments.
        pub fn release_pooled() {
            let _ = POOL.try_with(|p| {
                let mut p = p.borrow_mut();
                while p.pop().is_some() {}
            });
        }
    }
    no {
        /// Without stack switching support, fall back to `stacker` (fresh segments).
        pub(super) fn run_on_segment<R>(on_entry: impl FnOnce(usize), f: impl FnOnce() -> R) -> R {
            stacker::grow(SEGMENT, move || {
                let base = stacker::remaining_stack()
                    .map(|r| super::stack_pointer().saturating_sub(r))
                    .unwrap_or(1);
                on_entry(base);
                f()
            })
        }

        /// Nothing is pooled on this platform.
        pub fn release_pooled() {}

        #[cfg_attr(not(test), allow(dead_code))]
        pub(crate) fn pooled() -> usize {
            0
        }
    }
}
