//! Chapter 5: an executor over a `VecDeque` run queue of named tasks, with
//! the waker made by hand in [`super::raw_waker`].
//!
//! The roles, each one sentence:
//! - a *task* is a top-level future with a name, and the flag that says
//!   whether it is on the queue;
//! - the *executor* takes tasks off the front of the queue and polls them;
//! - a *waker* puts its task back at the end of the queue;
//! - [`Executor::spawn`] plays the *spawner*: it makes a task and queues it.
//!
//! What the executor does when the queue is empty is a choice, [`Idle`]:
//! sleep a little and look again (busy polling, slowly), or sleep until a
//! waker says there is work. [`Stats`] counts the difference.

use std::any::Any;
use std::collections::VecDeque;
use std::future::Future;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::task::Context;
use std::thread;
use std::time::Duration;

use super::raw_waker::{Schedule, waker_for};

type BoxedFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

// ANCHOR: types
/// What the executor does when no task is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idle {
    /// Sleeps this long, then looks at the queue again.
    Sleep(Duration),
    /// Sleeps until a waker queues a task.
    Block,
}

/// What one `run` did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Polls of tasks.
    pub polls: usize,
    /// Times the executor woke up and found the queue still empty: every
    /// nap of `Idle::Sleep` that finds no work; for `Idle::Block`, only a
    /// signal that came late (its task was already polled), one whose work
    /// another thread's `run` took first, or a spurious wake-up of the
    /// condition variable. (A signal that brings an abandoned future to
    /// drop brings work: not counted.)
    pub idle_wakeups: usize,
}

/// Polls named tasks in the order they are queued.
#[derive(Debug)]
pub struct Executor {
    queue: Arc<RunQueue>,
    idle: Idle,
}

/// The queue, shared by the executor and every task (their wakers put
/// them back on it).
#[derive(Debug)]
struct RunQueue {
    state: Mutex<QueueState>,
    /// Signalled when a task is queued, a future is abandoned (see
    /// `Drop for Task`), or no task is left.
    changed: Condvar,
    /// Print each step (the chapter's walk-through).
    trace: bool,
}

#[derive(Default)]
struct QueueState {
    ready: VecDeque<Arc<Task>>,
    /// Futures of tasks that nothing can wake any more, for `run` to drop
    /// on its own thread (see `Drop for Task`).
    abandoned: Vec<BoxedFuture>,
    /// Tasks spawned and neither completed nor abandoned and dropped.
    live: usize,
    /// Set when the executor is dropped: from then on nothing is queued
    /// (a queued task would keep the queue alive, and the queue the task).
    closed: bool,
    /// Every task spawned, weakly: the executor's destructor drops the
    /// futures of those still pending, which may hold their own task's
    /// waker (a cycle that nothing else breaks).
    tasks: Vec<Weak<Task>>,
    /// How many entries of `tasks` the last sweep kept (see `spawn`).
    kept: usize,
}

impl std::fmt::Debug for QueueState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueState")
            .field("ready", &self.ready)
            .field("abandoned", &self.abandoned.len())
            .field("live", &self.live)
            .field("closed", &self.closed)
            .field("tasks", &self.tasks.len())
            .finish()
    }
}

/// A named top-level future.
struct Task {
    name: &'static str,
    /// `None` once completed.
    future: Mutex<Option<BoxedFuture>>,
    /// True while the task is on the queue, or taken off it and not yet
    /// polled (the poll clears it first), or completed: a wake that finds
    /// it true has nothing to do, so the queue holds each task once.
    scheduled: AtomicBool,
    queue: Arc<RunQueue>,
}
// ANCHOR_END: types

impl std::fmt::Debug for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl RunQueue {
    /// Prints a line of the trace. (A failed write is ignored: `println!`
    /// would panic, perhaps with the queue's lock held.)
    fn note(&self, line: std::fmt::Arguments<'_>) {
        if self.trace {
            #[cfg(all(test, not(loom)))]
            tests::noted(line);
            let _ = writeln!(std::io::stdout(), "{line}");
        }
    }
}

// ANCHOR: schedule
impl Schedule for Task {
    fn schedule(self: &Arc<Self>) {
        // Already queued, about to be polled, or completed: this wake has
        // nothing to add.
        if self.scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        self.queue
            .note(format_args!("wake {}: back on the queue", self.name));
        let mut state = self.queue.state.lock().unwrap();
        // The executor is gone: nobody will poll it.
        if state.closed {
            return;
        }
        state.ready.push_back(Arc::clone(self));
        drop(state);
        self.queue.changed.notify_one();
    }
}
// ANCHOR_END: schedule

// ANCHOR: task_drop
impl Drop for Task {
    /// A task that is dropped unfinished (nothing can wake it any more: no
    /// waker of it is left, and it is not queued) can never complete. Its
    /// future goes to `run`, which drops it and counts the task out.
    ///
    /// Not dropped here: this runs wherever the last waker goes, perhaps
    /// inside a library that holds its own lock, and the future's own
    /// destructor may want that lock (to deregister, say).
    fn drop(&mut self) {
        // (A future that panicked while polled leaves the lock poisoned;
        // the slot is still ours to empty, and a panic here, during that
        // unwinding, would abort the process.)
        let slot = self
            .future
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(future) = slot.take() else {
            return;
        };
        let mut state = self
            .queue
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if state.closed {
            // No executor left to hand it to.
            drop(state);
            drop(future);
            return;
        }
        state.abandoned.push(future);
        drop(state);
        self.queue.changed.notify_all();
    }
}
// ANCHOR_END: task_drop

// ANCHOR: spawn
impl Executor {
    /// An executor with no tasks, that idles as `idle` says.
    pub fn new(idle: Idle) -> Self {
        Executor::with_trace(idle, false)
    }

    /// The same, printing every step it takes.
    pub fn traced(idle: Idle) -> Self {
        Executor::with_trace(idle, true)
    }

    fn with_trace(idle: Idle, trace: bool) -> Self {
        let queue = Arc::new(RunQueue {
            state: Mutex::new(QueueState::default()),
            changed: Condvar::new(),
            trace,
        });
        Executor { queue, idle }
    }

    /// Makes a task of `future` and queues it.
    pub fn spawn(&self, name: &'static str, future: impl Future<Output = ()> + Send + 'static) {
        let task = Arc::new(Task {
            name,
            future: Mutex::new(Some(Box::pin(future))),
            scheduled: AtomicBool::new(true),
            queue: Arc::clone(&self.queue),
        });
        self.queue.note(format_args!("spawn {name}"));
        let mut state = self.queue.state.lock().unwrap();
        state.live += 1;
        state.tasks.push(Arc::downgrade(&task));
        // Tasks that are gone leave their entries behind (a completed task
        // stays while someone holds its waker). Sweep each time the list
        // has doubled since the last sweep: O(1) a spawn, amortized.
        if state.tasks.len() >= 2 * state.kept.max(16) {
            state.tasks.retain(|task| task.strong_count() > 0);
            state.kept = state.tasks.len();
        }
        state.ready.push_back(task);
        drop(state);
        // `run` may already be waiting on another thread. Signalled after
        // unlocking, so that it does not wake only to wait for the lock.
        self.queue.changed.notify_one();
    }
}
// ANCHOR_END: spawn

// ANCHOR: run
impl Executor {
    /// Polls queued tasks until every task has completed; returns what it
    /// did. A task that panics ends the run: the panic unwinds out of
    /// `run` (chapter 3's corrected executor shows how to keep the others
    /// going).
    pub fn run(&self) -> Stats {
        let mut stats = Stats::default();
        while let Some(task) = self.next_task(&mut stats) {
            self.poll(task, &mut stats);
        }
        self.queue
            .note(format_args!("no task left: {} polls", stats.polls));
        stats
    }

    /// The task at the front of the queue; `None` once no task is left.
    fn next_task(&self, stats: &mut Stats) -> Option<Arc<Task>> {
        let mut state = self.queue.state.lock().unwrap();
        loop {
            if !state.abandoned.is_empty() {
                // Dropped here, on the executor's thread, outside the lock.
                let abandoned = std::mem::take(&mut state.abandoned);
                drop(state);
                let count = abandoned.len();
                drop(abandoned);
                state = self.queue.state.lock().unwrap();
                state.live -= count;
                continue;
            }
            if let Some(task) = state.ready.pop_front() {
                if self.queue.trace {
                    let rest: Vec<&str> = state.ready.iter().map(|task| task.name).collect();
                    let rest = rest.join(", ");
                    self.queue
                        .note(format_args!("poll {} (queue: [{rest}])", task.name));
                }
                return Some(task);
            }
            if state.live == 0 {
                // Another thread's `run` may be waiting: it is done too.
                self.queue.changed.notify_all();
                return None;
            }
            state = match self.idle {
                Idle::Sleep(nap) => self.sleep_a_while(state, nap),
                Idle::Block => self.wait_for_a_wake(state),
            };
            // Woken for nothing: no task queued, no future abandoned
            // to drop, and tasks still to wait for.
            if state.ready.is_empty() && state.abandoned.is_empty() && state.live > 0 {
                stats.idle_wakeups += 1;
            }
        }
    }

    // ANCHOR: idle_sleep
    /// Idle, the busy way: lets go of the queue, sleeps, looks again.
    fn sleep_a_while<'a>(
        &'a self,
        state: MutexGuard<'a, QueueState>,
        nap: Duration,
    ) -> MutexGuard<'a, QueueState> {
        drop(state);
        self.queue.note(format_args!("queue empty: sleep {nap:?}"));
        thread::sleep(nap);
        self.queue.state.lock().unwrap()
    }
    // ANCHOR_END: idle_sleep

    // ANCHOR: idle_block
    /// Idle, the blocking way: sleeps until a waker signals.
    fn wait_for_a_wake<'a>(
        &'a self,
        state: MutexGuard<'a, QueueState>,
    ) -> MutexGuard<'a, QueueState> {
        self.queue
            .note(format_args!("queue empty: wait for a wake"));
        // `wait` releases the lock while asleep and takes it back before
        // returning. A wake pushes its task under that lock, then signals:
        // so it comes either before we looked (and we saw the task), or
        // while we wait (and the signal wakes us). It is never lost.
        self.queue.changed.wait(state).unwrap()
    }
    // ANCHOR_END: idle_block

    /// Polls `task` once, with a waker that owns a count of it.
    fn poll(&self, task: Arc<Task>, stats: &mut Stats) {
        let mut slot = task.future.lock().unwrap();
        // Completed already (a wake during its last poll queued it once
        // more): leave the flag set, so that no later wake queues it.
        let Some(future) = slot.as_mut() else {
            return;
        };
        // Off the queue: from now on a wake queues it again. `Acquire`
        // pairs with the waker's swap, so this poll sees what the waker
        // did before waking.
        task.scheduled.swap(false, Ordering::AcqRel);
        let waker = waker_for(Arc::clone(&task));
        let mut cx = Context::from_waker(&waker);
        stats.polls += 1;
        if future.as_mut().poll(&mut cx).is_pending() {
            self.queue.note(format_args!("  {}: Pending", task.name));
            return;
        }
        // Completed: ignore any later wake, then drop the future (outside
        // the slot's lock: its drop may wake or drop other tasks).
        task.scheduled.store(true, Ordering::Release);
        let finished = slot.take();
        drop(slot);
        drop(finished);
        let left = {
            let mut state = self.queue.state.lock().unwrap();
            state.live -= 1;
            state.live
        };
        self.queue
            .note(format_args!("  {}: Ready ({left} left)", task.name));
    }
}
// ANCHOR_END: run

impl Drop for Executor {
    /// Closes the queue, drops the tasks still on it (if `run` was never
    /// called, or unwound: each holds the queue, and the queue holds them)
    /// and the futures of every task still pending, which may hold their
    /// own task's waker. From then on a wake queues nothing.
    fn drop(&mut self) {
        let (queued, abandoned, tasks) = {
            let mut state = self
                .queue
                .state
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            state.closed = true;
            (
                std::mem::take(&mut state.ready),
                std::mem::take(&mut state.abandoned),
                std::mem::take(&mut state.tasks),
            )
        };
        // After unlocking: dropping a future may wake other tasks. Each
        // destructor may panic: the panic is caught, so that the futures
        // after it are dropped too, and the first goes on once all are gone.
        let mut first_panic = None;
        for task in queued {
            drop_catching(task, &mut first_panic);
        }
        for future in abandoned {
            drop_catching(future, &mut first_panic);
        }
        for task in tasks.iter().filter_map(Weak::upgrade) {
            let future = task
                .future
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            drop_catching(future, &mut first_panic);
        }
        if let Some(payload) = first_panic {
            if thread::panicking() {
                // Already unwinding: a second panic would abort. (Should
                // dropping the payload panic, that is forgotten.)
                if let Err(again) = panic::catch_unwind(AssertUnwindSafe(|| drop(payload))) {
                    std::mem::forget(again);
                }
            } else {
                panic::resume_unwind(payload);
            }
        }
    }
}

/// Drops `value`; should its destructor panic, keeps the panic in `first`
/// unless one is there already. (A later panic is dropped, and should that
/// panic too, forgotten.)
fn drop_catching<T>(value: T, first: &mut Option<Box<dyn Any + Send>>) {
    let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| drop(value))) else {
        return;
    };
    if first.is_none() {
        *first = Some(payload);
    } else if let Err(again) = panic::catch_unwind(AssertUnwindSafe(|| drop(payload))) {
        std::mem::forget(again);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_executors::{Library, PATIENCE, in_background};
    use crate::timer::TimerFuture;
    use std::sync::mpsc;
    use std::task::{Poll, Waker};

    fn nap(ms: u64) -> TimerFuture {
        TimerFuture::new(Duration::from_millis(ms))
    }

    #[test]
    fn tasks_are_polled_in_the_order_they_are_queued() {
        let executor = Executor::new(Idle::Block);
        let (log, order) = mpsc::channel();
        for name in ["a", "b", "c"] {
            let log = log.clone();
            executor.spawn(name, async move { log.send(name).unwrap() });
        }
        let stats = executor.run();
        assert_eq!(order.try_iter().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(
            stats,
            Stats {
                polls: 3,
                idle_wakeups: 0
            }
        );
    }

    /// The lines traced executors have noted in these tests, each with
    /// the thread that noted it: a test can follow what its executor's
    /// thread has done without timing it, or counting what the kernel or
    /// valgrind counts for that thread.
    static NOTES: std::sync::Mutex<Vec<(thread::ThreadId, String)>> =
        std::sync::Mutex::new(Vec::new());

    /// Records a line of a traced executor's trace.
    pub(super) fn noted(line: std::fmt::Arguments<'_>) {
        let mut notes = NOTES.lock().unwrap_or_else(PoisonError::into_inner);
        notes.push((thread::current().id(), line.to_string()));
    }

    /// How many lines starting with `start` thread `noter` has noted.
    fn notes_of(noter: thread::ThreadId, start: &str) -> usize {
        let notes = NOTES.lock().unwrap_or_else(PoisonError::into_inner);
        notes
            .iter()
            .filter(|(thread, line)| *thread == noter && line.starts_with(start))
            .count()
    }

    /// Whether thread `tid` of this process is asleep now (state `S`).
    fn asleep(tid: i32) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")).unwrap();
        // The state follows the command name, which is in parentheses.
        let after_name = &stat[stat.rfind(')').unwrap() + 1..];
        after_name.split_whitespace().next() == Some("S")
    }

    /// Runs one task that waits for a wake from another thread, which
    /// comes only once the executor (traced) has found its queue empty
    /// `idles` times, and its thread is asleep. (After two, an executor
    /// that naps has come back from one nap to its empty queue; one that
    /// blocks finds it empty once, and sleeps for good.)
    fn idle_until_the_executor_has_idled(idle: Idle, idles: usize) -> Stats {
        let executor = Executor::traced(idle);
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let (tid, me) = (
            rustix::thread::gettid().as_raw_nonzero().get(),
            thread::current().id(),
        );
        let mut waited = false;
        executor.spawn(
            "waits for the other thread",
            std::future::poll_fn(move |cx| {
                if waited {
                    return Poll::Ready(());
                }
                waited = true;
                waker_tx.send(cx.waker().clone()).unwrap();
                Poll::Pending
            }),
        );
        let releaser = thread::spawn(move || {
            let waker = waker_rx.recv_timeout(PATIENCE).unwrap();
            let start = std::time::Instant::now();
            // Every "queue empty" of this thread comes after the first
            // poll: the task is all there is.
            while notes_of(me, "queue empty") < idles || !asleep(tid) {
                assert!(start.elapsed() < PATIENCE, "the executor never idled");
                thread::sleep(Duration::from_millis(1));
            }
            waker.wake();
        });
        let stats = executor.run();
        releaser.join().unwrap();
        stats
    }

    #[test]
    fn sleeping_when_idle_wakes_up_for_nothing_blocking_does_not() {
        // The same work both ways: one task waits for a wake that comes
        // once the executor has found its queue empty (twice when it
        // naps, so that one nap is over; once when it blocks, for good).
        let sleeping = idle_until_the_executor_has_idled(Idle::Sleep(Duration::from_millis(10)), 2);
        let blocking = idle_until_the_executor_has_idled(Idle::Block, 1);
        // Two polls either way: the first, and one after the wake.
        assert_eq!(sleeping.polls, 2);
        assert_eq!(blocking.polls, 2);
        // Sleeping 10 ms at a time, the thread came back from its first
        // nap to an empty queue before it napped again; blocked on the
        // condition variable, it wakes only for the wake.
        assert!(sleeping.idle_wakeups >= 1, "{sleeping:?}");
        assert_eq!(blocking.idle_wakeups, 0, "{blocking:?}");
    }

    #[test]
    fn many_wakes_before_a_poll_queue_the_task_once() {
        let executor = Executor::new(Idle::Block);
        let queue = Arc::clone(&executor.queue);
        let (mut polls, mut queued_after_wakes) = (0, None);
        let (report, reports) = mpsc::channel();
        executor.spawn(
            "waker",
            std::future::poll_fn(move |cx| {
                polls += 1;
                if polls == 2 {
                    report.send(queued_after_wakes).unwrap();
                    return Poll::Ready(());
                }
                for _ in 0..1000 {
                    cx.waker().wake_by_ref();
                }
                queued_after_wakes = Some(queue.state.lock().unwrap().ready.len());
                Poll::Pending
            }),
        );
        let stats = executor.run();
        // A thousand wakes during the first poll: one queue entry.
        assert_eq!(reports.try_recv(), Ok(Some(1)));
        assert_eq!(stats.polls, 2);
    }

    #[test]
    fn a_completed_task_is_never_queued_again() {
        let executor = Executor::new(Idle::Block);
        let (wakers, waker) = mpsc::channel();
        executor.spawn(
            "wakes itself as it completes",
            std::future::poll_fn(move |cx| {
                // Queued once more by this wake, though it completes now.
                cx.waker().wake_by_ref();
                wakers.send(cx.waker().clone()).unwrap();
                Poll::Ready(())
            }),
        );
        let stats = executor.run();
        assert_eq!(stats.polls, 1);
        // The leftover entry was skipped without clearing the flag: a
        // later wake does not queue the task.
        let waker = waker.try_recv().unwrap();
        waker.wake_by_ref();
        assert!(executor.queue.state.lock().unwrap().ready.is_empty());
    }

    #[test]
    fn a_wake_after_the_executor_is_gone_frees_the_task() {
        let executor = Executor::new(Idle::Block);
        let (wakers, waker) = mpsc::channel();
        executor.spawn(
            "pending",
            std::future::poll_fn(move |cx| {
                wakers.send(cx.waker().clone()).unwrap();
                Poll::<()>::Pending
            }),
        );
        let queue = Arc::downgrade(&executor.queue);
        // One poll by hand, as `run` would start, then the executor goes
        // (as when a panic unwinds out of `run`).
        let task = executor.next_task(&mut Stats::default()).unwrap();
        executor.poll(task, &mut Stats::default());
        drop(executor);
        let waker = waker.try_recv().unwrap();
        // Not queued on the closed queue: the waker is the last holder.
        waker.wake();
        assert!(queue.upgrade().is_none(), "task and queue freed");
    }

    #[test]
    fn a_future_abandoned_under_a_librarys_lock_is_dropped_by_run() {
        // The future deregisters from the library when dropped, which takes
        // the library's lock. The library drops the task's last waker while
        // it holds that very lock: dropping the future right there, in
        // `Drop for Task`, would deadlock.
        struct Registered(Arc<Library>);
        impl Drop for Registered {
            fn drop(&mut self) {
                self.0.waiting.lock().unwrap().take();
            }
        }
        let library = Arc::new(Library::default());
        let (polled_tx, polled) = mpsc::channel();
        let executor = Executor::new(Idle::Block);
        let registered = Registered(Arc::clone(&library));
        executor.spawn(
            "registered",
            std::future::poll_fn(move |cx| {
                *registered.0.waiting.lock().unwrap() = Some(cx.waker().clone());
                polled_tx.send(()).unwrap();
                Poll::<()>::Pending
            }),
        );
        let (stats_tx, stats) = mpsc::channel();
        let returned = in_background(move || stats_tx.send(executor.run()).unwrap());
        polled.recv_timeout(PATIENCE).unwrap();
        // The library gives up on the task: its last waker goes, under the
        // library's lock.
        let mut waiting = library.waiting.lock().unwrap();
        let last_waker = waiting.take();
        drop(last_waker);
        drop(waiting);
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        let stats = stats.recv().unwrap();
        // The signal that woke `run` brought work (a future to drop): not
        // an idle wake-up.
        assert_eq!(stats.idle_wakeups, 0, "{stats:?}");
    }

    #[test]
    fn two_runs_on_two_threads_both_return() {
        let executor = Arc::new(Executor::new(Idle::Block));
        executor.spawn("sleeper", async { nap(20).await });
        let returns: Vec<_> = (0..2)
            .map(|_| {
                let executor = Arc::clone(&executor);
                in_background(move || {
                    executor.run();
                })
            })
            .collect();
        for returned in returns {
            returned.recv_timeout(PATIENCE).unwrap().unwrap();
        }
    }

    #[test]
    fn wakes_from_other_threads_and_under_a_librarys_lock_are_served() {
        let library = Arc::new(Library::default());
        let (polled_tx, polled) = mpsc::channel();
        let executor = Executor::new(Idle::Block);
        executor.spawn("waiting", library.waiting_task(polled_tx));
        let waker_side = Arc::clone(&library);
        let waker_thread = thread::spawn(move || {
            polled.recv().unwrap();
            let waiting = waker_side.waiting.lock().unwrap();
            waiting.as_ref().unwrap().wake_by_ref();
        });
        let returned = in_background(move || {
            executor.run();
        });
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        waker_thread.join().unwrap();
    }

    #[test]
    fn runs_the_futures_of_async_channel_and_async_lock() {
        let (sender, receiver) = async_channel::bounded::<u32>(1);
        let lock = Arc::new(async_lock::Mutex::new(Vec::new()));
        let executor = Executor::new(Idle::Block);
        let received = Arc::clone(&lock);
        executor.spawn("receiver", async move {
            while let Ok(i) = receiver.recv().await {
                received.lock().await.push(i);
            }
        });
        // The sender runs on another thread, so its wakes come from there.
        let producer = thread::spawn(move || {
            crate::block_on::block_on(async {
                for i in 0..100 {
                    sender.send(i).await.unwrap();
                }
            })
        });
        executor.run();
        producer.join().unwrap();
        let got = crate::block_on::block_on(lock.lock()).clone();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn a_task_nothing_can_wake_is_counted_out() {
        let executor = Executor::new(Idle::Block);
        // Pending for good, and it keeps no waker: nothing can wake it.
        executor.spawn("forgotten", std::future::pending());
        let stats = in_background(move || {
            executor.run();
        });
        stats.recv_timeout(PATIENCE).unwrap().unwrap();
    }

    #[test]
    fn no_task_outlives_the_run() {
        let executor = Executor::new(Idle::Block);
        executor.spawn("sleeper", async { nap(10).await });
        let queue = Arc::downgrade(&executor.queue);
        executor.run();
        drop(executor);
        // The timer thread has dropped its waker by now, or will soon;
        // after that, neither the tasks nor the queue are left.
        crate::test_wakers::eventually("the queue is freed", || queue.upgrade().is_none());
    }

    #[test]
    fn a_panicking_task_unwinds_out_of_run_and_frees_everything() {
        let executor = Executor::new(Idle::Block);
        executor.spawn("panics", async { panic!("boom") });
        executor.spawn("never polled", async {});
        let queue = Arc::downgrade(&executor.queue);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| executor.run()));
        assert!(outcome.is_err());
        drop(executor);
        assert!(queue.upgrade().is_none());
    }

    #[test]
    fn dropping_the_executor_frees_a_pending_task_that_holds_its_own_waker() {
        let executor = Executor::new(Idle::Block);
        let (sender, receiver) = futures::channel::oneshot::channel::<()>();
        let alive = Arc::new(());
        let witness = Arc::clone(&alive);
        executor.spawn("holds its own waker", async move {
            let _witness = witness;
            // The task keeps the sender, and the channel keeps the task's
            // waker: task -> future -> waker -> task.
            let _sender = sender;
            let _ = receiver.await;
        });
        let task = executor.next_task(&mut Stats::default()).unwrap();
        executor.poll(task, &mut Stats::default());
        let queue = Arc::downgrade(&executor.queue);
        drop(executor);
        assert_eq!(Arc::strong_count(&alive), 1, "the future was dropped");
        assert!(
            queue.upgrade().is_none(),
            "the task and the queue are freed"
        );
    }

    #[test]
    fn dropping_an_executor_that_never_ran_frees_its_tasks() {
        let executor = Executor::new(Idle::Block);
        executor.spawn("never polled", async {});
        let queue = Arc::downgrade(&executor.queue);
        drop(executor);
        assert!(queue.upgrade().is_none());
    }
    /// Spawns a task whose future keeps its own waker (so the task stays
    /// alive, pending, until the executor's destructor drops the future)
    /// and `held`; polls it once; returns its waker.
    fn pending_with_its_own_waker<T: Send + 'static>(executor: &Executor, held: T) -> Waker {
        let (waker_tx, waker_rx) = mpsc::channel();
        let mut own_waker = None;
        executor.spawn(
            "keeps its own waker",
            std::future::poll_fn(move |cx| {
                let _ = &held;
                own_waker.get_or_insert_with(|| cx.waker().clone());
                let _ = waker_tx.send(cx.waker().clone());
                Poll::<()>::Pending
            }),
        );
        let task = executor.next_task(&mut Stats::default()).unwrap();
        executor.poll(task, &mut Stats::default());
        waker_rx.try_recv().unwrap()
    }

    #[test]
    fn dropping_the_executor_drops_pending_futures_after_unlocking() {
        // Dropping the second future wakes the first task, which takes the
        // queue's lock: under that lock, the destructor would deadlock.
        struct WakeOnDrop(Waker);
        impl Drop for WakeOnDrop {
            fn drop(&mut self) {
                self.0.wake_by_ref();
            }
        }
        let executor = Executor::new(Idle::Block);
        let first = pending_with_its_own_waker(&executor, ());
        drop(pending_with_its_own_waker(&executor, WakeOnDrop(first)));
        let queue = Arc::downgrade(&executor.queue);
        in_background(move || drop(executor))
            .recv_timeout(PATIENCE)
            .expect("the executor's destructor returns")
            .unwrap();
        assert!(queue.upgrade().is_none(), "everything is freed");
    }

    struct PanicOnDrop;
    impl Drop for PanicOnDrop {
        fn drop(&mut self) {
            panic!("dropping failed");
        }
    }

    #[test]
    fn a_panicking_destructor_does_not_keep_the_executor_from_dropping_the_rest() {
        let executor = Executor::new(Idle::Block);
        let witness = Arc::new(());
        drop(pending_with_its_own_waker(&executor, PanicOnDrop));
        drop(pending_with_its_own_waker(&executor, Arc::clone(&witness)));
        let queue = Arc::downgrade(&executor.queue);
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| drop(executor)));
        let payload = outcome.expect_err("the destructor's panic goes on");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"dropping failed"));
        assert_eq!(
            Arc::strong_count(&witness),
            1,
            "the next future was dropped"
        );
        assert!(queue.upgrade().is_none(), "everything is freed");
    }

    #[test]
    fn a_panicking_destructor_while_unwinding_does_not_abort() {
        let executor = Executor::new(Idle::Block);
        drop(pending_with_its_own_waker(&executor, PanicOnDrop));
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let _executor = executor;
            panic!("the first panic");
        }));
        let payload = outcome.expect_err("the first panic unwinds");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"the first panic"));
    }

    #[test]
    fn the_list_of_tasks_is_swept_each_time_it_has_doubled() {
        let entries = |executor: &Executor| executor.queue.state.lock().unwrap().tasks.len();
        let poll_next = |executor: &Executor| {
            let task = executor.next_task(&mut Stats::default()).unwrap();
            executor.poll(task, &mut Stats::default());
        };
        // Tasks that complete at once and are freed: the list reaches 32,
        // the sweep keeps the one just spawned, and so on.
        let executor = Executor::new(Idle::Block);
        let lengths: Vec<usize> = (0..100)
            .map(|_| {
                executor.spawn("done", async {});
                let length = entries(&executor);
                poll_next(&executor);
                length
            })
            .collect();
        let expected: Vec<usize> = (0..100).map(|i| i % 31 + 1).collect();
        assert_eq!(lengths, expected);

        // 40 completed tasks whose wakers someone holds: the sweeps at 32
        // and 64 keep them all, and the next comes only at 128, however
        // many of them are freed meanwhile.
        let executor = Executor::new(Idle::Block);
        let (kept_tx, kept) = mpsc::channel();
        for _ in 0..40 {
            let kept_tx = kept_tx.clone();
            executor.spawn(
                "done, its waker kept",
                std::future::poll_fn(move |cx| {
                    kept_tx.send(cx.waker().clone()).unwrap();
                    Poll::Ready(())
                }),
            );
        }
        (0..40).for_each(|_| poll_next(&executor));
        let spawn_pending = || {
            executor.spawn("pending", std::future::pending());
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
    fn debug_shows_the_queue_and_the_tasks_names() {
        let executor = Executor::new(Idle::Block);
        executor.spawn("a", async {});
        let shown = format!("{executor:?}");
        assert!(
            shown.contains(
                "QueueState { ready: [Task { name: \"a\", .. }], \
                 abandoned: 0, live: 1, closed: false, tasks: 1 }"
            ),
            "{shown}"
        );
    }

    #[test]
    fn waking_up_after_another_thread_finished_the_last_task_is_no_idle_wakeup() {
        // Two threads run one executor: this one (by hand) and a runner
        // that naps. The last task completes here during the runner's
        // nap: the runner wakes to no work and no task left, which is the
        // end of its run, not a wake-up for nothing.
        let executor = Arc::new(Executor::new(Idle::Sleep(Duration::from_secs(1))));
        let (waker_tx, waker_rx) = mpsc::channel::<Waker>();
        let mut polled = false;
        executor.spawn(
            "woken from here",
            std::future::poll_fn(move |cx| {
                if polled {
                    return Poll::Ready(());
                }
                polled = true;
                waker_tx.send(cx.waker().clone()).unwrap();
                Poll::Pending
            }),
        );
        let mut here = Stats::default();
        let task = executor.next_task(&mut here).unwrap();
        executor.poll(task, &mut here);
        let waker = waker_rx.try_recv().unwrap();
        let (tid_tx, tid_rx) = mpsc::channel();
        let runner = {
            let executor = Arc::clone(&executor);
            thread::spawn(move || {
                tid_tx
                    .send(rustix::thread::gettid().as_raw_nonzero().get())
                    .unwrap();
                executor.run()
            })
        };
        // Once the runner naps (its queue is empty, one task is live)...
        let tid = tid_rx.recv().unwrap();
        let deadline = std::time::Instant::now() + PATIENCE;
        while !asleep(tid) {
            assert!(
                std::time::Instant::now() < deadline,
                "the runner never napped"
            );
            thread::yield_now();
        }
        // ...the task is woken, and polled to completion here.
        waker.wake();
        let task = executor.next_task(&mut here).unwrap();
        executor.poll(task, &mut here);
        assert_eq!(here.polls, 2);
        assert_eq!(
            runner.join().unwrap(),
            Stats {
                polls: 0,
                idle_wakeups: 0
            }
        );
    }

    /// Set in the copy of the test binary that the test below runs.
    const TRACE_CHILD: &str = "LISTINGS_RUN_QUEUE_TRACE_CHILD";

    #[test]
    fn a_traced_executor_prints_each_step() {
        if std::env::var_os(TRACE_CHILD).is_some() {
            // The child: a traced run, printed straight to stdout (which
            // the test harness does not capture).
            let executor = Executor::traced(Idle::Block);
            executor.spawn("a", async {});
            executor.spawn("b", async {});
            executor.run();
            return;
        }
        let name = "run_queue::tests::a_traced_executor_prints_each_step";
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(TRACE_CHILD, "1")
            .output()
            .unwrap();
        assert!(output.status.success());
        let stdout = String::from_utf8(output.stdout).unwrap();
        let trace = "spawn a\nspawn b\npoll a (queue: [b])\n  a: Ready (1 left)\n\
                     poll b (queue: [])\n  b: Ready (0 left)\nno task left: 2 polls\n";
        assert!(stdout.contains(trace), "{stdout}");
    }
}
