//! Chapter 4: async code and the state machines it stands for, side by
//! side. Each `async` version here has a hand-written twin that behaves
//! the same, poll for poll; the tests check that they do.

use std::cell::RefCell;
use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use super::timer::TimerFuture;

/// Where the examples write their lines: shared, so that whoever polls can
/// read them between polls.
pub type Lines = Rc<RefCell<Vec<&'static str>>>;

// ANCHOR: yield_now
/// Pending once (after asking to be polled again), then ready: the
/// smallest possible `.await` point.
#[derive(Debug, Default)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct YieldNow {
    yielded: bool,
}

/// A future that gives control back to its caller once.
pub fn yield_now() -> YieldNow {
    YieldNow::default()
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        self.yielded = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}
// ANCHOR_END: yield_now

// ANCHOR: three_lines_async
/// Writes three lines, giving control back between them.
pub async fn three_lines(out: Lines) {
    out.borrow_mut().push("start");
    yield_now().await;
    out.borrow_mut().push("middle");
    yield_now().await;
    out.borrow_mut().push("end");
}
// ANCHOR_END: three_lines_async

// ANCHOR: three_lines_enum
/// `three_lines` by hand: one variant per place where the function can be
/// suspended, each holding what is still needed from there on.
#[derive(Debug)]
pub enum ThreeLines {
    /// Not polled yet.
    Start(Lines),
    /// Waiting at the first `.await`.
    Middle(Lines, YieldNow),
    /// Waiting at the second `.await`.
    End(Lines, YieldNow),
    /// Returned.
    Done,
}

impl ThreeLines {
    /// Like calling the `async fn`: nothing runs until the first poll.
    pub fn new(out: Lines) -> Self {
        ThreeLines::Start(out)
    }
}
// ANCHOR_END: three_lines_enum

// ANCHOR: three_lines_poll
impl Future for ThreeLines {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // Run from state to state until something is pending. Each arm
        // takes its state by value (leaving `Done` for a moment) and puts
        // back the next one.
        loop {
            match mem::replace(&mut *self, ThreeLines::Done) {
                ThreeLines::Start(out) => {
                    out.borrow_mut().push("start");
                    *self = ThreeLines::Middle(out, yield_now());
                }
                ThreeLines::Middle(out, mut inner) => {
                    if Pin::new(&mut inner).poll(cx).is_pending() {
                        *self = ThreeLines::Middle(out, inner);
                        return Poll::Pending;
                    }
                    out.borrow_mut().push("middle");
                    *self = ThreeLines::End(out, yield_now());
                }
                ThreeLines::End(out, mut inner) => {
                    if Pin::new(&mut inner).poll(cx).is_pending() {
                        *self = ThreeLines::End(out, inner);
                        return Poll::Pending;
                    }
                    out.borrow_mut().push("end");
                    return Poll::Ready(());
                }
                ThreeLines::Done => panic!("`ThreeLines` polled after completion"),
            }
        }
    }
}
// ANCHOR_END: three_lines_poll

// ANCHOR: nap_async
/// An async block that prints, sleeps and prints again.
#[allow(clippy::manual_async_fn, reason = "the chapter is about async blocks")]
pub fn nap(out: Lines, duration: Duration) -> impl Future<Output = ()> {
    async move {
        out.borrow_mut().push("going to sleep");
        TimerFuture::new(duration).await;
        out.borrow_mut().push("awake again");
    }
}
// ANCHOR_END: nap_async

// ANCHOR: nap_enum
/// `nap` by hand. While sleeping it owns the timer and polls it with the
/// same `Context` it was given, so the timer wakes *this* task.
#[derive(Debug)]
pub enum Nap {
    Start(Lines, Duration),
    Sleeping(Lines, TimerFuture),
    Done,
}

impl Future for Nap {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            match mem::replace(&mut *self, Nap::Done) {
                Nap::Start(out, duration) => {
                    out.borrow_mut().push("going to sleep");
                    *self = Nap::Sleeping(out, TimerFuture::new(duration));
                }
                Nap::Sleeping(out, mut timer) => {
                    // Pass `cx` down: the timer stores this task's waker.
                    if Pin::new(&mut timer).poll(cx).is_pending() {
                        *self = Nap::Sleeping(out, timer);
                        return Poll::Pending;
                    }
                    out.borrow_mut().push("awake again");
                    return Poll::Ready(());
                }
                Nap::Done => panic!("`Nap` polled after completion"),
            }
        }
    }
}
// ANCHOR_END: nap_enum

// ANCHOR: borrow_across_await
/// Keeps a reference to its own local across an `.await`: its state
/// machine holds both `numbers` and a pointer into it.
pub async fn sum_with_a_pause() -> u32 {
    let numbers = [1, 2, 3];
    let first = &numbers[0];
    yield_now().await;
    first + numbers[1] + numbers[2]
}
// ANCHOR_END: borrow_across_await

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::pin;
    use std::task::Waker;

    /// Polls `future` by hand until it is ready. Returns, for every poll,
    /// its result and the lines written so far.
    fn trace(future: Pin<&mut impl Future>, out: &Lines) -> Vec<String> {
        let mut future = future;
        let mut cx = Context::from_waker(Waker::noop());
        let mut trace = Vec::new();
        loop {
            let poll = future.as_mut().poll(&mut cx).map(|_| ());
            trace.push(format!("{poll:?} {:?}", out.borrow()));
            if poll.is_ready() {
                return trace;
            }
        }
    }

    #[test]
    fn three_lines_by_hand_matches_the_async_fn_poll_for_poll() {
        let (a, b) = (Lines::default(), Lines::default());
        let by_async = trace(pin!(three_lines(a.clone())), &a);
        let by_hand = trace(pin!(ThreeLines::new(b.clone())), &b);
        assert_eq!(by_async, by_hand);
        assert_eq!(
            by_hand,
            [
                r#"Pending ["start"]"#,
                r#"Pending ["start", "middle"]"#,
                r#"Ready(()) ["start", "middle", "end"]"#,
            ]
        );
    }

    /// Counts the polls of the future it wraps.
    struct CountPolls<F> {
        inner: F,
        polls: usize,
    }

    impl<F: Future + Unpin> Future for CountPolls<F> {
        type Output = usize;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            self.polls += 1;
            match Pin::new(&mut self.inner).poll(cx) {
                Poll::Ready(_) => Poll::Ready(self.polls),
                Poll::Pending => Poll::Pending,
            }
        }
    }

    #[test]
    fn nap_by_hand_matches_the_async_block_poll_for_poll() {
        let run = |future: Pin<Box<dyn Future<Output = ()>>>| {
            futures::executor::block_on(CountPolls {
                inner: future,
                polls: 0,
            })
        };
        let duration = Duration::from_millis(200);
        let (a, b) = (Lines::default(), Lines::default());
        let polls_async = run(Box::pin(nap(a.clone(), duration)));
        let polls_by_hand = run(Box::pin(Nap::Start(b.clone(), duration)));
        // Pending while the timer runs, woken once by the timer thread.
        assert_eq!((polls_async, polls_by_hand), (2, 2));
        assert_eq!(*a.borrow(), ["going to sleep", "awake again"]);
        assert_eq!(*a.borrow(), *b.borrow());
    }

    #[test]
    fn a_future_that_borrows_itself_is_polled_through_pin() {
        let mut future = pin!(sum_with_a_pause());
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(future.as_mut().poll(&mut cx), Poll::Pending);
        assert_eq!(future.as_mut().poll(&mut cx), Poll::Ready(6));
    }
}
