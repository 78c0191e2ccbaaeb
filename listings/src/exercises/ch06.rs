//! Chapter 6 exercise: `block_on` with a deadline.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

// ANCHOR: deadline_parker
/// A `Parker` whose `park` can give up at a deadline.
#[derive(Debug, Default)]
pub struct DeadlineParker {
    notified: Mutex<bool>,
    woken: Condvar,
}

impl DeadlineParker {
    /// Sleeps until unparked or until `deadline`, whichever comes first.
    /// Returns whether it was unparked (and clears the flag if so).
    pub fn park_until(&self, deadline: Instant) -> bool {
        let mut notified = self.notified.lock().unwrap();
        while !*notified {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            // `wait_timeout` may return early (a spurious wake-up) or late;
            // the loop checks the flag and the clock again either way.
            notified = self.woken.wait_timeout(notified, deadline - now).unwrap().0;
        }
        *notified = false;
        true
    }
}

impl Wake for DeadlineParker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        *self.notified.lock().unwrap() = true;
        self.woken.notify_one();
    }
}
// ANCHOR_END: deadline_parker

// ANCHOR: block_on_timeout
/// Exercise: runs `future` on this thread for at most `timeout`. Returns
/// its output, or `None` if it was not ready in time (the future is then
/// dropped, unfinished).
pub fn block_on_timeout<F: Future>(future: F, timeout: Duration) -> Option<F::Output> {
    let deadline = Instant::now() + timeout;
    let mut future = pin!(future);
    let parker = Arc::new(DeadlineParker::default());
    let waker = Waker::from(Arc::clone(&parker));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return Some(output);
        }
        // Checked here too, not only in `park_until`: a future that keeps
        // waking itself never lets `park_until` look at the clock.
        if Instant::now() >= deadline || !parker.park_until(deadline) {
            return None;
        }
    }
}
// ANCHOR_END: block_on_timeout

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::timer::TimerFuture;

    #[test]
    fn a_future_ready_in_time_gives_its_output() {
        let output = block_on_timeout(
            async {
                TimerFuture::new(Duration::from_millis(10)).await;
                7
            },
            Duration::from_secs(20),
        );
        assert_eq!(output, Some(7));
    }

    #[test]
    fn a_future_that_is_too_late_gives_none() {
        let start = Instant::now();
        let output = block_on_timeout(std::future::pending::<()>(), Duration::from_millis(50));
        assert_eq!(output, None);
        assert!(start.elapsed() >= Duration::from_millis(50), "never early");
    }

    #[test]
    fn a_future_that_keeps_waking_itself_still_times_out() {
        let spinning = std::future::poll_fn(|cx| {
            cx.waker().wake_by_ref();
            Poll::<()>::Pending
        });
        let output = block_on_timeout(spinning, Duration::from_millis(50));
        assert_eq!(output, None);
    }

    #[test]
    fn a_wake_before_the_deadline_is_kept() {
        let parker = Arc::new(DeadlineParker::default());
        Waker::from(Arc::clone(&parker)).wake();
        assert!(parker.park_until(Instant::now()));
        assert!(!parker.park_until(Instant::now()), "the flag was cleared");
    }
}
