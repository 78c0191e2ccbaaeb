//! Chapter 2 exercise: give any future a deadline.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::super::timer::TimerFuture;

// ANCHOR: timeout
/// Exercise: resolves to `Some(output)` if `future` finishes first, or to
/// `None` once `limit` has passed.
#[derive(Debug)]
pub struct Timeout<F> {
    future: F,
    timer: TimerFuture,
}

impl<F: Future + Unpin> Timeout<F> {
    /// Starts the clock now.
    pub fn new(future: F, limit: Duration) -> Self {
        Timeout {
            future,
            timer: TimerFuture::new(limit),
        }
    }
}

impl<F: Future + Unpin> Future for Timeout<F> {
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Both inner futures get the same `cx`: whichever becomes ready
        // first wakes this task, and the next poll finds out which.
        if let Poll::Ready(output) = Pin::new(&mut self.future).poll(cx) {
            return Poll::Ready(Some(output));
        }
        Pin::new(&mut self.timer).poll(cx).map(|()| None)
    }
}
// ANCHOR_END: timeout

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use futures::future::{self, pending};

    #[test]
    fn a_future_that_finishes_in_time_gives_its_output() {
        let quick = future::ready(7);
        assert_eq!(
            block_on(Timeout::new(quick, Duration::from_secs(10))),
            Some(7)
        );
    }

    #[test]
    fn a_future_that_never_finishes_times_out() {
        let never = pending::<u32>();
        assert_eq!(
            block_on(Timeout::new(never, Duration::from_millis(20))),
            None
        );
    }

    #[test]
    fn the_inner_future_is_woken_through_the_same_task() {
        // Were the inner wake-up lost, only the one-minute limit would wake
        // the task: the generous bound below would catch that.
        let start = std::time::Instant::now();
        let slow = TimerFuture::new(Duration::from_millis(10));
        let limit = Duration::from_secs(60);
        assert_eq!(block_on(Timeout::new(slow, limit)), Some(()));
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}
