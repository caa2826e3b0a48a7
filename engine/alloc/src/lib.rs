//! Memory a thread allocates: a counting wrapper around the program's global allocator.
//!
//! The script meter stops a call that keeps adding data (stickers, marks, long strings in
//! a loop). It measures what *that call's thread* allocated since the call began, not the
//! process's resident memory: a long `crown serve` session, a simulation on every core
//! or a test binary running many tests grow the process without any script being at
//! fault, and must not stop a script on another thread.
//!
//! A program installs the counter as its global allocator, around the allocator it uses:
//!
//! ```
//! #[global_allocator]
//! static GLOBAL: crown_alloc::Counting<std::alloc::System> = crown_alloc::Counting(std::alloc::System);
//!
//! let before = crown_alloc::thread_net_bytes();
//! let kept = vec![0u8; 4096];
//! assert!(crown_alloc::thread_net_bytes() - before >= 4096);
//! # drop(kept);
//! ```
//!
//! (The `crown` binary wraps mimalloc.)
//!
//! The `crown` binary and Crown's test binaries do. Where it is not installed,
//! [`counting`] is false and the memory limit is not enforced.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// Bytes allocated minus bytes freed by this thread (memory freed by another thread
    /// than the one that allocated it moves both counts; only differences are read).
    static NET: Cell<i64> = const { Cell::new(0) };
}

static INSTALLED: AtomicBool = AtomicBool::new(false);

/// A global allocator that counts each thread's allocations around the allocator `A`.
pub struct Counting<A>(pub A);

#[inline]
fn count(delta: i64) {
    // During a thread's teardown the slot may be gone: that memory is nobody's script's.
    let _ = NET.try_with(|n| n.set(n.get().wrapping_add(delta)));
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

#[allow(unsafe_code)]
// SAFETY: every call is passed through to `A` unchanged; only a thread-local counter
// (a `const`-initialised `Cell` with no destructor, so it never allocates) is moved.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `A::alloc`'s.
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { self.0.dealloc(ptr, layout) };
        count(-(layout.size() as i64));
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

/// Whether the program counts allocations (installed [`Counting`] as its allocator).
pub fn counting() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// Bytes this thread has allocated, net of what it freed, since it started (a running
/// figure: compare two readings).
pub fn thread_net_bytes() -> i64 {
    NET.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static GLOBAL: Counting<std::alloc::System> = Counting(std::alloc::System);

    #[test]
    fn a_threads_figure_is_its_own() {
        assert!(counting());
        let before = thread_net_bytes();
        let v = vec![0u8; 1 << 20];
        let during = thread_net_bytes();
        assert!(during - before >= 1 << 20);
        // Another thread allocating does not move this thread's figure.
        std::thread::spawn(|| drop(std::hint::black_box(vec![0u8; 8 << 20]))).join().unwrap();
        assert!(thread_net_bytes() - during < 1 << 20);
        drop(v);
        assert!(thread_net_bytes() - before < 1 << 20);
    }
}
