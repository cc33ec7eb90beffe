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
/// weighed by rank) folding takes in all by default, over a run: a few
/// seconds at most on this machine (pooling takes about 3 ns a step).
pub const DEFAULT_MAX_TOTAL_WORK: u64 = 1 << 30;

/// A run's budget, shared by its folders.
///
/// ```
/// use ir_passes::relay::passes::FoldBudget;
///
/// let budget = FoldBudget::new(100, 1000);
/// budget.spend(40, 900);
/// assert_eq!((budget.elements_left(), budget.work_left()), (60, 100));
/// budget.spend(100, 100);
/// assert_eq!((budget.elements_left(), budget.work_left()), (0, 0));
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

    /// Takes what one folded call cost (never below zero: folders on other
    /// threads may have drawn meanwhile).
    pub fn spend(&self, elements: u64, work: u64) {
        let take = |counter: &AtomicU64, n: u64| {
            let _ = counter.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                Some(left.saturating_sub(n))
            });
        };
        take(&self.elements, elements);
        take(&self.work, work);
    }
}

impl Default for FoldBudget {
    fn default() -> Self {
        FoldBudget::new(DEFAULT_MAX_TOTAL_ELEMENTS, DEFAULT_MAX_TOTAL_WORK)
    }
}
