//! The server's allocator: mimalloc, asked the way std asks the C library.
//!
//! The `mimalloc` crate's allocator passes every request to
//! `mi_malloc_aligned`, whatever its alignment. That path checks the
//! alignment, and for blocks over 1 KiB (the finished records, the
//! responses) takes mimalloc's generic aligned path, which over-allocates:
//! 97 instructions an allocation on average, 8.9 k of a request's 150 k.
//! Almost every request needs no more alignment than every block already
//! has, and std's own `System` allocator sends those to plain `malloc`;
//! [`MiMalloc`] does the same with `mi_malloc`, `mi_zalloc` and
//! `mi_realloc`: 56 instructions an allocation, 4.9 k a request
//! (docs/benchmarks.md, "A slower machine, and mimalloc asked plainly").

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every mimalloc block of at least this many bytes has
/// (its `MI_MAX_ALIGN_SIZE`, as C's `max_align_t`); a smaller block is
/// aligned to its size's largest power of two at least (8 for 8 bytes).
/// So, as for glibc's `malloc` and std's `System`, a layout whose alignment
/// is at most this and at most its size needs no aligned call.
const PLAIN_ALIGN: usize = 16;

/// mimalloc as the global allocator (`#[global_allocator]` in the binary).
pub struct MiMalloc;

/// Whether `mi_malloc`'s block of `size` bytes is aligned enough for `align`.
fn plain(size: usize, align: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

// SAFETY: every method hands the request to mimalloc, which returns a
// block of at least the size asked for, or null; through the plain calls
// only when `plain` says the block's alignment suffices (see
// `PLAIN_ALIGN`), through the aligned ones otherwise. mimalloc's `mi_free`
// and `mi_realloc` take a block from either kind of call.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation functions take any size.
        unsafe {
            if plain(layout.size(), layout.align()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe {
            if plain(layout.size(), layout.align()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (GlobalAlloc's contract).
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`, and the new
        // block keeps `layout`'s alignment (GlobalAlloc's contract).
        unsafe {
            if plain(new_size, layout.align()) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size up to 64 KiB at every alignment up to 4 KiB, allocated,
    /// zeroed, grown and shrunk: each block is aligned as asked and holds
    /// what was written (a plain call that gave a block less aligned than
    /// `PLAIN_ALIGN` promises fails here).
    #[test]
    fn every_block_is_aligned_as_its_layout_asks_and_keeps_its_bytes() {
        let sizes = (1..=256).chain((257..=65_536).step_by(509));
        for size in sizes {
            for align in (0..=12).map(|shift| 1usize << shift) {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero sizes; every block is freed once, with
                // its layout, after its last use.
                unsafe {
                    let block = MiMalloc.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(block as usize % align, 0, "{size} bytes at {align}");
                    block.write_bytes(0xA5, size);
                    let grown = MiMalloc.realloc(block, layout, size * 2 + 1);
                    assert_eq!(grown as usize % align, 0, "{size} grown, at {align}");
                    assert!((0..size).all(|i| *grown.add(i) == 0xA5), "{size} grown");
                    let grown_layout = Layout::from_size_align(size * 2 + 1, align).unwrap();
                    let shrunk = MiMalloc.realloc(grown, grown_layout, size.div_ceil(2));
                    assert_eq!(shrunk as usize % align, 0, "{size} shrunk, at {align}");
                    assert!((0..size.div_ceil(2)).all(|i| *shrunk.add(i) == 0xA5));
                    let shrunk_layout = Layout::from_size_align(size.div_ceil(2), align).unwrap();
                    MiMalloc.dealloc(shrunk, shrunk_layout);

                    let zeroed = MiMalloc.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0, "{size} zeroed, at {align}");
                    assert!((0..size).all(|i| *zeroed.add(i) == 0), "{size} zeroed");
                    MiMalloc.dealloc(zeroed, layout);
                }
            }
        }
    }

    #[test]
    fn only_layouts_every_block_suits_take_the_plain_calls() {
        assert!(plain(8, 8));
        assert!(plain(24, 8));
        assert!(plain(32, 16));
        assert!(plain(4096, 16));
        assert!(!plain(8, 16), "an 8-byte block may be aligned to 8 only");
        assert!(!plain(64, 32));
        assert!(!plain(4096, 4096));
    }
}
