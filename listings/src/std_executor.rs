//! Chapter 3: the same executor with nothing but `std`.
//!
//! `std::task::Wake` (stable since Rust 1.51) turns an `Arc` of anything
//! that implements it into a `Waker`, without `unsafe`: it replaces
//! `futures`' `ArcWake`. A boxed, pinned `dyn Future` replaces `BoxFuture`.
//! What std lacks is `waker_ref`: `Waker::from` takes an `Arc`, so `run`
//! clones the task's `Arc` once per poll.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::task::{Context, Wake, Waker};

/// A pinned, boxed future that can move between threads.
type BoxedFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

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

// ANCHOR: task
struct Task {
    future: Mutex<Option<BoxedFuture>>,
    task_sender: SyncSender<Arc<Task>>,
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let _ = self.task_sender.send(Arc::clone(self));
    }
}
// ANCHOR_END: task

/// An executor and the spawner that feeds it, with room for `capacity`
/// queued tasks.
pub fn new_executor_and_spawner(capacity: usize) -> (Executor, Spawner) {
    let (task_sender, ready_queue) = sync_channel(capacity);
    (Executor { ready_queue }, Spawner { task_sender })
}

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

// ANCHOR: run
impl Executor {
    /// Polls tasks as they arrive, until every sender is gone.
    pub fn run(&self) {
        while let Ok(task) = self.ready_queue.recv() {
            let mut slot = task.future.lock().unwrap();
            if let Some(mut future) = slot.take() {
                let waker = Waker::from(Arc::clone(&task));
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
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn runs_the_howdy_task_with_std_alone() {
        let (executor, spawner) = new_executor_and_spawner(16);
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

    /// Ready on its first poll, after keeping a clone of its waker, which
    /// keeps its task alive. `_witness` is dropped with the future.
    struct StashWaker {
        _witness: Arc<()>,
        stash: Arc<Mutex<Option<Waker>>>,
    }

    impl Future for StashWaker {
        type Output = ();
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> std::task::Poll<()> {
            *self.stash.lock().unwrap() = Some(cx.waker().clone());
            std::task::Poll::Ready(())
        }
    }

    #[test]
    fn a_finished_future_is_dropped_even_while_its_task_lives_on() {
        let (executor, spawner) = new_executor_and_spawner(16);
        let witness = Arc::new(());
        let future_alive = Arc::downgrade(&witness);
        let stash = Arc::new(Mutex::new(None));
        spawner.spawn(StashWaker {
            _witness: witness,
            stash: Arc::clone(&stash),
        });
        // Runs after the first task finished, while the stashed waker still
        // keeps that task alive.
        let (tx, rx) = mpsc::channel();
        spawner.spawn(async move {
            let waker = stash.lock().unwrap().take();
            tx.send((waker.is_some(), future_alive.upgrade().is_some()))
                .unwrap();
        });
        drop(spawner);
        executor.run();
        assert_eq!(rx.try_recv(), Ok((true, false)), "task alive, future gone");
    }
}
