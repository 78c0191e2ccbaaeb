//! Chapter 3: an executor that runs tasks sent over a channel.
//!
//! A task is a top-level future plus a way to put itself back on the
//! queue. Waking a task sends it on the channel; [`Executor::run`] receives
//! tasks and polls them, until no one is left who could send another.

use std::future::Future;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::task::Context;

use futures::future::BoxFuture;
use futures::task::{self, ArcWake};

// ANCHOR: types
/// Receives tasks that are ready to make progress, and polls them.
#[derive(Debug)]
pub struct Executor {
    ready_queue: Receiver<Arc<Task>>,
}

/// Sends new tasks to the executor.
#[derive(Debug, Clone)]
pub struct Spawner {
    task_sender: SyncSender<Arc<Task>>,
}

/// A top-level future that can re-queue itself when woken.
struct Task {
    /// The future, or `None` once it has completed. Only the executor's
    /// thread polls it; the `Mutex` is there because a waker (and with it
    /// the task) may be sent to other threads, so `Task` must be `Sync`.
    future: Mutex<Option<BoxFuture<'static, ()>>>,
    /// Where to send this task when it is woken.
    task_sender: SyncSender<Arc<Task>>,
}
// ANCHOR_END: types

// ANCHOR: new
/// How many tasks may wait in the queue before `spawn` and wake-ups block.
/// A blocked wake-up can deadlock: on the executor's own thread (a task
/// spawning or waking while the queue is full), or on a thread that holds
/// a lock some task needs. No bound makes this safe; chapter 3 shows both
/// deadlocks and the executor that avoids them (`fixed_executor`).
pub const MAX_QUEUED_TASKS: usize = 10_000;

/// An executor and the spawner that feeds it.
pub fn new_executor_and_spawner() -> (Executor, Spawner) {
    with_capacity(MAX_QUEUED_TASKS)
}

/// The same, with a queue of `capacity` places.
pub fn with_capacity(capacity: usize) -> (Executor, Spawner) {
    let (task_sender, ready_queue) = sync_channel(capacity);
    (Executor { ready_queue }, Spawner { task_sender })
}
// ANCHOR_END: new

// ANCHOR: spawn
impl Spawner {
    /// Wraps `future` in a task and queues it for its first poll.
    ///
    /// Blocks while the queue is full. Panics if the executor is gone.
    pub fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) {
        let task = Arc::new(Task {
            future: Mutex::new(Some(Box::pin(future))),
            task_sender: self.task_sender.clone(),
        });
        self.task_sender.send(task).expect("the executor is gone");
    }
}
// ANCHOR_END: spawn

// ANCHOR: wake
impl ArcWake for Task {
    fn wake_by_ref(arc_self: &Arc<Self>) {
        // Waking = queueing the task again. If the executor is gone, there
        // is nobody left to poll it, so the error is ignored.
        let _ = arc_self.task_sender.send(Arc::clone(arc_self));
    }
}
// ANCHOR_END: wake

// ANCHOR: run
impl Executor {
    /// Polls tasks as they arrive. Returns once every sender is gone: the
    /// spawner and every task that could still be woken.
    pub fn run(&self) {
        while let Ok(task) = self.ready_queue.recv() {
            let mut slot = task.future.lock().unwrap();
            // `None`: the task completed after this wake-up was queued.
            if let Some(mut future) = slot.take() {
                // A waker that borrows the `Arc<Task>`: no clone unless
                // the future keeps it.
                let waker = task::waker_ref(&task);
                let cx = &mut Context::from_waker(&waker);
                if future.as_mut().poll(cx).is_pending() {
                    *slot = Some(future);
                }
            }
        }
    }
}
// ANCHOR_END: run

#[cfg(test)]
mod tests {
    use super::*;
    use futures::channel::oneshot;
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    /// Runs the executor on a thread; the receiver hears when `run` returns.
    fn run_in_background(executor: Executor) -> mpsc::Receiver<()> {
        let (done, returned) = mpsc::channel();
        thread::spawn(move || {
            executor.run();
            done.send(()).unwrap();
        });
        returned
    }

    const PATIENCE: Duration = Duration::from_secs(10);

    #[test]
    fn run_returns_only_when_the_spawner_and_every_task_are_gone() {
        let (executor, spawner) = new_executor_and_spawner();
        let (release, released) = oneshot::channel::<()>();
        spawner.spawn(async move {
            released.await.unwrap();
        });
        drop(spawner);
        let returned = run_in_background(executor);
        // The task is pending and holds a sender (through its waker,
        // stored by the oneshot): `run` must keep waiting.
        assert_eq!(
            returned.recv_timeout(Duration::from_millis(100)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        release.send(()).unwrap();
        returned
            .recv_timeout(PATIENCE)
            .expect("run returns once the task is done");
    }

    #[test]
    fn spawn_blocks_while_the_queue_is_full() {
        let (executor, spawner) = with_capacity(1);
        spawner.spawn(async {}); // the only place is taken
        let (spawned, spawned_rx) = mpsc::channel();
        let second = thread::spawn(move || {
            spawner.spawn(async {});
            spawned.send(()).unwrap();
        });
        assert_eq!(
            spawned_rx.recv_timeout(Duration::from_millis(100)),
            Err(mpsc::RecvTimeoutError::Timeout),
            "the second spawn waits for a free place"
        );
        let returned = run_in_background(executor); // makes room
        spawned_rx
            .recv_timeout(PATIENCE)
            .expect("spawn returns once run makes room");
        second.join().unwrap();
        returned.recv_timeout(PATIENCE).unwrap();
    }

    #[test]
    fn tasks_can_spawn_tasks() {
        let (executor, spawner) = new_executor_and_spawner();
        let (tx, rx) = mpsc::channel();
        let inner = spawner.clone();
        spawner.spawn(async move {
            inner.spawn(async move { tx.send("inner ran").unwrap() });
        });
        drop(spawner);
        executor.run();
        assert_eq!(rx.try_recv(), Ok("inner ran"));
    }

    #[test]
    fn howdy_task_waits_for_its_timer() {
        let (executor, spawner) = new_executor_and_spawner();
        let (tx, rx) = mpsc::channel();
        let started = std::time::Instant::now();
        spawner.spawn(async move {
            tx.send("howdy!").unwrap();
            crate::timer::TimerFuture::new(Duration::from_millis(20)).await;
            tx.send("done!").unwrap();
        });
        drop(spawner);
        executor.run();
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), ["howdy!", "done!"]);
        // A timer never fires early: `done!` came after the full 20 ms.
        assert!(started.elapsed() >= Duration::from_millis(20));
    }
}
