//! Chapter 10: a parker that costs nothing when nobody sleeps.
//!
//! Chapter 6's [`Parker`](super::parker::Parker) takes its lock and
//! signals its condition variable on every `unpark`, even when the thread
//! is busy polling and nobody waits. std's `Condvar::notify_one` then
//! makes a futex system call, so a future that wakes itself during its
//! poll pays for one on every wake-up. This parker keeps a three-state
//! atomic beside the lock: `unpark` touches the lock and the condition
//! variable only when the state says a thread is asleep (or about to be).
//! It is the algorithm of std's own generic thread parker.

use std::sync::{Arc, PoisonError};
use std::task::Wake;

// As in chapter 6: under `--cfg loom` the model checker's types stand in,
// so that it can try every interleaving of `park` and `unpark`.
#[cfg(loom)]
use loom::sync::atomic::AtomicU8;
#[cfg(loom)]
use loom::sync::{Condvar, Mutex};
#[cfg(not(loom))]
use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering;
#[cfg(not(loom))]
use std::sync::{Condvar, Mutex};

// ANCHOR: states
/// No notification, nobody asleep.
const EMPTY: u8 = 0;
/// The parking thread is asleep in `wait`, or about to be: it holds the
/// lock from before it stores this state until `wait` releases it.
const PARKED: u8 = 1;
/// `unpark` was called since a `park` last consumed a notification.
const NOTIFIED: u8 = 2;
// ANCHOR_END: states

// ANCHOR: parker
/// Puts a thread to sleep until [`Parker::unpark`] is called; like chapter
/// 6's parker, but `unpark` is one atomic swap unless the thread sleeps.
///
/// One thread parks (the one running `block_on`); any thread may unpark.
/// An `unpark` before `park` is kept; many count as one.
#[derive(Debug)]
pub struct Parker {
    state: AtomicU8,
    /// Held by the parking thread from `PARKED` until it sleeps, so an
    /// `unpark` that takes it knows the sleeper is inside `wait`.
    lock: Mutex<()>,
    woken: Condvar,
}

impl Default for Parker {
    fn default() -> Self {
        Parker {
            state: AtomicU8::new(EMPTY),
            lock: Mutex::new(()),
            woken: Condvar::new(),
        }
    }
}

impl Parker {
    /// A parker that has not been unparked.
    pub fn new() -> Self {
        Parker::default()
    }

    /// Returns at once if `unpark` was called since the last `park`;
    /// otherwise sleeps until it is. Consumes the notification.
    ///
    /// Only one thread may ever park on it; two at once may panic (or
    /// one may take the other's notification and leave it asleep).
    pub fn park(&self) {
        // The fast path: the wake-up came already (during the poll).
        // `Acquire` pairs with `unpark`'s `Release`: what the waker did
        // before waking is visible to the next poll.
        if self.consume() {
            return;
        }
        // The lock guards no data, so a poisoned one is as good as any.
        let mut guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        match self
            .state
            .compare_exchange(EMPTY, PARKED, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => {}
            // An `unpark` came between the fast path and the lock: take
            // it. (`Acquire` again, which the failed exchange did not give.)
            Err(NOTIFIED) => {
                self.state.swap(EMPTY, Ordering::Acquire);
                return;
            }
            Err(_) => {
                // Let go first: a panic that held the lock would poison it
                // for the sleeper's wakers.
                drop(guard);
                panic!("two threads parked on one Parker");
            }
        }
        // Asleep until an `unpark` moves PARKED to NOTIFIED. A loop: `wait`
        // may return without a notification (a spurious wake-up).
        loop {
            guard = self
                .woken
                .wait(guard)
                .unwrap_or_else(PoisonError::into_inner);
            if self.consume() {
                return;
            }
        }
    }

    /// Takes a pending notification: NOTIFIED → EMPTY.
    fn consume(&self) -> bool {
        self.state
            .compare_exchange(NOTIFIED, EMPTY, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Wakes the thread asleep in `park`, or the next one to call it.
    pub fn unpark(&self) {
        match self.state.swap(NOTIFIED, Ordering::Release) {
            // Nobody sleeps: the next `park` sees NOTIFIED. No lock, no
            // system call; this is the whole point.
            EMPTY | NOTIFIED => return,
            _ => {}
        }
        // PARKED: the parking thread stored it under the lock and holds
        // the lock until `wait` releases it. Taking the lock here waits
        // for that, so the notification cannot fall between its check of
        // the state and its sleep.
        drop(self.lock.lock().unwrap_or_else(PoisonError::into_inner));
        self.woken.notify_one();
    }
}
// ANCHOR_END: parker

// ANCHOR: wake
/// A waker made from an `Arc<Parker>` unparks it.
impl Wake for Parker {
    fn wake(self: Arc<Self>) {
        self.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.unpark();
    }
}
// ANCHOR_END: wake

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_executors::{PATIENCE, in_background};
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn an_unpark_before_park_is_kept_and_many_count_as_one() {
        let parker = Parker::new();
        for _ in 0..1000 {
            parker.unpark();
        }
        parker.park();
        assert_eq!(parker.state.load(Ordering::Relaxed), EMPTY);
    }

    #[test]
    fn unpark_without_a_sleeper_does_not_touch_the_lock() {
        // The test holds the lock. An `unpark` that took it would block
        // until the test lets go; this one returns, because nobody parks.
        let parker = Arc::new(Parker::new());
        let guard = parker.lock.lock().unwrap();
        let returned = in_background({
            let parker = Arc::clone(&parker);
            move || parker.unpark()
        });
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        drop(guard);
        assert_eq!(parker.state.load(Ordering::Relaxed), NOTIFIED);
    }

    /// Waits until the parker's state is PARKED, then takes and drops
    /// the lock: the sleeper holds it from PARKED until it is in `wait`.
    fn until_asleep(parker: &Parker) {
        let deadline = std::time::Instant::now() + PATIENCE;
        while parker.state.load(Ordering::Relaxed) != PARKED {
            assert!(std::time::Instant::now() < deadline, "never parked");
            thread::yield_now();
        }
        drop(parker.lock.lock().unwrap());
    }

    /// A thread that parks on `parker` and says so when `park` returns.
    fn sleeper(parker: &Arc<Parker>) -> (thread::JoinHandle<()>, mpsc::Receiver<()>) {
        let (parked, returned) = mpsc::channel();
        let parker = Arc::clone(parker);
        let sleeper = thread::spawn(move || {
            parker.park();
            parked.send(()).unwrap();
        });
        (sleeper, returned)
    }

    #[test]
    fn park_sleeps_until_another_thread_unparks() {
        let parker = Arc::new(Parker::new());
        let (sleeper, returned) = sleeper(&parker);
        until_asleep(&parker);
        assert_eq!(returned.try_recv(), Err(mpsc::TryRecvError::Empty));
        parker.unpark();
        returned.recv_timeout(PATIENCE).unwrap();
        sleeper.join().unwrap();
        assert_eq!(parker.state.load(Ordering::Relaxed), EMPTY);
    }

    #[test]
    fn a_spurious_wake_up_puts_it_back_to_sleep() {
        // A condition variable may wake its sleeper with nobody calling
        // `unpark`; `notify_all` by hand stands in for that.
        let parker = Arc::new(Parker::new());
        let (sleeper, returned) = sleeper(&parker);
        until_asleep(&parker);
        parker.woken.notify_all();
        assert_eq!(
            returned.recv_timeout(Duration::from_millis(50)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        assert_eq!(parker.state.load(Ordering::Relaxed), PARKED);
        parker.unpark();
        returned.recv_timeout(PATIENCE).unwrap();
        sleeper.join().unwrap();
    }

    #[test]
    fn a_second_parking_thread_panics_and_the_first_still_wakes() {
        // Misuse: a second thread parks while the first sleeps. It panics,
        // after letting go of the lock, so the lock is not poisoned and the
        // first thread's `unpark` still reaches it.
        let parker = Arc::new(Parker::new());
        let (first, returned) = sleeper(&parker);
        until_asleep(&parker);
        let second = {
            let parker = Arc::clone(&parker);
            thread::spawn(move || parker.park())
        };
        assert!(second.join().is_err(), "the second park must panic");
        assert!(!parker.lock.is_poisoned());
        parker.unpark();
        returned.recv_timeout(PATIENCE).unwrap();
        first.join().unwrap();
    }

    #[test]
    fn ten_thousand_hand_offs_between_two_threads_lose_none() {
        // Two parkers, two threads, taking turns: every `unpark` finds the
        // other thread either parked or about to park, in any order. A
        // lost one would hang; `in_background` turns that into a failure.
        let returned = in_background(|| {
            let (ping, pong) = (Arc::new(Parker::new()), Arc::new(Parker::new()));
            let other = {
                let (ping, pong) = (Arc::clone(&ping), Arc::clone(&pong));
                thread::spawn(move || {
                    for _ in 0..10_000 {
                        ping.park();
                        pong.unpark();
                    }
                })
            };
            for _ in 0..10_000 {
                ping.unpark();
                pong.park();
            }
            other.join().unwrap();
        });
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
    }

    #[test]
    fn a_waker_of_the_parker_unparks_it_and_lets_go() {
        let parker = Arc::new(Parker::new());
        let waker = std::task::Waker::from(Arc::clone(&parker));
        waker.wake_by_ref();
        parker.park();
        waker.wake();
        parker.park();
        assert_eq!(Arc::strong_count(&parker), 1);
    }
}

/// loom tries every interleaving: an `unpark` racing a `park` is never
/// lost, and the parker returns to EMPTY so that the next round works too.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::atomic::AtomicBool;

    #[test]
    fn loom_an_unpark_racing_a_park_is_never_lost() {
        loom::model(|| {
            // The payload is `Relaxed`: only the parker's `Release` and
            // `Acquire` can make it visible after `park` returns.
            let parker = Arc::new(Parker::new());
            let data = Arc::new(AtomicBool::new(false));
            let (other, written) = (Arc::clone(&parker), Arc::clone(&data));
            let unparker = loom::thread::spawn(move || {
                written.store(true, Ordering::Relaxed);
                other.unpark();
            });
            parker.park();
            assert!(data.load(Ordering::Relaxed));
            unparker.join().unwrap();
            assert_eq!(parker.state.load(Ordering::Relaxed), EMPTY);
        });
    }

    #[test]
    fn loom_two_rounds_of_hand_offs_lose_nothing() {
        loom::model(|| {
            let (ping, pong) = (Arc::new(Parker::new()), Arc::new(Parker::new()));
            let other = {
                let (ping, pong) = (Arc::clone(&ping), Arc::clone(&pong));
                loom::thread::spawn(move || {
                    for _ in 0..2 {
                        ping.park();
                        pong.unpark();
                    }
                })
            };
            for _ in 0..2 {
                ping.unpark();
                pong.park();
            }
            other.join().unwrap();
        });
    }
}
