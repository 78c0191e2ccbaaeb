//! Chapter 11 exercises: the order in which two yielding tasks run on the
//! chapter's runtime, and jobs sent to it from other threads.

use futures::StreamExt;
use futures::channel::mpsc;
use listings::exercises::ch11::{RemoteSpawner, two_yielding_tasks};
use listings::lean_runtime::{Runtime, Step};
use std::thread;

// ANCHOR: main
fn main() -> std::io::Result<()> {
    // Exercise 1: with every step, and before the local queue.
    let log = two_yielding_tasks(&Runtime::new()?)?;
    println!("Runtime::new(): {}", log.join(" "));
    let log = two_yielding_tasks(&Runtime::at_step(Step::Tasks)?)?;
    println!("Runtime::at_step(Step::Tasks): {}", log.join(" "));

    // Exercise 2: four threads send 25 jobs each; each job sends back a
    // number, on the runtime's thread.
    let rt = Runtime::new()?;
    let (spawner, receiver) = RemoteSpawner::new(rt.handle());
    let (results_tx, results) = mpsc::unbounded();
    let senders: Vec<_> = (0..4)
        .map(|thread| {
            let (spawner, results_tx) = (spawner.clone(), results_tx.clone());
            thread::spawn(move || {
                for job in 0..25 {
                    let results_tx = results_tx.clone();
                    spawner.spawn(async move {
                        results_tx.unbounded_send(thread * 25 + job).unwrap();
                    });
                }
            })
        })
        .collect();
    // The streams end once the threads and the jobs have dropped their
    // senders.
    drop((spawner, results_tx));
    let (mut numbers, spawned) =
        rt.block_on(async { (results.collect::<Vec<usize>>().await, receiver.await) })?;
    for sender in senders {
        sender.join().unwrap();
    }
    numbers.sort_unstable();
    println!("spawned {spawned} jobs from 4 threads");
    println!(
        "results: {}, each of 0..100 once: {}",
        numbers.len(),
        numbers == (0..100).collect::<Vec<_>>()
    );
    Ok(())
}
// ANCHOR_END: main
