//! Chapter 7: two timers on one reactor, awaited one after the other: the
//! second starts counting only when the first has finished.

use std::time::{Duration, Instant};

use listings::block_on::block_on;
use listings::reactor::Reactor;

// ANCHOR: timer
/// Waits `secs` seconds on the reactor, then says when it finished,
/// counted from `start` and rounded to whole seconds.
async fn timer(reactor: &Reactor, name: &str, secs: u64, start: Instant) {
    reactor.sleep(Duration::from_secs(secs)).await;
    let done = start.elapsed().as_secs_f64();
    println!("{name} ({secs} s): done at {done:.0} s");
}
// ANCHOR_END: timer

// ANCHOR: main
fn main() {
    let reactor = Reactor::new();

    println!("one after the other, 1 s then 2 s:");
    let start = Instant::now();
    block_on(async {
        timer(&reactor, "timer 1", 1, start).await;
        timer(&reactor, "timer 2", 2, start).await;
    });
}
// ANCHOR_END: main
