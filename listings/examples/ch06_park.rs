//! Chapter 6: the first `block_on`, on `thread::park`, in a demo where
//! nothing else parks or unparks the thread: it works.

use std::time::Duration;

use listings::pitfalls::park_block_on::block_on;
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let answer = block_on(async {
        TimerFuture::new(Duration::from_millis(100)).await;
        "woken by the timer thread"
    });
    println!("{answer}");
}
// ANCHOR_END: main
