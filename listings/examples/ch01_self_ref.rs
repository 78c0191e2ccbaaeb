//! Chapter 1: moving a self-referential value breaks it; pinning it does not.

use std::mem;
use std::pin::pin;

use listings::pinning::{PinnedSelfRef, SelfRef};

// ANCHOR: swap
fn main() {
    let mut a = SelfRef::new(1);
    let mut b = SelfRef::new(2);
    a.init();
    b.init();
    println!("before swap: a points to itself: {}", a.points_to_itself());

    mem::swap(&mut a, &mut b); // moves both values
    println!("after swap:  a points to itself: {}", a.points_to_itself());
    // ANCHOR_END: swap

    // ANCHOR: pinned
    let mut p = pin!(PinnedSelfRef::new(3));
    p.as_mut().init();
    let moved = p; // moves the `Pin` (a pointer), not the value
    println!(
        "pinned:      p points to itself: {}",
        moved.points_to_itself()
    );
}
// ANCHOR_END: pinned
