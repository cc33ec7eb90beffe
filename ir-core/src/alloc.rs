//! A global allocator for programs that build and drop IR (feature
//! `mimalloc`): mimalloc, asked for word-aligned blocks through its plain
//! entry point.
//!
//! IR passes allocate and free millions of small nodes, where glibc malloc
//! spends a third of the time. The `mimalloc` crate's allocator passes
//! every request to `mi_malloc_aligned`; mimalloc 3 serves an aligned
//! request from its fast path only while the size's page has a free block,
//! and otherwise over-allocates into a larger size class, whose blocks then
//! never refill the size's own page: a pass that allocates steadily stays on
//! the slow path (about a sixth of `to-non-dataflow`'s instructions on the
//! Relax flat program). Every mimalloc block is word-aligned, so a request
//! for at most a word's alignment goes to `mi_malloc`, as the standard
//! library's `System` sends small alignments to `malloc`.
//!
//! ```
//! #[global_allocator]
//! static ALLOCATOR: ir_core::alloc::MiMalloc = ir_core::alloc::MiMalloc;
//!
//! fn main() {
//!     let squares: Vec<u64> = (0..1000u64).map(|i| i * i).collect();
//!     assert_eq!(squares[999], 998_001);
//!     let wide = vec![0u128; 3]; // 16-byte alignment: the aligned path
//!     assert_eq!(wide.as_ptr() as usize % 16, 0);
//! }
//! ```

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// mimalloc as the global allocator (see the [module](self)).
pub struct MiMalloc;

/// Whether every mimalloc block of `size` bytes suits `align`: blocks are
/// word multiples at word-aligned addresses.
#[inline]
fn plain(align: usize, size: usize) -> bool {
    align <= std::mem::size_of::<usize>() && align <= size
}

// SAFETY: forwards to mimalloc, whose blocks suit the layout: a plain
// allocation only when word alignment is enough, an aligned one otherwise;
// `mi_free` releases both.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _: Layout) {
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}
