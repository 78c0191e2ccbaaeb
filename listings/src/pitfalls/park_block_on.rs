//! Chapter 6 pitfall: `block_on` that sleeps with `thread::park`.
//!
//! It works in a demo: the waker unparks the thread, `park` returns, the
//! future is polled again. But the thread's park token belongs to the
//! thread, not to this `block_on`: any other code running on the thread
//! can consume it (a nested `block_on`, a library that parks), and any code
//! holding the thread's handle can set it. The first loses our wake-up;
//! the second polls the future when nothing woke it. Compare with
//! [`super::super::block_on`], which sleeps on a `Parker` of its own.

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use super::super::state_machine::yield_now;

// ANCHOR: block_on
/// Wakes a task by unparking the thread that runs it.
struct ThreadWaker(Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to completion, parking the thread between polls.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(ThreadWaker(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        // BUG: the thread's token is shared with everything else on the
        // thread. Whoever parks first takes it; whoever unparks sets it.
        thread::park();
    }
}
// ANCHOR_END: block_on

// ANCHOR: nested
/// The outer future wakes itself (it wants to be polled again), then,
/// in the same poll, runs a nested `block_on`. Both sleep on the same
/// thread token.
pub fn outer_with_nested_block_on(
    nested_block_on: fn(Pin<Box<dyn Future<Output = ()>>>),
) -> impl Future<Output = ()> {
    let mut first = true;
    poll_fn(move |cx| {
        if !first {
            return Poll::Ready(());
        }
        first = false;
        // The thread's token is set for the outer `block_on`...
        cx.waker().wake_by_ref();
        // ...and the nested `block_on`, parking on the same thread,
        // takes it.
        nested_block_on(Box::pin(yield_now()));
        Poll::Pending
    })
}
// ANCHOR_END: nested

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_executors::{PATIENCE, in_background};
    use crate::timer::TimerFuture;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;
    use std::task::Waker;
    use std::time::Duration;

    #[test]
    fn it_runs_a_timer_in_a_demo() {
        block_on(TimerFuture::new(Duration::from_millis(10)));
    }

    #[test]
    fn a_nested_block_on_steals_the_wake_up_and_the_outer_one_sleeps_forever() {
        let returned = in_background(|| {
            block_on(outer_with_nested_block_on(block_on));
        });
        // Its wake-up was consumed by the nested `park`, and nothing else
        // will unpark the thread: it never returns. (The thread stays
        // parked when the test ends.)
        assert_eq!(
            returned.recv_timeout(Duration::from_millis(300)).err(),
            Some(mpsc::RecvTimeoutError::Timeout)
        );
    }

    /// Both stray-unpark tests: a future that stays pending until
    /// released, run by `run` (one of the two `block_on`s) on a thread of
    /// its own, and polled once.
    struct StrayUnparkScene {
        /// The thread running `block_on`, for the stray `unpark`.
        runner: Thread,
        /// The waker of the future's task.
        waker: Waker,
        /// One message per poll: whether a wake came before it.
        polls: mpsc::Receiver<bool>,
        woken: Arc<AtomicBool>,
        released: Arc<AtomicBool>,
        /// Hears when `run` returns.
        returned: mpsc::Receiver<thread::Result<()>>,
    }

    impl StrayUnparkScene {
        fn after_the_first_poll(run: fn(Pin<Box<dyn Future<Output = ()> + Send>>)) -> Self {
            let (polls_tx, polls) = mpsc::channel();
            let (wakers_tx, wakers) = mpsc::channel();
            let (thread_tx, thread_rx) = mpsc::channel();
            let (woken, released) = (
                Arc::new(AtomicBool::new(false)),
                Arc::new(AtomicBool::new(false)),
            );
            let (my_woken, my_released) = (Arc::clone(&woken), Arc::clone(&released));
            let mut wakers_tx = Some(wakers_tx);
            let future = poll_fn(move |cx| {
                polls_tx
                    .send(my_woken.swap(false, Ordering::SeqCst))
                    .unwrap();
                if let Some(wakers) = wakers_tx.take() {
                    wakers.send(cx.waker().clone()).unwrap();
                }
                if my_released.load(Ordering::SeqCst) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                }
            });
            let returned = in_background(move || {
                thread_tx.send(thread::current()).unwrap();
                run(Box::pin(future));
            });
            let runner = thread_rx.recv().unwrap();
            let waker = wakers.recv_timeout(PATIENCE).unwrap();
            assert_eq!(polls.recv_timeout(PATIENCE), Ok(false), "the first poll");
            StrayUnparkScene {
                runner,
                waker,
                polls,
                woken,
                released,
                returned,
            }
        }

        /// Lets the future complete, with a wake.
        fn release(&self) {
            self.released.store(true, Ordering::SeqCst);
            self.woken.store(true, Ordering::SeqCst);
            self.waker.wake_by_ref();
        }
    }

    #[test]
    fn a_stray_unpark_polls_the_future_though_nothing_woke_it() {
        let scene = StrayUnparkScene::after_the_first_poll(block_on);
        // Some other code on that thread's behalf unparks it: a library
        // that uses park/unpark for its own waiting, say.
        scene.runner.unpark();
        // Polled again, with no wake behind it.
        assert_eq!(
            scene.polls.recv_timeout(PATIENCE),
            Ok(false),
            "a poll nobody asked for"
        );
        scene.release();
    }

    #[test]
    fn a_parker_ignores_a_stray_unpark() {
        let scene = StrayUnparkScene::after_the_first_poll(crate::block_on::block_on);
        scene.runner.unpark();
        // No poll follows: only the future's own wakers unpark its parker.
        // (If this thread is slow, the wait below only proves less; it
        // cannot fail a correct parker.)
        assert_eq!(
            scene.polls.recv_timeout(Duration::from_millis(100)),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        scene.release();
        assert_eq!(
            scene.polls.recv_timeout(PATIENCE),
            Ok(true),
            "polled after its wake"
        );
        scene.returned.recv_timeout(PATIENCE).unwrap().unwrap();
    }
}
