//! `cargo bench -p benchmarks`: every group of chapter 10 in one run.
//! A filter runs some of them: `cargo bench -p benchmarks -- ping_pong`.

use benchmarks::support::{self, HandGroup};
use criterion::Criterion;
use std::time::Duration;

fn main() {
    // Shorter than criterion's defaults (3 s and 5 s): some forty
    // benchmarks in one run; the command line may still override them.
    let mut criterion = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    benchmarks::block_on::bench(&mut criterion);
    benchmarks::spawn::bench(&mut criterion);
    benchmarks::ping_pong::bench(&mut criterion);
    benchmarks::wake_many::bench(&mut criterion);
    benchmarks::parts::bench(&mut criterion);
    let quick = support::quick();
    hand_group("timers", || benchmarks::timers::run(quick));
    hand_group("echo", || benchmarks::echo::run(quick));
    criterion.final_summary();
}

/// Runs the hand-measured group `name` with `run`, lists it (`--list`,
/// in criterion's format), or skips it (not selected, or `--ignored`).
fn hand_group(name: &str, run: impl FnOnce()) {
    match support::hand_group(name) {
        HandGroup::Run => run(),
        HandGroup::List => println!("{name}: benchmark"),
        HandGroup::Skip => {}
    }
}
