//! A global allocator that counts, per thread, the bytes a piece of code
//! holds at its peak, so that a fuzz target can check that a reader's
//! memory stays proportional to its input. The count is per thread because
//! the test harness runs tests side by side in one process.
//!
//! A runaway (an input that makes a reader allocate without end) must not
//! take the machine down before it is reported: past `HARD_CAP` bytes
//! inside `measure`, the allocating thread records its run's token in
//! `RUNAWAY` and sleeps for good, and the fuzz driver's watchdog, which
//! knows the target and input, reports it and ends the process.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes one measured call may hold before it counts as a runaway.
pub const HARD_CAP: usize = 1 << 30;

/// The token of the run whose thread passed `HARD_CAP` (0: none).
pub static RUNAWAY: AtomicU64 = AtomicU64::new(0);

pub struct Counting;

thread_local! {
    // Const-initialised and without destructors: safe to touch from inside
    // the allocator, even while the thread is being torn down.
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static CAP: Cell<isize> = const { Cell::new(isize::MAX) };
    static TOKEN: Cell<u64> = const { Cell::new(0) };
}

fn grew(by: usize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add(by as isize);
        live.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
        if CAP.try_with(Cell::get).is_ok_and(|cap| now > cap) {
            let token = TOKEN.try_with(Cell::get).unwrap_or(u64::MAX).max(1);
            RUNAWAY.store(token, Ordering::SeqCst);
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
    });
}

fn shrank(by: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(by as isize)));
}

// SAFETY: every call is passed on unchanged to the system allocator; the
// counting only reads and writes this thread's cells.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        System.alloc_zeroed(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // Counted as the move it may be: the new block is held before the
        // old one is given back.
        grew(new_size);
        let out = System.realloc(ptr, layout, new_size);
        if out.is_null() {
            shrank(new_size);
        } else {
            shrank(layout.size());
        }
        out
    }
}

/// Marks this thread's allocations as belonging to the run `token` (for
/// the report of a runaway).
pub fn set_token(token: u64) {
    TOKEN.with(|t| t.set(token));
}

/// Runs `f` and returns its result with the most bytes it held at once on
/// this thread beyond what was held before (allocations it freed count
/// while they were held).
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    CAP.with(|c| c.set(base.saturating_add(HARD_CAP as isize)));
    let out = f();
    CAP.with(|c| c.set(isize::MAX));
    let peak = PEAK.with(Cell::get);
    (out, peak.saturating_sub(base).max(0) as usize)
}
