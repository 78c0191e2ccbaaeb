//! Chapter 6: `block_on`, which runs one future to completion on the
//! current thread.
//!
//! The future is pinned on this function's stack with `std::pin::pin!` (no
//! `Box`, no `unsafe`), polled, and between polls the thread sleeps on a
//! [`Parker`] that only the future's wakers can unpark. Wakes may come from
//! any thread, before, during or after a poll, as often as they like: each
//! only sets the parker's flag.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::parker::Parker;

// ANCHOR: block_on
/// Polls `future` on the current thread until it is ready, sleeping
/// between polls until it is woken; returns its output.
pub fn block_on<F: Future>(future: F) -> F::Output {
    // Pinned here, on the stack: it is never moved again, and it is
    // dropped when this function returns.
    let mut future = pin!(future);
    // A parker of our own: nothing but this future's wakers can unpark it.
    let parker = Arc::new(Parker::new());
    let waker = Waker::from(Arc::clone(&parker));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        // Returns at once if the future was woken since the last `park`,
        // even during the poll that just returned `Pending`.
        parker.park();
    }
}
// ANCHOR_END: block_on

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::pitfalls::park_block_on::outer_with_nested_block_on;
    use crate::state_machine::yield_now;
    use crate::test_executors::{
        Library, PATIENCE, in_background, woken_a_thousand_times_then_once,
    };
    use crate::timer::TimerFuture;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn returns_the_output_of_a_ready_future() {
        assert_eq!(block_on(async { 6 * 7 }), 42);
    }

    #[test]
    fn a_wake_during_the_poll_is_not_lost() {
        let polls = AtomicUsize::new(0);
        block_on(async {
            polls.fetch_add(1, Ordering::Relaxed);
            yield_now().await;
            polls.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(polls.into_inner(), 2);
    }

    #[test]
    fn a_wake_from_a_timer_thread_completes_the_future() {
        block_on(TimerFuture::new(Duration::from_millis(10)));
    }

    #[test]
    fn many_wakes_before_a_poll_cost_one_poll() {
        // The scene is described at `woken_a_thousand_times_then_once`.
        let (future, polls) = woken_a_thousand_times_then_once();
        block_on(future);
        assert_eq!(polls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn a_nested_block_on_does_not_take_the_outer_wake_up() {
        // The scene that hangs the `thread::park` version for good (see
        // `pitfalls::park_block_on`): the outer future wakes itself, then
        // runs a nested `block_on` in the same poll.
        let returned = in_background(|| {
            block_on(outer_with_nested_block_on(block_on));
        });
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
    }

    #[test]
    fn a_library_waking_under_its_own_lock_is_served() {
        // The waker only takes the parker's lock, for a moment: waking
        // from inside another lock cannot deadlock with it.
        let library = Arc::new(Library::default());
        let (polled_tx, polled) = mpsc::channel();
        let task = library.waiting_task(polled_tx);
        let waker_side = Arc::clone(&library);
        let waker_thread = thread::spawn(move || {
            polled.recv().unwrap();
            let waiting = waker_side.waiting.lock().unwrap();
            waiting.as_ref().unwrap().wake_by_ref();
        });
        block_on(task);
        waker_thread.join().unwrap();
    }

    #[test]
    fn runs_the_futures_of_async_channel_and_async_lock() {
        // Both wake from other threads, under event-listener's own lock.
        let (sender, receiver) = async_channel::bounded::<u32>(1);
        let lock = Arc::new(async_lock::Mutex::new(0));
        let producer = {
            let lock = Arc::clone(&lock);
            thread::spawn(move || {
                block_on(async {
                    for i in 1..=100 {
                        *lock.lock().await += i;
                        sender.send(i).await.unwrap();
                    }
                })
            })
        };
        let received = block_on(async {
            let mut sum = 0;
            while let Ok(i) = receiver.recv().await {
                *lock.lock().await -= i;
                sum += i;
            }
            sum
        });
        producer.join().unwrap();
        assert_eq!(received, 5050);
        assert_eq!(*block_on(lock.lock()), 0);
    }

    #[test]
    fn the_future_is_dropped_before_block_on_returns() {
        struct Flag(Arc<AtomicUsize>);
        impl Drop for Flag {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::Relaxed);
            }
        }
        let drops = Arc::new(AtomicUsize::new(0));
        let flag = Flag(Arc::clone(&drops));
        block_on(async move {
            let _flag = flag;
            yield_now().await;
        });
        assert_eq!(drops.load(Ordering::Relaxed), 1);
    }
}

/// loom tries every interleaving of a wake from another thread with the
/// poll and the park of `block_on`: the future is always polled again
/// after the wake, and that poll sees what the waker published.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::test_wakers::wake_from_another_thread;
    use std::sync::atomic::Ordering;

    #[test]
    fn loom_block_on_never_misses_a_wake_from_another_thread() {
        loom::model(|| {
            wake_from_another_thread(
                |future| block_on(future),
                Ordering::Acquire,
                Ordering::Release,
            )
        });
    }
}
