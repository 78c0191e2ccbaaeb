//! Chapter 4 exercise: desugar an `async fn` that returns a value.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::super::state_machine::{YieldNow, yield_now};

// ANCHOR: add_async
/// The `async fn` to desugar.
pub async fn add_after_yield(a: u32, b: u32) -> u32 {
    yield_now().await;
    a + b
}
// ANCHOR_END: add_async

// ANCHOR: add_by_hand
/// Exercise: `add_after_yield` by hand. The arguments live in the state
/// until they are needed, and the output leaves through `Poll::Ready`.
#[derive(Debug)]
pub enum AddAfterYield {
    Start { a: u32, b: u32 },
    Yielding { a: u32, b: u32, inner: YieldNow },
    Done,
}

impl Future for AddAfterYield {
    type Output = u32;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        loop {
            match std::mem::replace(&mut *self, AddAfterYield::Done) {
                AddAfterYield::Start { a, b } => {
                    *self = AddAfterYield::Yielding {
                        a,
                        b,
                        inner: yield_now(),
                    };
                }
                AddAfterYield::Yielding { a, b, mut inner } => {
                    if Pin::new(&mut inner).poll(cx).is_pending() {
                        *self = AddAfterYield::Yielding { a, b, inner };
                        return Poll::Pending;
                    }
                    return Poll::Ready(a + b);
                }
                AddAfterYield::Done => panic!("`AddAfterYield` polled after completion"),
            }
        }
    }
}
// ANCHOR_END: add_by_hand

#[cfg(test)]
mod tests {
    use super::*;
    use std::pin::pin;
    use std::task::Waker;

    fn polls(future: Pin<&mut impl Future<Output = u32>>) -> Vec<Poll<u32>> {
        let mut future = future;
        let mut cx = Context::from_waker(Waker::noop());
        let mut seen = vec![future.as_mut().poll(&mut cx)];
        while seen.last().unwrap().is_pending() {
            seen.push(future.as_mut().poll(&mut cx));
        }
        seen
    }

    #[test]
    fn by_hand_matches_the_async_fn() {
        let by_async = polls(pin!(add_after_yield(2, 3)));
        let by_hand = polls(pin!(AddAfterYield::Start { a: 2, b: 3 }));
        assert_eq!(by_async, [Poll::Pending, Poll::Ready(5)]);
        assert_eq!(by_hand, by_async);
    }
}
