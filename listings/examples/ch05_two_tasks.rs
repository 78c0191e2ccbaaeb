//! Chapter 5: two tasks through the run queue, poll by poll.

use std::time::Duration;

use listings::run_queue::{Executor, Idle};
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let executor = Executor::traced(Idle::Block);
    // One task only sleeps; the other prints, sleeps longer, prints.
    executor.spawn("sleeper", async {
        TimerFuture::new(Duration::from_millis(100)).await;
    });
    executor.spawn("worker", async {
        println!("    worker: start");
        TimerFuture::new(Duration::from_millis(300)).await;
        println!("    worker: end");
    });
    executor.run();
}
// ANCHOR_END: main
