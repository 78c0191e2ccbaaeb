//! Chapter 4: the hand-written `Nap` state machine, run by an executor.

use std::time::Duration;

use futures::executor::block_on;
use listings::state_machine::{Lines, Nap, nap};

// ANCHOR: main
fn main() {
    let lines = Lines::default();
    block_on(Nap::Start(lines.clone(), Duration::from_millis(200)));
    println!("by hand: {:?}", lines.borrow());

    let lines = Lines::default();
    block_on(nap(lines.clone(), Duration::from_millis(200)));
    println!("async:   {:?}", lines.borrow());
}
// ANCHOR_END: main
