//! Chapter 5: what each function of the hand-made waker does to the
//! task's reference count.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use listings::raw_waker::{Schedule, waker_for};

// ANCHOR: task
/// A task that only counts how often its wakers schedule it.
struct Task {
    schedules: AtomicUsize,
}

impl Schedule for Task {
    fn schedule(self: &Arc<Self>) {
        self.schedules.fetch_add(1, Ordering::Relaxed);
    }
}
// ANCHOR_END: task

// ANCHOR: main
fn main() {
    let task = Arc::new(Task {
        schedules: AtomicUsize::new(0),
    });
    let report = |step: &str| {
        println!(
            "{step:<21} strong_count = {}, schedules = {}",
            Arc::strong_count(&task),
            task.schedules.load(Ordering::Relaxed)
        );
    };
    report("start:");
    let waker = waker_for(Arc::clone(&task));
    report("waker_for:");
    let second = waker.clone();
    report("clone:");
    waker.wake_by_ref();
    report("wake_by_ref:");
    second.wake();
    report("wake (consumes it):");
    drop(waker);
    report("drop:");
}
// ANCHOR_END: main
