//! Chapter 2 pitfall: a timer that checks `completed` and stores the waker
//! under two separate locks, and so can lose its wake-up.
//!
//! Compare with [`super::super::timer::TimerFuture`], which does both under
//! one lock.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

#[cfg(loom)]
use loom::sync::{Arc, Mutex};
#[cfg(not(loom))]
use std::sync::{Arc, Mutex};

#[derive(Debug, Default)]
struct SharedState {
    completed: bool,
    waker: Option<Waker>,
}

/// A timer with a window between its check and its store. Completed by
/// hand with [`SplitLockTimer::complete`], like the thread would.
#[derive(Debug, Default)]
pub struct SplitLockTimer {
    shared: Arc<Mutex<SharedState>>,
}

// ANCHOR: poll
impl Future for SplitLockTimer {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.shared.lock().unwrap().completed {
            return Poll::Ready(());
        }
        // BUG: the lock is released here. If the timer completes now, it
        // finds no waker to wake, and the waker stored below is never used.
        self.shared.lock().unwrap().waker = Some(cx.waker().clone());
        Poll::Pending
    }
}
// ANCHOR_END: poll

impl SplitLockTimer {
    /// A handle for completing this timer from elsewhere.
    pub fn completer(&self) -> impl Fn() + Send + 'static {
        let shared = Arc::clone(&self.shared);
        move || {
            let waker = {
                let mut state = shared.lock().unwrap();
                state.completed = true;
                state.waker.take()
            };
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;

    /// The same model as `timer`'s: here the checker finds an interleaving
    /// where `poll` returns `Pending` and nobody ever wakes the task.
    #[test]
    #[should_panic(expected = "lost wake-up")]
    fn loom_finds_the_lost_wake_up() {
        crate::test_wakers::check_poll_against_completion(|| {
            let timer = SplitLockTimer::default();
            let complete = timer.completer();
            (timer, Box::new(complete))
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_wakers::TestWaker;
    use std::pin::pin;

    #[test]
    fn completing_between_check_and_store_loses_the_wake_up() {
        let mut timer = pin!(SplitLockTimer::default());
        // Force the bad interleaving: the waker is cloned in the window
        // (the right-hand side of the assignment is evaluated before the
        // second lock is taken), and cloning it completes the timer.
        let task = TestWaker::with_clone_hook(timer.completer());
        let waker = task.waker();

        let poll = timer.as_mut().poll(&mut Context::from_waker(&waker));

        assert!(poll.is_pending(), "poll missed the completion");
        assert!(
            timer.shared.lock().unwrap().completed,
            "yet the timer is done"
        );
        assert_eq!(task.wakes(), 0, "and nobody will ever wake the task");
    }
}
