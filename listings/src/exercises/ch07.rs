//! Chapter 7 exercise: a timeout on the reactor. The future and a reactor
//! timer race; whichever is ready first decides, and the other is dropped.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::Poll;
use std::time::Duration;

use super::super::reactor::Reactor;

// ANCHOR: timeout
/// The error of a future that did not complete in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

/// Exercise: runs `future` for at most `duration`, timed by `reactor`.
/// Returns its output, or `Err(Elapsed)` once the time is up (the future is
/// then dropped unfinished).
pub async fn timeout<F: Future>(
    reactor: &Reactor,
    duration: Duration,
    future: F,
) -> Result<F::Output, Elapsed> {
    let mut future = pin!(future);
    let mut sleep = reactor.sleep(duration);
    // Both are polled with the same waker: whichever is ready first wakes
    // the task, and the next poll sees it.
    poll_fn(|cx| {
        if let Poll::Ready(output) = future.as_mut().poll(cx) {
            return Poll::Ready(Ok(output));
        }
        if Pin::new(&mut sleep).poll(cx).is_ready() {
            return Poll::Ready(Err(Elapsed));
        }
        Poll::Pending
    })
    .await
    // Here `sleep` is dropped: if the future won, its timer is cancelled
    // and the reactor lets go of the task's waker at once.
}
// ANCHOR_END: timeout

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::block_on::block_on;
    use crate::test_executors::PATIENCE;
    use crate::test_wakers::TestWaker;
    use futures::channel::oneshot;
    use std::sync::Arc;
    use std::task::Context;
    use std::time::Instant;

    #[test]
    fn a_future_ready_in_time_gives_its_output_and_cancels_the_timer() {
        let reactor = Reactor::new();
        let (send, receive) = oneshot::channel();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut raced = pin!(timeout(&reactor, Duration::from_secs(3600), receive));
        assert!(raced.as_mut().poll(&mut cx).is_pending());
        assert_eq!(task.live(), 3, "ours, the channel's and the reactor's");

        send.send(42).unwrap();
        assert_eq!(task.wakes(), 1);
        assert_eq!(raced.as_mut().poll(&mut cx), Poll::Ready(Ok(Ok(42))));
        // An hour before the deadline, nothing holds the task's waker: the
        // timer was cancelled when the future won.
        assert_eq!(task.live(), 1);
    }

    #[test]
    fn a_future_too_slow_is_dropped_and_gives_elapsed() {
        let reactor = Reactor::new();
        let alive = Arc::new(());
        let guard = Arc::clone(&alive);
        let slow = async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        };
        let start = Instant::now();
        assert_eq!(
            block_on(timeout(&reactor, Duration::from_millis(20), slow)),
            Err(Elapsed)
        );
        let elapsed = start.elapsed();
        assert!(elapsed >= Duration::from_millis(20), "{elapsed:?}");
        assert!(elapsed < PATIENCE, "{elapsed:?}");
        assert_eq!(Arc::strong_count(&alive), 1, "the slow future was dropped");
    }
}
