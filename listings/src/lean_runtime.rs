//! Chapter 11: chapter 9's runtime, rebuilt for speed — same public
//! shape (`spawn` → `JoinHandle`, `block_on`, `sleep`, I/O through the
//! reactor), other insides:
//!
//! - a task is one allocation ([`task_cell`](super::task_cell)), and the
//!   run queue holds the task itself: no map lookup per poll;
//! - a wake on the runtime's own thread goes to a local queue, without a
//!   lock or a system call; only wakes from other threads take the lock
//!   of the inject queue (and write the eventfd if the runtime sleeps);
//! - timers live in a `BTreeMap` that a dropped `Sleep` leaves at once,
//!   and with no timer pending the loop reads no clock;
//! - while tasks are queued, the reactor is asked for I/O only every
//!   [`IO_INTERVAL`] busy rounds of the loop.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::future::Future;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::num::NonZeroU64;
use std::pin::{Pin, pin};
use std::ptr::{self, NonNull};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, Wake, Waker};

// Under `--cfg loom` the model checker's lock and flags stand in for
// std's, so that it can try every interleaving of a wake from another
// thread with the loop going to sleep (see the tests).
#[cfg(loom)]
use loom::sync::{Mutex, atomic::AtomicBool};
#[cfg(not(loom))]
use std::sync::{Mutex, atomic::AtomicBool};
use std::time::{Duration, Instant};

use super::echo::Net;
use super::lean_reactor::{Async, Reactor};
use super::notifier::Notifier;
use super::slab::Slab;
use super::task_cell::{self, Registered, Runnable, Schedule};

pub use super::task_cell::JoinHandle;

/// While tasks are queued, the reactor gets a look (an `epoll_wait` with
/// no timeout) once every this many busy *rounds* of the loop: often
/// enough that I/O is not starved, rarely enough that a busy runtime
/// makes few system calls. A round runs every task queued at its start,
/// so with one task queued this is 61 polls, with ten up to 610. tokio's
/// `event_interval` has the same default, 61, but counts task polls
/// (scheduler ticks), not rounds: its look comes after 61 polls however
/// many tasks are queued.
pub const IO_INTERVAL: u32 = 61;

/// The chapter's steps, each on top of the ones before, so that one
/// benchmark run can measure what each bought: [`Runtime::new`] takes them
/// all, [`Runtime::at_step`] stops at one. (Chapter 10's runtime, which
/// the first step starts from, is chapter 9's with the same
/// [`IO_INTERVAL`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    /// Tasks in one allocation, the queue holding them: every wake still
    /// goes through the locked queue and the notifier, as in chapter 9.
    Tasks = 1,
    /// Wakes on the runtime's thread go to the local queue.
    LocalQueue = 2,
    /// No clock read, and no timer work, while no timer is pending.
    Timers = 3,
}

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
    reactor: Rc<Reactor>,
    /// The part that wakes from other threads reach.
    shared: Arc<Shared>,
    /// Tasks woken on this thread (and new ones): no lock.
    local: RefCell<VecDeque<Runnable>>,
    /// The runtime's reference to every unfinished task, by key.
    tasks: RefCell<Slab<Registered>>,
    timers: RefCell<Timers>,
    /// True while `block_on` runs: it must not be called from a task.
    running: Cell<bool>,
    /// Set when the `Runtime` is dropped: no more tasks.
    closed: Cell<bool>,
    /// Whether the loop skips the timers (and the clock) when there are
    /// none ([`Step::Timers`]).
    lazy_timers: bool,
}

/// The inject queue: tasks woken on other threads.
struct Shared {
    inject: Mutex<Inject>,
    /// Set when something was injected, so that the loop takes the lock
    /// only when there is something to take. A hint, hence `Relaxed`
    /// throughout: the lock orders the queue's contents, and the
    /// notifier's swaps order the look the loop takes before sleeping
    /// (loom checks both, see the tests).
    injected: AtomicBool,
    notifier: Arc<Notifier>,
    /// Whether wakes on the runtime's thread use the local queue
    /// ([`Step::LocalQueue`]).
    local_wakes: bool,
    /// Test-only: how many tasks were ever injected.
    #[cfg(test)]
    injections: std::sync::atomic::AtomicUsize,
}

#[derive(Default)]
struct Inject {
    tasks: VecDeque<Runnable>,
    /// The runtime is gone: what arrives is dropped, not queued.
    closed: bool,
}
// ANCHOR_END: types

// ANCHOR: schedule
thread_local! {
    /// The runtime whose `block_on` runs on this thread, if any.
    static CURRENT: Cell<Option<NonNull<Inner>>> = const { Cell::new(None) };
}

/// What each task holds to queue itself: the runtime's shared part.
struct Scheduler(Arc<Shared>);

impl Schedule for Scheduler {
    fn schedule(&self, task: Runnable) {
        // On the runtime's own thread, during its `block_on`: the local
        // queue. A plain check of a thread-local, no lock.
        if let Some(inner) = CURRENT.get().filter(|_| self.0.local_wakes) {
            // SAFETY: `CURRENT` points to an `Inner` only while that
            // runtime's `block_on` runs on this thread (its guard clears
            // it), and the `Rc` that `block_on` borrows keeps it alive.
            let inner = unsafe { inner.as_ref() };
            if ptr::eq(Arc::as_ptr(&inner.shared), Arc::as_ptr(&self.0)) {
                inner.local.borrow_mut().push_back(task);
                return;
            }
        }
        self.0.inject(task);
    }
}

impl Shared {
    /// Queues a task woken on another thread (or outside `block_on`) and
    /// wakes the runtime's thread, which writes the eventfd only if that
    /// thread sleeps.
    fn inject(&self, task: Runnable) {
        let mut inject = self.inject.lock().unwrap_or_else(|e| e.into_inner());
        if inject.closed {
            drop(inject);
            // The runtime is gone; the task was closed with it.
            drop(task);
            return;
        }
        inject.tasks.push_back(task);
        #[cfg(test)]
        self.injections.fetch_add(1, Ordering::Relaxed);
        self.injected.store(true, Ordering::Relaxed);
        drop(inject);
        self.notifier.notify();
    }

    /// Moves the injected tasks to `local`; takes the lock only if some
    /// were injected.
    fn take_injected(&self, local: &mut VecDeque<Runnable>) {
        // A plain load first: this runs every round, and a swap is a
        // locked instruction even when it finds `false` (in ping-pong it
        // was a tenth of the time). A wake that sets the flag just after
        // the load is taken next round: the loop counts the flag as work
        // and looks at it again before sleeping.
        if self.injected.load(Ordering::Relaxed) && self.injected.swap(false, Ordering::Relaxed) {
            let mut inject = self.inject.lock().unwrap_or_else(|e| e.into_inner());
            local.extend(inject.tasks.drain(..));
        }
    }
}
// ANCHOR_END: schedule

// ANCHOR: spawn
impl Handle {
    /// Starts `future` as a task of this runtime; it is first polled by
    /// `block_on`'s loop.
    ///
    /// # Panics
    ///
    /// If the runtime was dropped.
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        let inner = &self.inner;
        assert!(!inner.closed.get(), "spawn on a runtime that was dropped");
        let mut tasks = inner.tasks.borrow_mut();
        let key = tasks.next_key();
        let scheduler = Scheduler(Arc::clone(&inner.shared));
        // SAFETY: the registration goes into the runtime's list, which no
        // task can reach.
        let (runnable, registered, handle) =
            unsafe { task_cell::spawn_local(future, scheduler, key) };
        tasks.insert(registered);
        drop(tasks);
        inner.local.borrow_mut().push_back(runnable);
        handle
    }
}
// ANCHOR_END: spawn

// ANCHOR: timers
/// The runtime's timers, earliest deadline first. The id makes two
/// timers with the same deadline two entries.
#[derive(Default)]
struct Timers {
    waiting: BTreeMap<(Instant, u64), Waker>,
    next_id: u64,
    /// The wakers of a round's due timers; kept to reuse its allocation.
    due: Vec<Waker>,
}

impl Timers {
    /// Moves the wakers of every timer whose deadline is not after `now`
    /// into `due`, earliest first; returns the next deadline still ahead.
    fn expire(&mut self, now: Instant) -> Option<Instant> {
        while let Some(entry) = self.waiting.first_entry() {
            if entry.key().0 > now {
                return Some(entry.key().0);
            }
            self.due.push(entry.remove());
        }
        None
    }
}

/// A future that completes once its deadline has passed, never earlier.
pub struct Sleep {
    handle: Handle,
    deadline: Instant,
    /// Its number, once registered: its entry's key is `(deadline, id)`.
    /// (Not the key itself: the deadline is above already, and `NonZero`
    /// makes `None` free — 16 bytes less in every sleeping task.)
    id: Option<NonZeroU64>,
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
                let key = (self.deadline, id.get());
                let waker = self.handle.inner.timers.borrow_mut().waiting.remove(&key);
                // Dropped after the borrow: a waker's drop runs its
                // executor's code, which may reach these timers.
                drop(waker);
            }
            return Poll::Ready(());
        }
        let mut timers = self.handle.inner.timers.borrow_mut();
        let id = match self.id {
            Some(id) => id,
            None => {
                let id = NonZeroU64::MIN.saturating_add(timers.next_id);
                timers.next_id += 1;
                id
            }
        };
        let key = (self.deadline, id.get());
        let old = match timers.waiting.get_mut(&key) {
            // Polled again by the same task: nothing to replace.
            Some(waker) if waker.will_wake(cx.waker()) => None,
            Some(waker) => Some(std::mem::replace(waker, cx.waker().clone())),
            None => timers.waiting.insert(key, cx.waker().clone()),
        };
        drop(timers);
        drop(old);
        self.id = Some(id);
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            let key = (self.deadline, id.get());
            let waker = self.handle.inner.timers.borrow_mut().waiting.remove(&key);
            drop(waker);
        }
    }
}
// ANCHOR_END: timers

// ANCHOR: block_on
/// The waker of `block_on`'s own future, which is not a task: a flag and
/// a nudge for the runtime's thread.
struct MainWaker {
    woken: AtomicBool,
    shared: Arc<Shared>,
}

impl Wake for MainWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // `Release` pairs with the loop's `Acquire` swap: the next poll
        // sees what the waker did before waking. Needed even though the
        // notifier orders its own flag: a wake that finds `woken` still
        // set notifies no one, and then this flag alone carries it.
        if !self.woken.swap(true, Ordering::Release) {
            self.shared.notifier.notify();
        }
    }
}

impl MainWaker {
    /// Whether the main future was woken since the last call, and must be
    /// polled.
    fn take_wake(&self) -> bool {
        // A plain load first, as in `take_injected`: this runs every round,
        // and a swap is a locked instruction even when it finds `false`
        // (callgrind counted it once per ping-pong hand-off). A wake that
        // sets the flag just after the load is seen next round: the loop
        // looks at the flag again before it sleeps.
        // `Acquire` on the swap: pairs with the wake's `Release` (see
        // there); the load only decides whether to swap.
        self.woken.load(Ordering::Relaxed) && self.woken.swap(false, Ordering::Acquire)
    }
}

/// Sets `CURRENT` and `running` for one `block_on`, and restores them
/// when it returns or unwinds.
struct Entered<'a> {
    inner: &'a Inner,
    previous: Option<NonNull<Inner>>,
}

impl<'a> Entered<'a> {
    fn new(inner: &'a Inner) -> Self {
        assert!(
            !inner.running.replace(true),
            "block_on called from inside a task"
        );
        let previous = CURRENT.replace(Some(NonNull::from(inner)));
        Entered { inner, previous }
    }
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        CURRENT.set(self.previous);
        self.inner.running.set(false);
    }
}

impl Runtime {
    /// A runtime with its own epoll reactor, with every step of the
    /// chapter.
    pub fn new() -> io::Result<Self> {
        Runtime::at_step(Step::Timers)
    }

    /// The runtime as it stands after `step` (and the steps before it).
    pub fn at_step(step: Step) -> io::Result<Self> {
        let reactor = Rc::new(Reactor::new()?);
        let shared = Arc::new(Shared {
            inject: Mutex::new(Inject::default()),
            injected: AtomicBool::new(false),
            notifier: Arc::clone(reactor.notifier()),
            local_wakes: step >= Step::LocalQueue,
            #[cfg(test)]
            injections: Default::default(),
        });
        let inner = Rc::new(Inner {
            reactor,
            shared,
            local: RefCell::default(),
            tasks: RefCell::default(),
            timers: RefCell::default(),
            running: Cell::new(false),
            closed: Cell::new(false),
            lazy_timers: step >= Step::Timers,
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
        let inner = &*self.handle.inner;
        let _entered = Entered::new(inner);
        let mut future = pin!(future);
        let main = Arc::new(MainWaker {
            woken: AtomicBool::new(true),
            shared: Arc::clone(&inner.shared),
        });
        let main_waker = Waker::from(Arc::clone(&main));
        let mut rounds_busy = 0;
        loop {
            // 1. The main future, if it was woken.
            if main.take_wake() {
                let mut cx = Context::from_waker(&main_waker);
                if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                    return Ok(output);
                }
            }
            // 2. One round: the tasks queued now, those woken elsewhere
            //    included; what is woken meanwhile waits for the next.
            inner.take_injected();
            let round = inner.local.borrow().len();
            for _ in 0..round {
                let Some(task) = inner.local.borrow_mut().pop_front() else {
                    break;
                };
                let key = task.key();
                // SAFETY: every task of this runtime was spawned on this
                // thread (`Handle` is not `Send`), and is run only here.
                if unsafe { task.run() } {
                    // Finished: the runtime lets go of it. (Dropped
                    // outside the borrow: it may free the task, whose
                    // drop runs no code of ours but takes care.)
                    let registered = inner.tasks.borrow_mut().remove(key);
                    drop(registered);
                }
            }
            // 3. Timers, if there are any: no clock read otherwise.
            let next_deadline = inner.fire_timers();
            // 4. I/O: a look now and then while busy; otherwise sleep
            //    until I/O, a wake, or the next deadline.
            // Work already waiting counts, wherever it waits: a wake
            // injected during the round (every wake, before the local
            // queue's step) is as busy as a local one.
            let busy = !inner.local.borrow().is_empty()
                || main.woken.load(Ordering::Relaxed)
                || inner.shared.injected.load(Ordering::Relaxed);
            let timeout = if busy {
                rounds_busy += 1;
                if rounds_busy < IO_INTERVAL {
                    continue;
                }
                Some(Duration::ZERO)
            } else {
                next_deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()))
            };
            rounds_busy = 0;
            // The reactor marks this thread asleep, then looks once more
            // at the work that other threads add: a wake that came just
            // before found the thread awake and wrote nothing.
            inner.reactor.wait_unless(timeout, || {
                main.woken.load(Ordering::Relaxed) || inner.shared.injected.load(Ordering::Relaxed)
            })?;
        }
    }
}

impl Inner {
    /// Moves the tasks woken on other threads to the local queue.
    fn take_injected(&self) {
        self.shared.take_injected(&mut self.local.borrow_mut());
    }

    /// Wakes the tasks whose timers are due; returns the next deadline.
    fn fire_timers(&self) -> Option<Instant> {
        let mut timers = self.timers.borrow_mut();
        if self.lazy_timers && timers.waiting.is_empty() {
            return None;
        }
        let next = timers.expire(Instant::now());
        let mut due = std::mem::take(&mut timers.due);
        drop(timers);
        // Outside the borrow: a waker runs its executor's code.
        for waker in due.drain(..) {
            waker.wake();
        }
        // The buffer back, for the next round.
        self.timers.borrow_mut().due = due;
        next
    }
}
// ANCHOR_END: block_on

// ANCHOR: net
/// Chapter 9's echo server runs on this runtime unchanged.
impl Net for Handle {
    type Listener = Async<TcpListener>;
    type Stream = Async<TcpStream>;

    fn spawn_task(&self, task: impl Future<Output = ()> + 'static) {
        drop(self.spawn(task));
    }

    fn sleep_for(&self, duration: Duration) -> impl Future<Output = ()> {
        self.sleep(duration)
    }

    async fn accept(listener: &Self::Listener) -> io::Result<Self::Stream> {
        Ok(listener.accept().await?.0)
    }

    fn read(stream: &Self::Stream, buf: &mut [u8]) -> impl Future<Output = io::Result<usize>> {
        stream.read(buf)
    }

    fn write_all(stream: &Self::Stream, buf: &[u8]) -> impl Future<Output = io::Result<()>> {
        stream.write_all(buf)
    }
}
// ANCHOR_END: net

impl Handle {
    /// The runtime's reactor, to register I/O with
    /// ([`Async::new`](super::lean_reactor::Async::new)).
    pub fn reactor(&self) -> &Rc<Reactor> {
        &self.inner.reactor
    }

    /// Test-only: how many tasks were ever injected (the exercises' tests
    /// read it from outside this module).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn injections(&self) -> usize {
        self.inner.shared.injections.load(Ordering::Relaxed)
    }
}

// ANCHOR: drop
impl Drop for Runtime {
    fn drop(&mut self) {
        // Tasks hold handles, and handles hold the runtime: drop every
        // unfinished task's future now, or they would keep each other
        // alive for ever. Wakes from now on drop what they would queue.
        let inner = &self.handle.inner;
        inner.closed.set(true);
        let injected = {
            let mut inject = inner
                .shared
                .inject
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            inject.closed = true;
            std::mem::take(&mut inject.tasks)
        };
        drop(injected);
        let local = std::mem::take(&mut *inner.local.borrow_mut());
        drop(local);
        // Each registration closes its task as it goes (the future's
        // drop may reach these fields: nothing stays borrowed).
        let tasks = std::mem::take(&mut *inner.tasks.borrow_mut());
        drop(tasks);
        let timers = std::mem::take(&mut *inner.timers.borrow_mut());
        drop(timers);
        // No second drain of the local queue: closing a task wakes its
        // awaiter, but a wake reaches the local queue only while this
        // runtime's `block_on` runs (`CURRENT`), which it cannot while
        // the runtime is being dropped; such a wake goes to the inject
        // queue, closed above, which drops it.
        debug_assert!(inner.local.borrow().is_empty());
    }
}
// ANCHOR_END: drop

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("tasks", &self.inner.tasks.borrow().len())
            .field("timers", &self.inner.timers.borrow().waiting.len())
            .finish_non_exhaustive()
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
    use crate::alloc_counts::allocations;
    use crate::syscall_counts::Counts;
    use crate::test_executors::{
        Library, PATIENCE, in_background, scrambled_delays, with_patience,
    };
    use crate::test_wakers::TestWaker;
    use futures::FutureExt;
    use std::sync::mpsc;
    use std::thread;

    fn runtime() -> Runtime {
        Runtime::new().unwrap()
    }

    #[test]
    fn spawned_tasks_run_interleaved_and_their_handles_give_their_outputs() {
        with_patience(|| {
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
        });
    }

    #[test]
    fn a_thousand_wakes_before_a_poll_queue_the_task_once() {
        with_patience(|| {
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
                seen.set(inner.local.borrow().len());
                Poll::Pending
            }));
            rt.block_on(task).unwrap();
            // One entry for the thousand wakes, and one poll for them.
            assert_eq!(queued.get(), 1);
            assert_eq!(polls.get(), 2);
        });
    }

    #[test]
    fn a_spawned_task_is_one_allocation_and_a_wake_none() {
        with_patience(|| {
            let rt = runtime();
            let handle = rt.handle().clone();
            let spawn_all = |n: usize| {
                let handle = handle.clone();
                rt.block_on(async move {
                    let before = allocations();
                    let tasks: Vec<_> = (0..n).map(|i| handle.spawn(async move { i })).collect();
                    let spawned = allocations() - before;
                    let mut sum = 0;
                    for task in tasks {
                        sum += task.await;
                    }
                    (spawned, sum)
                })
                .unwrap()
            };
            // The first time, the runtime's queue and list of tasks grow (and
            // so does the vector of handles); after that, they have room.
            spawn_all(1000);
            let (spawned, sum) = spawn_all(1000);
            assert_eq!(spawned, 1000 + 1, "one per task, and the vector of handles");
            assert_eq!(sum, 999 * 1000 / 2);
            // Two tasks handing a turn back and forth: no allocation at all.
            let turn = Rc::new(Cell::new(0u32));
            let wakers: Rc<RefCell<[Option<Waker>; 2]>> = Rc::default();
            let player = |me: u32| {
                let (turn, wakers) = (Rc::clone(&turn), Rc::clone(&wakers));
                std::future::poll_fn(move |cx| {
                    while turn.get() < 1000 {
                        if turn.get() % 2 != me {
                            wakers.borrow_mut()[me as usize] = Some(cx.waker().clone());
                            return Poll::Pending;
                        }
                        turn.set(turn.get() + 1);
                        if let Some(other) = wakers.borrow_mut()[1 - me as usize].take() {
                            other.wake();
                        }
                    }
                    Poll::Ready(())
                })
            };
            let (a, b) = (handle.spawn(player(0)), handle.spawn(player(1)));
            let before = allocations();
            rt.block_on(async { (a.await, b.await) }).unwrap();
            // `block_on`'s own waker, once.
            assert_eq!(allocations() - before, 1);
            assert_eq!(turn.get(), 1000);
        });
    }

    #[test]
    fn wakes_on_the_runtimes_thread_write_no_eventfd_and_take_no_lock() {
        with_patience(|| {
            let rt = runtime();
            let handle = rt.handle().clone();
            let (tx, mut rx) = futures::channel::mpsc::channel::<u32>(1);
            let consumer = handle.spawn(async move {
                use futures::StreamExt;
                let mut sum = 0;
                while let Some(n) = rx.next().await {
                    sum += n;
                }
                sum
            });
            let producer = handle.spawn(async move {
                use futures::SinkExt;
                let mut tx = tx;
                for n in 0..100 {
                    tx.send(n).await.unwrap();
                }
            });
            let before = Counts::now();
            let sum = rt
                .block_on(async {
                    producer.await;
                    consumer.await
                })
                .unwrap();
            assert_eq!(sum, 99 * 100 / 2);
            assert_eq!(Counts::since(before).eventfd_writes, 0);
            let injections = &rt.handle.inner.shared.injections;
            assert_eq!(injections.load(Ordering::Relaxed), 0, "no lock taken");
        });
    }

    #[test]
    fn before_the_local_queue_step_every_wake_takes_the_inject_queue() {
        with_patience(|| {
            let rt = Runtime::at_step(Step::Tasks).unwrap();
            let handle = rt.handle().clone();
            let woken = handle.spawn(crate::state_machine::yield_now());
            rt.block_on(woken).unwrap();
            // The task's one wake (it woke itself): locked queue and all.
            let injections = &rt.handle.inner.shared.injections;
            assert_eq!(injections.load(Ordering::Relaxed), 1);
        });
    }

    #[test]
    fn injected_wakes_keep_the_loop_busy_and_away_from_the_reactor() {
        // Before the local queue's step every wake is injected; two tasks
        // waking each other 1,000 times must not make the loop ask the
        // reactor each round (it did: an `epoll_wait` per hand-off).
        let rt = Runtime::at_step(Step::Tasks).unwrap();
        let handle = rt.handle().clone();
        let before = Counts::now();
        let hand_offs = rt
            .block_on(async move {
                let turn = Rc::new(Cell::new(0u32));
                let player = |me: u32| {
                    let turn = Rc::clone(&turn);
                    handle.spawn(async move {
                        let mut played = 0;
                        while played < 500 {
                            if turn.get() % 2 == me {
                                turn.set(turn.get() + 1);
                                played += 1;
                            }
                            crate::state_machine::yield_now().await;
                        }
                        played
                    })
                };
                let (a, b) = (player(0), player(1));
                a.await + b.await
            })
            .unwrap();
        assert_eq!(hand_offs, 1000);
        let waits = Counts::since(before).epoll_waits;
        // One look every IO_INTERVAL busy rounds; a round is one yield of
        // each player, and each hands off once per two rounds at most.
        assert!(
            waits <= 2000 / u64::from(IO_INTERVAL) + 4,
            "{waits} epoll_waits for 1,000 hand-offs"
        );
    }

    /// A task that keeps its waker in `slot` and waits for ever.
    fn waiting_task(handle: &Handle, slot: &Rc<RefCell<Option<Waker>>>) -> JoinHandle<()> {
        let slot = Rc::clone(slot);
        handle.spawn(std::future::poll_fn(move |cx| {
            *slot.borrow_mut() = Some(cx.waker().clone());
            Poll::<()>::Pending
        }))
    }

    #[test]
    fn a_wake_on_the_runtimes_thread_after_block_on_returned_goes_to_the_inject_queue() {
        let rt = runtime();
        let slot = Rc::default();
        let _task = waiting_task(rt.handle(), &slot);
        // One round: the task is polled, and keeps its waker.
        rt.block_on(crate::state_machine::yield_now()).unwrap();
        // `block_on` has returned: its local queue is not this thread's
        // any more, and the wake must not look for it.
        slot.borrow_mut().take().unwrap().wake();
        let shared = &rt.handle.inner.shared;
        assert_eq!(shared.injections.load(Ordering::Relaxed), 1);
        assert!(rt.handle.inner.local.borrow().is_empty());
    }

    #[test]
    fn a_wake_for_one_runtime_during_anothers_block_on_never_lands_in_its_local_queue() {
        let (outer, inner) = (runtime(), runtime());
        let slot: Rc<RefCell<Option<Waker>>> = Rc::default();
        let _task = waiting_task(outer.handle(), &slot);
        let injections = |rt: &Runtime| rt.handle.inner.shared.injections.load(Ordering::Relaxed);
        let local = |rt: &Runtime| rt.handle.inner.local.borrow().len();
        let yield_now = crate::state_machine::yield_now;
        // The outer runtime's task polled once; its waker kept.
        outer.block_on(yield_now()).unwrap();
        let waker = slot.borrow_mut().take().unwrap();
        // 1. One after the other: the inner runtime's `block_on` is this
        //    thread's current one when the outer task's wake comes.
        inner
            .block_on(async {
                waker.wake_by_ref();
                assert_eq!(local(&inner), 0, "queued on the wrong runtime");
            })
            .unwrap();
        assert_eq!(injections(&outer), 1, "through the outer inject queue");
        assert_eq!(injections(&inner), 0);
        // 2. Nested: the inner `block_on` inside the outer's.
        outer
            .block_on(async {
                // A round for the outer runtime: the task runs (from the
                // inject queue) and leaves its waker again.
                yield_now().await;
                let waker = slot.borrow_mut().take().expect("the task ran");
                inner
                    .block_on(async {
                        waker.wake_by_ref();
                        assert_eq!(local(&inner), 0, "queued on the wrong runtime");
                    })
                    .unwrap();
                assert_eq!(injections(&outer), 2);
                yield_now().await;
                // The inner `block_on` has returned: the outer runtime is
                // this thread's current one again, and its wake is local.
                let waker = slot.borrow_mut().take().expect("the task ran");
                waker.wake();
                assert_eq!((injections(&outer), local(&outer)), (2, 1));
            })
            .unwrap();
        assert_eq!(injections(&inner), 0);
    }

    #[test]
    fn a_wake_after_the_runtime_is_gone_queues_nothing_and_frees_everything() {
        let rt = runtime();
        let slot = Rc::default();
        let task = waiting_task(rt.handle(), &slot);
        rt.block_on(crate::state_machine::yield_now()).unwrap();
        let waker = slot.borrow_mut().take().unwrap();
        let shared = Arc::downgrade(&rt.handle.inner.shared);
        drop((task, rt));
        // The task was closed with the runtime: the wake finds it done and
        // queues nothing, and once the waker goes nothing holds the
        // runtime's shared part. (The inject queue's `closed` is for a wake
        // from another thread racing the drop, which no test here stages.)
        waker.wake();
        assert!(shared.upgrade().is_none(), "the shared part was freed");
    }

    #[test]
    fn a_wake_from_another_thread_writes_once_to_wake_the_sleeping_runtime() {
        let (tx, rx) = futures::channel::oneshot::channel();
        let (notifier_tx, notifier) = mpsc::channel();
        let (injections_tx, injections) = mpsc::channel();
        let returned = in_background(move || {
            let rt = runtime();
            let handle = rt.handle().clone();
            let notifier = Arc::clone(rt.handle().reactor().notifier());
            notifier_tx.send(notifier).unwrap();
            // A task, not the main future: its wake goes through the
            // inject queue.
            let task = handle.spawn(rx);
            assert_eq!(rt.block_on(task).unwrap(), Ok("from another thread"));
            let shared = &rt.handle.inner.shared;
            injections_tx
                .send(shared.injections.load(Ordering::Relaxed))
                .unwrap();
        });
        let notifier = notifier.recv_timeout(PATIENCE).unwrap();
        let start = Instant::now();
        while !notifier.is_asleep() {
            assert!(start.elapsed() < PATIENCE, "the runtime never slept");
            thread::yield_now();
        }
        let before = Counts::now();
        tx.send("from another thread").unwrap();
        assert_eq!(Counts::since(before).eventfd_writes, 1);
        let injections = injections.recv_timeout(PATIENCE).unwrap();
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        assert_eq!(injections, 1, "the wake went through the inject queue");
    }

    #[test]
    fn after_a_wake_from_another_thread_the_runtime_drains_the_eventfd_and_sleeps_again() {
        let (tx, rx) = futures::channel::oneshot::channel();
        let (notifier_tx, notifier) = mpsc::channel();
        let (waits_tx, waits) = mpsc::channel();
        let returned = in_background(move || {
            let rt = runtime();
            let handle = rt.handle().clone();
            let notifier = Arc::clone(rt.handle().reactor().notifier());
            notifier_tx.send(notifier).unwrap();
            let task = handle.spawn(rx);
            let before = Counts::now();
            rt.block_on(async {
                assert_eq!(task.await, Ok(1));
                // Nothing to do but wait for the timer: one wait that
                // sleeps, unless the eventfd was left readable, and then
                // every wait returns at once.
                handle.sleep(Duration::from_millis(100)).await;
            })
            .unwrap();
            waits_tx.send(Counts::since(before).epoll_waits).unwrap();
        });
        let notifier = notifier.recv_timeout(PATIENCE).unwrap();
        let start = Instant::now();
        while !notifier.is_asleep() {
            assert!(start.elapsed() < PATIENCE, "the runtime never slept");
            thread::yield_now();
        }
        let before = Counts::now();
        tx.send(1).unwrap();
        assert_eq!(Counts::since(before).eventfd_writes, 1, "it slept");
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        let waits = waits.recv().unwrap();
        // The sleep until the wake, the sleep until the deadline, and a
        // spare few (a wait may end early, and then comes again); a spin
        // makes thousands in those 100 ms.
        assert!((2..=6).contains(&waits), "{waits} waits");
    }

    #[test]
    fn futures_of_other_libraries_run_waking_from_their_threads_and_locks() {
        with_patience(|| {
            let rt = runtime();
            let handle = rt.handle().clone();
            // async-lock's mutex, contended by tasks of this runtime.
            let lock = Rc::new(async_lock::Mutex::new(0u32));
            for _ in 0..10 {
                let lock = Rc::clone(&lock);
                handle.spawn(async move {
                    for _ in 0..100 {
                        *lock.lock().await += 1;
                        crate::state_machine::yield_now().await;
                    }
                });
            }
            // async-channel, fed by four threads.
            let (tx, rx) = async_channel::bounded::<u32>(8);
            let producers: Vec<_> = (0..4)
                .map(|p| {
                    let tx = tx.clone();
                    thread::spawn(move || {
                        for i in 0..250 {
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
        });
    }

    #[test]
    fn ten_thousand_timers_fire_in_deadline_order_and_none_early() {
        with_patience(|| {
            let rt = runtime();
            let handle = rt.handle().clone();
            let base = Instant::now() + Duration::from_millis(300);
            let fired = Rc::new(RefCell::new(Vec::with_capacity(10_000)));
            let tasks: Vec<_> = scrambled_delays()
                .into_iter()
                .map(|delay| {
                    let (handle, fired) = (handle.clone(), Rc::clone(&fired));
                    let deadline = base + delay;
                    handle.clone().spawn(async move {
                        let mut sleep = pin!(handle.sleep_until(deadline));
                        // As in chapter 9's test: only timers that waited in
                        // the timers (a poll returned `Pending`) must keep
                        // deadline order.
                        let mut waited = false;
                        std::future::poll_fn(|cx| {
                            let poll = sleep.as_mut().poll(cx);
                            waited |= poll.is_pending();
                            poll
                        })
                        .await;
                        fired.borrow_mut().push((deadline, Instant::now(), waited));
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
            assert!(fired.iter().all(|&(deadline, at, _)| at >= deadline));
            let waited: Vec<_> = fired.iter().filter(|f| f.2).map(|f| f.0).collect();
            assert!(waited.is_sorted(), "fired out of deadline order");
            assert_eq!(format!("{handle:?}"), "Handle { tasks: 0, timers: 0, .. }");
        });
    }

    #[test]
    fn a_dropped_sleep_leaves_the_timers_at_once() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let inner = Rc::clone(&handle.inner);
        rt.block_on(async {
            let mut sleeps: Vec<_> = (0..100)
                .map(|_| Box::pin(handle.sleep(Duration::from_secs(60))))
                .collect();
            std::future::poll_fn(|cx| {
                for sleep in &mut sleeps {
                    assert!(sleep.as_mut().poll(cx).is_pending());
                }
                Poll::Ready(())
            })
            .await;
            assert_eq!(inner.timers.borrow().waiting.len(), 100);
            sleeps.truncate(10);
            assert_eq!(inner.timers.borrow().waiting.len(), 10);
        })
        .unwrap();
    }

    #[test]
    fn dropping_the_runtime_drops_its_pending_tasks_and_panics_their_awaiters() {
        let rt = runtime();
        let handle = rt.handle().clone();
        // A task that holds the runtime's handle, waiting for ever: a
        // cycle through the runtime, which only its drop breaks.
        let marker = Rc::new(());
        let (held, kept) = (Rc::clone(&marker), handle.clone());
        let forever = handle.spawn(async move {
            let _held = (held, kept);
            std::future::pending::<()>().await;
        });
        rt.block_on(async {}).unwrap();
        assert_eq!(Rc::strong_count(&marker), 2);
        drop(handle);
        drop(rt);
        assert_eq!(Rc::strong_count(&marker), 1, "the task was dropped");
        let awaited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            futures::executor::block_on(forever)
        }));
        let message = *awaited.unwrap_err().downcast::<&str>().unwrap();
        assert_eq!(
            message,
            "the task was dropped with its runtime before it completed"
        );
    }

    #[test]
    fn a_panicking_task_panics_its_awaiter_and_the_runtime_runs_on() {
        with_patience(|| {
            let rt = runtime();
            let handle = rt.handle().clone();
            let failing = handle.spawn(async { panic!("task failed") });
            let fine = handle.spawn(async { 7 });
            let awaited = rt.block_on(async {
                let result = std::panic::AssertUnwindSafe(failing).catch_unwind().await;
                let message = *result.unwrap_err().downcast::<&str>().unwrap();
                (message, fine.await)
            });
            assert_eq!(awaited.unwrap(), ("task failed", 7));
        });
    }

    #[test]
    fn a_task_that_always_wakes_itself_does_not_starve_timers_or_io() {
        with_patience(|| {
            let rt = runtime();
            let handle = rt.handle().clone();
            let stop = Rc::new(Cell::new(false));
            let stopped = Rc::clone(&stop);
            let spinner = handle.spawn(std::future::poll_fn(move |cx| {
                if stopped.get() {
                    return Poll::Ready(());
                }
                cx.waker().wake_by_ref();
                Poll::Pending
            }));
            let (tx, rx) = futures::channel::oneshot::channel();
            let sender = thread::spawn(move || tx.send(5).unwrap());
            let sleeper = handle.clone();
            rt.block_on(async move {
                sleeper.sleep(Duration::from_millis(20)).await;
                assert_eq!(rx.await, Ok(5));
                stop.set(true);
                spinner.await;
            })
            .unwrap();
            sender.join().unwrap();
        });
    }

    #[test]
    fn a_busy_runtime_looks_at_the_reactor_every_io_interval_rounds() {
        // With the look skipped while busy, the read would wait for ever
        // beside the spinner: in the background, with a time limit.
        let returned = in_background(|| {
            assert_eq!(spins_until_a_ready_read_is_seen(), IO_INTERVAL);
        });
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
    }

    /// As chapter 9's test of the same name: with a task that wakes itself
    /// for ever (one poll a round), how many of its polls pass between a
    /// byte arriving for a waiting read (real reactor I/O, reported by
    /// `epoll_wait`) and the reading future being polled again.
    fn spins_until_a_ready_read_is_seen() -> u32 {
        let rt = runtime();
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
        let ours = Async::new(handle.reactor(), ours).unwrap();
        rt.block_on(async {
            let mut buf = [0; 1];
            let mut read = pin!(ours.read(&mut buf));
            // Waiting, with nothing to read yet.
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
    fn spawning_after_the_runtime_is_gone_panics_and_block_on_inside_a_task_too() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let inside = {
            let rt = Rc::new(rt);
            let again = Rc::clone(&rt);
            let task = handle.spawn(async move {
                let nested = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    again.block_on(async {})
                }));
                *nested.unwrap_err().downcast::<&str>().unwrap()
            });
            let message = rt.block_on(task).unwrap();
            drop(Rc::try_unwrap(rt).ok());
            message
        };
        assert_eq!(inside, "block_on called from inside a task");
        let spawned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            handle.spawn(async {});
        }));
        assert_eq!(
            *spawned.unwrap_err().downcast::<&str>().unwrap(),
            "spawn on a runtime that was dropped"
        );
    }

    #[test]
    fn sleeps_below_a_millisecond_never_end_early() {
        with_patience(|| {
            let rt = runtime();
            let handle = rt.handle().clone();
            for micros in [0, 1, 300, 999, 1000, 1001, 2500] {
                let wanted = Duration::from_micros(micros);
                let start = Instant::now();
                rt.block_on(handle.sleep(wanted)).unwrap();
                assert!(start.elapsed() >= wanted);
            }
        });
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
        let mut timers = Timers::default();
        let now = Instant::now();
        let later = now + Duration::from_millis(1);
        // Three timers: one after `now`, one exactly at `now` (not after
        // it: due), one before.
        let tasks = [TestWaker::new(), TestWaker::new(), TestWaker::new()];
        let deadlines = [later, now, now - Duration::from_millis(1)];
        for (id, (task, deadline)) in tasks.iter().zip(deadlines).enumerate() {
            timers.waiting.insert((deadline, id as u64), task.waker());
        }
        assert_eq!(timers.expire(now), Some(later));
        assert_eq!(timers.due.len(), 2);
        let mut due = timers.due.drain(..);
        // The earliest first.
        due.next().unwrap().wake();
        assert_eq!(tasks.each_ref().map(TestWaker::wakes), [0, 0, 1]);
        due.next().unwrap().wake();
        assert_eq!(tasks.each_ref().map(TestWaker::wakes), [0, 1, 1]);
        drop(due);
        assert_eq!(timers.waiting.len(), 1);
        assert_eq!(timers.expire(later), None);
        assert_eq!((timers.due.len(), timers.waiting.len()), (1, 0));
    }

    #[test]
    fn sleeps_with_the_same_deadline_wait_apart_and_both_fire() {
        let rt = runtime();
        let handle = rt.handle().clone();
        let deadline = Instant::now() + Duration::from_millis(5);
        let (first, second) = (TestWaker::new(), TestWaker::new());
        let mut sleeps = [first.waker(), second.waker()].map(|waker| {
            let mut sleep = Box::pin(handle.sleep_until(deadline));
            let polled = sleep.as_mut().poll(&mut Context::from_waker(&waker));
            assert!(polled.is_pending());
            sleep
        });
        assert_eq!(handle.inner.timers.borrow().waiting.len(), 2);
        assert_eq!((first.live(), second.live()), (1, 1));
        // Wait past the deadline: the loop fires both.
        rt.block_on(handle.sleep_until(deadline)).unwrap();
        assert_eq!((first.wakes(), second.wakes()), (1, 1));
        let mut cx = Context::from_waker(Waker::noop());
        for sleep in &mut sleeps {
            assert!(sleep.as_mut().poll(&mut cx).is_ready());
        }
    }

    #[test]
    fn a_sleep_keeps_its_tasks_waker_without_a_clone_and_takes_a_new_tasks() {
        let rt = runtime();
        let handle = rt.handle();
        let mut sleep = Box::pin(handle.sleep(Duration::from_secs(3600)));
        let (earlier, later) = (TestWaker::new(), TestWaker::new());
        let earlier_waker = earlier.waker();
        let mut cx = Context::from_waker(&earlier_waker);
        for _ in 0..3 {
            assert!(sleep.as_mut().poll(&mut cx).is_pending());
        }
        // One clone, kept: `will_wake` says it would do for the later polls.
        assert_eq!((earlier.clones(), earlier.live()), (1, 2));
        // Polled by another task: its waker replaces the earlier one.
        let later_waker = later.waker();
        let mut cx = Context::from_waker(&later_waker);
        assert!(sleep.as_mut().poll(&mut cx).is_pending());
        assert_eq!((earlier.live(), later.live()), (1, 2));
        assert_eq!(handle.inner.timers.borrow().waiting.len(), 1);
    }

    #[test]
    fn only_the_timers_step_skips_the_timers_when_there_are_none() {
        for (step, lazy) in [
            (Step::Tasks, false),
            (Step::LocalQueue, false),
            (Step::Timers, true),
        ] {
            let rt = Runtime::at_step(step).unwrap();
            assert_eq!(rt.handle.inner.lazy_timers, lazy, "{step:?}");
        }
        assert!(runtime().handle.inner.lazy_timers);
    }

    #[test]
    fn debug_shows_a_sleeps_deadline() {
        let rt = runtime();
        let sleep = rt.handle().sleep(Duration::from_secs(3600));
        let deadline = sleep.deadline;
        assert_eq!(
            format!("{sleep:?}"),
            format!("Sleep {{ deadline: {deadline:?}, .. }}")
        );
    }

    #[test]
    fn a_wake_of_the_main_future_from_another_thread_writes_once_to_wake_the_sleeping_runtime() {
        let (waker_tx, waker) = mpsc::channel();
        let (polls_tx, polls) = mpsc::channel();
        let returned = in_background(move || {
            let rt = runtime();
            let notifier = Arc::clone(rt.handle().reactor().notifier());
            let mut polled = 0;
            // `block_on`'s own future, not a task: its waker is the
            // runtime's `MainWaker`.
            rt.block_on(std::future::poll_fn(|cx| {
                polled += 1;
                if polled == 1 {
                    waker_tx
                        .send((cx.waker().clone(), Arc::clone(&notifier)))
                        .unwrap();
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            }))
            .unwrap();
            polls_tx.send(polled).unwrap();
        });
        let (waker, notifier) = waker.recv_timeout(PATIENCE).unwrap();
        let start = Instant::now();
        while !notifier.is_asleep() {
            assert!(start.elapsed() < PATIENCE, "the runtime never slept");
            thread::yield_now();
        }
        let before = Counts::now();
        waker.wake();
        assert_eq!(Counts::since(before).eventfd_writes, 1);
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        assert_eq!(polls.recv().unwrap(), 2);
    }
}

/// loom tries every interleaving of a wake from another thread — the real
/// task, scheduler, inject queue and notifier — with the loop's taking of
/// injected tasks, its run of them, and its going to sleep. The loop here
/// is the runtime's, cut down to what a wake from elsewhere touches. A
/// lost wake leaves the loop asleep on the eventfd, which loom reports as
/// a deadlock.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicUsize;

    #[test]
    fn loom_a_wake_from_another_thread_is_never_lost() {
        loom::model(|| {
            let shared = Arc::new(Shared {
                inject: Mutex::new(Inject::default()),
                injected: AtomicBool::new(false),
                notifier: Arc::new(Notifier::new().unwrap()),
                local_wakes: true,
                injections: Default::default(),
            });
            // Published with a relaxed store: only the task's flag and the
            // inject queue's flag make the poll after the wake see it.
            let data = Arc::new(AtomicUsize::new(0));
            let slot = Arc::new(Mutex::new(None::<Waker>));
            let future = {
                let (data, slot) = (Arc::clone(&data), Arc::clone(&slot));
                std::future::poll_fn(move |cx| {
                    *slot.lock().unwrap() = Some(cx.waker().clone());
                    if data.load(Ordering::Relaxed) == 1 {
                        Poll::Ready(())
                    } else {
                        Poll::Pending
                    }
                })
            };
            let scheduler = Scheduler(Arc::clone(&shared));
            // SAFETY: the registration stays with the model.
            let (runnable, registered, handle) =
                unsafe { task_cell::spawn_local(future, scheduler, 0) };
            let other = {
                let slot = Arc::clone(&slot);
                loom::thread::spawn(move || {
                    data.store(1, Ordering::Relaxed);
                    let waker = slot.lock().unwrap().take();
                    if let Some(waker) = waker {
                        waker.wake();
                    }
                })
            };
            let mut local = VecDeque::from([runnable]);
            let mut finished = false;
            while !finished {
                shared.take_injected(&mut local);
                while let Some(task) = local.pop_front() {
                    // SAFETY: spawned on this thread.
                    finished |= unsafe { task.run() };
                }
                if finished {
                    break;
                }
                let notifier = &shared.notifier;
                let sleeps = notifier.may_sleep(|| shared.injected.load(Ordering::Relaxed));
                if sleeps {
                    notifier.wait_readable();
                }
                notifier.woke(sleeps);
            }
            other.join().unwrap();
            drop((registered, handle));
            drop(slot.lock().unwrap().take());
        });
    }

    /// `block_on`'s own waker, woken from another thread after a relaxed
    /// store, while the loop (cut down: poll the main future if woken,
    /// else sleep on the notifier) runs. The wake may find `woken` still
    /// set from the start: it then notifies no one, and only `woken`'s
    /// `Release` swap and the loop's `Acquire` swap make the poll see the
    /// data. Weakening either, the poll can miss it and the loop sleeps
    /// for ever (loom reports the deadlock).
    #[test]
    fn loom_a_wake_of_the_main_future_is_never_lost() {
        loom::model(|| {
            let shared = Arc::new(Shared {
                inject: Mutex::new(Inject::default()),
                injected: AtomicBool::new(false),
                notifier: Arc::new(Notifier::new().unwrap()),
                local_wakes: true,
                injections: Default::default(),
            });
            let main = Arc::new(MainWaker {
                woken: AtomicBool::new(true),
                shared: Arc::clone(&shared),
            });
            let data = Arc::new(AtomicUsize::new(0));
            let other = {
                let data = Arc::clone(&data);
                let waker = Waker::from(Arc::clone(&main));
                loom::thread::spawn(move || {
                    data.store(1, Ordering::Relaxed);
                    waker.wake();
                })
            };
            let mut polls = 0;
            loop {
                if main.take_wake() {
                    // The main future's poll: ready once it sees the data.
                    polls += 1;
                    if data.load(Ordering::Relaxed) == 1 {
                        break;
                    }
                }
                let notifier = &shared.notifier;
                let sleeps = notifier.may_sleep(|| {
                    main.woken.load(Ordering::Relaxed) || shared.injected.load(Ordering::Relaxed)
                });
                if sleeps {
                    notifier.wait_readable();
                }
                notifier.woke(sleeps);
            }
            other.join().unwrap();
            assert!((1..=2).contains(&polls), "{polls} polls");
        });
    }
}
