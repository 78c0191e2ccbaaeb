//! Chapter 4: polling the hand-written state machine by hand.

use std::pin::pin;
use std::task::{Context, Waker};

use listings::state_machine::{Lines, ThreeLines};

// ANCHOR: main
fn main() {
    let lines = Lines::default();
    let mut future = pin!(ThreeLines::new(lines.clone()));
    // `Waker::noop()` (Rust 1.85) wakes nobody: fine, we poll in a loop.
    let mut cx = Context::from_waker(Waker::noop());
    for n in 1.. {
        let poll = future.as_mut().poll(&mut cx);
        println!("poll {n}: {poll:?}, lines so far: {:?}", lines.borrow());
        if poll.is_ready() {
            break;
        }
    }
}
// ANCHOR_END: main
