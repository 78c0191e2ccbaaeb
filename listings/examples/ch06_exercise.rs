//! Chapter 6 exercise: `block_on` that gives up at a deadline.

use std::time::Duration;

use listings::exercises::ch06::block_on_timeout;
use listings::timer::TimerFuture;

// ANCHOR: main
fn main() {
    let quick = block_on_timeout(
        async {
            TimerFuture::new(Duration::from_millis(50)).await;
            "quick"
        },
        Duration::from_millis(500),
    );
    println!("50 ms of work, 500 ms allowed: {quick:?}");
    let slow = block_on_timeout(
        async {
            TimerFuture::new(Duration::from_millis(500)).await;
            "slow"
        },
        Duration::from_millis(50),
    );
    println!("500 ms of work, 50 ms allowed: {slow:?}");
}
// ANCHOR_END: main
