//! Chapter 1 exercises: two more allocation-free combinators.

use super::super::simple_future::{Poll, SimpleFuture};

// ANCHOR: map
/// Exercise 1: a future that applies `f` to the output of `future`.
#[derive(Debug)]
pub struct Map<Fut, F> {
    future: Fut,
    /// `None` once the output has been mapped.
    f: Option<F>,
}

impl<Fut, F, T> Map<Fut, F>
where
    Fut: SimpleFuture,
    F: FnOnce(Fut::Output) -> T,
{
    /// A future for `f(future's output)`.
    pub fn new(future: Fut, f: F) -> Self {
        Map { future, f: Some(f) }
    }
}

impl<Fut, F, T> SimpleFuture for Map<Fut, F>
where
    Fut: SimpleFuture,
    F: FnOnce(Fut::Output) -> T,
{
    type Output = T;

    fn poll(&mut self, wake: fn()) -> Poll<T> {
        // Check first: once mapped, the inner future is finished and must
        // not be polled again.
        assert!(self.f.is_some(), "Map polled after it completed");
        match self.future.poll(wake) {
            Poll::Ready(output) => {
                let f = self.f.take().unwrap(); // checked above
                Poll::Ready(f(output))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}
// ANCHOR_END: map

// ANCHOR: select
/// The output of [`Select`]: which side finished first, with its value.
#[derive(Debug, PartialEq, Eq)]
pub enum Either<L, R> {
    /// The first future finished first.
    Left(L),
    /// The second future finished first.
    Right(R),
}

/// Exercise 2: a future that finishes as soon as either of two does. The
/// other one is dropped unfinished.
#[derive(Debug)]
pub struct Select<A, B> {
    /// `None` once a winner has been returned.
    both: Option<(A, B)>,
}

impl<A: SimpleFuture, B: SimpleFuture> Select<A, B> {
    /// A race between `a` and `b`; on a tie, `a` wins.
    pub fn new(a: A, b: B) -> Self {
        Select { both: Some((a, b)) }
    }
}

impl<A: SimpleFuture, B: SimpleFuture> SimpleFuture for Select<A, B> {
    type Output = Either<A::Output, B::Output>;

    fn poll(&mut self, wake: fn()) -> Poll<Self::Output> {
        let (a, b) = self
            .both
            .as_mut()
            .expect("Select polled after it completed");
        let winner = if let Poll::Ready(output) = a.poll(wake) {
            Either::Left(output)
        } else if let Poll::Ready(output) = b.poll(wake) {
            Either::Right(output)
        } else {
            return Poll::Pending;
        };
        // Dropping both ends the loser here, not at some later time.
        self.both = None;
        Poll::Ready(winner)
    }
}
// ANCHOR_END: select

#[cfg(test)]
mod tests {
    use super::super::super::combinators::{Countdown, Log};
    use super::*;

    fn noop() {}

    #[test]
    fn map_applies_the_function_once_the_future_is_ready() {
        let log = Log::default();
        let mut future = Map::new(Countdown::new("n", 1, &log), str::len);
        assert_eq!(future.poll(noop), Poll::Pending);
        assert_eq!(future.poll(noop), Poll::Ready(1));
        assert_eq!(*log.borrow(), ["n: Pending", "n: Ready"]);
    }

    #[test]
    fn map_panics_when_polled_after_completion_without_polling_the_inner_future() {
        let log = Log::default();
        let mut future = Map::new(Countdown::new("n", 0, &log), str::len);
        assert_eq!(future.poll(noop), Poll::Ready(1));
        let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| future.poll(noop)));
        let payload = again.expect_err("a second poll panics");
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"Map polled after it completed")
        );
        // A countdown logs every poll: the inner future was polled once.
        assert_eq!(*log.borrow(), ["n: Ready"]);
    }

    #[test]
    fn select_returns_the_first_to_finish_and_drops_the_other() {
        let log = Log::default();
        let mut race = Select::new(
            Countdown::new("slow", 3, &log),
            Countdown::new("fast", 1, &log),
        );
        assert_eq!(race.poll(noop), Poll::Pending);
        assert_eq!(race.poll(noop), Poll::Ready(Either::Right("fast")));
        assert!(race.both.is_none(), "the loser is dropped");
        assert_eq!(
            *log.borrow(),
            [
                "slow: Pending",
                "fast: Pending",
                "slow: Pending",
                "fast: Ready"
            ]
        );
    }

    #[test]
    fn select_prefers_the_first_future_on_a_tie() {
        let log = Log::default();
        let mut race = Select::new(Countdown::new("a", 0, &log), Countdown::new("b", 0, &log));
        assert_eq!(race.poll(noop), Poll::Ready(Either::Left("a")));
        assert_eq!(*log.borrow(), ["a: Ready"], "b is not even polled");
    }
}
