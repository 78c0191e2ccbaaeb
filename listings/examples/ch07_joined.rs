//! Chapter 7: the same two timers on one reactor, joined: both start
//! counting at the first poll, so the longer one sets the total.

use std::time::{Duration, Instant};

use futures::future::join;
use listings::block_on::block_on;
use listings::reactor::Reactor;

/// Waits `secs` seconds on the reactor, then says when it finished,
/// counted from `start` and rounded to whole seconds. (The same helper as
/// in `ch07_in_turn`: each example is a whole program.)
async fn timer(reactor: &Reactor, name: &str, secs: u64, start: Instant) {
    reactor.sleep(Duration::from_secs(secs)).await;
    let done = start.elapsed().as_secs_f64();
    println!("{name} ({secs} s): done at {done:.0} s");
}

// ANCHOR: main
fn main() {
    let reactor = Reactor::new();

    println!("joined, 1 s and 2 s:");
    let start = Instant::now();
    block_on(join(
        timer(&reactor, "timer 1", 1, start),
        timer(&reactor, "timer 2", 2, start),
    ));
}
// ANCHOR_END: main
