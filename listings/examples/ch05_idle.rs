//! Chapter 5: the same task on two executors, one that sleeps 10 ms when
//! its queue is empty and one that blocks until woken. The counts of idle
//! wake-ups vary from run to run (they depend on how long each 10 ms sleep
//! really takes), so the book does not show this program's output; the
//! test `sleeping_when_idle_wakes_up_for_nothing_blocking_does_not` checks
//! what it shows.

use std::time::Duration;

use listings::run_queue::{Executor, Idle};
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    for idle in [Idle::Sleep(Duration::from_millis(10)), Idle::Block] {
        let executor = Executor::new(idle);
        executor.spawn("timer", async {
            TimerFuture::new(Duration::from_millis(200)).await;
        });
        let stats = executor.run();
        println!(
            "{idle:?}: {} polls, {} idle wake-ups",
            stats.polls, stats.idle_wakeups
        );
    }
}
// ANCHOR_END: main
