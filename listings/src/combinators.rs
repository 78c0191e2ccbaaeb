//! Chapter 1: combining futures without allocating.
//!
//! [`Join`] polls two futures until both are done; [`AndThen`] runs one
//! future, then builds and runs a second from the first one's output. Each is
//! a plain enum or struct: the "state machine" is just which variant it is
//! in, and nothing is put on the heap.

use std::cell::RefCell;
use std::fmt;
use std::mem;
use std::rc::Rc;

use super::simple_future::{Poll, SimpleFuture};

// ANCHOR: maybe_done
/// One side of a [`Join`]: still running, finished with its output kept, or
/// emptied once the output has been handed on.
enum MaybeDone<F: SimpleFuture> {
    Running(F),
    Done(F::Output),
    Taken,
}

impl<F: SimpleFuture> MaybeDone<F> {
    /// Polls the future if it is still running. Returns `true` once done.
    fn poll(&mut self, wake: fn()) -> bool {
        match self {
            MaybeDone::Running(future) => {
                if let Poll::Ready(output) = future.poll(wake) {
                    // Replacing the variant drops the finished future
                    // here: it is never polled again.
                    *self = MaybeDone::Done(output);
                }
            }
            MaybeDone::Done(_) => {}
            MaybeDone::Taken => panic!("Join polled after it completed"),
        }
        matches!(self, MaybeDone::Done(_))
    }

    fn take(&mut self) -> F::Output {
        match mem::replace(self, MaybeDone::Taken) {
            MaybeDone::Done(output) => output,
            _ => unreachable!("take is only called once both sides are done"),
        }
    }
}
// ANCHOR_END: maybe_done

// ANCHOR: join
/// Runs two futures at the same time and yields both outputs.
pub struct Join<A: SimpleFuture, B: SimpleFuture> {
    a: MaybeDone<A>,
    b: MaybeDone<B>,
}

impl<A: SimpleFuture, B: SimpleFuture> Join<A, B> {
    /// A future that is ready when both `a` and `b` are.
    pub fn new(a: A, b: B) -> Self {
        Join {
            a: MaybeDone::Running(a),
            b: MaybeDone::Running(b),
        }
    }
}

impl<A: SimpleFuture, B: SimpleFuture> SimpleFuture for Join<A, B> {
    type Output = (A::Output, B::Output);

    fn poll(&mut self, wake: fn()) -> Poll<Self::Output> {
        // Poll both, even if `a` is still pending: `b` may be able to make
        // progress, and each has arranged its own wake-up when pending.
        let a_done = self.a.poll(wake);
        let b_done = self.b.poll(wake);
        if a_done && b_done {
            Poll::Ready((self.a.take(), self.b.take()))
        } else {
            Poll::Pending
        }
    }
}
// ANCHOR_END: join

impl<F: SimpleFuture> fmt::Debug for MaybeDone<F> {
    // Shows only the state: the future and its output need not be `Debug`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MaybeDone::Running(_) => "Running",
            MaybeDone::Done(_) => "Done",
            MaybeDone::Taken => "Taken",
        })
    }
}

impl<A: SimpleFuture, B: SimpleFuture> fmt::Debug for Join<A, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Join")
            .field("a", &self.a)
            .field("b", &self.b)
            .finish()
    }
}

// ANCHOR: and_then
/// Runs `first`, then the future that `next` builds from its output.
#[derive(Debug)]
pub enum AndThen<A, B, F> {
    /// Running the first future; `next` is kept for later.
    First(A, F),
    /// Running the second future.
    Second(B),
    /// Finished (or moving between states).
    Done,
}

impl<A, B, F> AndThen<A, B, F>
where
    A: SimpleFuture,
    B: SimpleFuture,
    F: FnOnce(A::Output) -> B,
{
    /// A future that runs `first`, then `next(first's output)`.
    pub fn new(first: A, next: F) -> Self {
        AndThen::First(first, next)
    }
}

impl<A, B, F> SimpleFuture for AndThen<A, B, F>
where
    A: SimpleFuture,
    B: SimpleFuture,
    F: FnOnce(A::Output) -> B,
{
    type Output = B::Output;

    fn poll(&mut self, wake: fn()) -> Poll<Self::Output> {
        if let AndThen::First(first, _) = self {
            let Poll::Ready(output) = first.poll(wake) else {
                return Poll::Pending;
            };
            // Take `next` out by value: swap in `Done` for a moment.
            let AndThen::First(_, next) = mem::replace(self, AndThen::Done) else {
                unreachable!()
            };
            *self = AndThen::Second(next(output));
        }
        // The second future starts right away, in the same poll.
        match self {
            AndThen::Second(second) => {
                let output = second.poll(wake);
                if matches!(output, Poll::Ready(_)) {
                    *self = AndThen::Done;
                }
                output
            }
            _ => panic!("AndThen polled after it completed"),
        }
    }
}
// ANCHOR_END: and_then

// ANCHOR: countdown
/// A shared record of what happened, in order.
pub type Log = Rc<RefCell<Vec<String>>>;

/// A future that is pending `polls` times, then ready with its name. It
/// writes each poll to a log, so we can see who was polled and when.
#[derive(Debug)]
pub struct Countdown {
    name: &'static str,
    polls: u32,
    log: Log,
}

impl Countdown {
    /// A future named `name` that is ready on poll number `polls + 1`.
    pub fn new(name: &'static str, polls: u32, log: &Log) -> Self {
        Countdown {
            name,
            polls,
            log: Rc::clone(log),
        }
    }
}

impl SimpleFuture for Countdown {
    type Output = &'static str;

    fn poll(&mut self, wake: fn()) -> Poll<Self::Output> {
        if self.polls == 0 {
            self.log.borrow_mut().push(format!("{}: Ready", self.name));
            return Poll::Ready(self.name);
        }
        self.polls -= 1;
        self.log
            .borrow_mut()
            .push(format!("{}: Pending", self.name));
        // Nothing to wait for: we can progress as soon as we are polled
        // again, so ask for that right away.
        wake();
        Poll::Pending
    }
}
// ANCHOR_END: countdown

#[cfg(test)]
mod tests {
    use super::*;

    fn noop() {}

    fn lines(log: &Log) -> Vec<String> {
        log.borrow_mut().drain(..).collect()
    }

    #[test]
    fn join_polls_both_sides_and_drops_the_finished_one() {
        let log = Log::default();
        let mut join = Join::new(Countdown::new("a", 1, &log), Countdown::new("b", 2, &log));

        assert_eq!(join.poll(noop), Poll::Pending);
        assert_eq!(lines(&log), ["a: Pending", "b: Pending"]);

        assert_eq!(join.poll(noop), Poll::Pending);
        assert_eq!(lines(&log), ["a: Ready", "b: Pending"]);
        // Only `a`'s output is kept: the future itself was dropped.
        assert!(matches!(join.a, MaybeDone::Done("a")));

        // `a` is finished: only `b` is polled now.
        assert_eq!(join.poll(noop), Poll::Ready(("a", "b")));
        assert_eq!(lines(&log), ["b: Ready"]);
    }

    #[test]
    fn and_then_starts_the_second_future_only_after_the_first() {
        let log = Log::default();
        let second_log = Rc::clone(&log);
        let mut chain = AndThen::new(Countdown::new("first", 1, &log), move |name| {
            second_log.borrow_mut().push(format!("next({name})"));
            Countdown::new("second", 1, &second_log)
        });

        assert_eq!(chain.poll(noop), Poll::Pending);
        assert_eq!(lines(&log), ["first: Pending"]);

        // The first finishes, and the second is built and polled at once.
        assert_eq!(chain.poll(noop), Poll::Pending);
        assert_eq!(
            lines(&log),
            ["first: Ready", "next(first)", "second: Pending"]
        );

        assert_eq!(chain.poll(noop), Poll::Ready("second"));
        assert_eq!(lines(&log), ["second: Ready"]);
        assert!(matches!(chain, AndThen::Done));
    }

    #[test]
    fn join_of_ready_futures_is_ready_on_the_first_poll() {
        let log = Log::default();
        let mut join = Join::new(Countdown::new("a", 0, &log), Countdown::new("b", 0, &log));
        assert_eq!(join.poll(noop), Poll::Ready(("a", "b")));
        assert_eq!(lines(&log), ["a: Ready", "b: Ready"]);
    }

    #[test]
    #[should_panic(expected = "Join polled after it completed")]
    fn join_panics_when_polled_after_completion() {
        let log = Log::default();
        let mut join = Join::new(Countdown::new("a", 0, &log), Countdown::new("b", 0, &log));
        assert_eq!(join.poll(noop), Poll::Ready(("a", "b")));
        let _ = join.poll(noop);
    }

    #[test]
    #[should_panic(expected = "polled after it completed")]
    fn and_then_panics_when_polled_after_completion() {
        let log = Log::default();
        let mut chain = AndThen::new(Countdown::new("x", 0, &log), |_| {
            Countdown::new("y", 0, &Log::default())
        });
        assert_eq!(chain.poll(noop), Poll::Ready("y"));
        let _ = chain.poll(noop);
    }
}
