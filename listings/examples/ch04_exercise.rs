//! Chapter 4 exercise: the hand-desugared `add_after_yield`.

use futures::executor::block_on;
use listings::exercises::ch04::{AddAfterYield, add_after_yield};

// ANCHOR: main
fn main() {
    println!("async:   {}", block_on(add_after_yield(2, 3)));
    println!("by hand: {}", block_on(AddAfterYield::Start { a: 2, b: 3 }));
}
// ANCHOR_END: main
