// Chapter 4: an async fn's future is not `Unpin` (this one even borrows
// itself), so `Pin::new` cannot pin it. This file must NOT compile.
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Waker};

async fn sum_with_a_pause() -> u32 {
    let numbers = [1, 2, 3];
    let first = &numbers[0];
    std::future::ready(()).await;
    first + numbers[1] + numbers[2]
}

fn main() {
    let mut future = sum_with_a_pause();
    let mut cx = Context::from_waker(Waker::noop());
    let _ = Pin::new(&mut future).poll(&mut cx);
}
