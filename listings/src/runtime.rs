//! Chapter 9: a mini runtime — one thread, a run queue, the epoll reactor
//! and timers.
//!
//! The pieces are the book's own. The run queue is chapter 3's corrected
//! executor, cut down to one thread: a task is queued at most once
//! (its `scheduled` flag), and `wake` never waits. The reactor is chapter
//! 8's. The timers are chapter 7's heap of deadlines, but without a thread:
//! the earliest deadline becomes the timeout of `epoll_wait`, so the one
//! thread sleeps until I/O, a wake from another thread, or the next timer,
//! whichever comes first.
//!
//! Futures never leave the runtime's thread, so they need not be `Send`:
//! they live in a map on this thread, and a waker carries only the task's
//! id and its flag. A wake queues the id and notifies the reactor, which
//! writes its eventfd only while the runtime's thread sleeps in
//! `epoll_wait`: a wake on the runtime's own thread (a task waking another,
//! a timer, an I/O report) makes no system call.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::io;
use std::mem;
use std::panic::{self, AssertUnwindSafe};
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};

use futures::FutureExt;

// Under `--cfg loom` the model checker's lock and flag stand in for std's,
// so that it can try every interleaving of a wake with the runtime's poll
// (see the tests). `Arc` stays std's: `Waker::from` takes only that.
#[cfg(loom)]
use loom::sync::{Mutex, atomic::AtomicBool};
#[cfg(not(loom))]
use std::sync::{Mutex, atomic::AtomicBool};

use super::epoll_reactor::Reactor;
use super::notifier::Notifier;

// ANCHOR: types
/// A single-thread runtime. Not `Send`: it runs where it was made.
#[derive(Debug)]
pub struct Runtime {
    handle: Handle,
}

/// Spawns tasks, makes timers and registers I/O on a runtime; cheap to
/// clone, usable from its tasks.
#[derive(Clone)]
pub struct Handle {
    inner: Rc<Inner>,
}

struct Inner {
    reactor: Arc<Reactor>,
    /// The part that wakers, on any thread, touch.
    shared: Arc<Shared>,
    /// Every task's future, by id. A task being polled is out of the map.
    tasks: RefCell<HashMap<TaskId, Task>>,
    timers: RefCell<Timers>,
    next_id: Cell<u64>,
    /// True while `block_on` runs: it must not be called from a task.
    running: Cell<bool>,
    /// Set when the `Runtime` is dropped: no more tasks or timers.
    closed: Cell<bool>,
    /// While tasks are queued, the reactor gets a turn every this many
    /// rounds.
    io_interval: u32,
}

/// A task's number; never reused by its runtime.
type TaskId = u64;

/// The ids of tasks to poll, each at most once; and how to wake the
/// runtime's thread.
struct Shared {
    queue: Mutex<VecDeque<TaskId>>,
    notifier: Arc<Notifier>,
}

/// A spawned future and the waker that queues it.
struct Task {
    future: Pin<Box<dyn Future<Output = ()>>>,
    /// The waker's own data, for its flag.
    header: Arc<TaskWaker>,
    waker: Waker,
}

/// What a task's waker holds: no future, only what `wake` needs.
struct TaskWaker {
    id: TaskId,
    /// True while the task is on the queue (and for good once it has
    /// completed).
    scheduled: AtomicBool,
    shared: Arc<Shared>,
}
// ANCHOR_END: types

// ANCHOR: wake
impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Already queued: this wake-up is folded into that one. `Release`
        // publishes what the waker did before waking to the next poll.
        if self.scheduled.swap(true, Ordering::Release) {
            return;
        }
        // The queue never holds more ids than there are tasks, so this push
        // allocates only while the queue grows to that size.
        self.shared.queue.lock().unwrap().push_back(self.id);
        // Interrupts `epoll_wait` if the runtime's thread sleeps in it;
        // if it is awake, a swap and no system call.
        self.shared.notifier.notify();
    }
}

impl TaskWaker {
    /// Called just before each poll: from now on a wake queues the task
    /// again, even one during this poll. `Acquire` pairs with
    /// `wake_by_ref`'s `Release`: the poll sees what the waker did before
    /// waking, even when that wake found the task queued and did nothing.
    fn unschedule(&self) {
        self.scheduled.swap(false, Ordering::Acquire);
    }
}
// ANCHOR_END: wake

// ANCHOR: spawn
/// Awaits a spawned task's output. Dropping it lets the task run on,
/// detached.
///
/// # Panics
///
/// Awaiting it panics if the task panicked (with the task's panic), or if
/// the task was dropped with its runtime before it completed (awaited
/// from another executor, after `Runtime` was dropped).
pub struct JoinHandle<T> {
    state: Rc<RefCell<JoinState<T>>>,
}

/// Where a task leaves its output for its `JoinHandle`.
struct JoinState<T> {
    output: Output<T>,
    /// The task that awaits the handle.
    waiter: Option<Waker>,
}

/// A task's outcome, as its `JoinHandle` sees it.
enum Output<T> {
    /// Still running.
    Pending,
    /// Completed, or panicked (the panic is resumed in whoever awaits).
    Done(thread::Result<T>),
    /// Handed to the `JoinHandle`'s awaiter.
    Taken,
    /// The task was dropped unfinished, with its runtime.
    Dropped,
}

/// The task's end of its `JoinHandle`: leaves the outcome there and wakes
/// the awaiter. Dropped unused (the task was dropped before it completed),
/// it says so, so that the awaiter is not left pending for ever.
struct Completion<T>(Rc<RefCell<JoinState<T>>>);

impl<T> Completion<T> {
    fn finish(&self, output: Output<T>) {
        let waiter = {
            let mut state = self.0.borrow_mut();
            state.output = output;
            state.waiter.take()
        };
        if let Some(waiter) = waiter {
            waiter.wake();
        }
    }
}

impl<T> Drop for Completion<T> {
    fn drop(&mut self) {
        let unfinished = matches!(self.0.borrow().output, Output::Pending);
        if unfinished {
            self.finish(Output::Dropped);
        }
    }
}

impl Handle {
    /// Starts `future` as a task of this runtime; it is first polled by
    /// `block_on`'s loop.
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        assert!(
            !self.inner.closed.get(),
            "spawn on a runtime that was dropped"
        );
        let state = Rc::new(RefCell::new(JoinState {
            output: Output::Pending,
            waiter: None,
        }));
        // Moved into the task: dropped with it, completed or not.
        let completion = Completion(Rc::clone(&state));
        let task = async move {
            // A panic ends this task only: it is kept for the `JoinHandle`
            // (the panic hook has already printed it), and the runtime
            // and its other tasks run on.
            let output = AssertUnwindSafe(future).catch_unwind().await;
            completion.finish(Output::Done(output));
        };
        let header = self.inner.new_task_waker();
        let id = header.id;
        let task = Task {
            future: Box::pin(task),
            waker: Waker::from(Arc::clone(&header)),
            header,
        };
        self.inner.tasks.borrow_mut().insert(id, task);
        self.inner.shared.queue.lock().unwrap().push_back(id);
        JoinHandle { state }
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut state = self.state.borrow_mut();
        match mem::replace(&mut state.output, Output::Taken) {
            Output::Done(Ok(output)) => Poll::Ready(output),
            Output::Done(Err(panic)) => {
                drop(state);
                panic::resume_unwind(panic)
            }
            Output::Taken => panic!("JoinHandle polled after it completed"),
            Output::Dropped => panic!("the task was dropped with its runtime before it completed"),
            Output::Pending => {
                state.output = Output::Pending;
                let old = state.waiter.replace(cx.waker().clone());
                // Dropped after the borrow ends: a waker's drop runs its
                // executor's code, which may reach this handle's state.
                drop(state);
                drop(old);
                Poll::Pending
            }
        }
    }
}
// ANCHOR_END: spawn

// ANCHOR: timers
/// Deadlines of the runtime's timers, earliest first, and who waits on
/// each.
#[derive(Default)]
struct Timers {
    /// Deadlines with their timer's id. An entry whose timer is gone
    /// (fired, or its `Sleep` dropped) is skipped when it comes up.
    heap: BinaryHeap<Reverse<(Instant, u64)>>,
    waiting: HashMap<u64, Waker>,
    next_id: u64,
}

/// A future that completes once its deadline has passed, never earlier.
pub struct Sleep {
    handle: Handle,
    deadline: Instant,
    /// The timer's id, once a poll has registered it.
    id: Option<u64>,
}

impl Handle {
    /// A future that completes `duration` from now.
    pub fn sleep(&self, duration: Duration) -> Sleep {
        // `Duration::MAX` from now is not an `Instant`: a century is as
        // good as for ever.
        let far = Duration::from_secs(100 * 365 * 24 * 60 * 60);
        self.sleep_until(Instant::now() + duration.min(far))
    }

    /// A future that completes once `deadline` has passed.
    pub fn sleep_until(&self, deadline: Instant) -> Sleep {
        Sleep {
            handle: self.clone(),
            deadline,
            id: None,
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.deadline {
            if let Some(id) = self.id.take() {
                let waker = self.handle.inner.timers.borrow_mut().waiting.remove(&id);
                // Dropped after the borrow (see `JoinHandle::poll`).
                drop(waker);
            }
            return Poll::Ready(());
        }
        if self.handle.inner.closed.get() {
            // The runtime is gone: nothing would ever fire it.
            return Poll::Pending;
        }
        let mut timers = self.handle.inner.timers.borrow_mut();
        let id = match self.id {
            Some(id) => id,
            None => {
                let id = timers.next_id;
                timers.next_id += 1;
                timers.heap.push(Reverse((self.deadline, id)));
                id
            }
        };
        // The waker of the task polling now, replacing an older one.
        let old = timers.waiting.insert(id, cx.waker().clone());
        drop(timers);
        drop(old);
        self.id = Some(id);
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            let mut timers = self.handle.inner.timers.borrow_mut();
            let waker = timers.waiting.remove(&id);
            // Its heap entry stays, to be skipped when it comes up; but if
            // cancelled timers (long timeouts that were not needed) come to
            // outnumber the live ones, sweep them out, so that the heap
            // stays within twice the timers in use.
            if timers.heap.len() > 2 * timers.waiting.len() + 64 {
                let Timers { heap, waiting, .. } = &mut *timers;
                heap.retain(|Reverse((_, id))| waiting.contains_key(id));
            }
            drop(timers);
            drop(waker);
        }
    }
}

impl Timers {
    /// Takes the wakers of every timer whose deadline is not after `now`,
    /// earliest first; returns them and the next deadline still ahead.
    fn expire(&mut self, now: Instant) -> (Vec<Waker>, Option<Instant>) {
        let mut due = Vec::new();
        while let Some(&Reverse((deadline, id))) = self.heap.peek() {
            if deadline > now {
                return (due, Some(deadline));
            }
            self.heap.pop();
            due.extend(self.waiting.remove(&id));
        }
        (due, None)
    }
}
// ANCHOR_END: timers

// ANCHOR: block_on
impl Runtime {
    /// A runtime with its own epoll reactor, which asks it for I/O
    /// after every round of polls.
    pub fn new() -> io::Result<Self> {
        Runtime::with_io_interval(1)
    }

    /// The same, but while tasks are queued the reactor is asked only
    /// after every `rounds` rounds (chapter 10); with none queued, it
    /// always is.
    ///
    /// # Panics
    ///
    /// If `rounds` is 0.
    pub fn with_io_interval(rounds: u32) -> io::Result<Self> {
        assert!(rounds > 0, "an I/O interval of 0 rounds");
        let reactor = Arc::new(Reactor::new()?);
        let shared = Arc::new(Shared {
            queue: Mutex::new(VecDeque::new()),
            notifier: Arc::clone(reactor.notifier()),
        });
        let inner = Rc::new(Inner {
            reactor,
            shared,
            tasks: RefCell::new(HashMap::new()),
            timers: RefCell::new(Timers::default()),
            next_id: Cell::new(0),
            running: Cell::new(false),
            closed: Cell::new(false),
            io_interval: rounds,
        });
        Ok(Runtime {
            handle: Handle { inner },
        })
    }

    /// A handle to spawn on this runtime, and to register I/O and timers.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Runs `future`, and every spawned task along with it, until
    /// `future` completes; returns its output. Tasks still pending then
    /// stay, to run in the next `block_on` (or be dropped with the
    /// runtime).
    pub fn block_on<F: Future>(&self, future: F) -> io::Result<F::Output> {
        let inner = &self.handle.inner;
        assert!(
            !inner.running.replace(true),
            "block_on called from inside a task"
        );
        let _running = Running(&inner.running);
        let mut future = pin!(future);
        // The future gets an id like a task, but stays here, on the stack.
        let main = inner.new_task_waker();
        let main_waker = Waker::from(Arc::clone(&main));
        inner.shared.queue.lock().unwrap().push_back(main.id);
        let mut rounds_busy = 0;
        loop {
            // 1. Poll what is queued now; what is woken meanwhile waits
            //    for the next round (timers are checked before every
            //    round; the reactor, while tasks are queued, before every
            //    `io_interval`-th).
            let round = inner.shared.queue.lock().unwrap().len();
            for _ in 0..round {
                let Some(id) = inner.shared.queue.lock().unwrap().pop_front() else {
                    break;
                };
                if id == main.id {
                    main.unschedule();
                    let mut cx = Context::from_waker(&main_waker);
                    if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                        return Ok(output);
                    }
                } else {
                    inner.poll_task(id);
                }
            }
            // 2. Fire the timers that are due.
            let (due, next_deadline) = inner.timers.borrow_mut().expire(Instant::now());
            for waker in due {
                waker.wake();
            }
            // 3. Sleep until I/O, a wake, or the next deadline; not at all
            //    if there is work queued already.
            let timeout = if inner.shared.queue.lock().unwrap().is_empty() {
                next_deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()))
            } else {
                // Busy: a look at the reactor, without sleeping, every
                // `io_interval` rounds (each look is a system call).
                rounds_busy += 1;
                if rounds_busy < inner.io_interval {
                    continue;
                }
                Some(Duration::ZERO)
            };
            rounds_busy = 0;
            // 4. Wake the tasks whose I/O is ready. Before sleeping, the
            //    reactor marks this thread asleep, so that wakes from now
            //    on write the eventfd, and then looks at the queue once
            //    more: a wake that came just before found the thread awake
            //    and wrote nothing.
            inner
                .reactor
                .wait_unless(timeout, || !inner.shared.queue.lock().unwrap().is_empty())?;
        }
    }
}

impl Inner {
    /// A new task id, and the waker data that queues it. Its flag starts
    /// set: the caller queues it.
    fn new_task_waker(&self) -> Arc<TaskWaker> {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        Arc::new(TaskWaker {
            id,
            scheduled: AtomicBool::new(true),
            shared: Arc::clone(&self.shared),
        })
    }

    /// Polls task `id` once, if it still exists.
    fn poll_task(&self, id: TaskId) {
        // Out of the map while it runs: it may spawn, which inserts.
        let Some(mut task) = self.tasks.borrow_mut().remove(&id) else {
            // Completed after a wake-up queued it.
            return;
        };
        task.header.unschedule();
        let mut cx = Context::from_waker(&task.waker);
        match task.future.as_mut().poll(&mut cx) {
            Poll::Pending => {
                self.tasks.borrow_mut().insert(id, task);
            }
            Poll::Ready(()) => {
                // Set for good: a late wake does nothing. The future is
                // dropped here, outside every borrow.
                task.header.scheduled.store(true, Ordering::Relaxed);
                drop(task);
            }
        }
    }
}
// ANCHOR_END: block_on

/// Clears `running` when `block_on` returns or unwinds.
struct Running<'a>(&'a Cell<bool>);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl Handle {
    /// The runtime's reactor, to register I/O with
    /// ([`Async::new`](super::async_fd::Async::new)).
    pub fn reactor(&self) -> &Arc<Reactor> {
        &self.inner.reactor
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // Tasks hold handles, and handles hold the task map: drop the
        // tasks now, or they would keep each other alive for ever.
        // Dropping a future may drop timers, so nothing stays borrowed
        // meanwhile; spawning from now on panics (a task spawned later
        // would never run, and would keep the map alive).
        let inner = &self.handle.inner;
        inner.closed.set(true);
        let tasks = mem::take(&mut *inner.tasks.borrow_mut());
        drop(tasks);
        let mut timers = inner.timers.borrow_mut();
        let (heap, waiting) = (mem::take(&mut timers.heap), mem::take(&mut timers.waiting));
        drop(timers);
        drop((heap, waiting));
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("tasks", &self.inner.tasks.borrow().len())
            .field("timers", &self.inner.timers.borrow().waiting.len())
            .finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field(
                "finished",
                &matches!(self.state.borrow().output, Output::Done(_)),
            )
            .finish()
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep")
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::syscall_counts::Counts;
    use crate::test_executors::{Library, PATIENCE, in_background, scrambled_delays};
    use std::sync::mpsc;
    use std::thread;

    fn runtime() -> Runtime {
        Runtime::new().unwrap()
    }

    #[test]
    fn spawned_tasks_run_interleaved_and_their_handles_give_their_outputs() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let log = Rc::new(RefCell::new(Vec::new()));
        let task = |name: &'static str, ms: u64| {
            let (handle, log) = (handle.clone(), Rc::clone(&log));
            async move {
                log.borrow_mut().push(format!("{name} starts"));
                handle.sleep(Duration::from_millis(ms)).await;
                log.borrow_mut().push(format!("{name} ends"));
                ms * 2
            }
        };
        let (slow, fast) = (
            handle.spawn(task("slow", 60)),
            handle.spawn(task("fast", 20)),
        );
        let outputs = rt.block_on(async { (slow.await, fast.await) }).unwrap();
        assert_eq!(outputs, (120, 40));
        assert_eq!(
            *log.borrow(),
            ["slow starts", "fast starts", "fast ends", "slow ends"]
        );
    }

    #[test]
    fn a_thousand_wakes_before_a_poll_queue_the_task_once() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let polls = Rc::new(Cell::new(0));
        let queued = Rc::new(Cell::new(0));
        let (counted, seen, inner) = (
            Rc::clone(&polls),
            Rc::clone(&queued),
            Rc::clone(&handle.inner),
        );
        let task = handle.spawn(std::future::poll_fn(move |cx| {
            counted.set(counted.get() + 1);
            if counted.get() == 2 {
                return Poll::Ready(());
            }
            for _ in 0..1000 {
                cx.waker().wake_by_ref();
            }
            // This task is the runtime's first: id 0.
            let queue = inner.shared.queue.lock().unwrap();
            seen.set(queue.iter().filter(|&&id| id == 0).count());
            Poll::Pending
        }));
        rt.block_on(task).unwrap();
        // One entry for the thousand wakes, and one poll for them.
        assert_eq!(queued.get(), 1);
        assert_eq!(polls.get(), 2);
    }

    #[test]
    fn a_wake_from_another_thread_ends_an_endless_wait() {
        // No timers and no I/O: only the eventfd can end `epoll_wait`.
        let rt = runtime();
        let (tx, rx) = futures::channel::oneshot::channel();
        let sender = thread::spawn(move || {
            thread::sleep(Duration::from_millis(50));
            tx.send("from the other thread").unwrap();
        });
        assert_eq!(rt.block_on(rx).unwrap(), Ok("from the other thread"));
        sender.join().unwrap();
    }

    #[test]
    fn a_wake_from_another_thread_writes_once_to_wake_the_sleeping_runtime() {
        let (tx, rx) = futures::channel::oneshot::channel();
        let (notifier_tx, notifier) = mpsc::channel();
        let returned = in_background(move || {
            let rt = runtime();
            let notifier = Arc::clone(rt.handle().reactor().notifier());
            notifier_tx.send(notifier).unwrap();
            assert_eq!(rt.block_on(rx).unwrap(), Ok("from another thread"));
        });
        let notifier = notifier.recv_timeout(PATIENCE).unwrap();
        // Until the runtime's thread has said it sleeps (no timers, no
        // I/O: it waits for the eventfd alone)...
        let start = Instant::now();
        while !notifier.is_asleep() {
            assert!(start.elapsed() < PATIENCE, "the runtime never slept");
            thread::yield_now();
        }
        // ...then the wake writes, once, and the runtime wakes.
        let before = Counts::now();
        tx.send("from another thread").unwrap();
        assert_eq!(Counts::since(before).eventfd_writes, 1);
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
    }

    #[test]
    fn a_hundred_messages_make_one_wait_each_and_no_eventfd_write() {
        let rt = runtime();
        // The other thread's messages wake nothing; the reactor's reports
        // do.
        let (echo, peer) = crate::test_executors::a_hundred_messages(rt.handle().reactor());
        let before = Counts::now();
        rt.block_on(echo).unwrap();
        let counts = Counts::since(before);
        peer.join().unwrap();
        // Every wake came while the runtime's thread was awake (it had
        // just returned from `epoll_wait`): none wrote the eventfd, so no
        // wait returned at once for it. (Waking itself, the runtime made
        // 95 writes and 188 waits here.)
        assert_eq!(counts.eventfd_writes, 0, "{counts:?}");
        assert!(counts.epoll_waits <= 100 + 2, "{counts:?}");
    }

    #[test]
    fn two_tasks_playing_ping_pong_make_no_eventfd_write() {
        use futures::StreamExt;
        let rt = runtime();
        let handle = rt.handle().clone();
        let (to_pong, mut pong_inbox) = futures::channel::mpsc::unbounded::<u32>();
        let (to_ping, mut ping_inbox) = futures::channel::mpsc::unbounded::<u32>();
        let pong = handle.spawn(async move {
            while let Some(n) = pong_inbox.next().await {
                to_ping.unbounded_send(n + 1).unwrap();
            }
        });
        let before = Counts::now();
        let last = rt
            .block_on(async move {
                let mut n = 0;
                for _ in 0..1000 {
                    to_pong.unbounded_send(n).unwrap();
                    n = ping_inbox.next().await.unwrap();
                }
                drop(to_pong);
                pong.await;
                n
            })
            .unwrap();
        let counts = Counts::since(before);
        assert_eq!(last, 1000);
        assert_eq!(counts.eventfd_writes, 0, "{counts:?}");
        // With work always queued, one look at the reactor per round
        // (`io_interval` 1), two rounds per exchange; never a sleep.
        assert!(counts.epoll_waits <= 2 * 1000 + 2, "{counts:?}");
    }

    #[test]
    fn awaiting_a_task_dropped_with_its_runtime_panics() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let (_never_sent, rx) = futures::channel::oneshot::channel::<()>();
        let waiting = handle.spawn(async move {
            let _ = rx.await;
        });
        rt.block_on(async {}).unwrap();
        let never_polled = handle.spawn(async {});
        drop(rt);
        for join in [waiting, never_polled] {
            let mut join = pin!(join);
            let awaited = std::panic::catch_unwind(AssertUnwindSafe(|| {
                join.as_mut().poll(&mut Context::from_waker(Waker::noop()))
            }));
            let payload = awaited.unwrap_err();
            assert_eq!(
                payload.downcast_ref::<&str>(),
                Some(&"the task was dropped with its runtime before it completed")
            );
        }
    }

    #[test]
    fn a_task_awaiting_a_handle_is_woken_when_that_task_is_dropped() {
        // At `Runtime::drop`: the awaiter is woken, not left pending.
        let rt = runtime();
        let handle = rt.handle().clone();
        let (_never_sent, rx) = futures::channel::oneshot::channel::<()>();
        let waiting = handle.spawn(async move {
            let _ = rx.await;
        });
        let mut join = pin!(waiting);
        let woken = crate::test_wakers::TestWaker::new();
        let waker = woken.waker();
        let polled = join.as_mut().poll(&mut Context::from_waker(&waker));
        assert!(polled.is_pending());
        drop(rt);
        assert_eq!(woken.wakes(), 1);
    }

    #[test]
    fn futures_of_other_libraries_run_waking_from_their_threads_and_locks() {
        let rt = runtime();
        let handle = rt.handle().clone();
        // async-channel and async-lock wake under event-listener's lock,
        // from the threads that send and unlock.
        let (tx, rx) = async_channel::unbounded::<u32>();
        let lock = Arc::new(async_lock::Mutex::new(0u32));
        let producers: Vec<_> = (0..4)
            .map(|p| {
                let (tx, lock) = (tx.clone(), Arc::clone(&lock));
                thread::spawn(move || {
                    for i in 0..250 {
                        *lock.lock_blocking() += 1;
                        tx.send_blocking(p * 1000 + i).unwrap();
                    }
                })
            })
            .collect();
        drop(tx);
        let sum = handle.spawn(async move {
            let mut sum = 0u64;
            while let Ok(n) = rx.recv().await {
                sum += u64::from(n);
            }
            sum
        });
        // A library that wakes while holding its own lock.
        let library = Arc::new(Library::default());
        let (polled, first_poll) = mpsc::channel();
        let waiting = handle.spawn(library.waiting_task(polled));
        let waker_thread = {
            let library = Arc::clone(&library);
            thread::spawn(move || {
                first_poll.recv().unwrap();
                let held = library.waiting.lock().unwrap();
                held.as_ref().unwrap().wake_by_ref();
            })
        };
        let (sum, ()) = rt.block_on(async { (sum.await, waiting.await) }).unwrap();
        let expected: u64 = (0..4u64)
            .flat_map(|p| (0..250).map(move |i| p * 1000 + i))
            .sum();
        assert_eq!(sum, expected);
        for p in producers {
            p.join().unwrap();
        }
        waker_thread.join().unwrap();
        let total = rt.block_on(async { *lock.lock().await }).unwrap();
        assert_eq!(total, 1000);
    }

    #[test]
    fn ten_thousand_timers_expire_in_deadline_order_and_none_early() {
        let start = Instant::now();
        let mut timers = Timers::default();
        let order = Arc::new(Mutex::new(Vec::new()));
        for delay in scrambled_delays() {
            let id = timers.next_id;
            timers.next_id += 1;
            timers.heap.push(Reverse((start + delay, id)));
            let order = Arc::clone(&order);
            let waker = Waker::from(Arc::new(Recorder(move || {
                order.lock().unwrap().push(delay)
            })));
            timers.waiting.insert(id, waker);
        }
        // Expire at 1 ms steps over the whole range, as the loop would.
        let mut fired_at = Vec::new();
        for ms in 0..=300 {
            let now = start + Duration::from_millis(ms);
            let (due, _) = timers.expire(now);
            for waker in due {
                waker.wake();
                fired_at.push(now);
            }
        }
        let order = order.lock().unwrap();
        assert_eq!(order.len(), 10_000);
        assert!(order.is_sorted(), "fired out of deadline order");
        for (delay, now) in order.iter().zip(&fired_at) {
            assert!(start + *delay <= *now, "a {delay:?} timer fired early");
        }
    }

    /// A waker that runs a closure.
    struct Recorder<F>(F);

    impl<F: Fn() + Send + Sync + 'static> Wake for Recorder<F> {
        fn wake(self: Arc<Self>) {
            (self.0)();
        }
    }

    #[test]
    fn ten_thousand_timers_on_the_runtime_fire_in_deadline_order_and_none_early() {
        let rt = runtime();
        let handle = rt.handle().clone();
        // Deadlines 300..600 ms from now: time for the first poll of every
        // task, which registers its timer.
        let base = Instant::now() + Duration::from_millis(300);
        let fired = Rc::new(RefCell::new(Vec::with_capacity(10_000)));
        let tasks: Vec<_> = scrambled_delays()
            .into_iter()
            .map(|delay| {
                let (handle, fired) = (handle.clone(), Rc::clone(&fired));
                let deadline = base + delay;
                handle.clone().spawn(async move {
                    let mut sleep = pin!(handle.sleep_until(deadline));
                    // Whether the task waited with its timer in the heap
                    // (a poll returned `Pending`) and so ended only when
                    // the timer fired. A sleep that found its deadline
                    // passed at its first poll (a slow machine, valgrind)
                    // ends at once, ahead of earlier timers still in the
                    // heap: those are left out of the order check.
                    let mut in_heap = false;
                    std::future::poll_fn(|cx| {
                        let poll = sleep.as_mut().poll(cx);
                        in_heap |= poll.is_pending();
                        poll
                    })
                    .await;
                    fired.borrow_mut().push((deadline, Instant::now(), in_heap));
                })
            })
            .collect();
        rt.block_on(async {
            for task in tasks {
                task.await;
            }
        })
        .unwrap();
        let fired = fired.borrow();
        assert_eq!(fired.len(), 10_000);
        assert!(
            fired.iter().all(|&(deadline, at, _)| at >= deadline),
            "a timer fired early"
        );
        // In deadline order, among those that went into the heap (all of
        // them, unless the machine is so slow, or under valgrind, that
        // 10,000 first polls took more than 300 ms).
        let in_heap: Vec<_> = fired.iter().filter(|f| f.2).map(|f| f.0).collect();
        assert!(in_heap.is_sorted(), "fired out of deadline order");
        assert!(Instant::now() < base + Duration::from_secs(20));
    }

    #[test]
    fn sleeps_below_a_millisecond_never_end_early() {
        let rt = runtime();
        let handle = rt.handle().clone();
        for micros in [0, 1, 300, 999, 1000, 1001, 2500] {
            let wanted = Duration::from_micros(micros);
            let start = Instant::now();
            rt.block_on(handle.sleep(wanted)).unwrap();
            assert!(start.elapsed() >= wanted);
        }
    }

    #[test]
    fn a_dropped_sleep_lets_go_of_its_waker() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let lets_go = rt
            .block_on(async {
                let mut sleep = pin!(handle.sleep(Duration::from_secs(3600)));
                std::future::poll_fn(|cx| {
                    assert!(sleep.as_mut().poll(cx).is_pending());
                    Poll::Ready(())
                })
                .await;
                handle.inner.timers.borrow().waiting.len()
            })
            .unwrap();
        assert_eq!(lets_go, 1, "registered while it lived");
        assert_eq!(handle.inner.timers.borrow().waiting.len(), 0);
    }

    #[test]
    fn dropping_the_runtime_drops_its_pending_tasks() {
        struct Witness(Rc<Cell<bool>>);
        impl Drop for Witness {
            fn drop(&mut self) {
                self.0.set(true);
            }
        }
        let dropped = Rc::new(Cell::new(false));
        let rt = runtime();
        let handle = rt.handle().clone();
        let witness = Witness(Rc::clone(&dropped));
        // The task holds a handle, and so the runtime's task map: a cycle
        // that only `Drop for Runtime` breaks.
        let held = handle.clone();
        drop(handle.spawn(async move {
            let _witness = witness;
            held.sleep(Duration::from_secs(3600)).await;
        }));
        rt.block_on(async {}).unwrap();
        assert!(!dropped.get());
        drop(rt);
        assert!(dropped.get());
        assert_eq!(Rc::strong_count(&handle.inner), 1);
    }

    #[test]
    fn tasks_left_pending_run_on_in_the_next_block_on() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let (tx, rx) = futures::channel::oneshot::channel::<u8>();
        let task = handle.spawn(async move { rx.await.unwrap() + 1 });
        rt.block_on(async {}).unwrap();
        tx.send(41).unwrap();
        assert_eq!(rt.block_on(task).unwrap(), 42);
    }

    #[test]
    fn a_panicking_task_panics_its_awaiter_and_the_runtime_runs_on() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let doomed = handle.spawn(async { panic!("task failed") });
        let fine = handle.spawn(async { 7 });
        let caught = std::panic::catch_unwind(AssertUnwindSafe(|| rt.block_on(doomed)));
        let payload = caught.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"task failed"));
        assert_eq!(rt.block_on(fine).unwrap(), 7);
        assert_eq!(rt.block_on(handle.spawn(async { 8 })).unwrap(), 8);
    }

    #[test]
    fn cancelled_sleeps_do_not_pile_up_in_the_heap() {
        let rt = runtime();
        let handle = rt.handle().clone();
        rt.block_on(async {
            for _ in 0..10_000 {
                // A long timeout that is never needed: polled once, dropped.
                let mut sleep = pin!(handle.sleep(Duration::from_secs(3600)));
                std::future::poll_fn(|cx| {
                    assert!(sleep.as_mut().poll(cx).is_pending());
                    Poll::Ready(())
                })
                .await;
            }
        })
        .unwrap();
        let timers = handle.inner.timers.borrow();
        assert_eq!(timers.waiting.len(), 0);
        assert!(
            timers.heap.len() <= 64,
            "{} stale entries",
            timers.heap.len()
        );
    }

    #[test]
    fn a_task_that_always_wakes_itself_does_not_starve_timers_or_io() {
        spinner_beside_a_timer_and_a_read(runtime());
        // Looking at the reactor only every 61 busy rounds still looks.
        spinner_beside_a_timer_and_a_read(Runtime::with_io_interval(61).unwrap());
    }

    /// A task that wakes itself for ever, while the main future sleeps 20
    /// ms and then reads a byte that another thread writes after 30 ms.
    fn spinner_beside_a_timer_and_a_read(rt: Runtime) {
        let handle = rt.handle().clone();
        let stop = Rc::new(Cell::new(false));
        let spinning = Rc::clone(&stop);
        let spinner = handle.spawn(std::future::poll_fn(move |cx| {
            if spinning.get() {
                return Poll::Ready(());
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }));
        let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let ours = crate::async_fd::Async::new(handle.reactor(), ours).unwrap();
        let writer = thread::spawn(move || {
            thread::sleep(Duration::from_millis(30));
            std::io::Write::write_all(&mut theirs, b"x").unwrap();
            theirs
        });
        let got = rt
            .block_on(async {
                handle.sleep(Duration::from_millis(20)).await;
                let mut buf = [0; 1];
                let n = ours.read(&mut buf).await.unwrap();
                stop.set(true);
                spinner.await;
                buf[..n].to_vec()
            })
            .unwrap();
        assert_eq!(got, b"x");
        drop(writer.join().unwrap());
    }

    #[test]
    fn a_busy_runtime_looks_at_the_reactor_every_io_interval_rounds() {
        for interval in [1, 2, 61] {
            let returned = in_background(move || {
                assert_eq!(spins_until_a_ready_read_is_seen(interval), interval);
            });
            returned.recv_timeout(PATIENCE).unwrap().unwrap();
        }
    }

    /// With a task that wakes itself for ever, how many of its polls pass
    /// between a byte arriving for a waiting read and the read's task
    /// being polled again: the rounds until the reactor's next turn.
    fn spins_until_a_ready_read_is_seen(interval: u32) -> u32 {
        let rt = Runtime::with_io_interval(interval).unwrap();
        let handle = rt.handle().clone();
        let spins = Rc::new(Cell::new(0));
        let stop = Rc::new(Cell::new(false));
        let spinner = handle.spawn({
            let (spins, stop) = (Rc::clone(&spins), Rc::clone(&stop));
            std::future::poll_fn(move |cx| {
                if stop.get() {
                    return Poll::Ready(());
                }
                spins.set(spins.get() + 1);
                cx.waker().wake_by_ref();
                Poll::Pending
            })
        });
        let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let ours = crate::async_fd::Async::new(handle.reactor(), ours).unwrap();
        rt.block_on(async {
            let mut buf = [0; 1];
            let mut read = pin!(ours.read(&mut buf));
            // Armed, with nothing to read yet.
            assert!(futures::poll!(read.as_mut()).is_pending());
            std::io::Write::write_all(&mut theirs, b"x").unwrap();
            let before = spins.get();
            // Pending once without a wake of its own: only the reactor's
            // report of the byte polls this future again.
            let mut waited = false;
            std::future::poll_fn(|_| {
                if waited {
                    Poll::Ready(())
                } else {
                    waited = true;
                    Poll::Pending
                }
            })
            .await;
            let gap = spins.get() - before;
            assert_eq!(read.await.unwrap(), 1);
            stop.set(true);
            spinner.await;
            gap
        })
        .unwrap()
    }

    #[test]
    #[should_panic(expected = "spawn on a runtime that was dropped")]
    fn spawning_after_the_runtime_is_gone_panics() {
        let rt = runtime();
        let handle = rt.handle().clone();
        drop(rt);
        drop(handle.spawn(async {}));
    }

    #[test]
    #[should_panic(expected = "block_on called from inside a task")]
    fn block_on_inside_a_task_panics_with_a_message() {
        let rt = Rc::new(runtime());
        let inside = Rc::clone(&rt);
        rt.block_on(async move {
            let _ = inside.block_on(async {});
        })
        .unwrap();
    }

    #[test]
    fn a_sleep_ends_its_duration_from_now_and_duration_max_a_century_ahead() {
        let rt = runtime();
        let handle = rt.handle();
        let century = Duration::from_secs(100 * 365 * 24 * 60 * 60);
        let before = Instant::now();
        let short = handle.sleep(Duration::from_millis(5));
        let forever = handle.sleep(Duration::MAX);
        let after = Instant::now();
        assert!(short.deadline >= before + Duration::from_millis(5));
        assert!(short.deadline <= after + Duration::from_millis(5));
        // Exactly the century cap, not more (no panic) and not less.
        assert!(forever.deadline >= before + century);
        assert!(forever.deadline <= after + century);
    }

    #[test]
    fn expire_fires_deadlines_not_after_now_earliest_first() {
        use crate::test_wakers::TestWaker;
        let mut timers = Timers::default();
        let now = Instant::now();
        let later = now + Duration::from_millis(1);
        // Three timers: one after `now`, one exactly at `now` (not after
        // it: due), one before.
        let tasks = [TestWaker::new(), TestWaker::new(), TestWaker::new()];
        let deadlines = [later, now, now - Duration::from_millis(1)];
        for (id, (task, deadline)) in tasks.iter().zip(deadlines).enumerate() {
            timers.heap.push(Reverse((deadline, id as u64)));
            timers.waiting.insert(id as u64, task.waker());
        }
        let (due, next) = timers.expire(now);
        assert_eq!(next, Some(later));
        assert_eq!(due.len(), 2);
        let mut due = due.into_iter();
        // The earliest first.
        due.next().unwrap().wake();
        assert_eq!(tasks.each_ref().map(TestWaker::wakes), [0, 0, 1]);
        due.next().unwrap().wake();
        assert_eq!(tasks.each_ref().map(TestWaker::wakes), [0, 1, 1]);
        assert_eq!(timers.heap.len(), 1);
        assert_eq!(timers.waiting.len(), 1);
        let (due, next) = timers.expire(later);
        assert_eq!((due.len(), next), (1, None));
    }

    #[test]
    fn cancelled_timers_are_swept_exactly_when_they_pass_twice_the_live_ones_plus_64() {
        let rt = runtime();
        let handle = rt.handle();
        let mut cx = Context::from_waker(Waker::noop());
        // Ten live timers, registered by a poll each.
        let live: Vec<Pin<Box<Sleep>>> = (0..10)
            .map(|_| {
                let mut sleep = Box::pin(handle.sleep(Duration::from_secs(3600)));
                assert!(sleep.as_mut().poll(&mut cx).is_pending());
                sleep
            })
            .collect();
        let heap_len = || handle.inner.timers.borrow().heap.len();
        assert_eq!(heap_len(), 10);
        // Then timers polled once and dropped, one at a time: each leaves
        // a stale entry, until the entries pass 2 × 10 + 64 = 84 and the
        // drop that passes it sweeps them all.
        let mut expected = 10;
        let mut sweeps = 0;
        for _ in 0..200 {
            let mut sleep = Box::pin(handle.sleep(Duration::from_secs(3600)));
            assert!(sleep.as_mut().poll(&mut cx).is_pending());
            drop(sleep);
            expected += 1;
            if expected > 2 * 10 + 64 {
                expected = 10;
                sweeps += 1;
            }
            assert_eq!(heap_len(), expected);
        }
        assert_eq!(sweeps, 2);
        assert_eq!(handle.inner.timers.borrow().waiting.len(), 10);
        drop(live);
    }

    #[test]
    fn debug_shows_tasks_timers_and_whether_a_handle_finished() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let mut cx = Context::from_waker(Waker::noop());
        let mut sleep = Box::pin(handle.sleep(Duration::from_secs(3600)));
        assert!(sleep.as_mut().poll(&mut cx).is_pending());
        let task = handle.spawn(async { 7 });
        assert_eq!(format!("{handle:?}"), "Handle { tasks: 1, timers: 1, .. }");
        assert_eq!(format!("{task:?}"), "JoinHandle { finished: false }");
        let deadline = sleep.deadline;
        assert_eq!(
            format!("{sleep:?}"),
            format!("Sleep {{ deadline: {deadline:?}, .. }}")
        );
        // Completed but not yet awaited: finished.
        rt.block_on(async {}).unwrap();
        assert_eq!(format!("{task:?}"), "JoinHandle { finished: true }");
        assert_eq!(rt.block_on(task).unwrap(), 7);
        drop(sleep);
    }
}

/// loom tries every interleaving of a wake from another thread with the
/// runtime's taking of the task off the queue, clearing of its flag, poll,
/// and sleep: the runtime's own `TaskWaker`, `unschedule` and `Notifier`,
/// around its loop cut down to one task. The loop returns only once the
/// task has completed: a lost wake-up leaves it asleep on the eventfd,
/// which loom reports as a deadlock.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicUsize;

    #[test]
    fn loom_a_wake_racing_a_poll_is_never_lost() {
        loom::model(|| {
            let shared = Arc::new(Shared {
                queue: Mutex::new(VecDeque::new()),
                notifier: Arc::new(Notifier::new().unwrap()),
            });
            // Spawned: queued, its flag set.
            let header = Arc::new(TaskWaker {
                id: 0,
                scheduled: AtomicBool::new(true),
                shared: Arc::clone(&shared),
            });
            shared.queue.lock().unwrap().push_back(0);
            let waker = Waker::from(Arc::clone(&header));
            // Published with a relaxed store: only the flag's Release (in
            // `wake`) and Acquire (in `unschedule`) make the poll after the
            // wake see it when the wake finds the task queued; and only the
            // notifier's swaps when the wake queues it while the runtime
            // goes to sleep.
            let data = Arc::new(AtomicUsize::new(0));
            let other = {
                let data = Arc::clone(&data);
                loom::thread::spawn(move || {
                    data.store(1, Ordering::Relaxed);
                    waker.wake();
                })
            };
            let mut polls = 0;
            loop {
                let next = shared.queue.lock().unwrap().pop_front();
                if next.is_some() {
                    header.unschedule();
                    polls += 1;
                    if data.load(Ordering::Relaxed) == 1 {
                        break;
                    }
                    continue;
                }
                let notifier = &shared.notifier;
                let sleeps = notifier.may_sleep(|| !shared.queue.lock().unwrap().is_empty());
                if sleeps {
                    notifier.wait_readable();
                }
                notifier.woke(sleeps);
            }
            other.join().unwrap();
            // Completed, after one poll or two.
            assert!((1..=2).contains(&polls), "{polls} polls");
        });
    }
}
