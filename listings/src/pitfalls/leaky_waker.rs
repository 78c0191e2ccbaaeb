//! Chapter 5 pitfall: a waker whose `drop` does nothing.
//!
//! It looks harmless: `drop` has no work to do, has it? But every waker
//! owns one reference count of its task (see [`super::super::raw_waker`]):
//! `clone` took one, and only `drop` (or `wake`) gives it back. With a
//! no-op `drop`, every waker ever made keeps its task alive for good, and
//! an executor that makes one waker per poll leaks every task it runs.

use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::task::{RawWaker, RawWakerVTable, Waker};

use super::super::raw_waker::Schedule;

/// Like `raw_waker::waker_for`, with the broken table.
pub fn leaky_waker_for<T: Schedule>(task: Arc<T>) -> Waker {
    let data = Arc::into_raw(task).cast::<()>();
    // SAFETY: as in `raw_waker::waker_for`: `data` owns one count of an
    // `Arc<T>` with `T: Send + Sync`. (The functions below never free it
    // too early; they fail to free it at all, which is safe, only a leak.)
    unsafe { Waker::from_raw(RawWaker::new(data, leaky_vtable::<T>())) }
}

fn leaky_vtable<T: Schedule>() -> &'static RawWakerVTable {
    &RawWakerVTable::new(
        clone_raw::<T>,
        wake_raw::<T>,
        wake_by_ref_raw::<T>,
        drop_raw::<T>,
    )
}

unsafe fn clone_raw<T: Schedule>(data: *const ()) -> RawWaker {
    // SAFETY: `data` owns a count, so the `Arc` is alive.
    unsafe { Arc::increment_strong_count(data.cast::<T>()) };
    RawWaker::new(data, leaky_vtable::<T>())
}

unsafe fn wake_raw<T: Schedule>(data: *const ()) {
    // SAFETY: `data` owns a count, and this is the waker's last use.
    let task = unsafe { Arc::from_raw(data.cast::<T>()) };
    task.schedule();
}

unsafe fn wake_by_ref_raw<T: Schedule>(data: *const ()) {
    // SAFETY: `data` owns a count that the waker keeps.
    let task = ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<T>()) });
    task.schedule();
}

// ANCHOR: drop
unsafe fn drop_raw<T: Schedule>(_data: *const ()) {
    // BUG: "nothing to do here". The waker's count is never given back.
}
// ANCHOR_END: drop

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// A task that does nothing when scheduled.
    #[derive(Debug)]
    struct Idle;

    impl Schedule for Idle {
        fn schedule(self: &Arc<Self>) {}
    }

    /// Gives back the counts that the no-op `drop` kept, so that the test
    /// itself leaks nothing (the valgrind run checks the test binary too).
    fn give_back(task: &Arc<Idle>, leaked: usize) {
        for _ in 0..leaked {
            // SAFETY: each of these counts was taken by `leaky_waker_for`
            // or `clone` for a waker that no longer exists, and nothing
            // will give it back: we are its owner now.
            unsafe { Arc::decrement_strong_count(Arc::as_ptr(task)) };
        }
    }

    #[test]
    fn every_dropped_waker_leaks_a_count_of_its_task() {
        let task = Arc::new(Idle);
        let waker = leaky_waker_for(Arc::clone(&task));
        let clones: Vec<Waker> = (0..3).map(|_| waker.clone()).collect();
        drop(clones);
        drop(waker);
        // Four wakers made, four dropped: four counts never given back.
        assert_eq!(Arc::strong_count(&task), 5);
        give_back(&task, 4);
        assert_eq!(Arc::strong_count(&task), 1);
    }

    #[test]
    fn an_executor_making_a_waker_per_poll_leaks_every_task() {
        // Three tasks, each polled twice with a fresh waker, as the run
        // queue of chapter 5 does, then dropped by the executor.
        let tasks: Vec<Arc<Idle>> = (0..3).map(|_| Arc::new(Idle)).collect();
        let weak: Vec<_> = tasks.iter().map(Arc::downgrade).collect();
        for task in &tasks {
            for _ in 0..2 {
                drop(leaky_waker_for(Arc::clone(task)));
            }
        }
        let kept: Vec<*const Idle> = tasks.iter().map(Arc::as_ptr).collect();
        drop(tasks);
        // Nobody holds them, and yet every task is still alive.
        assert!(weak.iter().all(|task| task.upgrade().is_some()));
        for (pointer, weak) in kept.into_iter().zip(&weak) {
            // SAFETY: each task holds exactly the two counts of the two
            // dropped wakers, and nothing else will give them back: each
            // `decrement_strong_count` gives back one; the second frees
            // the task.
            unsafe {
                Arc::decrement_strong_count(pointer);
                Arc::decrement_strong_count(pointer);
            }
            assert!(weak.upgrade().is_none());
        }
    }

    #[test]
    fn with_drop_giving_the_count_back_no_task_is_left() {
        let tasks: Vec<Arc<Idle>> = (0..3).map(|_| Arc::new(Idle)).collect();
        let weak: Vec<_> = tasks.iter().map(Arc::downgrade).collect();
        for task in &tasks {
            for _ in 0..2 {
                drop(crate::raw_waker::waker_for(Arc::clone(task)));
            }
        }
        drop(tasks);
        assert!(weak.iter().all(|task| task.upgrade().is_none()));
    }
}
