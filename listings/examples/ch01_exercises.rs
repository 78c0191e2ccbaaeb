//! Chapter 1 exercises: `Map` and `Select` at work.

use listings::combinators::{Countdown, Log};
use listings::exercises::ch01::{Map, Select};
use listings::simple_future::block_on;

// ANCHOR: main
fn main() {
    let log = Log::default();

    let length = block_on(Map::new(Countdown::new("four", 1, &log), str::len));
    println!("map -> {length}");

    let race = Select::new(
        Countdown::new("slow", 3, &log),
        Countdown::new("fast", 1, &log),
    );
    println!("select -> {:?}", block_on(race));
}
// ANCHOR_END: main
