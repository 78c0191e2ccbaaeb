//! Chapter 6: `block_on` on a `Parker` runs a future on the main thread.

use std::time::{Duration, Instant};

use listings::block_on::block_on;
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let start = Instant::now();
    let answer = block_on(async {
        println!("the future starts on the main thread");
        TimerFuture::new(Duration::from_millis(200)).await;
        println!("the timer has fired");
        42
    });
    println!("block_on returned {answer} after {:?}", start.elapsed());
}
// ANCHOR_END: main
