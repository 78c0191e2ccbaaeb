//! `cargo bench -p benchmarks --bench hand`: chapter 10's groups measured
//! by hand, the timers and the echo server, which write their JSON to
//! `target/bench-raw/` (a quick run to `target/bench-raw/quick/`). Its
//! command line is its own, not criterion's:
//! `[--test] [--list] [--ignored] [FILTER...]`
//! ([`HandArgs`](benchmarks::support::HandArgs)); `cargo bench -p
//! benchmarks -- timers` runs the timers alone (criterion's target then
//! finds nothing to run).

use bench_results::Group;
use benchmarks::support::HandArgs;

fn main() {
    let args = match HandArgs::from_env() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("hand: {e}");
            std::process::exit(2);
        }
    };
    let groups: [(Group, fn(bool)); 2] = [
        (Group::Timers, benchmarks::timers::run),
        (Group::Echo, benchmarks::echo::run),
    ];
    for (group, run) in groups {
        if !args.selects(group) {
            continue;
        }
        if args.list {
            println!("{group}: benchmark");
        } else {
            run(args.quick);
        }
    }
}
