//! Chapter 5 exercises: a waker that calls a closure, and tasks that take
//! turns on the run queue.

use std::sync::Arc;
use std::task::Waker;

use super::super::raw_waker::{Schedule, waker_for};

// ANCHOR: waker_fn
/// Exercise 1: a waker whose `wake` calls `f`.
///
/// The closure is the "task": the waker owns it through an `Arc`, and the
/// last waker to go drops it.
pub fn waker_fn(f: impl Fn() + Send + Sync + 'static) -> Waker {
    waker_for(Arc::new(CallOnWake(f)))
}

/// A closure in the role of a task.
struct CallOnWake<F>(F);

impl<F: Fn() + Send + Sync + 'static> Schedule for CallOnWake<F> {
    fn schedule(self: &Arc<Self>) {
        (self.0)();
    }
}
// ANCHOR_END: waker_fn

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::run_queue::{Executor, Idle, Stats};
    use crate::state_machine::yield_now;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    #[test]
    fn waker_fn_calls_the_closure_on_every_wake() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&calls);
        let waker = waker_fn(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        });
        waker.wake_by_ref();
        let clone = waker.clone();
        clone.wake();
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        // The closure (and the `Arc` it captured) lives as long as a waker.
        assert_eq!(Arc::strong_count(&calls), 2);
        drop(waker);
        assert_eq!(Arc::strong_count(&calls), 1);
    }

    #[test]
    fn two_yielding_tasks_take_turns() {
        let executor = Executor::new(Idle::Block);
        let (log, steps) = mpsc::channel();
        for name in ["a", "b"] {
            let log = log.clone();
            executor.spawn(name, async move {
                for step in 1..=3 {
                    log.send(format!("{name}{step}")).unwrap();
                    yield_now().await;
                }
            });
        }
        let stats = executor.run();
        let steps: Vec<String> = steps.try_iter().collect();
        assert_eq!(steps, ["a1", "b1", "a2", "b2", "a3", "b3"]);
        // Four polls per task: one per step, and the last one to finish.
        assert_eq!(
            stats,
            Stats {
                polls: 8,
                idle_wakeups: 0
            }
        );
    }
}
