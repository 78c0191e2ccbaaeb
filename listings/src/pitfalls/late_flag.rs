//! Chapter 11 pitfall, on purpose: a task that lowers its scheduled flag
//! after the poll instead of before it.
//!
//! [`super::super::task_cell`] lowers the flag (`swap(false, Acquire)`)
//! before it polls the future, so a wake that arrives during the poll finds
//! the flag down, raises it and queues the task again. This task does the
//! same two steps in the other order. A wake during the poll (the future
//! waking itself, as `yield_now` does, or another thread) finds the flag
//! still up and queues nothing; then the flag is lowered, and that wake is
//! erased. Nobody will wake the task again: it is never polled again.
//!
//! Nothing here is `unsafe`: the bug needs no pointers, only the wrong
//! order of two lines. The task runs on one thread, but its waker is a
//! `Waker`, so the flag is an atomic and the future is behind a `Mutex`.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Wake, Waker};

type BoxedFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The run queue: the tasks to poll, in the order they were queued.
#[derive(Debug, Default)]
pub struct RunQueue {
    tasks: Mutex<VecDeque<Arc<Task>>>,
}

impl RunQueue {
    /// Makes a task for `future` and queues it, its flag up, as a spawn does.
    pub fn spawn(self: &Arc<Self>, future: impl Future<Output = ()> + Send + 'static) {
        let task = Arc::new(Task {
            scheduled: AtomicBool::new(true),
            future: Mutex::new(Some(Box::pin(future))),
            queue: Arc::clone(self),
        });
        self.tasks.lock().unwrap().push_back(task);
    }

    /// Runs queued tasks, those queued meanwhile too, until the queue is
    /// empty; returns how many runs that took.
    pub fn run_all(&self) -> usize {
        let mut runs = 0;
        loop {
            let next = self.tasks.lock().unwrap().pop_front();
            let Some(task) = next else { return runs };
            task.run();
            runs += 1;
        }
    }

    /// Whether no task waits in the queue.
    pub fn is_empty(&self) -> bool {
        self.tasks.lock().unwrap().is_empty()
    }
}

/// A task: its future, and the flag that keeps it queued at most once.
pub struct Task {
    /// Up while the task is queued (and for good once it has finished):
    /// a wake then does nothing.
    scheduled: AtomicBool,
    /// `None` once the future has finished.
    future: Mutex<Option<BoxedFuture>>,
    queue: Arc<RunQueue>,
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Task")
            .field("scheduled", &self.scheduled)
            .finish_non_exhaustive()
    }
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Queued only by the wake that raises the flag.
        if !self.scheduled.swap(true, Ordering::Release) {
            self.queue.tasks.lock().unwrap().push_back(Arc::clone(self));
        }
    }
}

impl Task {
    fn run(self: Arc<Self>) {
        let waker = Waker::from(Arc::clone(&self));
        let mut cx = Context::from_waker(&waker);
        let mut future = self.future.lock().unwrap();
        let Some(running) = future.as_mut() else {
            return;
        };
        if running.as_mut().poll(&mut cx).is_ready() {
            // Finished: the flag stays up, and later wakes do nothing.
            *future = None;
            return;
        }
        // BUG: lowered after the poll. A wake during the poll found the
        // flag up and queued nothing; lowering it now erases that wake.
        // `task_cell` lowers it before the poll.
        self.scheduled.swap(false, Ordering::Acquire);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::future::poll_fn;
    use std::sync::atomic::AtomicUsize;
    use std::sync::atomic::Ordering::Relaxed;
    use std::task::Poll;

    #[test]
    fn a_wake_during_the_poll_is_erased_and_the_task_never_polled_again() {
        let queue = Arc::new(RunQueue::default());
        let polls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&polls);
        // Wakes itself once during its first poll, as `yield_now` does,
        // and is ready at the second.
        queue.spawn(poll_fn(move |cx| {
            if counted.fetch_add(1, Relaxed) == 0 {
                cx.waker().wake_by_ref();
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        }));
        assert_eq!(queue.run_all(), 1);
        assert_eq!(polls.load(Relaxed), 1, "never polled again");
        assert!(queue.is_empty(), "the wake queued nothing");
    }

    #[test]
    fn a_wake_after_the_poll_still_queues_the_task() {
        // Only the window of the poll loses wakes: the same future woken
        // after its poll, from its stored waker, runs to the end.
        let queue = Arc::new(RunQueue::default());
        let polls = Arc::new(AtomicUsize::new(0));
        let stored: Arc<Mutex<Option<Waker>>> = Arc::default();
        let (counted, store) = (Arc::clone(&polls), Arc::clone(&stored));
        queue.spawn(poll_fn(move |cx| {
            if counted.fetch_add(1, Relaxed) == 0 {
                *store.lock().unwrap() = Some(cx.waker().clone());
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        }));
        assert_eq!(queue.run_all(), 1);
        let waker = stored.lock().unwrap().take().unwrap();
        waker.wake();
        assert_eq!(queue.run_all(), 1);
        assert_eq!(polls.load(Relaxed), 2);
        assert!(queue.is_empty());
    }
}
