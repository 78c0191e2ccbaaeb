//! Chapter 3: the howdy task on the corrected executor.

use std::time::Duration;

use listings::fixed_executor::new_executor_and_spawner;
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let (executor, spawner) = new_executor_and_spawner();

    spawner.spawn(async {
        println!("howdy!");
        TimerFuture::new(Duration::from_secs(2)).await;
        println!("done!");
    });

    // `run` returns once every task has completed and no spawner is left.
    drop(spawner);

    executor.run();
}
// ANCHOR_END: main
