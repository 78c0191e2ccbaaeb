//! Chapter 9 exercise: `timeout`, a limit on how long a future may run,
//! built on the runtime's timer.
//!
//! The future races a [`Handle::sleep`] in [`futures::future::select`]:
//! if the future completes first, its output comes back in `Ok`; if the
//! sleep does, `Err(Elapsed)`, and the future is dropped unfinished, which
//! is how a future is cancelled.

use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use futures::future::{Either, select};

use super::super::runtime::Handle;

// ANCHOR: timeout
/// The error of a [`timeout`] whose time ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed;

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the time ran out before the future completed")
    }
}

impl std::error::Error for Elapsed {}

/// Runs `future` for at most `duration` on `handle`'s runtime, counted
/// from the first poll: its output in `Ok`, or `Err(Elapsed)` if the time
/// runs out first. Then `future` is dropped unfinished: it is cancelled
/// wherever it was waiting, and never polled again.
pub async fn timeout<F: Future>(
    handle: &Handle,
    duration: Duration,
    future: F,
) -> Result<F::Output, Elapsed> {
    // Pinned here, in this function's state: `select` takes `Unpin`
    // futures, and `Pin<&mut _>` is one. Whichever loses is dropped with
    // that state when `timeout` returns, before its caller sees the result.
    let future = pin!(future);
    let sleep = pin!(handle.sleep(duration));
    // `select` polls the future first, then the timer: a future that is
    // ready wins even against a zero duration.
    match select(future, sleep).await {
        Either::Left((output, _)) => Ok(output),
        Either::Right(((), _)) => Err(Elapsed),
    }
}
// ANCHOR_END: timeout

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::runtime::Runtime;
    use std::cell::Cell;
    use std::rc::Rc;
    use std::time::Instant;

    /// Sets its flag when dropped.
    struct DropFlag(Rc<Cell<bool>>);

    impl Drop for DropFlag {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }

    #[test]
    fn a_future_that_completes_in_time_gives_its_output_without_waiting_out_the_timer() {
        let rt = Runtime::new().unwrap();
        let handle = rt.handle();
        let start = Instant::now();
        let result = rt
            .block_on(timeout(handle, Duration::from_secs(10), async {
                handle.sleep(Duration::from_millis(10)).await;
                7
            }))
            .unwrap();
        assert_eq!(result, Ok(7));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "waited for the timer"
        );
        // The timer lost, and was dropped with its waker.
        assert_eq!(format!("{handle:?}"), "Handle { tasks: 0, timers: 0, .. }");
    }

    #[test]
    fn a_future_that_is_too_slow_gives_elapsed_and_is_dropped() {
        let rt = Runtime::new().unwrap();
        let handle = rt.handle();
        let dropped = Rc::new(Cell::new(false));
        let flag = DropFlag(Rc::clone(&dropped));
        let start = Instant::now();
        let (result, dropped_by_then) = rt
            .block_on(async {
                let result = timeout(handle, Duration::from_millis(20), async move {
                    let _flag = flag;
                    handle.sleep(Duration::from_secs(3600)).await;
                    7
                })
                .await;
                (result, dropped.get())
            })
            .unwrap();
        assert_eq!(result, Err(Elapsed));
        assert!(dropped_by_then, "the slow future outlived its timeout");
        assert!(
            start.elapsed() >= Duration::from_millis(20),
            "timed out early"
        );
        // Its hour-long sleep was dropped with it, and let go of its waker.
        assert_eq!(format!("{handle:?}"), "Handle { tasks: 0, timers: 0, .. }");
    }

    #[test]
    fn a_ready_future_wins_even_a_zero_timeout() {
        let rt = Runtime::new().unwrap();
        let handle = rt.handle();
        let result = rt
            .block_on(timeout(handle, Duration::ZERO, async { 7 }))
            .unwrap();
        assert_eq!(result, Ok(7));
        let result = rt
            .block_on(timeout(
                handle,
                Duration::ZERO,
                std::future::pending::<()>(),
            ))
            .unwrap();
        assert_eq!(result, Err(Elapsed));
    }

    #[test]
    fn timing_out_a_join_handle_drops_the_handle_not_the_task() {
        let rt = Runtime::new().unwrap();
        let handle = rt.handle();
        let finished = Rc::new(Cell::new(false));
        let task = handle.spawn({
            let (handle, finished) = (handle.clone(), Rc::clone(&finished));
            async move {
                handle.sleep(Duration::from_millis(50)).await;
                finished.set(true);
            }
        });
        let result = rt
            .block_on(timeout(handle, Duration::from_millis(10), task))
            .unwrap();
        assert_eq!(result, Err(Elapsed));
        assert!(!finished.get());
        // The handle is gone, but the task is only detached: it runs on.
        rt.block_on(handle.sleep(Duration::from_millis(100)))
            .unwrap();
        assert!(finished.get(), "the task was cancelled with its handle");
    }
}
