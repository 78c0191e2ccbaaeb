//! Chapter 6: a `Parker`, the thread's own doorbell.
//!
//! `block_on` must sleep until the future it polls is woken. Parking the
//! thread (`thread::park`) would do, but any code on the same thread can
//! park or unpark it too, and so steal or fake a wake-up (see
//! [`super::pitfalls::park_block_on`]). A `Parker` is a flag that only its
//! own wakers can set: a `Mutex<bool>` that says "woken since the last
//! park", and a `Condvar` to sleep on until it says so.

use std::sync::Arc;
use std::task::Wake;

// Under `--cfg loom` the model checker's lock and condition variable stand
// in for std's, so that it can try every interleaving of `park` and
// `unpark` (see the tests). `Arc` stays std's: `Waker::from` takes only that.
#[cfg(loom)]
use loom::sync::{Condvar, Mutex};
#[cfg(not(loom))]
use std::sync::{Condvar, Mutex};

// ANCHOR: parker
/// Puts a thread to sleep until [`Parker::unpark`] is called.
///
/// An `unpark` that comes before `park` is not lost: the next `park`
/// returns at once. Any number of `unpark`s before one `park` count as one.
#[derive(Debug, Default)]
pub struct Parker {
    /// True when `unpark` has been called since the last `park` returned.
    notified: Mutex<bool>,
    /// Where `park` sleeps while `notified` is false.
    woken: Condvar,
}

impl Parker {
    /// A parker that has not been unparked.
    pub fn new() -> Self {
        Parker::default()
    }

    /// Sleeps until `unpark` is called, or returns at once if it has been
    /// called since the last `park`. Clears the flag before returning.
    pub fn park(&self) {
        let mut notified = self.notified.lock().unwrap();
        // A loop, not an `if`: `wait` may return without a notification
        // (a spurious wake-up), and only the flag says whether one came.
        while !*notified {
            notified = self.woken.wait(notified).unwrap();
        }
        // Consumed: the next `park` waits for the next `unpark`.
        *notified = false;
    }

    /// Wakes the thread sleeping in `park`, or the next one to call it.
    pub fn unpark(&self) {
        // The flag is set under the lock that `park` checks it under: so
        // `park` either sees it before sleeping, or is already inside
        // `wait` (which releases the lock) and gets the notification.
        *self.notified.lock().unwrap() = true;
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
    use crate::test_executors::PATIENCE;
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn an_unpark_before_park_is_kept() {
        let parker = Parker::new();
        parker.unpark();
        // Returns at once: the flag was set, and `park` clears it.
        parker.park();
        assert!(!*parker.notified.lock().unwrap());
    }

    #[test]
    fn many_unparks_before_a_park_count_as_one() {
        let parker = Parker::new();
        for _ in 0..1000 {
            parker.unpark();
        }
        parker.park();
        assert!(!*parker.notified.lock().unwrap(), "the next park must wait");
    }

    #[test]
    fn park_sleeps_until_another_thread_unparks() {
        let parker = Arc::new(Parker::new());
        let (parked, returned) = mpsc::channel();
        let sleeper = {
            let parker = Arc::clone(&parker);
            thread::spawn(move || {
                parker.park();
                parked.send(()).unwrap();
            })
        };
        // Nothing has unparked it: it is still asleep (or not yet parked).
        assert_eq!(
            returned.recv_timeout(Duration::from_millis(50)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        parker.unpark();
        returned.recv_timeout(PATIENCE).unwrap();
        sleeper.join().unwrap();
    }

    #[test]
    fn a_waker_of_the_parker_unparks_it() {
        let parker = Arc::new(Parker::new());
        let waker = std::task::Waker::from(Arc::clone(&parker));
        waker.wake_by_ref();
        parker.park();
        waker.wake();
        parker.park();
        // The waker is gone: the test's handle is the last one.
        assert_eq!(Arc::strong_count(&parker), 1);
    }
}

/// loom tries every interleaving of `unpark` on one thread with `park` on
/// another: the wake-up is never lost.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;

    #[test]
    fn loom_an_unpark_racing_a_park_is_never_lost() {
        loom::model(|| {
            let parker = Arc::new(Parker::new());
            let other = Arc::clone(&parker);
            let unparker = loom::thread::spawn(move || other.unpark());
            // Returns in every interleaving: a lost unpark would leave it
            // asleep for good, which loom reports as a deadlock.
            parker.park();
            unparker.join().unwrap();
        });
    }
}
