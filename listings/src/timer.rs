//! Chapter 2: a timer future, with one thread per timer.
//!
//! The future and its thread share a small state behind a mutex: whether
//! the time is up, and the waker of the task that is waiting. `poll` checks
//! and stores under one lock; the thread sets the flag and takes the waker
//! under the same lock, so a wake-up can never fall between the two.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

// Under `--cfg loom`, the model checker's own mutex and `Arc` stand in for
// std's, so that it can try every interleaving of `poll` and `complete`.
#[cfg(loom)]
use loom::sync::{Arc, Mutex};
#[cfg(not(loom))]
use std::sync::{Arc, Mutex};

// ANCHOR: shared_state
/// What the future and its timer thread share.
#[derive(Debug, Default)]
struct SharedState {
    /// Set by the thread once the time is up.
    completed: bool,
    /// The waker of the task that polled last, to be woken on completion.
    waker: Option<Waker>,
}
// ANCHOR_END: shared_state

// ANCHOR: timer_future
/// A future that completes once a duration has passed.
#[derive(Debug)]
pub struct TimerFuture {
    shared: Arc<Mutex<SharedState>>,
}

impl Future for TimerFuture {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // Check and store under the same lock: the thread cannot complete
        // in between, so it either sees our waker or we see `completed`.
        let mut state = self.shared.lock().unwrap();
        if state.completed {
            return Poll::Ready(());
        }
        // Keep the waker of the task polling *now*: the future may have
        // moved to another task since the last poll. If the stored waker
        // would wake the same task anyway, skip the clone.
        match &state.waker {
            Some(stored) if stored.will_wake(cx.waker()) => {}
            _ => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}
// ANCHOR_END: timer_future

// ANCHOR: new
impl TimerFuture {
    /// Starts a thread that completes the future after `duration`.
    pub fn new(duration: Duration) -> Self {
        let shared = Arc::new(Mutex::new(SharedState::default()));
        let thread_shared = Arc::clone(&shared);
        thread::spawn(move || {
            thread::sleep(duration);
            complete(&thread_shared);
        });
        TimerFuture { shared }
    }
}

/// Marks the timer completed and wakes the task waiting on it, if any.
fn complete(shared: &Mutex<SharedState>) {
    let waker = {
        let mut state = shared.lock().unwrap();
        state.completed = true;
        state.waker.take()
    };
    // Wake after unlocking: the woken task may be polled on another thread
    // right away, and its `poll` needs the lock.
    if let Some(waker) = waker {
        waker.wake();
    }
}
// ANCHOR_END: new

// ANCHOR: drop
impl Drop for TimerFuture {
    fn drop(&mut self) {
        // Nobody waits on this timer any more: let go of the task's waker
        // now rather than when the thread fires, so that the task (and an
        // executor waiting for its last task) is not kept alive for nothing.
        if let Ok(mut state) = self.shared.lock() {
            state.waker = None;
        }
    }
}
// ANCHOR_END: drop

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;

    #[test]
    fn loom_poll_and_complete_never_lose_the_wake_up() {
        crate::test_wakers::check_poll_against_completion(|| {
            let shared = Arc::new(Mutex::new(SharedState::default()));
            let timer = TimerFuture {
                shared: Arc::clone(&shared),
            };
            (timer, Box::new(move || complete(&shared)))
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_wakers::TestWaker;
    use std::pin::pin;
    use std::sync::TryLockError;
    use std::time::Instant;

    /// A timer whose thread never fires: the test completes it by hand.
    fn manual_timer() -> TimerFuture {
        TimerFuture {
            shared: Arc::new(Mutex::new(SharedState::default())),
        }
    }

    #[test]
    fn completes_no_sooner_than_its_duration() {
        let start = Instant::now();
        futures::executor::block_on(TimerFuture::new(Duration::from_millis(30)));
        let elapsed = start.elapsed();
        assert!(elapsed >= Duration::from_millis(30), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    }

    #[test]
    fn waker_is_replaced_when_task_moves() {
        let old_task = TestWaker::new();
        let new_task = TestWaker::new();
        let mut timer = pin!(manual_timer());

        let poll_with = |timer: Pin<&mut TimerFuture>, task: &TestWaker| {
            timer.poll(&mut Context::from_waker(&task.waker()))
        };
        assert!(poll_with(timer.as_mut(), &old_task).is_pending());
        // The future now belongs to another task, which polls it.
        assert!(poll_with(timer.as_mut(), &new_task).is_pending());

        complete(&timer.shared);
        assert_eq!(new_task.wakes(), 1, "the task that polled last is woken");
        assert_eq!(old_task.wakes(), 0, "the old task is not");
        assert!(poll_with(timer.as_mut(), &new_task).is_ready());
    }

    #[test]
    fn polling_again_with_the_same_waker_does_not_clone_it() {
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut timer = pin!(manual_timer());
        for _ in 0..3 {
            assert!(timer.as_mut().poll(&mut cx).is_pending());
        }
        assert_eq!(task.clones(), 1, "stored once; will_wake skips the rest");
    }

    #[test]
    fn completing_during_the_waker_store_still_wakes_the_task() {
        // The waker's first clone happens inside `poll`, while it stores the
        // waker. At that moment the hook starts a thread that completes the
        // timer, and notes whether the lock was free. It is not: `poll`
        // holds it, so the completing thread waits until `poll` has stored
        // the waker and returned, then finds the waker and wakes the task.
        let mut timer = pin!(manual_timer());
        let shared = Arc::clone(&timer.shared);
        let (report, reports) = std::sync::mpsc::channel();
        let task = TestWaker::with_clone_hook(move || {
            let locked = matches!(shared.try_lock(), Err(TryLockError::WouldBlock));
            let thread = thread::spawn(move || complete(&shared));
            report.send((locked, thread)).unwrap();
        });
        let waker = task.waker();
        let poll = timer.as_mut().poll(&mut Context::from_waker(&waker));
        assert!(poll.is_pending());

        // The hook ran inside `poll`, so its report is already here.
        let (locked_during_store, completer) = reports.try_recv().expect("poll cloned the waker");
        assert!(locked_during_store, "poll holds the lock while it stores");
        completer.join().unwrap();
        assert_eq!(task.wakes(), 1, "no lost wake-up");
        assert!(
            timer
                .as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_ready()
        );
    }

    #[test]
    fn dropping_the_timer_lets_go_of_the_waker() {
        let task = TestWaker::new();
        let waker = task.waker();
        let mut timer = Box::pin(TimerFuture::new(Duration::from_secs(3600)));
        assert!(
            timer
                .as_mut()
                .poll(&mut Context::from_waker(&waker))
                .is_pending()
        );
        assert_eq!(task.live(), 2, "ours and the stored one");
        drop(timer);
        assert_eq!(task.live(), 1, "the sleeping thread no longer holds it");
    }
}
