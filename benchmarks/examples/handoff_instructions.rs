//! The ping_pong group's game, played `GAMES` times on one executor, for
//! counting instructions under valgrind's callgrind: where wall-clock time
//! varies from run to run, the count of instructions executed does not.
//!
//! ```text
//! cargo build --release -p benchmarks --example handoff_instructions
//! valgrind --tool=callgrind --collect-bus=yes target/release/examples/handoff_instructions book-ch11 1
//! valgrind --tool=callgrind --collect-bus=yes target/release/examples/handoff_instructions book-ch11 11
//! ```
//!
//! The difference between the two totals, divided by 10 games of
//! `PING_PONG_TURNS` hand-offs, is the instructions one hand-off costs,
//! with the program's start and the executor's construction taken out.
//! `--collect-bus=yes` adds a second total (`Ge`, "global bus events"):
//! the locked instructions (a `lock` prefix, or an `xchg` with memory),
//! which the same difference turns into locked instructions per
//! hand-off. `callgrind_annotate` on either output names the functions
//! they go to.
//! Executors: `book-ch10`, `book-ch11`, `tokio`, `async-executor`.

use std::sync::Arc;

use bench_results::ids::PING_PONG_TURNS;
use benchmarks::executors::{AsyncExecutor, BookCh10, BookCh11, Executor, Tokio};
use benchmarks::ping_pong::{Table, play};

/// Plays `games` games of `PING_PONG_TURNS` turns on a new `E`.
fn games<E: Executor>(games: usize) {
    let mut executor = E::new();
    let table = Arc::new(Table::default());
    for _ in 0..games {
        play(&mut executor, &table, PING_PONG_TURNS);
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(executor), Some(count)) = (args.next(), args.next()) else {
        eprintln!("usage: handoff_instructions <book-ch10|book-ch11|tokio|async-executor> <games>");
        std::process::exit(2);
    };
    let count: usize = count.parse().expect("a number of games");
    match executor.as_str() {
        "book-ch10" => games::<BookCh10>(count),
        "book-ch11" => games::<BookCh11<3>>(count),
        "tokio" => games::<Tokio>(count),
        "async-executor" => games::<AsyncExecutor>(count),
        other => {
            eprintln!("unknown executor {other}");
            std::process::exit(2);
        }
    }
    println!("{executor}: {count} games of {PING_PONG_TURNS} hand-offs");
}
