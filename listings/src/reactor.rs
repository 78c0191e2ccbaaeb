//! Chapter 7: a timer reactor.
//!
//! A leaf future does not wait by itself: it registers its interest with a
//! reactor and returns `Pending`, and the reactor calls `wake` once the event
//! has come. Here the events are deadlines. One reactor thread serves every
//! timer: it keeps the deadlines in a min-heap and sleeps until the earliest
//! one (or until a new timer arrives over its channel), then wakes the tasks
//! whose time is up.
//!
//! Each timer has an entry in a map shared by the futures and the reactor
//! thread: `NotReady(waker)` until its deadline, `Ready` once the reactor has
//! fired it; once its future has seen `Ready` (or was dropped) the entry is
//! gone, and a finished timer is simply one without an entry. The reactor
//! issues the ids, so two timers never share an entry, and a late `wake`
//! for a timer that is gone does nothing. Chapter 7 builds it after the
//! first reactor of [`super::pitfalls::first_reactor`] and shows what that
//! one gets wrong.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::task::{Context, Poll, Waker};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

// Under `--cfg loom` the model checker's mutex stands in for std's, so that
// it can try every interleaving of the reactor's `wake` with a future's
// `is_ready` (see the tests).
#[cfg(loom)]
use loom::sync::Mutex;
#[cfg(not(loom))]
use std::sync::Mutex;

// ANCHOR: state
/// Names one timer of one reactor. Only [`Reactor::register`] makes them,
/// so no two timers of a reactor ever share one. (Another reactor issues
/// the same numbers: an id means something only to the reactor that
/// issued it.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId(u64);

/// Where a registered timer stands. A finished timer has no entry at all.
#[derive(Debug)]
enum TimerState {
    /// The deadline has not passed: wake this waker when it does.
    NotReady(Waker),
    /// The deadline has passed and the task was woken; its next poll
    /// completes the future, and the entry goes.
    Ready,
}

/// The state of every timer somebody waits for, shared by the futures and
/// the reactor thread.
type Timers = Mutex<HashMap<TimerId, TimerState>>;
// ANCHOR_END: state

/// As good as for ever, for a timer: `Instant + Duration::MAX` would
/// overflow (and panic).
const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

// ANCHOR: reactor
/// A timer reactor: one thread that wakes every timer's task when its
/// deadline passes. Dropping it stops the thread and lets go of the wakers
/// of timers still pending.
#[derive(Debug)]
pub struct Reactor {
    timers: Arc<Timers>,
    /// The next id to issue.
    next_id: AtomicU64,
    /// How the reactor thread hears of new timers, and of closing.
    events: Sender<Event>,
    thread: Option<JoinHandle<()>>,
}

/// What the reactor thread receives over its channel.
#[derive(Debug)]
enum Event {
    /// A new timer, to be fired at this instant.
    Timeout(Instant, TimerId),
    /// The reactor is being dropped: stop.
    Close,
}
// ANCHOR_END: reactor

impl Default for Reactor {
    fn default() -> Self {
        Reactor::new()
    }
}

impl Reactor {
    // ANCHOR: new
    /// Starts the reactor thread.
    pub fn new() -> Self {
        let timers = Arc::new(Timers::default());
        let (events, receiver) = mpsc::channel();
        let thread_timers = Arc::clone(&timers);
        let thread = thread::spawn(move || run(&thread_timers, receiver));
        Reactor {
            timers,
            next_id: AtomicU64::new(0),
            events,
            thread: Some(thread),
        }
    }
    // ANCHOR_END: new

    // ANCHOR: register
    /// Registers a timer that fires `duration` from now and then wakes
    /// `waker`, and returns its id.
    pub fn register(&self, duration: Duration, waker: Waker) -> TimerId {
        // The count only has to hand out each number once: no other memory
        // is published through it, so `Relaxed` is enough.
        let id = TimerId(self.next_id.fetch_add(1, Ordering::Relaxed));
        // `Duration::MAX` from now is not an `Instant`: a century is as
        // good as for ever.
        let deadline = Instant::now() + duration.min(CENTURY);
        // The entry goes in before the reactor thread can hear of the timer:
        // the other way round, the thread could fire it, find no entry and
        // do nothing, and the task would never be woken.
        self.timers
            .lock()
            .unwrap()
            .insert(id, TimerState::NotReady(waker));
        self.events
            .send(Event::Timeout(deadline, id))
            .expect("the reactor thread is running");
        id
    }
    // ANCHOR_END: register

    /// Whether timer `id` has fired. If not, `waker` is the one its firing
    /// will wake. A timer that has fired is finished once this has said so:
    /// its entry goes, and it stays ready.
    pub fn is_ready(&self, id: TimerId, waker: &Waker) -> bool {
        is_ready(&self.timers, id, waker)
    }

    // ANCHOR: cancel
    /// Forgets timer `id`, and the waker it holds, before its deadline;
    /// nothing happens if it has finished already.
    pub fn cancel(&self, id: TimerId) {
        // `Sleep`'s destructor calls this. If a panic elsewhere poisoned the
        // lock, panicking again here could abort the process: leave the
        // entry where it is instead.
        let removed = match self.timers.lock() {
            Ok(mut timers) => timers.remove(&id),
            Err(_) => None,
        };
        // Dropped after unlocking, like every waker the reactor lets go of:
        // its task may go with it, and that task's futures may lock
        // `timers` (see `is_ready`).
        drop(removed);
    }
    // ANCHOR_END: cancel

    /// A future that completes `duration` after its first poll.
    pub fn sleep(&self, duration: Duration) -> Sleep<'_> {
        Sleep {
            reactor: self,
            duration,
            id: None,
        }
    }
}

// ANCHOR: wake
/// Fires timer `id`: what the reactor thread does when its deadline passes.
fn wake(timers: &Timers, id: TimerId) {
    let mut timers = timers.lock().unwrap();
    // A timer without an entry has finished, or its future was dropped:
    // nobody waits for it any more, so there is nothing to do.
    let Some(state) = timers.get_mut(&id) else {
        return;
    };
    // Fired once already: it stays `Ready`, and nobody is woken twice.
    let TimerState::NotReady(waker) = mem::replace(state, TimerState::Ready) else {
        return;
    };
    // Wake after unlocking: the woken task may be polled on another thread
    // at once, and its poll needs the lock.
    drop(timers);
    waker.wake();
}
// ANCHOR_END: wake

// ANCHOR: is_ready
/// Checks timer `id` and, if it is not ready, leaves `waker` to be woken,
/// both under one lock: the reactor thread cannot fire the timer in between,
/// so either it finds this waker or this finds `Ready`.
fn is_ready(timers: &Timers, id: TimerId, waker: &Waker) -> bool {
    let mut timers = timers.lock().unwrap();
    match timers.get_mut(&id) {
        Some(TimerState::NotReady(stored)) => {
            // Keep the waker of the task polling now (the future may have
            // moved to another task), but skip the clone when the stored
            // one would wake the same task anyway.
            if !stored.will_wake(waker) {
                let old = mem::replace(stored, waker.clone());
                // Dropped after unlocking: dropping a waker can drop its
                // task, and with it futures that lock `timers` (a `Sleep`
                // cancels itself).
                drop(timers);
                drop(old);
            }
            false
        }
        Some(TimerState::Ready) => {
            // Finished: the entry goes, so a late `wake` finds nothing.
            timers.remove(&id);
            true
        }
        // Finished at an earlier poll.
        None => true,
    }
}
// ANCHOR_END: is_ready

// ANCHOR: run
/// The reactor thread: fires each timer when its deadline passes, and
/// otherwise sleeps until the earliest deadline or the next event.
fn run(timers: &Timers, events: Receiver<Event>) {
    let mut deadlines = Deadlines::default();
    loop {
        let now = Instant::now();
        while let Some(id) = deadlines.pop_due(now) {
            wake(timers, id);
        }
        let event = match deadlines.next() {
            // (Measured again: the wakes above may have taken a while.)
            Some(deadline) => {
                events.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            }
            None => events.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match event {
            Ok(Event::Timeout(deadline, id)) => deadlines.push(deadline, id, timers),
            // The earliest deadline has come: back to the top to fire it.
            Err(RecvTimeoutError::Timeout) => {}
            Ok(Event::Close) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The deadlines to come, earliest on top (`Reverse` turns std's max-heap
/// into a min-heap). A timer cancelled before its deadline keeps its
/// place here, and `wake` finds no entry for it: lazy deletion, since
/// removing it at once would mean searching the heap. So that cancelled
/// long timeouts do not pile up until their deadlines, the heap is swept
/// each time it has doubled since the last sweep: it never holds more
/// than twice the timers pending at that sweep (or 64), and each timer
/// costs O(1) of sweeping, amortized.
#[derive(Debug)]
struct Deadlines {
    heap: BinaryHeap<Reverse<(Instant, TimerId)>>,
    /// The size at which to sweep next.
    sweep_at: usize,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            heap: BinaryHeap::new(),
            sweep_at: 64,
        }
    }
}

impl Deadlines {
    fn push(&mut self, deadline: Instant, id: TimerId, timers: &Timers) {
        self.heap.push(Reverse((deadline, id)));
        if self.heap.len() >= self.sweep_at {
            // Keep the deadlines of timers that still have an entry.
            let timers = timers.lock().unwrap();
            self.heap.retain(|Reverse((_, id))| timers.contains_key(id));
            drop(timers);
            self.sweep_at = (2 * self.heap.len()).max(64);
        }
    }

    /// The earliest deadline, if it is not after `now`, taken off.
    fn pop_due(&mut self, now: Instant) -> Option<TimerId> {
        let &Reverse((deadline, id)) = self.heap.peek()?;
        if deadline > now {
            return None;
        }
        self.heap.pop();
        Some(id)
    }

    /// The earliest deadline to come.
    fn next(&self) -> Option<Instant> {
        self.heap.peek().map(|&Reverse((deadline, _))| deadline)
    }
}
// ANCHOR_END: run

// ANCHOR: drop
impl Drop for Reactor {
    fn drop(&mut self) {
        // The thread may be asleep until a deadline an hour away: the event
        // wakes it now. (Sending fails only if the thread is gone already.)
        let _ = self.events.send(Event::Close);
        if let Some(thread) = self.thread.take() {
            // An error here means the thread panicked (a waker's `wake`
            // did); its message is printed already, and a destructor had
            // better not panic again.
            let _ = thread.join();
        }
        // The thread's handle on `timers` is gone; ours goes right after
        // this, and with it the wakers of the timers still pending.
    }
}
// ANCHOR_END: drop

// ANCHOR: sleep
/// A future that completes once its duration has passed since its first
/// poll. Made by [`Reactor::sleep`]; it borrows the reactor, which so
/// outlives it.
#[derive(Debug)]
pub struct Sleep<'r> {
    reactor: &'r Reactor,
    duration: Duration,
    /// `None` until the first poll registers the timer.
    id: Option<TimerId>,
}

impl Future for Sleep<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let ready = match self.id {
            // The first poll starts the clock.
            None => {
                let id = self.reactor.register(self.duration, cx.waker().clone());
                self.id = Some(id);
                false
            }
            Some(id) => self.reactor.is_ready(id, cx.waker()),
        };
        if ready {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Sleep<'_> {
    fn drop(&mut self) {
        // Dropped before its deadline: the reactor lets go of the task's
        // waker now, not when the deadline comes. (After completion there
        // is no entry left, and this does nothing.)
        if let Some(id) = self.id {
            self.reactor.cancel(id);
        }
    }
}
// ANCHOR_END: sleep

/// loom tries every interleaving of the reactor thread firing a timer with
/// a poll of its future from a task other than the one that registered it
/// (the future has moved): if the poll says "not ready", the polling task
/// is woken. The pitfall [`super::pitfalls::split_lock_reactor`] runs the
/// same model against an `is_ready` that checks and stores under two locks.
#[cfg(all(test, loom))]
pub mod loom_tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    /// Counts its wakes.
    #[derive(Default)]
    struct CountWakes(AtomicUsize);

    impl Wake for CountWakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The model. `new_timer` makes the shared state with one timer,
    /// registered with the given waker; `fire` is the reactor's `wake` of
    /// it and `is_ready` a poll's check. Panics with "lost wake-up" when an
    /// interleaving leaves a pending poll's task unwoken.
    pub fn check_fire_against_poll<S: Send + Sync + 'static>(
        new_timer: fn(Waker) -> S,
        fire: fn(&S),
        is_ready: fn(&S, &Waker) -> bool,
    ) {
        loom::model(move || {
            // The task that polled first, and the one polling now.
            let (first, polling) = (
                Arc::new(CountWakes::default()),
                Arc::new(CountWakes::default()),
            );
            let shared = loom::sync::Arc::new(new_timer(Waker::from(first)));
            let reactor = {
                let shared = loom::sync::Arc::clone(&shared);
                loom::thread::spawn(move || fire(&shared))
            };
            let waker = Waker::from(Arc::clone(&polling));
            let ready = is_ready(&shared, &waker);
            reactor.join().unwrap();
            let woken = polling.0.load(Ordering::SeqCst);
            if ready {
                assert_eq!(woken, 0, "a ready poll's task is not woken");
            } else {
                assert_eq!(woken, 1, "lost wake-up");
                assert!(is_ready(&shared, &waker), "woken, but still not ready");
            }
        });
    }

    #[test]
    fn loom_firing_a_timer_while_it_is_polled_never_loses_the_wake_up() {
        check_fire_against_poll(
            |waker| {
                let timers = Timers::default();
                let id = TimerId(0);
                timers
                    .lock()
                    .unwrap()
                    .insert(id, TimerState::NotReady(waker));
                (timers, id)
            },
            |(timers, id)| wake(timers, *id),
            |(timers, id), waker| is_ready(timers, *id, waker),
        );
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::block_on::block_on;
    use crate::test_executors::{PATIENCE, in_background};
    use crate::test_wakers::{TestWaker, eventually};
    use std::pin::pin;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;
    use std::thread;

    const MS: Duration = Duration::from_millis(1);

    fn entries(reactor: &Reactor) -> usize {
        reactor.timers.lock().unwrap().len()
    }

    fn poll(sleep: Pin<&mut Sleep<'_>>, waker: &Waker) -> Poll<()> {
        sleep.poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn a_sleep_of_duration_max_waits_without_panicking() {
        let reactor = Reactor::new();
        let task = TestWaker::new();
        {
            let mut sleep = pin!(reactor.sleep(Duration::MAX));
            assert!(poll(sleep.as_mut(), &task.waker()).is_pending());
            assert_eq!(entries(&reactor), 1);
        }
        assert_eq!(entries(&reactor), 0);
    }

    #[test]
    fn the_entry_is_in_place_before_the_reactor_thread_hears_of_the_timer() {
        // A reactor without its thread: the test plays the thread, and
        // holds the map's lock while `register` runs on another thread.
        let (events, heard) = mpsc::channel();
        let reactor = Arc::new(Reactor {
            timers: Arc::new(Timers::default()),
            next_id: AtomicU64::new(0),
            events,
            thread: None,
        });
        let held = reactor.timers.lock().unwrap();
        let registering = {
            let reactor = Arc::clone(&reactor);
            thread::spawn(move || reactor.register(Duration::ZERO, TestWaker::new().waker()))
        };
        // While the lock is held, the timer cannot be announced: `register`
        // inserts its entry (under the lock) first. Announced before, a
        // zero-length timer would be fired, and found missing, at once.
        assert!(
            heard.recv_timeout(Duration::from_millis(500)).is_err(),
            "the reactor thread heard of a timer with no entry yet"
        );
        drop(held);
        let Ok(Event::Timeout(_, id)) = heard.recv_timeout(PATIENCE) else {
            panic!("no timer announced");
        };
        assert!(reactor.timers.lock().unwrap().contains_key(&id));
        assert_eq!(registering.join().unwrap(), id);
    }

    /// 100 pending timers (ids 0 to 99), all due at `later`, and their
    /// deadlines.
    fn a_hundred_pending(later: Instant) -> (Timers, Deadlines) {
        let timers = Timers::default();
        let mut deadlines = Deadlines::default();
        for i in 0..100 {
            timers.lock().unwrap().insert(TimerId(i), TimerState::Ready);
            deadlines.push(later, TimerId(i), &timers);
        }
        (timers, deadlines)
    }

    #[test]
    fn cancelled_deadlines_are_swept_out_of_the_heap() {
        let later = Instant::now() + Duration::from_secs(3600);
        // 100 pending timers, then 10,000 cancelled ones (entries gone).
        let (timers, mut deadlines) = a_hundred_pending(later);
        for i in 100..10_100 {
            deadlines.push(later, TimerId(i), &timers);
            // Never more than twice the pending timers (or 64).
            assert!(deadlines.heap.len() <= 2 * 100, "{}", deadlines.heap.len());
        }
        // The pending timers' deadlines are all still there.
        let kept: std::collections::HashSet<_> =
            deadlines.heap.iter().map(|Reverse((_, id))| *id).collect();
        assert!((0..100).all(|i| kept.contains(&TimerId(i))));
    }

    #[test]
    fn a_sweep_comes_only_once_the_heap_has_doubled_since_the_last() {
        // 100 pending timers, then cancelled ones: the heap grows to twice
        // the pending timers before each sweep (amortized O(1) a timer),
        // and a sweep keeps exactly the pending ones.
        let later = Instant::now() + Duration::from_secs(3600);
        let (timers, mut deadlines) = a_hundred_pending(later);
        assert_eq!(deadlines.heap.len(), 100);
        let mut lengths = Vec::new();
        for i in 100..600 {
            deadlines.push(later, TimerId(i), &timers);
            lengths.push(deadlines.heap.len());
        }
        // 101 up to 127, swept at 128 (twice the 64 of the first sweep);
        // then 101 up to 199, swept at 200, and so on.
        let mut expected = Vec::new();
        let mut len = 100;
        let mut sweep_at = 128;
        for _ in 100..600 {
            len += 1;
            if len >= sweep_at {
                len = 100;
                sweep_at = 200;
            }
            expected.push(len);
        }
        assert_eq!(lengths, expected);
        assert_eq!(lengths.iter().max(), Some(&199));
    }

    #[test]
    fn a_deadline_equal_to_now_is_due_and_a_later_one_is_not() {
        let timers = Timers::default();
        let mut deadlines = Deadlines::default();
        let now = Instant::now();
        deadlines.push(now + MS, TimerId(1), &timers);
        deadlines.push(now, TimerId(0), &timers);
        assert_eq!(deadlines.next(), Some(now));
        assert_eq!(deadlines.pop_due(now - MS), None);
        assert_eq!(deadlines.pop_due(now), Some(TimerId(0)));
        assert_eq!(deadlines.pop_due(now), None);
        assert_eq!(deadlines.next(), Some(now + MS));
        assert_eq!(deadlines.pop_due(now + MS), Some(TimerId(1)));
        assert_eq!(deadlines.next(), None);
    }

    #[test]
    fn a_timer_is_announced_with_its_deadline_and_duration_max_is_a_century() {
        // The test plays the reactor thread, and reads the deadlines.
        let (events, heard) = mpsc::channel();
        let reactor = Reactor {
            timers: Arc::new(Timers::default()),
            next_id: AtomicU64::new(0),
            events,
            thread: None,
        };
        assert_eq!(CENTURY, Duration::from_secs(86_400) * 365 * 100);
        for duration in [5 * MS, Duration::MAX] {
            let before = Instant::now();
            let id = reactor.register(duration, TestWaker::new().waker());
            let after = Instant::now();
            let Ok(Event::Timeout(deadline, announced)) = heard.try_recv() else {
                panic!("no timer announced");
            };
            assert_eq!(announced, id);
            let duration = duration.min(CENTURY);
            assert!(deadline >= before + duration);
            assert!(deadline <= after + duration);
        }
    }

    #[test]
    fn sleep_completes_no_sooner_than_its_duration() {
        let reactor = Reactor::new();
        let start = Instant::now();
        block_on(reactor.sleep(30 * MS));
        let elapsed = start.elapsed();
        assert!(elapsed >= 30 * MS, "{elapsed:?}");
        assert!(elapsed < PATIENCE, "{elapsed:?}");
    }

    #[test]
    fn sleeps_awaited_one_after_the_other_add_up() {
        let reactor = Reactor::new();
        let start = Instant::now();
        block_on(async {
            reactor.sleep(20 * MS).await;
            let first = start.elapsed();
            reactor.sleep(30 * MS).await;
            assert!(first >= 20 * MS, "{first:?}");
        });
        let elapsed = start.elapsed();
        assert!(elapsed >= 50 * MS, "the second starts after the first");
        assert!(elapsed < PATIENCE, "{elapsed:?}");
    }

    #[test]
    fn each_timer_gets_its_own_id_and_wakes_only_its_task() {
        let reactor = Reactor::new();
        let (first, second) = (TestWaker::new(), TestWaker::new());
        let first_id = reactor.register(10 * MS, first.waker());
        let second_id = reactor.register(20 * MS, second.waker());
        assert_ne!(first_id, second_id);
        eventually("both timers fired", || {
            first.wakes() == 1 && second.wakes() == 1
        });
        // Each waker was taken out and used up; the reactor keeps none.
        eventually("both wakers are gone", || first.live() + second.live() == 0);
        assert!(reactor.is_ready(first_id, &first.waker()));
        assert!(reactor.is_ready(second_id, &second.waker()));
        assert_eq!((first.wakes(), second.wakes()), (1, 1), "once each");
    }

    #[test]
    fn waking_a_finished_or_cancelled_timer_does_nothing() {
        let reactor = Reactor::new();
        let task = TestWaker::new();
        // Far in the future: only the calls below fire it.
        let finished = reactor.register(Duration::from_secs(3600), task.waker());
        wake(&reactor.timers, finished);
        assert!(reactor.is_ready(finished, &task.waker()));
        assert_eq!(entries(&reactor), 0, "a finished timer's entry is gone");
        wake(&reactor.timers, finished);
        assert_eq!(entries(&reactor), 0, "a late wake brings nothing back");
        assert!(reactor.is_ready(finished, &task.waker()), "still finished");

        let cancelled = reactor.register(Duration::from_secs(3600), task.waker());
        reactor.cancel(cancelled);
        wake(&reactor.timers, cancelled);
        assert_eq!(entries(&reactor), 0);
        assert_eq!(task.wakes(), 1, "only the first firing woke the task");
    }

    /// A waker whose `wake` blocks until released.
    struct BlockingWake {
        started: mpsc::Sender<()>,
        release: Mutex<mpsc::Receiver<()>>,
    }

    impl Wake for BlockingWake {
        fn wake(self: Arc<Self>) {
            self.started.send(()).unwrap();
            let _ = self.release.lock().unwrap().recv();
        }
    }

    /// Keeps the reactor thread busy, in the `wake` of a timer that fires
    /// at once, until the returned sender sends (or is dropped).
    fn hold_the_reactor_thread(reactor: &Reactor) -> mpsc::Sender<()> {
        let (started, has_started) = mpsc::channel();
        let (release, released) = mpsc::channel();
        let blocking = BlockingWake {
            started,
            release: Mutex::new(released),
        };
        let id = reactor.register(Duration::ZERO, Waker::from(Arc::new(blocking)));
        has_started.recv_timeout(PATIENCE).unwrap();
        // Fired, and nobody will poll it: its entry goes.
        reactor.cancel(id);
        release
    }

    #[test]
    fn a_dropped_timer_is_skipped_and_later_timers_still_fire() {
        let reactor = Reactor::new();
        let (dropped, kept) = (TestWaker::new(), TestWaker::new());
        // While the reactor thread is held, two timers are due at once and
        // the first is dropped: the thread cannot fire it before the drop.
        let release = hold_the_reactor_thread(&reactor);
        let mut early = Box::pin(reactor.sleep(Duration::ZERO));
        let mut late = pin!(reactor.sleep(MS));
        assert!(poll(early.as_mut(), &dropped.waker()).is_pending());
        assert!(poll(late.as_mut(), &kept.waker()).is_pending());
        drop(early);
        release.send(()).unwrap();
        // The heap pops the dropped timer's deadline first and finds no
        // entry for it; the reactor thread carries on to the next one.
        eventually("the later timer fired", || kept.wakes() == 1);
        assert!(poll(late.as_mut(), &kept.waker()).is_ready());
        assert_eq!(dropped.wakes(), 0);
        assert_eq!(entries(&reactor), 0);
        // And the reactor still works.
        block_on(reactor.sleep(MS));
    }

    #[test]
    fn a_completed_timer_leaves_no_entry() {
        let reactor = Reactor::new();
        block_on(async {
            let mut sleep = pin!(reactor.sleep(5 * MS));
            sleep.as_mut().await;
            assert_eq!(entries(&reactor), 0, "gone once the future saw Ready");
        });
    }

    /// A waker that reports when it is woken.
    struct ReportWake {
        timer: usize,
        report: mpsc::Sender<(usize, Instant)>,
    }

    impl Wake for ReportWake {
        fn wake(self: Arc<Self>) {
            let _ = self.report.send((self.timer, Instant::now()));
        }
    }

    #[test]
    fn the_reactor_never_fires_a_timer_early() {
        let reactor = Reactor::new();
        let (report, reports) = mpsc::channel();
        let start = Instant::now();
        // 50 timers, registered out of order, all due within 200 ms.
        let durations: Vec<Duration> = (0..50).map(|i| (i * 37 % 200) * MS).collect();
        for (timer, &duration) in durations.iter().enumerate() {
            let report = report.clone();
            reactor.register(
                duration,
                Waker::from(Arc::new(ReportWake { timer, report })),
            );
        }
        let mut woken = vec![0; durations.len()];
        for _ in &durations {
            let (timer, at) = reports.recv_timeout(PATIENCE).expect("every timer fires");
            assert!(
                at >= start + durations[timer],
                "timer {timer} fired {:?} early",
                start + durations[timer] - at
            );
            woken[timer] += 1;
        }
        assert!(woken.iter().all(|&n| n == 1), "each fired once: {woken:?}");
    }

    #[test]
    fn a_dropped_timer_lets_go_of_its_waker_at_once() {
        let reactor = Reactor::new();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut sleep = Box::pin(reactor.sleep(Duration::from_secs(3600)));
        assert!(poll(sleep.as_mut(), &waker).is_pending());
        assert_eq!(task.live(), 2, "ours and the reactor's");
        drop(sleep);
        // An hour before the deadline.
        assert_eq!(task.live(), 1, "the reactor let go of its waker");
        assert_eq!(entries(&reactor), 0);
    }

    #[test]
    fn dropping_the_reactor_stops_its_thread_and_lets_go_of_pending_wakers() {
        let reactor = Reactor::new();
        let task = TestWaker::new();
        reactor.register(Duration::from_secs(3600), task.waker());
        assert_eq!(task.live(), 1, "the reactor holds it");
        // Dropped on another thread, so that a `drop` that waited for the
        // deadline would fail the test rather than hang it.
        let dropped = in_background(move || drop(reactor));
        // The thread did not sleep on until the deadline: the close event
        // woke it, and `drop` joined it.
        dropped.recv_timeout(PATIENCE).unwrap().unwrap();
        assert_eq!(task.live(), 0, "the pending timer's waker is gone");
        assert_eq!(task.wakes(), 0);
    }

    #[test]
    fn polling_again_with_the_same_waker_does_not_clone_it() {
        let reactor = Reactor::new();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut sleep = pin!(reactor.sleep(Duration::from_secs(3600)));
        for _ in 0..3 {
            assert!(poll(sleep.as_mut(), &waker).is_pending());
        }
        assert_eq!(task.clones(), 1, "stored once; will_wake skips the rest");
    }

    #[test]
    fn the_task_that_polled_last_is_woken() {
        let reactor = Reactor::new();
        let (old_task, new_task) = (TestWaker::new(), TestWaker::new());
        // Far in the future: the test fires it by hand, as the reactor
        // thread would.
        let mut sleep = pin!(reactor.sleep(Duration::from_secs(3600)));
        assert!(poll(sleep.as_mut(), &old_task.waker()).is_pending());
        // The future now belongs to another task, which polls it.
        assert!(poll(sleep.as_mut(), &new_task.waker()).is_pending());
        assert_eq!(old_task.live(), 0, "the old waker was replaced");
        wake(&reactor.timers, sleep.id.unwrap());
        assert_eq!(new_task.wakes(), 1, "the task that polled last is woken");
        assert_eq!(old_task.wakes(), 0, "the old task is not");
        assert!(poll(sleep.as_mut(), &new_task.waker()).is_ready());
    }

    #[test]
    fn firing_during_the_waker_store_still_wakes_the_task() {
        // The new waker's first clone happens inside `is_ready`, while it
        // stores the waker; at that moment the hook fires the timer from
        // another thread and notes whether the lock was free. It is not, so
        // the firing waits until the waker is stored, then wakes it.
        let reactor = Reactor::new();
        let mut sleep = pin!(reactor.sleep(Duration::from_secs(3600)));
        assert!(poll(sleep.as_mut(), &TestWaker::new().waker()).is_pending());
        let id = sleep.id.unwrap();
        let timers = Arc::clone(&reactor.timers);
        let (report, reports) = mpsc::channel();
        let task = TestWaker::with_clone_hook(move || {
            let locked = matches!(timers.try_lock(), Err(std::sync::TryLockError::WouldBlock));
            let firing = thread::spawn(move || wake(&timers, id));
            report.send((locked, firing)).unwrap();
        });
        let waker = task.waker();
        assert!(poll(sleep.as_mut(), &waker).is_pending());
        let (locked_during_store, firing) = reports.try_recv().expect("the store cloned the waker");
        assert!(
            locked_during_store,
            "is_ready holds the lock while it stores"
        );
        firing.join().unwrap();
        assert_eq!(task.wakes(), 1, "no lost wake-up");
        assert!(poll(sleep.as_mut(), &waker).is_ready());
    }

    #[test]
    fn joined_sleeps_run_at_the_same_time() {
        // Both timers are registered by the first poll of the join, before
        // either fires: the reactor holds two entries at once.
        let reactor = Reactor::new();
        let most = AtomicUsize::new(0);
        block_on(futures::future::join(
            async {
                reactor.sleep(10 * MS).await;
            },
            async {
                // By now the join's first poll has registered both.
                let mut sleep = pin!(reactor.sleep(30 * MS));
                std::future::poll_fn(|cx| {
                    let poll = sleep.as_mut().poll(cx);
                    most.fetch_max(entries(&reactor), Ordering::SeqCst);
                    poll
                })
                .await;
            },
        ));
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}
