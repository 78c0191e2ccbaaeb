//! Chapter 4: a future that borrows itself, polled through `pin!`.

use std::pin::pin;
use std::task::{Context, Waker};

use listings::state_machine::sum_with_a_pause;

// ANCHOR: main
fn main() {
    // `pin!` pins the future where it is, on the stack: from here on it
    // can be polled through `Pin<&mut _>` and can no longer move.
    let mut future = pin!(sum_with_a_pause());
    let mut cx = Context::from_waker(Waker::noop());
    println!("poll 1: {:?}", future.as_mut().poll(&mut cx));
    println!("poll 2: {:?}", future.as_mut().poll(&mut cx));
}
// ANCHOR_END: main
