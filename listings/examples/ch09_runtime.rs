//! Chapter 9: the runtime at work. Three tasks sleep different times on
//! one thread; `main` joins them through their handles, in the order it
//! spawned them, and prints what they returned.

use std::time::{Duration, Instant};

use listings::runtime::{Handle, Runtime};

// ANCHOR: nap
/// Sleeps `ms` milliseconds on the runtime's timers, saying when it starts
/// and when it wakes (counted from `start`); returns a line about it.
async fn nap(handle: Handle, name: &'static str, ms: u64, start: Instant) -> String {
    println!("{name}: starts, sleeps {ms}ms");
    handle.sleep(Duration::from_millis(ms)).await;
    let woke = start.elapsed().as_millis();
    println!("{name}: wakes at {woke}ms");
    format!("{name} slept {ms}ms")
}
// ANCHOR_END: nap

// ANCHOR: main
fn main() -> std::io::Result<()> {
    let rt = Runtime::new()?;
    let handle = rt.handle().clone();
    let start = Instant::now();
    let outputs = rt.block_on(async {
        let tasks = [("a", 150), ("b", 50), ("c", 100)]
            .map(|(name, ms)| handle.spawn(nap(handle.clone(), name, ms, start)));
        println!("main: spawned a, b and c; joining them in that order");
        let mut outputs = Vec::new();
        for task in tasks {
            outputs.push(task.await);
        }
        outputs
    })?;
    println!("main: {outputs:?}");
    println!("main: done at {}ms", start.elapsed().as_millis());
    Ok(())
}
// ANCHOR_END: main
