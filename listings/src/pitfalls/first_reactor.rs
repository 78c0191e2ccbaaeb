//! Chapter 7: the first reactor, and where it breaks.
//!
//! Its shape is the one readers meet in most introductions: a reactor thread
//! receives events over a channel, each timer has a state (`NotReady`,
//! `Ready`, `Finished`) in a map keyed by an id, and `register`, `wake` and
//! `is_ready` work on that map. It keeps what chapter 2 taught (check and
//! store under one lock, replace the waker, let go of it on drop), and it
//! works while every timer has an id of its own and runs to its end. It
//! breaks in three ways, each shown by a test:
//!
//! - The caller chooses the id. Two timers given the same one share an
//!   entry: the second registration throws the first task's waker away, and
//!   that task is never woken.
//! - `wake` expects the entry to be there. A timer dropped before its
//!   deadline has removed it, so the late `wake` panics while it holds the
//!   lock: the lock is poisoned, and every other timer of the reactor dies.
//! - Every timer gets a thread that sleeps until its deadline: a thousand
//!   pending timeouts are a thousand threads, and a dropped timer's thread
//!   sleeps on (`listings/tests/reactor_threads.rs` counts them).
//!
//! [`super::super::reactor`] fixes all three.

use std::collections::HashMap;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread::{self, JoinHandle};
use std::time::Duration;

// ANCHOR: state
/// Where a timer stands.
#[derive(Debug)]
enum TimerState {
    /// The deadline has not passed: wake this waker when it does.
    NotReady(Waker),
    /// The deadline has passed and the task was woken.
    Ready,
    /// The future has seen `Ready` and completed.
    Finished,
}

/// The state of every timer, by the id its caller chose.
type Timers = Mutex<HashMap<usize, TimerState>>;
// ANCHOR_END: state

// ANCHOR: reactor
/// The first reactor: a thread that hears of timers over a channel and
/// gives each one a thread of its own.
#[derive(Debug)]
pub struct Reactor {
    timers: Arc<Timers>,
    events: Sender<Event>,
    thread: Option<JoinHandle<()>>,
}

/// What the reactor thread receives over its channel.
#[derive(Debug)]
enum Event {
    /// Timer `id` fires after this duration.
    Timeout(Duration, usize),
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
        let thread = thread::spawn(move || {
            for event in receiver {
                match event {
                    // BUG: one thread per timer, asleep until its deadline.
                    Event::Timeout(duration, id) => {
                        let timers = Arc::clone(&thread_timers);
                        thread::spawn(move || {
                            thread::sleep(duration);
                            wake(&timers, id);
                        });
                    }
                    Event::Close => break,
                }
            }
        });
        Reactor {
            timers,
            events,
            thread: Some(thread),
        }
    }
    // ANCHOR_END: new

    // ANCHOR: register
    /// Registers timer `id`, which fires `duration` from now and then
    /// wakes `waker`.
    pub fn register(&self, id: usize, duration: Duration, waker: Waker) {
        // BUG: if another timer has this id, its entry (and the waker of
        // the task waiting on it) is silently replaced.
        self.timers
            .lock()
            .unwrap()
            .insert(id, TimerState::NotReady(waker));
        self.events.send(Event::Timeout(duration, id)).unwrap();
    }
    // ANCHOR_END: register

    // ANCHOR: is_ready
    /// Whether timer `id` has fired; if not, `waker` is the one its firing
    /// will wake. Checks and stores under one lock, as in chapter 2.
    pub fn is_ready(&self, id: usize, waker: &Waker) -> bool {
        let mut timers = self.timers.lock().unwrap();
        match timers.get_mut(&id) {
            Some(TimerState::NotReady(stored)) => {
                if !stored.will_wake(waker) {
                    *stored = waker.clone();
                }
                false
            }
            Some(state) => {
                *state = TimerState::Finished;
                true
            }
            None => false,
        }
    }
    // ANCHOR_END: is_ready

    /// Forgets timer `id`: what a dropped [`Timer`] does.
    pub fn remove(&self, id: usize) {
        if let Ok(mut timers) = self.timers.lock() {
            timers.remove(&id);
        }
    }

    /// A future that completes `duration` after its first poll, as timer `id`.
    pub fn timer(&self, id: usize, duration: Duration) -> Timer<'_> {
        Timer {
            reactor: self,
            id,
            duration,
            registered: false,
        }
    }
}

// ANCHOR: wake
/// Fires timer `id`: what its thread does once it has slept.
fn wake(timers: &Timers, id: usize) {
    let mut timers = timers.lock().unwrap();
    // BUG: the timer's future may have been dropped, and its entry with it.
    // Then this panics, holding the lock, and poisons it.
    let state = timers.get_mut(&id).unwrap();
    if let TimerState::NotReady(waker) = mem::replace(state, TimerState::Ready) {
        drop(timers);
        waker.wake();
    }
}
// ANCHOR_END: wake

impl Drop for Reactor {
    fn drop(&mut self) {
        // The timer threads are not the reactor thread's: they sleep on.
        let _ = self.events.send(Event::Close);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

// ANCHOR: timer
/// A future that completes once its duration has passed since its first
/// poll, as the timer its caller named.
#[derive(Debug)]
pub struct Timer<'r> {
    reactor: &'r Reactor,
    id: usize,
    duration: Duration,
    registered: bool,
}

impl Future for Timer<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if !self.registered {
            self.registered = true;
            self.reactor
                .register(self.id, self.duration, cx.waker().clone());
            return Poll::Pending;
        }
        if self.reactor.is_ready(self.id, cx.waker()) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Timer<'_> {
    fn drop(&mut self) {
        // Let go of the task's waker now, as chapter 2's timer does.
        if self.registered {
            self.reactor.remove(self.id);
        }
    }
}
// ANCHOR_END: timer

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_executors::PATIENCE;
    use crate::test_wakers::{TestWaker, eventually};
    use std::panic::{self, AssertUnwindSafe};
    use std::pin::pin;
    use std::time::Instant;

    const MS: Duration = Duration::from_millis(1);

    fn poll(timer: Pin<&mut Timer<'_>>, waker: &Waker) -> Poll<()> {
        timer.poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn the_first_reactor_works_while_every_timer_has_its_own_id() {
        let reactor = Reactor::new();
        let start = Instant::now();
        crate::block_on::block_on(async {
            reactor.timer(1, 20 * MS).await;
            futures::future::join(reactor.timer(2, 10 * MS), reactor.timer(3, 30 * MS)).await;
        });
        let elapsed = start.elapsed();
        assert!(elapsed >= 50 * MS, "20 ms, then 10 and 30 ms at once");
        assert!(elapsed < PATIENCE, "{elapsed:?}");
    }

    #[test]
    fn two_timers_given_the_same_id_lose_a_wake_up() {
        let reactor = Reactor::new();
        let (first, second) = (TestWaker::new(), TestWaker::new());
        // Two tasks that happen to choose the same id.
        reactor.register(7, Duration::from_secs(3600), first.waker());
        reactor.register(7, 10 * MS, second.waker());
        // The second registration replaced the first one's entry, and
        // dropped its waker: nothing can wake the first task any more,
        // though its thread will call `wake` in an hour.
        assert_eq!(first.live(), 0, "the first task's waker is gone");
        eventually("the 10 ms deadline fired", || second.wakes() == 1);
        assert!(reactor.is_ready(7, &second.waker()));
        assert_eq!(first.wakes(), 0, "the first task is not woken");
    }

    #[test]
    fn a_dropped_timer_makes_the_first_reactor_panic_and_poisons_it() {
        let reactor = Reactor::new();
        let task = TestWaker::new();
        let hour = Duration::from_secs(3600);
        let mut other = pin!(reactor.timer(2, hour));
        assert!(poll(other.as_mut(), &task.waker()).is_pending());
        // A timeout that lost its race: polled once, then dropped.
        let mut dropped = Box::pin(reactor.timer(1, hour));
        assert!(poll(dropped.as_mut(), &task.waker()).is_pending());
        drop(dropped);
        // In an hour its thread wakes up and calls `wake`, which finds no
        // entry: this thread does it now.
        let timers = Arc::clone(&reactor.timers);
        let late_wake = thread::spawn(move || wake(&timers, 1));
        assert!(late_wake.join().is_err(), "the late wake panics");
        assert!(reactor.timers.is_poisoned(), "holding the lock");
        // From now on every use of the reactor panics: the other timer
        // can no longer be polled, nor a new one registered.
        let poll_other =
            panic::catch_unwind(AssertUnwindSafe(|| poll(other.as_mut(), &task.waker())));
        assert!(poll_other.is_err(), "polling the other timer panics");
        let register =
            panic::catch_unwind(AssertUnwindSafe(|| reactor.register(3, MS, task.waker())));
        assert!(register.is_err(), "registering a new timer panics");
    }
}
