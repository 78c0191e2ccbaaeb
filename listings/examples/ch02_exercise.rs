//! Chapter 2 exercise: `Timeout` at work.

use std::future::{pending, ready};
use std::time::Duration;

use futures::executor::block_on;
use listings::exercises::ch02::Timeout;

// ANCHOR: main
fn main() {
    let in_time = block_on(Timeout::new(ready("on time"), Duration::from_secs(1)));
    println!("{in_time:?}");
    let too_late = block_on(Timeout::new(pending::<&str>(), Duration::from_millis(100)));
    println!("{too_late:?}");
}
// ANCHOR_END: main
