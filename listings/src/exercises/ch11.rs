//! Chapter 11 exercises, on the chapter's runtime (`lean_runtime`).
//!
//! 1. Predict the order: two tasks that yield after each step take turns,
//!    first in, first out, whichever queue their wakes go through.
//! 2. Work from another thread: a [`RemoteSpawner`] that any thread may
//!    hold sends `Send` futures through a channel to a task on the
//!    runtime, which spawns each one there.

use std::cell::RefCell;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::rc::Rc;

use futures::StreamExt;
use futures::channel::mpsc;

use super::super::lean_runtime::{Handle, JoinHandle, Runtime};
pub use super::super::state_machine::yield_now;

// ANCHOR: predict
/// Exercise 1: spawns `a` then `b` on `rt`; each logs three steps and
/// yields after each. Returns the log, in the order the steps ran.
pub fn two_yielding_tasks(rt: &Runtime) -> io::Result<Vec<String>> {
    // The tasks run on this thread only, so an `Rc<RefCell<…>>` will do.
    let log = Rc::new(RefCell::new(Vec::new()));
    let tasks = ["a", "b"].map(|name| {
        let log = Rc::clone(&log);
        rt.handle().spawn(async move {
            for step in 1..=3 {
                log.borrow_mut().push(format!("{name}{step}"));
                // Wakes its own task: to the back of the local queue (of
                // the inject queue before `Step::LocalQueue`).
                yield_now().await;
            }
        })
    });
    rt.block_on(async {
        for task in tasks {
            task.await;
        }
    })?;
    Ok(log.take())
}
// ANCHOR_END: predict

// ANCHOR: remote
/// A future that another thread may send: `Send`, and boxed so that
/// futures of any type go through one channel.
pub type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Exercise 2: spawns on a runtime from any thread. Clone it for each
/// thread; the runtime's receiving task ends once every clone is dropped.
#[derive(Clone, Debug)]
pub struct RemoteSpawner {
    jobs: mpsc::UnboundedSender<Job>,
}

impl RemoteSpawner {
    /// Starts, on `handle`'s runtime, the task that receives the jobs and
    /// spawns each one there; returns the spawner and that task's handle,
    /// whose output is how many jobs it spawned.
    pub fn new(handle: &Handle) -> (RemoteSpawner, JoinHandle<usize>) {
        let (jobs, mut received) = mpsc::unbounded::<Job>();
        let spawner = handle.clone();
        let receiver = handle.spawn(async move {
            let mut spawned = 0;
            // A send from another thread wakes this task there: the wake
            // goes to the inject queue, and writes the eventfd only if
            // the runtime sleeps.
            while let Some(job) = received.next().await {
                // On the runtime's thread: `spawn` may be called here.
                // The handle is dropped: the job runs on, detached.
                drop(spawner.spawn(job));
                spawned += 1;
            }
            spawned
        });
        (RemoteSpawner { jobs }, receiver)
    }

    /// Sends `future` to be spawned on the runtime; false if the runtime
    /// (and its receiving task) is gone.
    pub fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) -> bool {
        self.jobs.unbounded_send(Box::pin(future)).is_ok()
    }
}
// ANCHOR_END: remote

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::lean_runtime::Step;
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn two_tasks_that_yield_take_turns_first_in_first_out() {
        let order = ["a1", "b1", "a2", "b2", "a3", "b3"];
        assert_eq!(two_yielding_tasks(&Runtime::new().unwrap()).unwrap(), order);
        // Before the local queue, every wake takes the inject queue, which
        // the loop moves to the back of the local one in the order it
        // came: the same order, at the cost of a lock per wake.
        let rt = Runtime::at_step(Step::Tasks).unwrap();
        assert_eq!(two_yielding_tasks(&rt).unwrap(), order);
    }

    #[test]
    fn jobs_from_four_threads_all_run_once_through_the_inject_queue() {
        const THREADS: usize = 4;
        const JOBS: usize = 25;
        let rt = Runtime::new().unwrap();
        let (spawner, receiver) = RemoteSpawner::new(rt.handle());
        // Each job sends back which thread sent it and its number.
        let (results_tx, results) = mpsc::unbounded();
        let notifier = Arc::clone(rt.handle().reactor().notifier());
        let senders: Vec<_> = (0..THREADS)
            .map(|thread| {
                let (spawner, results_tx) = (spawner.clone(), results_tx.clone());
                let notifier = Arc::clone(&notifier);
                thread::spawn(move || {
                    // Once the runtime sleeps, the receiving task waits for
                    // a job: the first send surely wakes it from here.
                    while !notifier.is_asleep() {
                        thread::yield_now();
                    }
                    for job in 0..JOBS {
                        let results_tx = results_tx.clone();
                        assert!(spawner.spawn(async move {
                            results_tx.unbounded_send((thread, job)).unwrap();
                        }));
                    }
                })
            })
            .collect();
        // Only the senders' clones and the jobs' are left: the streams
        // end when the threads and the jobs are done.
        drop((spawner, results_tx));
        let (mut results, spawned) = rt
            .block_on(async { (results.collect::<Vec<_>>().await, receiver.await) })
            .unwrap();
        for sender in senders {
            sender.join().unwrap();
        }
        assert_eq!(spawned, THREADS * JOBS);
        results.sort_unstable();
        let each_once: Vec<_> = (0..THREADS)
            .flat_map(|thread| (0..JOBS).map(move |job| (thread, job)))
            .collect();
        assert_eq!(results, each_once, "every result, each exactly once");
        // The receiving task was woken from the senders' threads: through
        // the inject queue, at least once and at most once per job.
        let injections = rt.handle().injections();
        assert!((1..=THREADS * JOBS).contains(&injections), "{injections}");
    }
}
