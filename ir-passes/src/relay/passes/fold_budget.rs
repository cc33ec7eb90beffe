//! What one run of `fold-constant` over a module may spend in all: the
//! elements it materializes and the steps its kernels take. The folders of
//! the run (one per function, maybe on several threads) draw on one budget,
//! so that many calls, each within the per-call bounds, cannot add up to any
//! amount of memory or time.

use std::sync::atomic::{AtomicU64, Ordering};

/// The most elements folding materializes in all by default, over a run of
/// `fold-constant` on a module: a call past it stays a call.
pub const DEFAULT_MAX_TOTAL_ELEMENTS: u64 = 1 << 26;

/// The most kernel steps (multiply-adds, or elements read and written,
/// weighed by rank) folding takes in all by default, over a run: about
/// five seconds at most on this machine (a strided, dilated conv2d takes
/// about 9 ns a step, pooling 3).
pub const DEFAULT_MAX_TOTAL_WORK: u64 = 1 << 29;

/// A run's budget, shared by its folders.
///
/// ```
/// use ir_passes::relay::passes::FoldBudget;
///
/// let budget = FoldBudget::new(100, 1000);
/// assert!(budget.try_take(40, 900));
/// assert_eq!((budget.elements_left(), budget.work_left()), (60, 100));
/// // Not enough work left: nothing is taken.
/// assert!(!budget.try_take(10, 200));
/// assert_eq!((budget.elements_left(), budget.work_left()), (60, 100));
/// ```
#[derive(Debug)]
pub struct FoldBudget {
    elements: AtomicU64,
    work: AtomicU64,
}

impl FoldBudget {
    /// A budget of `elements` materialized and `work` kernel steps.
    pub fn new(elements: u64, work: u64) -> Self {
        FoldBudget {
            elements: AtomicU64::new(elements),
            work: AtomicU64::new(work),
        }
    }

    /// Elements that may still be materialized.
    pub fn elements_left(&self) -> u64 {
        self.elements.load(Ordering::Relaxed)
    }

    /// Kernel steps that may still be taken.
    pub fn work_left(&self) -> u64 {
        self.work.load(Ordering::Relaxed)
    }

    /// Takes what one folded call will cost before it runs, if the budget
    /// has it all: folders on other threads draw at the same time, and a
    /// check followed by a later charge would let them all pass.
    pub fn try_take(&self, elements: u64, work: u64) -> bool {
        let take = |counter: &AtomicU64, n: u64| {
            counter
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                    left.checked_sub(n)
                })
                .is_ok()
        };
        if !take(&self.elements, elements) {
            return false;
        }
        if !take(&self.work, work) {
            // Given back: the call does not run.
            self.elements.fetch_add(elements, Ordering::Relaxed);
            return false;
        }
        true
    }
}

impl Default for FoldBudget {
    fn default() -> Self {
        FoldBudget::new(DEFAULT_MAX_TOTAL_ELEMENTS, DEFAULT_MAX_TOTAL_WORK)
    }
}
