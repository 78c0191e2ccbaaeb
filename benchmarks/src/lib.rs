//! Chapter 10: the book's code measured beside the libraries a reader would
//! otherwise use, in one run: `cargo bench -p benchmarks`.
//!
//! Each group of the chapter is a module. The micro-benchmarks
//! ([`block_on`], [`spawn`], [`ping_pong`], [`wake_many`], and [`parts`],
//! the cost of single primitives that explains the others) run under
//! criterion (the bench target `book`), which writes its estimates to
//! `target/criterion/`; the task groups run every executor through one
//! trait ([`executors`]). The timers and the echo server are measured by
//! hand ([`timers`], [`echo`]; the bench target `hand`, whose command line
//! is [`support::HandArgs`]): what they report (lateness percentiles, peak
//! memory, latency) is not a time per iteration. They write JSON reports
//! to `target/bench-raw/` (helpers in [`measure`]), or, in a quick run, to
//! `target/bench-raw/quick/`, which nothing collects. [`support`] holds
//! what every group shares: quick mode, the hand-measured groups' command
//! line, the output directories, the task groups' sampling, the tokio
//! runtime. The chapter's numbers and charts are made from criterion's
//! estimates and the full run's reports by `tools/bench-report`.
//!
//! Two programs in `examples/` explain what a time cannot: `task_bytes`
//! counts the heap bytes a pending timer task holds on each runtime (a
//! counting allocator), and `handoff_instructions` plays the `ping_pong`
//! game for valgrind's callgrind, which counts instructions per hand-off
//! (chapter 11 uses both for its misses).
//!
//! The names of the groups and implementations (`book-ch02` …
//! `book-ch10` for the book's code, the chapter that builds it, and the
//! crate's name for each library) and the reports' JSON schema are
//! `bench_results`' ([`bench_results::ids`], [`bench_results::raw`]),
//! which the report reads with: nothing is spelt twice.

pub mod block_on;
pub mod echo;
pub mod executors;
pub mod measure;
pub mod parts;
pub mod ping_pong;
pub mod spawn;
pub mod support;
pub mod timers;
pub mod wake_many;
