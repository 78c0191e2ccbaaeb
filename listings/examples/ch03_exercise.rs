//! Chapter 3 exercise: awaiting another task's output.

use std::time::Duration;

use listings::executor::new_executor_and_spawner;
use listings::exercises::ch03::spawn_with_handle;
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let (executor, spawner) = new_executor_and_spawner();
    let answer = spawn_with_handle(&spawner, async {
        TimerFuture::new(Duration::from_millis(100)).await;
        42
    });
    spawner.spawn(async move {
        println!("the other task says {:?}", answer.await);
    });
    drop(spawner);
    executor.run();
}
// ANCHOR_END: main
