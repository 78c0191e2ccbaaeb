//! Chapter 9 exercise: `timeout` on the runtime, once with a future that
//! completes in time and once with one that is too slow and is dropped.

use std::time::Duration;

use listings::exercises::ch09::timeout;
use listings::runtime::Runtime;

// ANCHOR: main
/// Says when it is dropped: shows when the timed-out future goes.
struct Announce(&'static str);

impl Drop for Announce {
    fn drop(&mut self) {
        println!("  {} dropped", self.0);
    }
}

fn main() -> std::io::Result<()> {
    let rt = Runtime::new()?;
    let handle = rt.handle();
    rt.block_on(async {
        let quick = timeout(handle, Duration::from_millis(100), async {
            handle.sleep(Duration::from_millis(10)).await;
            "quick"
        })
        .await;
        println!("10 ms of work, 100 ms allowed: {quick:?}");
        let slow = timeout(handle, Duration::from_millis(100), async {
            let _announce = Announce("slow");
            handle.sleep(Duration::from_secs(10)).await;
            "slow"
        })
        .await;
        println!("10 s of work, 100 ms allowed: {slow:?}");
    })
}
// ANCHOR_END: main
