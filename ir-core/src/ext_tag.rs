//! A downstream node's handle in one word: the node's address, with its
//! kind's number in the top 16 bits.
//!
//! The `Ext` variant of an extensible family holds such a handle. As a
//! pointer plus a description pointer it was two words, which made every
//! value of the family three words instead of two: Relay's `Expr` was 24
//! bytes, and every `let`'s value and body and every call's callee and
//! arguments paid for a kind most programs never hold. Now the family stays
//! two words (a tag and a pointer), like a family with no open slot.
//!
//! Kinds are numbered on first use in one table for the process, as TVM
//! numbers its object types when they register. The table only grows, and
//! a number is given once per kind, so a lookup is one load.
//!
//! On 64-bit targets user-space addresses fit in 48 bits (x86-64 and
//! AArch64 with 4-level page tables, the ones Linux, macOS and Windows give
//! ordinary allocations). Android tags its heap pointers' top byte, so there,
//! and on 32-bit targets, the number is stored beside the address instead
//! (module `layout`, in two versions). Elsewhere a node
//! whose address does not fit, under a pointer-tagging sanitizer (HWASan,
//! MTE) for instance, is refused with a panic naming the reason.

use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

/// How many kinds can be numbered: `u16` numbers, and 0 means "none yet".
const MAX_KINDS: usize = 1 << 16;

/// Kind number to description, filled on first use of each kind.
static DESCRIPTIONS: [AtomicPtr<()>; MAX_KINDS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; MAX_KINDS];

/// The next number to give.
static NEXT: AtomicU32 = AtomicU32::new(1);

/// The number of the kind described by `description`, whose slot for its
/// number is `slot` (0 until it is first asked for).
#[inline]
pub(crate) fn number(description: *const (), slot: &AtomicU32) -> u16 {
    match slot.load(Ordering::Acquire) {
        0 => register(description, slot),
        n => n as u16,
    }
}

#[cold]
fn register(description: *const (), slot: &AtomicU32) -> u16 {
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    assert!(
        (n as usize) < MAX_KINDS,
        "more than {} node kinds from downstream crates",
        MAX_KINDS - 1
    );
    DESCRIPTIONS[n as usize].store(description.cast_mut(), Ordering::Release);
    // Two threads may number the same kind at once: the first number stays,
    // the other is never handed out.
    match slot.compare_exchange(0, n, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => n as u16,
        Err(first) => first as u16,
    }
}

/// The description of kind number `n`, as registered.
#[inline]
pub(crate) fn description(n: u16) -> *const () {
    DESCRIPTIONS[n as usize].load(Ordering::Acquire)
}

pub(crate) use layout::{Tagged, untag};

/// The kind's number in the address's top 16 bits.
#[cfg(all(target_pointer_width = "64", not(target_os = "android")))]
mod layout {
    use std::num::NonZeroUsize;
    use std::ptr::NonNull;

    const ADDRESS_BITS: u32 = 48;
    const ADDRESS_MASK: usize = (1 << ADDRESS_BITS) - 1;

    /// A node's address and its kind's number, in one word. `repr(C)`
    /// like the other layout: a handle read as a pointer is the tagged
    /// address, which [`untag`] clears.
    #[derive(Clone, Copy, PartialEq, Eq)]
    #[repr(C)]
    pub(crate) struct Tagged {
        word: NonNull<()>,
    }

    /// The address in a handle's first word.
    #[inline(always)]
    pub(crate) fn untag(word: NonNull<()>) -> NonNull<()> {
        // SAFETY: the address of a live allocation is not zero, and only the
        // tag bits above it are cleared.
        word.map_addr(|a| unsafe { NonZeroUsize::new_unchecked(a.get() & ADDRESS_MASK) })
    }

    impl Tagged {
        /// Tags `ptr` (a node's allocation) with kind number `kind`.
        #[inline]
        pub(crate) fn new(ptr: NonNull<()>, kind: u16) -> Self {
            assert!(
                ptr.addr().get() & !ADDRESS_MASK == 0,
                "a node allocated above 2^48: its address leaves no room for the kind of a \
                 downstream node's handle (is a pointer-tagging sanitizer on?)"
            );
            let word = ptr.map_addr(|a| a | ((kind as usize) << ADDRESS_BITS));
            Tagged { word }
        }

        /// The node's allocation.
        #[inline(always)]
        pub(crate) fn ptr(self) -> NonNull<()> {
            untag(self.word)
        }

        /// The kind's number.
        #[inline(always)]
        pub(crate) fn kind(self) -> u16 {
            (self.word.addr().get() >> ADDRESS_BITS) as u16
        }
    }
}

/// The kind's number beside the address (32-bit targets, and Android,
/// whose heap pointers carry a tag of their own).
#[cfg(not(all(target_pointer_width = "64", not(target_os = "android"))))]
mod layout {
    use std::ptr::NonNull;

    /// A node's address and its kind's number. `repr(C)`, address first.
    #[derive(Clone, Copy, PartialEq, Eq)]
    #[repr(C)]
    pub(crate) struct Tagged {
        word: NonNull<()>,
        kind: u16,
    }

    /// The address in a handle's first word: the address itself here.
    #[inline(always)]
    pub(crate) fn untag(word: NonNull<()>) -> NonNull<()> {
        word
    }

    impl Tagged {
        /// `ptr` (a node's allocation) of kind number `kind`.
        #[inline]
        pub(crate) fn new(ptr: NonNull<()>, kind: u16) -> Self {
            Tagged { word: ptr, kind }
        }

        /// The node's allocation.
        #[inline(always)]
        pub(crate) fn ptr(self) -> NonNull<()> {
            self.word
        }

        /// The kind's number.
        #[inline(always)]
        pub(crate) fn kind(self) -> u16 {
            self.kind
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ptr::NonNull;

    use super::*;

    #[test]
    fn a_tagged_handle_gives_back_its_address_and_kind() {
        let value = Box::new(7u64);
        let ptr = NonNull::from(&*value).cast::<()>();
        for kind in [1, 2, 0x1234, u16::MAX] {
            let t = Tagged::new(ptr, kind);
            assert_eq!(t.ptr(), ptr);
            assert_eq!(t.kind(), kind);
        }
    }

    #[test]
    fn a_kind_is_numbered_once() {
        static DESCRIPTION: u8 = 0;
        let slot = AtomicU32::new(0);
        let d = std::ptr::from_ref(&DESCRIPTION).cast::<()>();
        let n = number(d, &slot);
        assert_ne!(n, 0);
        assert_eq!(number(d, &slot), n);
        assert_eq!(description(n), d);
    }
}
