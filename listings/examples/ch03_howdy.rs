//! Chapter 3: a task that prints, waits two seconds on a timer, prints.

use std::time::Duration;

use listings::executor::new_executor_and_spawner;
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let (executor, spawner) = new_executor_and_spawner();

    spawner.spawn(async {
        println!("howdy!");
        TimerFuture::new(Duration::from_secs(2)).await;
        println!("done!");
    });

    // Without this, `run` would wait forever for more tasks.
    drop(spawner);

    executor.run();
}
// ANCHOR_END: main
