//! Chapter 10 exercise: count the allocations.
//!
//! Predict how many heap allocations each scene makes, then count them:
//! one `block_on` of chapter 6 (a new `Arc<Parker>` per call), chapter
//! 10's cached `block_on` (the thread's first call, a later one, one
//! nested in another), and a `spawn` on chapter 9's runtime.
//!
//! Counting needs a global allocator that counts, and only the program can
//! install one: the example `ch10_exercise` brings its own, the tests use
//! the crate's. So [`count_allocations`] is given the counter to read, a
//! function that says how many allocations the calling thread has made so
//! far. A count per thread, not per process: nothing another thread
//! allocates meanwhile (a test running beside it) is added.

use std::io;
use std::thread;

use super::super::block_on::block_on as ch06_block_on;
use super::super::fast_block_on::block_on as ch10_block_on;
use super::super::runtime::Runtime;
use super::super::state_machine::yield_now;

// ANCHOR: counts
/// How many heap allocations each scene made, on the thread that ran it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Chapter 6's `block_on`, any call.
    pub ch06_block_on: u64,
    /// Chapter 10's `block_on`, the thread's first call.
    pub ch10_first_call: u64,
    /// Chapter 10's `block_on`, a later call on the same thread.
    pub ch10_later_call: u64,
    /// Chapter 10's `block_on`, called from inside another on the thread.
    pub ch10_nested_call: u64,
    /// Chapter 9's `spawn`, the first on a new runtime.
    pub ch09_first_spawn: u64,
    /// Chapter 9's `spawn` once the runtime has run a task.
    pub ch09_later_spawn: u64,
}

/// Runs `scene` between two readings of `allocations`; returns its output
/// and how many allocations it made. The output is dropped by the caller,
/// after the second reading.
fn counted<R>(allocations: fn() -> u64, scene: impl FnOnce() -> R) -> (R, u64) {
    let before = allocations();
    let output = scene();
    (output, allocations() - before)
}
// ANCHOR_END: counts

// ANCHOR: scenes
/// Counts every scene with `allocations`, the calling thread's count so
/// far (read from a counting global allocator).
pub fn count_allocations(allocations: fn() -> u64) -> io::Result<Counts> {
    // A thread of its own: chapter 10's first call is this thread's first,
    // whatever the caller's thread has run before.
    thread::scope(|scope| scope.spawn(|| scenes(allocations)).join().unwrap())
}

fn scenes(allocations: fn() -> u64) -> io::Result<Counts> {
    // Each future wakes itself once during its first poll (`yield_now`):
    // a wake, a second poll, and then `Ready`.
    let ((), ch06_block_on) = counted(allocations, || ch06_block_on(yield_now()));
    let ((), ch10_first_call) = counted(allocations, || ch10_block_on(yield_now()));
    let ((), ch10_later_call) = counted(allocations, || ch10_block_on(yield_now()));
    // Counted inside the outer call, which holds the thread's pair.
    let ch10_nested_call = ch10_block_on(async {
        yield_now().await;
        counted(allocations, || ch10_block_on(yield_now())).1
    });

    let rt = Runtime::new()?;
    let (first, ch09_first_spawn) = counted(allocations, || rt.handle().spawn(async { 1 }));
    rt.block_on(first)?;
    let (later, ch09_later_spawn) = counted(allocations, || rt.handle().spawn(async { 2 }));
    rt.block_on(later)?;
    Ok(Counts {
        ch06_block_on,
        ch10_first_call,
        ch10_later_call,
        ch10_nested_call,
        ch09_first_spawn,
        ch09_later_spawn,
    })
}
// ANCHOR_END: scenes

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::alloc_counts::allocations;

    #[test]
    fn counts_what_each_block_on_and_spawn_allocates() {
        let counts = count_allocations(allocations).unwrap();
        let expected = Counts {
            // The `Arc<Parker>`; the waker is a clone of it, and a wake
            // only sets its flag.
            ch06_block_on: 1,
            // The thread's cached pair, made once.
            ch10_first_call: 1,
            ch10_later_call: 0,
            // The cache is in use: a pair of its own, as chapter 6 does.
            ch10_nested_call: 1,
            // The future's box, the waker's `Arc<TaskWaker>`, the
            // `Rc<RefCell<JoinState>>`; and the task map and the queue
            // grow for the first time.
            ch09_first_spawn: 5,
            // The map and the queue have room now: three, as chapter 11
            // says.
            ch09_later_spawn: 3,
        };
        assert_eq!(counts, expected);
    }

    #[test]
    fn the_counts_are_the_same_every_time() {
        // Per thread and deterministic: another thread's allocations do
        // not add, and a second thread of its own starts afresh.
        let first = count_allocations(allocations).unwrap();
        let again = thread::spawn(|| count_allocations(allocations).unwrap())
            .join()
            .unwrap();
        assert_eq!(first, again);
    }
}
