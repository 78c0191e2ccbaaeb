//! Chapter 6 pitfalls: two parkers that look almost like
//! [`super::super::parker::Parker`] and are wrong.
//!
//! - [`UnlockedParker`] sets its flag outside the lock that `park` checks
//!   it under. An `unpark` can land between `park`'s check and its `wait`:
//!   the notification finds nobody waiting, and `park` sleeps for good.
//! - [`StickyParker`] never clears its flag. After the first `unpark`,
//!   every `park` returns at once, and `block_on` polls its future in a
//!   busy loop.

use std::sync::atomic::Ordering;

#[cfg(loom)]
use loom::sync::{Condvar, Mutex, atomic::AtomicBool};
#[cfg(not(loom))]
use std::sync::{Condvar, Mutex, atomic::AtomicBool};

// ANCHOR: unlocked
/// A parker whose flag is an atomic set without the lock.
#[derive(Debug, Default)]
pub struct UnlockedParker {
    notified: AtomicBool,
    lock: Mutex<()>,
    woken: Condvar,
}

impl UnlockedParker {
    pub fn park(&self) {
        let mut guard = self.lock.lock().unwrap();
        while !self.notified.swap(false, Ordering::SeqCst) {
            guard = self.woken.wait(guard).unwrap();
        }
    }

    pub fn unpark(&self) {
        // BUG: not under `lock`. If `park` has just found the flag false
        // and not yet started to wait, this store and this notification
        // both come too early: `park` then waits for a notification that
        // has already been sent to nobody.
        self.notified.store(true, Ordering::SeqCst);
        self.woken.notify_one();
    }
}
// ANCHOR_END: unlocked

// ANCHOR: sticky
/// A parker that forgets to clear its flag.
#[derive(Debug, Default)]
pub struct StickyParker {
    notified: Mutex<bool>,
    woken: Condvar,
}

impl StickyParker {
    pub fn park(&self) {
        let mut notified = self.notified.lock().unwrap();
        while !*notified {
            notified = self.woken.wait(notified).unwrap();
        }
        // BUG: `*notified = false;` is missing. The flag stays set, and
        // from now on `park` never sleeps.
    }

    pub fn unpark(&self) {
        *self.notified.lock().unwrap() = true;
        self.woken.notify_one();
    }
}
// ANCHOR_END: sticky

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_executors::PATIENCE;
    use crate::test_wakers::eventually;
    use std::future::{Future, poll_fn};
    use std::pin::pin;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;
    use std::sync::mpsc;
    use std::task::{Context, Poll, Wake, Waker};
    use std::thread;
    use std::time::Duration;

    impl Wake for StickyParker {
        fn wake(self: Arc<Self>) {
            self.unpark();
        }
    }

    /// `block_on` as chapter 6 writes it, on the sticky parker.
    fn block_on_sticky<F: Future>(future: F) -> F::Output {
        let mut future = pin!(future);
        let parker = Arc::new(StickyParker::default());
        let waker = Waker::from(Arc::clone(&parker));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return output;
            }
            parker.park();
        }
    }

    /// A future that wakes itself once, on its first poll, and then waits
    /// for `release` (which comes with a wake); it counts its polls.
    fn wakes_once_then_waits(
        polls: Arc<AtomicUsize>,
        release: mpsc::Receiver<()>,
        wakers: mpsc::Sender<Waker>,
    ) -> impl Future<Output = ()> {
        poll_fn(move |cx| {
            if polls.fetch_add(1, Ordering::SeqCst) == 0 {
                wakers.send(cx.waker().clone()).unwrap();
                cx.waker().wake_by_ref();
            }
            match release.try_recv() {
                Ok(()) => Poll::Ready(()),
                Err(_) => Poll::Pending,
            }
        })
    }

    #[test]
    fn a_flag_never_cleared_makes_block_on_spin() {
        let polls = Arc::new(AtomicUsize::new(0));
        let (release_tx, release) = mpsc::channel();
        let (wakers_tx, wakers) = mpsc::channel();
        let future = wakes_once_then_waits(Arc::clone(&polls), release, wakers_tx);
        let runner = thread::spawn(move || block_on_sticky(future));
        let waker = wakers.recv_timeout(PATIENCE).unwrap();
        // One wake, and yet the polls go on and on without another.
        let deadline = std::time::Instant::now() + PATIENCE;
        while polls.load(Ordering::SeqCst) < 1000 {
            assert!(std::time::Instant::now() < deadline, "it did not spin");
            thread::yield_now();
        }
        release_tx.send(()).unwrap();
        waker.wake();
        runner.join().unwrap();
    }

    #[test]
    fn a_flag_cleared_by_park_means_one_poll_per_wake() {
        let polls = Arc::new(AtomicUsize::new(0));
        let (release_tx, release) = mpsc::channel();
        let (wakers_tx, wakers) = mpsc::channel();
        let future = wakes_once_then_waits(Arc::clone(&polls), release, wakers_tx);
        let runner = thread::spawn(move || crate::block_on::block_on(future));
        let waker = wakers.recv_timeout(PATIENCE).unwrap();
        // The first poll's own wake earns exactly one more poll; then it
        // sleeps: no third poll comes without a wake. (On a slow machine
        // the wait proves less, but cannot fail a correct parker.)
        eventually("the second poll", || polls.load(Ordering::SeqCst) == 2);
        thread::sleep(Duration::from_millis(100));
        assert_eq!(polls.load(Ordering::SeqCst), 2);
        release_tx.send(()).unwrap();
        waker.wake();
        runner.join().unwrap();
        assert_eq!(polls.load(Ordering::SeqCst), 3);
    }
}

/// The model of `Parker` (`loom_an_unpark_racing_a_park_is_never_lost`),
/// run against the unlocked parker: loom finds the interleaving where the
/// notification is sent before `park` waits, and reports the deadlock.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    #[should_panic(expected = "deadlock")]
    fn loom_finds_the_lost_unpark_of_the_unlocked_parker() {
        loom::model(|| {
            let parker = Arc::new(UnlockedParker::default());
            let other = Arc::clone(&parker);
            let unparker = loom::thread::spawn(move || other.unpark());
            parker.park();
            unparker.join().unwrap();
        });
    }
}
