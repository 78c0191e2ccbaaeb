//! `cargo bench -p benchmarks --bench book`: chapter 10's criterion
//! groups. Criterion reads this target's command line itself: a filter
//! (`-- ping_pong`), `--test` (each benchmark once), its options
//! (`-- --warm-up-time 0.5`). The groups measured by hand are the other
//! target, `hand`; `cargo bench -p benchmarks` runs both.

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
    criterion.final_summary();
}
