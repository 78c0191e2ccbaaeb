//! Chapter 2 pitfalls: a timer that keeps the first waker it is given,
//! and keeps it after the timer is dropped.
//!
//! Compare with [`super::super::timer::TimerFuture`], which stores the
//! waker of every poll (unless `will_wake` says it wakes the same task) and
//! lets go of it in its `Drop`. Both bugs fail silently: the first wakes a
//! task that no longer waits and never the one that does, the second keeps
//! a task that nobody waits for alive until the timer's thread wakes up.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

#[derive(Debug, Default)]
struct SharedState {
    completed: bool,
    waker: Option<Waker>,
}

/// A timer with chapter 2's two waker bugs. Its thread completes it after
/// its duration; [`FirstTimer::completer`] completes it by hand, as the
/// thread would.
#[derive(Debug, Default)]
pub struct FirstTimer {
    shared: Arc<Mutex<SharedState>>,
}

// ANCHOR: poll
impl Future for FirstTimer {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.shared.lock().unwrap();
        if state.completed {
            return Poll::Ready(());
        }
        // BUG: only the first waker is kept. If the future has moved to
        // another task since, completion wakes the old task, and the task
        // polling now is never woken.
        if state.waker.is_none() {
            state.waker = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}
// ANCHOR_END: poll

// BUG: no `Drop`. A timer dropped before its deadline leaves the task's
// waker in the shared state, which the sleeping thread holds: the task
// stays alive until the thread wakes up and wakes it for nothing.

impl FirstTimer {
    /// Starts a thread that completes the timer after `duration`.
    pub fn new(duration: Duration) -> Self {
        let timer = FirstTimer::default();
        let complete = timer.completer();
        thread::spawn(move || {
            thread::sleep(duration);
            complete();
        });
        timer
    }

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

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_wakers::TestWaker;
    use std::pin::pin;

    fn poll_with(timer: Pin<&mut FirstTimer>, task: &TestWaker) -> Poll<()> {
        timer.poll(&mut Context::from_waker(&task.waker()))
    }

    #[test]
    fn keeping_the_first_waker_wakes_the_old_task_and_never_the_new_one() {
        let old_task = TestWaker::new();
        let new_task = TestWaker::new();
        let mut timer = pin!(FirstTimer::default());
        let complete = timer.completer();

        assert!(poll_with(timer.as_mut(), &old_task).is_pending());
        // The future now belongs to another task, which polls it.
        assert!(poll_with(timer.as_mut(), &new_task).is_pending());

        complete();
        assert_eq!(old_task.wakes(), 1, "the old task is woken for nothing");
        assert_eq!(
            new_task.wakes(),
            0,
            "the task that waits is never woken: it is never polled again"
        );
    }

    #[test]
    fn a_dropped_timer_keeps_the_waker_until_its_thread_fires() {
        let task = TestWaker::new();
        let mut timer = Box::pin(FirstTimer::default());
        // The thread's handle, completing the timer when the test says.
        let fire = timer.completer();
        assert!(poll_with(timer.as_mut(), &task).is_pending());
        drop(timer);
        // `poll_with`'s waker is gone: only the stored one is left.
        assert_eq!(task.live(), 1, "nobody waits, yet the waker is held");

        fire();
        assert_eq!(task.wakes(), 1, "the task is woken for a dropped timer");
        assert_eq!(task.live(), 0, "only now does the task go");
    }
}
