//! Chapter 1: the order in which `Join` and `AndThen` poll their futures.

use listings::combinators::{AndThen, Countdown, Join, Log};
use listings::simple_future::block_on;

// ANCHOR: main
fn main() {
    let log = Log::default();

    // `a` is ready on its 2nd poll, `b` on its 3rd.
    let both = Join::new(Countdown::new("a", 1, &log), Countdown::new("b", 2, &log));
    let output = block_on(both);
    print_log("join", &log, output);

    // `second` is only built once `first` is ready.
    let then_log = log.clone();
    let chain = AndThen::new(Countdown::new("first", 1, &log), move |name| {
        let note = format!("building second from {name:?}");
        then_log.borrow_mut().push(note);
        Countdown::new("second", 1, &then_log)
    });
    let output = block_on(chain);
    print_log("and_then", &log, output);
}

/// Prints what the log recorded, then the output, and empties the log.
fn print_log(title: &str, log: &Log, output: impl std::fmt::Debug) {
    println!("{title}:");
    for line in log.borrow_mut().drain(..) {
        println!("  {line}");
    }
    println!("  => {output:?}");
}
// ANCHOR_END: main
