//! Chapter 9 exercise: two tasks on the runtime, without and with
//! `yield_now` between their steps.

use listings::exercises::ch09::yield_now;
use listings::runtime::Runtime;

// ANCHOR: main
/// Runs "ping" and "pong", three steps each, yielding after each step or
/// not.
fn run(rt: &Runtime, yielding: bool) -> std::io::Result<()> {
    let tasks = ["ping", "pong"].map(|name| {
        rt.handle().spawn(async move {
            for step in 1..=3 {
                println!("  {name} {step}");
                if yielding {
                    yield_now().await;
                }
            }
        })
    });
    rt.block_on(async {
        for task in tasks {
            task.await;
        }
    })
}

fn main() -> std::io::Result<()> {
    let rt = Runtime::new()?;
    println!("without yield_now:");
    run(&rt, false)?;
    println!("with yield_now:");
    run(&rt, true)
}
// ANCHOR_END: main
