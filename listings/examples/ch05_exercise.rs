//! Chapter 5 exercises: a waker that calls a closure; two tasks that
//! yield take turns on the run queue.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use listings::exercises::ch05::waker_fn;
use listings::run_queue::{Executor, Idle};
use listings::state_machine::yield_now;

// ANCHOR: main
fn main() {
    let wakes = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&wakes);
    let waker = waker_fn(move || {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    waker.wake_by_ref();
    waker.wake();
    println!("waker_fn: {} wakes", wakes.load(Ordering::Relaxed));

    let executor = Executor::new(Idle::Block);
    for name in ["a", "b"] {
        executor.spawn(name, async move {
            for step in 1..=3 {
                println!("{name}: step {step}");
                yield_now().await;
            }
        });
    }
    let stats = executor.run();
    println!("{} polls", stats.polls);
}
// ANCHOR_END: main
