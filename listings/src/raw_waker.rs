//! Chapter 5: a waker made by hand from an `Arc` of a task, through
//! `RawWaker` and `RawWakerVTable`.
//!
//! A `Waker` is a data pointer and a table of four functions. Here the
//! pointer is an `Arc<T>` turned into a raw pointer, and the functions keep
//! its reference count exactly right: each `Waker` in existence owns one
//! count, no more, no less. `std::task::Wake` (chapter 3) writes the same
//! table for us; this module is what it hides.

use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::task::{RawWaker, RawWakerVTable, Waker};

// ANCHOR: schedule
/// What a task does when it is woken: put itself back on its run queue.
///
/// `Send + Sync` because wakers go to other threads and are used there;
/// `'static` because a waker may outlive any borrow.
pub trait Schedule: Send + Sync + 'static {
    /// Queues the task to be polled again.
    fn schedule(self: &Arc<Self>);
}
// ANCHOR_END: schedule

// ANCHOR: waker_for
/// Makes a waker that owns `task` (one reference count) and schedules it.
pub fn waker_for<T: Schedule>(task: Arc<T>) -> Waker {
    let data = Arc::into_raw(task).cast::<()>();
    // SAFETY: `data` comes from `Arc::<T>::into_raw` and owns one count,
    // which is what every function of `vtable::<T>()` expects of the
    // pointer it is given; `T: Send + Sync`, so the waker may be sent to
    // and used on any thread.
    unsafe { Waker::from_raw(RawWaker::new(data, vtable::<T>())) }
}

/// The four functions of a waker of `Arc<T>`. (`RawWakerVTable::new` is a
/// `const fn` that std lets the compiler promote, so the reference is
/// `'static`. It is not always one address: the compiler may keep a copy
/// per codegen unit, and `will_wake`, which compares addresses, can then
/// say `false` for two wakers of the same task. That only costs a clone.)
fn vtable<T: Schedule>() -> &'static RawWakerVTable {
    &RawWakerVTable::new(
        clone_raw::<T>,
        wake_raw::<T>,
        wake_by_ref_raw::<T>,
        drop_raw::<T>,
    )
}
// ANCHOR_END: waker_for

// ANCHOR: vtable
// Every function below is called by `Waker` with the `data` pointer of a
// waker made by `waker_for::<T>` (or by `clone_raw::<T>`): a pointer from
// `Arc::<T>::into_raw` that owns one count, and that stays valid as long
// as that waker exists.

/// `waker.clone()`: a second waker, which needs a count of its own.
unsafe fn clone_raw<T: Schedule>(data: *const ()) -> RawWaker {
    // SAFETY: `data` owns a count (see above), so the `Arc` is alive; the
    // new count is owned by the new `RawWaker`, and given back by its own
    // `wake` or `drop`.
    unsafe { Arc::increment_strong_count(data.cast::<T>()) };
    RawWaker::new(data, vtable::<T>())
}

/// `waker.wake()`: consumes the waker, and with it its count.
unsafe fn wake_raw<T: Schedule>(data: *const ()) {
    // SAFETY: `data` owns a count, and `wake` is the last use of this
    // waker (`Waker::wake` takes `self` and does not call `drop` after
    // it): the `Arc` rebuilt here takes that count over and gives it back
    // when it goes out of scope.
    let task = unsafe { Arc::from_raw(data.cast::<T>()) };
    task.schedule();
}

/// `waker.wake_by_ref()`: wakes, and leaves the waker (and its count) as
/// it was.
unsafe fn wake_by_ref_raw<T: Schedule>(data: *const ()) {
    // SAFETY: `data` owns a count that the waker keeps: the rebuilt `Arc`
    // borrows it, and `ManuallyDrop` keeps it from being given back here.
    let task = ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<T>()) });
    task.schedule();
}

/// Dropping the waker gives its count back; the last one frees the task.
unsafe fn drop_raw<T: Schedule>(data: *const ()) {
    // SAFETY: `data` owns a count, and this is the waker's last use.
    unsafe { Arc::decrement_strong_count(data.cast::<T>()) };
}
// ANCHOR_END: vtable

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;

    /// A task that only counts how often it was scheduled.
    #[derive(Debug, Default)]
    struct Counted {
        schedules: AtomicUsize,
    }

    impl Schedule for Counted {
        fn schedule(self: &Arc<Self>) {
            self.schedules.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn making_a_waker_moves_one_count_into_it() {
        let task = Arc::new(Counted::default());
        let waker = waker_for(Arc::clone(&task));
        assert_eq!(Arc::strong_count(&task), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&task), 1);
    }

    #[test]
    fn clone_adds_a_count_and_drop_gives_it_back() {
        let task = Arc::new(Counted::default());
        let waker = waker_for(Arc::clone(&task));
        let clones: Vec<Waker> = (0..3).map(|_| waker.clone()).collect();
        assert_eq!(Arc::strong_count(&task), 5);
        drop(clones);
        assert_eq!(Arc::strong_count(&task), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&task), 1);
    }

    #[test]
    fn wake_schedules_and_consumes_the_wakers_count() {
        let task = Arc::new(Counted::default());
        let waker = waker_for(Arc::clone(&task));
        waker.wake();
        assert_eq!(task.schedules.load(Ordering::SeqCst), 1);
        assert_eq!(Arc::strong_count(&task), 1);
    }

    #[test]
    fn wake_by_ref_schedules_and_keeps_the_count() {
        let task = Arc::new(Counted::default());
        let waker = waker_for(Arc::clone(&task));
        waker.wake_by_ref();
        waker.wake_by_ref();
        assert_eq!(task.schedules.load(Ordering::SeqCst), 2);
        assert_eq!(Arc::strong_count(&task), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&task), 1);
    }

    #[test]
    fn will_wake_tells_wakers_of_different_tasks_apart() {
        let waker = waker_for(Arc::new(Counted::default()));
        let other = waker_for(Arc::new(Counted::default()));
        // Same data pointer and same vtable.
        assert!(waker.will_wake(&waker));
        // Different data pointers: never the same task. (A clone has the
        // same data pointer, but may carry another copy of the vtable, see
        // `vtable`; so `will_wake` on a clone is only a hint, and not
        // asserted here: it fails in release builds.)
        assert!(!waker.will_wake(&other));
    }

    #[test]
    fn counts_stay_right_across_threads() {
        let task = Arc::new(Counted::default());
        let waker = waker_for(Arc::clone(&task));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let waker = waker.clone();
                thread::spawn(move || {
                    for _ in 0..100 {
                        // A clone, consumed by `wake`.
                        let clone = waker.clone();
                        clone.wake();
                        waker.wake_by_ref();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(task.schedules.load(Ordering::SeqCst), 800);
        drop(waker);
        assert_eq!(Arc::strong_count(&task), 1);
    }

    #[test]
    fn the_last_waker_frees_the_task() {
        let task = Arc::new(Counted::default());
        let weak = Arc::downgrade(&task);
        let waker = waker_for(task);
        let clone = waker.clone();
        drop(waker);
        assert!(weak.upgrade().is_some(), "the clone still owns a count");
        drop(clone);
        assert!(weak.upgrade().is_none(), "freed with the last waker");
    }
}
