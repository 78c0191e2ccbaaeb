//! Chapter 3: the channel executor done right.
//!
//! The first executor ([`super::executor`]) breaks with real futures: its
//! `wake` blocks while the bounded queue is full, every wake-up costs a
//! queue entry and a poll, `run` waits for every waker anyone still holds,
//! and a panicking task takes all the others down (see
//! [`super::pitfalls::channel_executor`]). This one keeps its shape — an
//! executor, a spawner, tasks that put themselves back on a queue — and fixes
//! each of those:
//!
//! - `wake` never waits for the executor: it pushes onto an unbounded queue
//!   under a lock that nobody holds for longer than a push or a pop.
//! - A task carries a `scheduled` flag and sits on the queue at most once,
//!   however often it is woken; so the queue never holds more entries than
//!   there are tasks, and a wake-up does O(1) work.
//! - `run` counts live tasks and returns once all have completed and no
//!   [`Spawner`] is left, whoever still holds their wakers. A task that
//!   nothing can wake any more (no waker of it is left) is dropped and
//!   counted out too: it could never complete.
//! - A task that panics is dropped and the others keep running; once they
//!   have all completed, `run` resumes the first panic. (`std::thread::scope`
//!   takes the same order: it joins every thread, then panics.)

use std::any::Any;
use std::collections::VecDeque;
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError, Weak};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;

// Under `--cfg loom` the model checker's lock, condition variable and flag
// stand in for std's, so that it can try every interleaving of `wake` and
// `run` (see the tests). `Arc` stays std's: `Waker::from` takes only that.
#[cfg(loom)]
use loom::sync::{Condvar, Mutex, atomic::AtomicBool};
#[cfg(not(loom))]
use std::sync::{Condvar, Mutex, atomic::AtomicBool};

/// A pinned, boxed future that can move between threads.
type BoxedFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

// ANCHOR: types
/// Polls tasks as they are woken, on the thread that calls [`Executor::run`].
#[derive(Debug)]
pub struct Executor {
    shared: Arc<Shared>,
}

/// Starts tasks on the executor. Clone it to spawn from several places.
#[derive(Debug)]
pub struct Spawner {
    shared: Arc<Shared>,
}

/// What the executor, its spawners and its tasks share.
#[derive(Debug)]
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when there is something for `run` to do (a task queued, a
    /// future to drop) or `run` may be done (the last task counted out,
    /// the last spawner gone).
    changed: Condvar,
}

#[derive(Default)]
struct Queue {
    /// Tasks to poll, each at most once (see `Task::scheduled`).
    ready: VecDeque<Arc<Task>>,
    /// Futures of tasks that nothing can wake any more, for `run` to drop
    /// (see `Drop for Task`).
    abandoned: Vec<BoxedFuture>,
    /// Spawned tasks that have neither completed nor been abandoned and
    /// dropped.
    live: usize,
    /// `Spawner`s in existence: while one is, more tasks may come.
    spawners: usize,
    /// Set when the executor is dropped: nothing is queued any more.
    closed: bool,
    /// Every task spawned, weakly: the executor's destructor drops the
    /// futures of those still pending, which may hold their own task's
    /// waker (a cycle that nothing else breaks).
    tasks: Vec<Weak<Task>>,
    /// How many entries of `tasks` the last sweep kept (see `spawn`).
    kept: usize,
}

/// A top-level future, and whether it is on the queue.
struct Task {
    /// `None` once the future has completed (or panicked).
    future: Mutex<Option<BoxedFuture>>,
    /// True while the task is on the queue, and for good once it has
    /// completed: a wake-up that finds it true has nothing to do.
    scheduled: AtomicBool,
    shared: Arc<Shared>,
}
// ANCHOR_END: types

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("ready", &self.ready.len())
            .field("abandoned", &self.abandoned.len())
            .field("live", &self.live)
            .field("spawners", &self.spawners)
            .field("closed", &self.closed)
            .field("tasks", &self.tasks.len())
            .finish()
    }
}

impl std::fmt::Debug for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task")
            .field("scheduled", &self.scheduled)
            .finish_non_exhaustive()
    }
}

/// An executor and the spawner that feeds it.
pub fn new_executor_and_spawner() -> (Executor, Spawner) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue {
            spawners: 1,
            ..Queue::default()
        }),
        changed: Condvar::new(),
    });
    let spawner = Spawner {
        shared: Arc::clone(&shared),
    };
    (Executor { shared }, spawner)
}

// ANCHOR: wake
impl Wake for Task {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Already queued (or taken off the queue and about to be polled),
        // or completed: nothing to do for this wake-up. `Release` makes what
        // the waker did before waking (say, storing the data the task
        // waits for) visible to the executor when it clears the flag
        // before the next poll, which then sees it. Both sides must be
        // read-modify-writes (`swap`): a plain `load` here, to skip the
        // write when the flag is set, could read a value older than the
        // executor's clear and drop a wake-up that needs a poll.
        if self.scheduled.swap(true, Ordering::Release) {
            return;
        }
        self.shared.push(Arc::clone(self));
    }
}

impl Shared {
    /// Queues a task whose flag the caller has just set. Never waits for
    /// the executor: the lock is only ever held for a push, a pop or a
    /// count.
    fn push(&self, task: Arc<Task>) {
        let mut queue = self.queue.lock().unwrap();
        if queue.closed {
            // The executor is gone. Dropping the task may drop its future
            // (see `Drop for Task`), which runs foreign code: not under the
            // lock.
            drop(queue);
            drop(task);
            return;
        }
        queue.ready.push_back(task);
        drop(queue);
        self.changed.notify_one();
    }
}
// ANCHOR_END: wake

// ANCHOR: spawn
impl Spawner {
    /// Starts `future` as a new task; its first poll happens in `run`.
    pub fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) {
        let task = Arc::new(Task {
            future: Mutex::new(Some(Box::pin(future))),
            // Queued right away, so already scheduled.
            scheduled: AtomicBool::new(true),
            shared: Arc::clone(&self.shared),
        });
        let mut queue = self.shared.queue.lock().unwrap();
        if queue.closed {
            // Nobody will ever run it; `Drop for Task` drops the future,
            // after unlocking.
            drop(queue);
            return;
        }
        queue.live += 1;
        queue.tasks.push(Arc::downgrade(&task));
        // Tasks that are gone leave their entries behind, and a completed
        // task stays while someone holds its waker. Sweep each time the
        // list has doubled since the last sweep: it never holds more than
        // twice what that sweep kept (or 32), and a sweep that frees
        // nothing is not repeated at the next spawn, so each spawn costs
        // O(1) of sweeping, amortized.
        if queue.tasks.len() >= 2 * queue.kept.max(16) {
            queue.tasks.retain(|task| task.strong_count() > 0);
            queue.kept = queue.tasks.len();
        }
        queue.ready.push_back(task);
        drop(queue);
        self.shared.changed.notify_one();
    }
}

impl Clone for Spawner {
    fn clone(&self) -> Self {
        self.shared.queue.lock().unwrap().spawners += 1;
        Spawner {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl Drop for Spawner {
    fn drop(&mut self) {
        // (A failed test may have poisoned the lock; a panic here, while it
        // unwinds, would abort the process.)
        let mut queue = self
            .shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        queue.spawners -= 1;
        let last = queue.spawners == 0;
        drop(queue);
        if last {
            // `run` may be waiting for this to know that it is done (on
            // every thread that runs the executor).
            self.shared.changed.notify_all();
        }
    }
}
// ANCHOR_END: spawn

// ANCHOR: run
impl Executor {
    /// Polls tasks as they are woken. Returns once every spawned task has
    /// completed (or been abandoned: nothing could wake it any more) and
    /// every `Spawner` is gone; wakers held elsewhere do not count. A task
    /// that panics is dropped, the others run on, and the first such panic
    /// is resumed when they are done (with several threads running the
    /// executor, by the thread that caught it).
    pub fn run(&self) {
        let mut first_panic = None;
        while let Some(next) = self.next() {
            let outcome = match next {
                Next::Poll(task) => task.poll(),
                Next::Drop(abandoned) => self.drop_abandoned(abandoned),
            };
            keep_first_panic(&mut first_panic, outcome);
        }
        if let Some(payload) = first_panic {
            panic::resume_unwind(payload);
        }
    }

    /// What to do next, waiting until there is something; `None` once no
    /// task is live and no spawner is left to start one.
    fn next(&self) -> Option<Next> {
        let mut queue = self.shared.queue.lock().unwrap();
        loop {
            if !queue.abandoned.is_empty() {
                return Some(Next::Drop(std::mem::take(&mut queue.abandoned)));
            }
            if let Some(task) = queue.ready.pop_front() {
                return Some(Next::Poll(task));
            }
            if queue.live == 0 && queue.spawners == 0 {
                return None;
            }
            queue = self.shared.changed.wait(queue).unwrap();
        }
    }
    // ANCHOR_END: run

    // ANCHOR: drop_abandoned
    /// Drops the futures of tasks that nothing can wake, here, then counts
    /// the tasks out. Returns the first panic of their destructors.
    fn drop_abandoned(&self, abandoned: Vec<BoxedFuture>) -> thread::Result<()> {
        let count = abandoned.len();
        let mut first_panic = None;
        for future in abandoned {
            let dropped = panic::catch_unwind(AssertUnwindSafe(|| drop(future)));
            keep_first_panic(&mut first_panic, dropped);
        }
        self.shared.count_out(count);
        first_panic.map_or(Ok(()), Err)
    }
}
// ANCHOR_END: drop_abandoned

// ANCHOR: keep_first_panic
/// Keeps the first panic of `outcome` in `first`. A later one is dropped,
/// and should dropping it panic too (a payload is any value), that panic is
/// forgotten: nothing may unwind out of `run` with tasks left behind.
fn keep_first_panic(first: &mut Option<Box<dyn Any + Send>>, outcome: thread::Result<()>) {
    let Err(payload) = outcome else { return };
    if first.is_none() {
        *first = Some(payload);
    } else if let Err(again) = panic::catch_unwind(AssertUnwindSafe(|| drop(payload))) {
        std::mem::forget(again);
    }
}
// ANCHOR_END: keep_first_panic

// ANCHOR: poll
/// What `run` does next.
enum Next {
    /// Poll this task.
    Poll(Arc<Task>),
    /// Drop the futures of these abandoned tasks.
    Drop(Vec<BoxedFuture>),
}

impl Shared {
    /// `count` tasks are done: completed, or abandoned and dropped.
    fn count_out(&self, count: usize) {
        let mut queue = self.queue.lock().unwrap();
        queue.live -= count;
        let last = queue.live == 0;
        drop(queue);
        if last {
            // Every thread that runs the executor may be done.
            self.changed.notify_all();
        }
    }
}

impl Task {
    /// Polls the task's future once, unless it has completed. Returns the
    /// panic, if the future (or its destructor) panicked.
    fn poll(self: &Arc<Self>) -> thread::Result<()> {
        let mut slot = self.future.lock().unwrap();
        let Some(future) = slot.as_mut() else {
            // Completed while a wake-up was queueing it. Its flag stays set
            // for good, so this happens once at most.
            return Ok(());
        };
        // From now on a wake-up queues the task again, even one that comes
        // while it is being polled. `Acquire` pairs with the `Release` in
        // `wake_by_ref`: the poll sees what the waker did before waking.
        self.scheduled.swap(false, Ordering::Acquire);
        let waker = Waker::from(Arc::clone(self));
        let mut cx = Context::from_waker(&waker);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx)));
        if let Ok(Poll::Pending) = outcome {
            return Ok(());
        }
        // Completed, or panicked: never queue it again. Drop the future (and
        // what it holds) now, outside every lock: its destructor may wake
        // other tasks, and may panic too. Then count the task out.
        self.scheduled.store(true, Ordering::Relaxed);
        let finished = slot.take();
        drop(slot);
        let dropped = panic::catch_unwind(AssertUnwindSafe(|| drop(finished)));
        self.shared.count_out(1);
        let mut first_panic = None;
        keep_first_panic(&mut first_panic, outcome.map(drop));
        keep_first_panic(&mut first_panic, dropped);
        first_panic.map_or(Ok(()), Err)
    }
}
// ANCHOR_END: poll

// ANCHOR: task_drop
impl Drop for Task {
    fn drop(&mut self) {
        // The last reference went before the future completed: neither the
        // queue nor any waker holds the task, so nothing can wake it, and it
        // would never complete. This runs wherever that reference went,
        // often in a library dropping a waker, perhaps under a lock of its
        // own; a waker's drop must stay cheap and run no foreign code. So
        // the future is handed to the executor, which drops it on its own
        // thread and counts the task out: `run` does not wait for it.
        // (A poisoned lock is still ours to use: a panic here, perhaps while
        // unwinding, would abort the process.)
        let Some(future) = self
            .future
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        else {
            return;
        };
        let mut queue = self
            .shared
            .queue
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if queue.closed {
            // No executor to hand it to: drop it here, after unlocking.
            drop(queue);
            drop(future);
            return;
        }
        queue.abandoned.push(future);
        drop(queue);
        self.shared.changed.notify_one();
    }
}
// ANCHOR_END: task_drop

// ANCHOR: executor_drop
impl Drop for Executor {
    fn drop(&mut self) {
        // Tasks on the queue hold the shared state, which holds the queue;
        // a pending task's future may hold the task's own waker. Close the
        // queue, so that nothing is queued again, and drop every future
        // still there, so that no task is kept alive by either cycle. All
        // of it after unlocking: dropping a future may wake other tasks,
        // which takes the lock. (A poisoned lock, left by a panic, is
        // still ours to use: a panic here, perhaps while unwinding, would
        // abort the process.)
        let (queued, abandoned, tasks) = {
            let mut queue = self
                .shared
                .queue
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            queue.closed = true;
            (
                std::mem::take(&mut queue.ready),
                std::mem::take(&mut queue.abandoned),
                std::mem::take(&mut queue.tasks),
            )
        };
        // A destructor may panic: each is caught, so that the futures after
        // it are dropped too, and the first panic goes on once all are gone.
        let mut first_panic = None;
        for task in queued {
            keep_first_panic(&mut first_panic, catch_drop(task));
        }
        for future in abandoned {
            keep_first_panic(&mut first_panic, catch_drop(future));
        }
        for task in tasks.iter().filter_map(Weak::upgrade) {
            let future = task
                .future
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            keep_first_panic(&mut first_panic, catch_drop(future));
        }
        if let Some(payload) = first_panic {
            // Not while this thread unwinds already: a second panic would
            // abort the process.
            // (Should dropping the payload panic too, that is forgotten.)
            if thread::panicking() {
                if let Err(again) = catch_drop(payload) {
                    std::mem::forget(again);
                }
            } else {
                panic::resume_unwind(payload);
            }
        }
    }
}

/// Drops `value`, catching a panic of its destructor.
fn catch_drop<T>(value: T) -> thread::Result<()> {
    panic::catch_unwind(AssertUnwindSafe(|| drop(value)))
}
// ANCHOR_END: executor_drop

#[cfg(test)]
impl Executor {
    /// Polls the next queued task, as `run` would: the tests and the loom
    /// models take a step at a time.
    fn poll_next(&self) {
        let Some(Next::Poll(task)) = self.next() else {
            panic!("a task to poll");
        };
        task.poll().unwrap();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::mpsc;
    use std::thread;
    use std::time::{Duration, Instant};

    use super::super::test_executors::{
        Library, PATIENCE, in_background, task_waiting_for_release,
    };

    /// Runs the executor on a thread; the receiver hears how `run` ended.
    fn run_in_background(executor: Executor) -> mpsc::Receiver<thread::Result<()>> {
        in_background(move || executor.run())
    }

    /// Runs the executor to its end, failing (rather than hanging) if
    /// `run` does not return; how `run` ended.
    fn run_with_patience(executor: Executor) -> thread::Result<()> {
        run_in_background(executor)
            .recv_timeout(PATIENCE)
            .expect("run returns")
    }

    /// Pending until `wakes` wake-ups have happened, counting its polls; on
    /// its first poll it wakes itself `wakes` times.
    struct WakeSelf {
        wakes: usize,
        polls: Arc<AtomicUsize>,
    }

    impl Future for WakeSelf {
        type Output = ();
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.polls.fetch_add(1, Ordering::SeqCst) == 0 {
                for _ in 0..self.wakes {
                    cx.waker().wake_by_ref();
                }
                return Poll::Pending;
            }
            Poll::Ready(())
        }
    }

    #[test]
    fn a_task_woken_many_times_before_its_poll_is_polled_once_more() {
        let (executor, spawner) = new_executor_and_spawner();
        let polls = Arc::new(AtomicUsize::new(0));
        spawner.spawn(WakeSelf {
            wakes: 10_001,
            polls: Arc::clone(&polls),
        });
        drop(spawner);
        // The first poll wakes the task 10,001 times…
        executor.poll_next();
        // …the first wake-up queued it, the other 10,000 found it queued.
        // (The first executor would queue all 10,001, one more than its
        // queue holds, and block its own thread on the last: see
        // pitfalls::channel_executor.)
        let queued = executor.shared.queue.lock().unwrap().ready.len();
        assert_eq!(queued, 1);
        run_with_patience(executor).unwrap();
        assert_eq!(polls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_wake_under_a_library_lock_never_blocks() {
        let (executor, spawner) = new_executor_and_spawner();
        let library = Arc::new(Library::default());
        let (first_polled, polled) = mpsc::channel();
        spawner.spawn(library.waiting_task(first_polled));
        let returned = run_in_background(executor);
        polled.recv_timeout(PATIENCE).unwrap();
        // The library's thread holds its lock while tasks that need the
        // lock are spawned; it wakes the first task once the executor's
        // thread is blocked on the lock, polling one of them.
        let (locking_tx, locking) = mpsc::channel();
        let (woke_tx, woke) = mpsc::channel();
        let lib = Arc::clone(&library);
        thread::spawn(move || {
            let mut waiting = lib.waiting.lock().unwrap();
            for _ in 0..3 {
                let (lib, locking_tx) = (Arc::clone(&lib), locking_tx.clone());
                spawner.spawn(async move {
                    let _ = locking_tx.send(());
                    drop(lib.waiting.lock().unwrap());
                });
            }
            drop(spawner);
            // The executor's thread is about to take the lock (or has).
            locking.recv().unwrap();
            // The first executor blocks here for good, holding the lock
            // (pitfalls::channel_executor).
            waiting.take().unwrap().wake();
            woke_tx.send(()).unwrap();
        });
        woke.recv_timeout(PATIENCE)
            .expect("the wake-up returns while the executor waits for the lock");
        returned
            .recv_timeout(PATIENCE)
            .expect("every task completes")
            .unwrap();
    }

    #[test]
    fn spawning_many_then_yielding_never_blocks() {
        let (executor, spawner) = new_executor_and_spawner();
        let ran = Arc::new(AtomicUsize::new(0));
        let inner = spawner.clone();
        let counter = Arc::clone(&ran);
        spawner.spawn(async move {
            // More than the first executor's queue holds (10,000).
            for _ in 0..20_000 {
                let counter = Arc::clone(&counter);
                inner.spawn(async move {
                    counter.fetch_add(1, Ordering::Relaxed);
                });
            }
            // Give way once: the task wakes itself and is queued behind them.
            super::super::state_machine::yield_now().await;
            counter.fetch_add(1, Ordering::Relaxed);
        });
        drop(spawner);
        let returned = run_in_background(executor);
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        assert_eq!(ran.load(Ordering::Relaxed), 20_001);
    }

    #[test]
    fn wake_storms_from_three_threads_queue_the_task_once() {
        let (executor, spawner) = new_executor_and_spawner();
        let polls = Arc::new(AtomicUsize::new(0));
        let (waker_tx, waker_rx) = mpsc::channel();
        let counted = Arc::clone(&polls);
        spawner.spawn(std::future::poll_fn(move |cx| {
            if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                waker_tx.send(cx.waker().clone()).unwrap();
                return Poll::Pending;
            }
            Poll::Ready(())
        }));
        drop(spawner);
        // The first poll, as `run` makes it; the task is then off the queue.
        executor.poll_next();
        let waker: Waker = waker_rx.try_recv().unwrap();
        let storms: Vec<_> = (0..3)
            .map(|_| {
                let waker = waker.clone();
                thread::spawn(move || (0..10_000).for_each(|_| waker.wake_by_ref()))
            })
            .collect();
        for storm in storms {
            storm.join().unwrap();
        }
        // 30,000 wake-ups, one queue entry, one more poll.
        let queued = executor.shared.queue.lock().unwrap().ready.len();
        assert_eq!(queued, 1);
        run_with_patience(executor).unwrap();
        assert_eq!(polls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn run_returns_when_every_task_has_completed_even_if_wakers_live_on() {
        let (executor, spawner) = new_executor_and_spawner();
        let (kept_tx, kept_rx) = mpsc::channel();
        spawner.spawn(std::future::poll_fn(move |cx| {
            // A library keeps the waker (say, a timer that has not fired),
            // but the task no longer needs it.
            kept_tx.send(cx.waker().clone()).unwrap();
            Poll::Ready(())
        }));
        drop(spawner);
        let returned = run_in_background(executor);
        let kept: Waker = kept_rx.recv_timeout(PATIENCE).expect("the task ran");
        returned
            .recv_timeout(PATIENCE)
            .expect("run returns while the waker is still held")
            .unwrap();
        // Waking a completed task does nothing.
        kept.wake();
    }

    #[test]
    fn a_completed_task_is_freed_when_its_last_waker_goes() {
        let (executor, spawner) = new_executor_and_spawner();
        let (kept_tx, kept_rx) = mpsc::channel();
        let payload = Arc::new(());
        let held = Arc::clone(&payload);
        spawner.spawn(std::future::poll_fn(move |cx| {
            let _ = &held;
            kept_tx.send(cx.waker().clone()).unwrap();
            Poll::Ready(())
        }));
        drop(spawner);
        let shared = Arc::downgrade(&executor.shared);
        run_with_patience(executor).unwrap();
        // The future (and what it held) went when it completed.
        assert_eq!(Arc::strong_count(&payload), 1);
        let kept: Waker = kept_rx.try_recv().unwrap();
        // The waker keeps the task, and the task the shared state…
        assert!(shared.upgrade().is_some());
        kept.wake(); // …until it goes; waking after the executor is gone does nothing.
        assert!(shared.upgrade().is_none(), "nothing is left behind");
    }

    #[test]
    fn a_task_nothing_can_wake_is_dropped_and_run_returns() {
        let (executor, spawner) = new_executor_and_spawner();
        let witness = Arc::new(());
        let held = Arc::clone(&witness);
        // Pending for good, and it keeps no waker: nothing can wake it.
        spawner.spawn(async move {
            let _ = &held;
            std::future::pending::<()>().await;
        });
        drop(spawner);
        let returned = run_in_background(executor);
        returned
            .recv_timeout(PATIENCE)
            .expect("run returns: the task can never complete")
            .unwrap();
        assert_eq!(Arc::strong_count(&witness), 1, "its future was dropped");
    }

    #[test]
    fn an_abandoned_future_is_dropped_on_the_executors_thread() {
        struct Witness {
            executor_thread: Arc<std::sync::Mutex<Option<thread::ThreadId>>>,
            dropped_on_it: mpsc::Sender<bool>,
        }
        impl Drop for Witness {
            fn drop(&mut self) {
                let here = thread::current().id();
                let executor = *self.executor_thread.lock().unwrap();
                let _ = self.dropped_on_it.send(executor == Some(here));
            }
        }
        let (executor, spawner) = new_executor_and_spawner();
        let (waker_tx, waker_rx) = mpsc::channel();
        let (dropped_tx, dropped) = mpsc::channel();
        let witness = Witness {
            executor_thread: Arc::default(),
            dropped_on_it: dropped_tx,
        };
        spawner.spawn(std::future::poll_fn(move |cx| {
            *witness.executor_thread.lock().unwrap() = Some(thread::current().id());
            waker_tx.send(cx.waker().clone()).unwrap();
            Poll::<()>::Pending
        }));
        let returned = run_in_background(executor);
        let waker: Waker = waker_rx.recv_timeout(PATIENCE).unwrap();
        // Once a second task has been polled, `run` has let go of the
        // first: the waker is the last reference to it.
        let (polled_tx, polled) = mpsc::channel();
        spawner.spawn(async move { polled_tx.send(()).unwrap() });
        polled.recv_timeout(PATIENCE).unwrap();
        drop(spawner);
        // The last reference goes on this thread: the future is handed
        // over, not dropped here.
        drop(waker);
        assert_eq!(
            dropped.recv_timeout(PATIENCE),
            Ok(true),
            "dropped on the executor's thread"
        );
        returned
            .recv_timeout(PATIENCE)
            .expect("run returns")
            .unwrap();
    }

    #[test]
    fn dropping_the_executor_frees_queued_tasks() {
        let (executor, spawner) = new_executor_and_spawner();
        let witness = Arc::new(());
        let held = Arc::clone(&witness);
        spawner.spawn(async move {
            let _ = &held;
        });
        drop(spawner);
        // Never run: the task sits on the queue, holding the shared state
        // that holds the queue.
        let shared = Arc::downgrade(&executor.shared);
        drop(executor);
        assert_eq!(Arc::strong_count(&witness), 1, "the future was dropped");
        assert!(shared.upgrade().is_none(), "no cycle keeps anything alive");
    }

    #[test]
    fn dropping_the_executor_frees_a_pending_task_that_holds_its_own_waker() {
        struct Witness(Arc<AtomicBool>);
        impl Drop for Witness {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let (executor, spawner) = new_executor_and_spawner();
        let dropped = Arc::new(AtomicBool::new(false));
        let witness = Witness(Arc::clone(&dropped));
        spawner.spawn(async move {
            let _witness = witness;
            // The task keeps the sender, and the channel keeps the task's
            // waker: task -> future -> waker -> task.
            let (sender, receiver) = futures::channel::oneshot::channel::<()>();
            let _sender = sender;
            let _ = receiver.await;
        });
        drop(spawner);
        executor.poll_next();
        let shared = Arc::downgrade(&executor.shared);
        drop(executor);
        assert!(dropped.load(Ordering::SeqCst), "the future was dropped");
        assert!(
            shared.upgrade().is_none(),
            "the task and the queue are freed"
        );
    }

    /// Spawns a future that keeps its own task's waker (so the task stays
    /// alive, pending, until the executor's destructor drops the future),
    /// holding `held`; polls it once.
    fn pending_with_its_own_waker<T: Send + 'static>(
        executor: &Executor,
        spawner: &Spawner,
        held: T,
    ) {
        let mut own_waker = None;
        spawner.spawn(std::future::poll_fn(move |cx| {
            let _ = &held;
            own_waker.get_or_insert_with(|| cx.waker().clone());
            Poll::<()>::Pending
        }));
        executor.poll_next();
    }

    #[test]
    fn dropping_the_executor_drops_pending_futures_after_unlocking() {
        // Dropping this future drops a spawner, which takes the queue's
        // lock: under that lock, the destructor would deadlock.
        let (executor, spawner) = new_executor_and_spawner();
        pending_with_its_own_waker(&executor, &spawner, spawner.clone());
        drop(spawner);
        let shared = Arc::downgrade(&executor.shared);
        in_background(move || drop(executor))
            .recv_timeout(PATIENCE)
            .expect("the executor's destructor returns")
            .unwrap();
        assert!(shared.upgrade().is_none(), "everything is freed");
    }

    struct PanicOnDrop;
    impl Drop for PanicOnDrop {
        fn drop(&mut self) {
            panic!("dropping failed");
        }
    }

    #[test]
    fn a_panicking_destructor_does_not_keep_the_executor_from_dropping_the_rest() {
        let (executor, spawner) = new_executor_and_spawner();
        let witness = Arc::new(());
        pending_with_its_own_waker(&executor, &spawner, PanicOnDrop);
        pending_with_its_own_waker(&executor, &spawner, Arc::clone(&witness));
        drop(spawner);
        let shared = Arc::downgrade(&executor.shared);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| drop(executor)));
        let payload = outcome.expect_err("the destructor's panic goes on");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"dropping failed"));
        assert_eq!(
            Arc::strong_count(&witness),
            1,
            "the next future was dropped"
        );
        assert!(shared.upgrade().is_none(), "everything is freed");
    }

    #[test]
    fn a_panicking_destructor_while_unwinding_does_not_abort() {
        let (executor, spawner) = new_executor_and_spawner();
        pending_with_its_own_waker(&executor, &spawner, PanicOnDrop);
        drop(spawner);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            let _executor = executor;
            panic!("the first panic");
        }));
        let payload = outcome.expect_err("the first panic unwinds");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"the first panic"));
    }

    /// How many entries the executor's list of tasks holds.
    fn entries(executor: &Executor) -> usize {
        executor.shared.queue.lock().unwrap().tasks.len()
    }

    #[test]
    fn the_list_of_tasks_is_swept_each_time_it_has_doubled() {
        // Tasks that complete at once and are freed: the list reaches 32,
        // the sweep keeps the one just spawned, and so on.
        let (executor, spawner) = new_executor_and_spawner();
        let lengths: Vec<usize> = (0..100)
            .map(|_| {
                spawner.spawn(async {});
                let length = entries(&executor);
                executor.poll_next();
                length
            })
            .collect();
        let expected: Vec<usize> = (0..100).map(|i| i % 31 + 1).collect();
        assert_eq!(lengths, expected);

        // 40 completed tasks whose wakers someone holds: the sweeps at 32
        // and 64 keep them all, and the next comes only at 128, however
        // many of them are freed meanwhile.
        let (executor, spawner) = new_executor_and_spawner();
        let (kept_tx, kept) = mpsc::channel();
        for _ in 0..40 {
            let kept_tx = kept_tx.clone();
            spawner.spawn(std::future::poll_fn(move |cx| {
                kept_tx.send(cx.waker().clone()).unwrap();
                Poll::Ready(())
            }));
        }
        (0..40).for_each(|_| executor.poll_next());
        let spawn_pending = || {
            spawner.spawn(std::future::pending());
            entries(&executor)
        };
        let lengths: Vec<usize> = (0..24).map(|_| spawn_pending()).collect();
        assert_eq!(lengths, (41..=64).collect::<Vec<_>>());
        drop(kept.try_iter().collect::<Vec<Waker>>());
        let lengths: Vec<usize> = (0..64).map(|_| spawn_pending()).collect();
        let mut expected: Vec<usize> = (65..128).collect();
        expected.push(88); // The 88 pending tasks.
        assert_eq!(lengths, expected);
    }

    #[test]
    fn a_panic_in_a_futures_destructor_is_a_panic_of_its_task() {
        let (executor, spawner) = new_executor_and_spawner();
        let (other, release, rx) = task_waiting_for_release();
        spawner.spawn(other);
        // The guard belongs to the future itself (an async block would drop
        // its locals inside its last poll): it goes when the executor drops
        // the completed future.
        let (guard, mut release) = (PanicOnDrop, Some(release));
        spawner.spawn(std::future::poll_fn(move |_| {
            let _ = &guard;
            let _ = release.take().unwrap().send(());
            Poll::Ready(())
        }));
        drop(spawner);
        let outcome = run_with_patience(executor);
        let payload = outcome.expect_err("run resumes the destructor's panic");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"dropping failed"));
        assert_eq!(rx.try_recv(), Ok("the other task completed"));
    }

    /// Starts `count` threads running the executor; the receivers hear when
    /// each `run` returns.
    fn runners(executor: Executor, count: usize) -> Vec<mpsc::Receiver<()>> {
        let executor = Arc::new(executor);
        (0..count)
            .map(|_| {
                let executor = Arc::clone(&executor);
                let (done, returned) = mpsc::channel();
                thread::spawn(move || {
                    executor.run();
                    done.send(()).unwrap();
                });
                returned
            })
            .collect()
    }

    #[test]
    fn every_runner_returns_when_the_last_spawner_goes() {
        let (executor, spawner) = new_executor_and_spawner();
        let runners = runners(executor, 3);
        let (tx, rx) = mpsc::channel();
        spawner.spawn(async move { tx.send("ran").unwrap() });
        assert_eq!(rx.recv_timeout(PATIENCE), Ok("ran"));
        // All three are waiting now, for tasks or for the spawner to go;
        // dropping it must wake every one of them.
        thread::sleep(Duration::from_millis(50));
        drop(spawner);
        for returned in runners {
            returned.recv_timeout(PATIENCE).expect("each run returns");
        }
    }

    #[test]
    fn every_runner_returns_when_the_last_task_completes() {
        let (executor, spawner) = new_executor_and_spawner();
        let (release, released) = futures::channel::oneshot::channel::<()>();
        spawner.spawn(async move { released.await.unwrap() });
        drop(spawner);
        let runners = runners(executor, 3);
        // All three wait; the task's completion must wake every one.
        thread::sleep(Duration::from_millis(50));
        release.send(()).unwrap();
        for returned in runners {
            returned.recv_timeout(PATIENCE).expect("each run returns");
        }
    }

    #[test]
    fn a_panicking_task_is_dropped_and_run_resumes_the_panic_after_the_others() {
        let (executor, spawner) = new_executor_and_spawner();
        let (other, release, rx) = task_waiting_for_release();
        spawner.spawn(other);
        spawner.spawn(async move {
            let _ = release.send(());
            panic!("task failed");
        });
        drop(spawner);
        let outcome = run_with_patience(executor);
        let payload = outcome.expect_err("run resumes the task's panic");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"task failed"));
        assert_eq!(rx.try_recv(), Ok("the other task completed"));
    }

    #[test]
    fn run_waits_while_a_spawner_may_still_spawn() {
        let (executor, spawner) = new_executor_and_spawner();
        let returned = run_in_background(executor);
        assert!(returned.recv_timeout(Duration::from_millis(100)).is_err());
        let (tx, rx) = mpsc::channel();
        spawner.spawn(async move { tx.send("late task ran").unwrap() });
        drop(spawner);
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        assert_eq!(rx.try_recv(), Ok("late task ran"));
    }

    #[test]
    fn howdy_task_waits_for_its_timer() {
        let (executor, spawner) = new_executor_and_spawner();
        let (tx, rx) = mpsc::channel();
        let started = Instant::now();
        spawner.spawn(async move {
            tx.send("howdy!").unwrap();
            super::super::timer::TimerFuture::new(Duration::from_millis(20)).await;
            tx.send("done!").unwrap();
        });
        drop(spawner);
        run_with_patience(executor).unwrap();
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), ["howdy!", "done!"]);
        assert!(started.elapsed() >= Duration::from_millis(20));
    }

    /// Futures of well-known crates, woken from their own threads and under
    /// their own locks: async-channel and async-lock (event-listener
    /// underneath), and futures' oneshot.
    #[test]
    fn runs_futures_of_real_libraries() {
        let (executor, spawner) = new_executor_and_spawner();
        let (tx, rx) = async_channel::bounded::<u64>(4);
        let lock = Arc::new(async_lock::Mutex::new(0u64));
        let producers: Vec<_> = (0..3)
            .map(|p| {
                let tx = tx.clone();
                thread::spawn(move || {
                    for i in 0..2_000 {
                        tx.send_blocking(p * 10_000 + i).unwrap();
                    }
                })
            })
            .collect();
        drop(tx);
        for _ in 0..4 {
            let (rx, lock) = (rx.clone(), Arc::clone(&lock));
            spawner.spawn(async move {
                while let Ok(value) = rx.recv().await {
                    *lock.lock().await += value;
                }
            });
        }
        let (sum_tx, sum_rx) = futures::channel::oneshot::channel();
        let total = Arc::clone(&lock);
        let (done_tx, done_rx) = futures::channel::oneshot::channel::<()>();
        spawner.spawn(async move {
            done_rx.await.unwrap();
            sum_tx.send(*total.lock().await).unwrap();
        });
        drop(spawner);
        let returned = run_in_background(executor);
        for producer in producers {
            producer.join().unwrap();
        }
        // All values are sent; wait until the consumers have added them.
        let want: u64 = (0..3u64)
            .flat_map(|p| (0..2_000u64).map(move |i| p * 10_000 + i))
            .sum();
        let deadline = Instant::now() + PATIENCE;
        while *lock.lock_blocking() != want {
            assert!(Instant::now() < deadline, "the consumers stalled");
            thread::sleep(Duration::from_millis(1));
        }
        done_tx.send(()).unwrap();
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        assert_eq!(futures::executor::block_on(sum_rx), Ok(want));
    }
}

/// loom tries every interleaving of a wake from another thread with the
/// executor's clearing of the flag and its poll: the wake is never lost
/// (the task is polled again after it, and that poll sees what the waker
/// published) and the task is never on the queue twice.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicUsize;

    /// A task whose first poll stores its waker in `slot` and wakes itself
    /// (so it is queued again), and which is ready once `data` is 1. The
    /// flag it returns is set when it completes.
    fn spawn_waiting_task(
        spawner: &Spawner,
        slot: &Arc<Mutex<Option<Waker>>>,
        data: &Arc<AtomicUsize>,
    ) -> Arc<AtomicBool> {
        let (slot, data) = (Arc::clone(slot), Arc::clone(data));
        let completed = Arc::new(AtomicBool::new(false));
        let done = Arc::clone(&completed);
        let mut first = true;
        spawner.spawn(std::future::poll_fn(move |cx| {
            if first {
                first = false;
                *slot.lock().unwrap() = Some(cx.waker().clone());
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            if data.load(Ordering::Relaxed) == 1 {
                done.store(true, Ordering::Relaxed);
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }));
        completed
    }

    #[test]
    fn loom_a_wake_racing_a_poll_is_never_lost() {
        loom::model(|| {
            let (executor, spawner) = new_executor_and_spawner();
            let (slot, data) = (Arc::new(Mutex::new(None)), Arc::new(AtomicUsize::new(0)));
            let completed = spawn_waiting_task(&spawner, &slot, &data);
            drop(spawner);
            // The first poll, by hand: the waker is stored, and the task,
            // woken during the poll, is queued again. (Were the flag cleared
            // after the poll rather than before, that wake would have found
            // it set and done nothing.)
            executor.poll_next();
            let queued = executor.shared.queue.lock().unwrap().ready.len();
            assert_eq!(queued, 1, "the wake during the poll queued the task");
            let waker = slot.lock().unwrap().take().unwrap();
            // Published with a relaxed store: only the flag's Release (in
            // `wake`) and Acquire (before the poll) make the poll that
            // follows the wake see it, when the wake finds the task queued.
            let publisher = loom::thread::spawn(move || {
                data.store(1, Ordering::Relaxed);
                waker.wake();
            });
            // A lost wake-up leaves the task pending with nothing left to
            // wake it: the task is abandoned (dropped and counted out), and
            // `run` returns all the same. Only this assertion tells.
            executor.run();
            publisher.join().unwrap();
            assert!(completed.load(Ordering::Relaxed), "the task completed");
        });
    }

    #[test]
    fn loom_a_task_is_never_queued_twice() {
        loom::model(|| {
            let (executor, spawner) = new_executor_and_spawner();
            let (slot, data) = (Arc::new(Mutex::new(None)), Arc::new(AtomicUsize::new(1)));
            spawn_waiting_task(&spawner, &slot, &data);
            drop(spawner);
            let Some(Next::Poll(task)) = executor.next() else {
                panic!("a task to poll")
            };
            // Take the task off the queue as `run` would, then let two
            // threads wake it at once while it is off the queue.
            task.poll().unwrap();
            let queued = executor.shared.queue.lock().unwrap().ready.len();
            assert_eq!(queued, 1);
            let _ = executor.next();
            task.scheduled.swap(false, Ordering::Acquire);
            let waker = slot.lock().unwrap().take().unwrap();
            let other = waker.clone();
            let racer = loom::thread::spawn(move || other.wake());
            waker.wake_by_ref();
            racer.join().unwrap();
            let queued = executor.shared.queue.lock().unwrap().ready.len();
            assert_eq!(queued, 1);
            drop((task, waker));
            executor.run();
        });
    }
}
