//! Chapter 7 exercise: a timeout on the reactor.

use std::time::Duration;

use listings::block_on::block_on;
use listings::exercises::ch07::timeout;
use listings::reactor::Reactor;

// ANCHOR: main
fn main() {
    let reactor = Reactor::new();
    let allowed = Duration::from_millis(500);
    for job_ms in [100, 900] {
        let job = async {
            reactor.sleep(Duration::from_millis(job_ms)).await;
            "done"
        };
        let result = block_on(timeout(&reactor, allowed, job));
        println!("a {job_ms} ms job, 500 ms allowed: {result:?}");
    }
}
// ANCHOR_END: main
