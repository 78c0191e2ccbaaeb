//! Chapter 10 exercise: how many heap allocations a `block_on` and a
//! `spawn` make, counted by a global allocator that counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use listings::exercises::ch10::count_allocations;

// ANCHOR: allocator
thread_local! {
    // `const` and without a destructor: reading it never allocates, so
    // the allocator itself may use it.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// The system's allocator, counting each allocation on the thread that
/// makes it (a `realloc` counts too: it may move the block).
struct Counting;

// SAFETY: every call is passed on to `System` unchanged; the count is a
// thread-local `Cell`, which no other thread touches.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.set(ALLOCATIONS.get() + 1);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.set(ALLOCATIONS.get() + 1);
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.set(ALLOCATIONS.get() + 1);
        // SAFETY: as for `alloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// How many allocations this thread has made so far.
fn allocations() -> u64 {
    ALLOCATIONS.get()
}
// ANCHOR_END: allocator

// ANCHOR: main
fn main() -> std::io::Result<()> {
    let counts = count_allocations(allocations)?;
    let rows = [
        ("chapter 6 block_on, one call", counts.ch06_block_on),
        ("chapter 10 block_on, first call", counts.ch10_first_call),
        ("chapter 10 block_on, later call", counts.ch10_later_call),
        ("chapter 10 block_on, nested call", counts.ch10_nested_call),
        ("chapter 9 spawn, first", counts.ch09_first_spawn),
        ("chapter 9 spawn, later", counts.ch09_later_spawn),
    ];
    for (scene, allocations) in rows {
        println!("{scene:<33} {allocations}");
    }
    Ok(())
}
// ANCHOR_END: main
