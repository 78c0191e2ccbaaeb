//! Chapter 2: awaiting a `TimerFuture`.

use std::time::{Duration, Instant};

use futures::executor::block_on;
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let start = Instant::now();
    println!("waiting for 1 s...");
    block_on(async {
        TimerFuture::new(Duration::from_secs(1)).await;
    });
    println!("timer fired after {:?}", start.elapsed());
}
// ANCHOR_END: main
