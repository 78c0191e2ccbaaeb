//! Chapter 3: the same task on the executor built on `std::task::Wake`.

use std::time::Duration;

use listings::std_executor::new_executor_and_spawner;
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let (executor, spawner) = new_executor_and_spawner(16);
    spawner.spawn(async {
        println!("howdy from std!");
        TimerFuture::new(Duration::from_millis(100)).await;
        println!("done!");
    });
    drop(spawner);
    executor.run();
}
// ANCHOR_END: main
