//! Chapter 10's report: from a benchmark run to `data/bench/results.toml`
//! and the charts of both editions.
//!
//! `cargo bench -p benchmarks` leaves criterion's estimates under
//! `<target>/criterion/` and the hand-measured groups' JSON under
//! `<target>/bench-raw/` (a quick run, `-- --test` or `BENCH_QUICK=1`,
//! writes into `bench-raw/quick/` instead, which is never read here);
//! `tools/bench-report/run --measure` adds `bench-raw/machine.json`, the
//! machine and its load before and after the run ([`machine`]). The
//! `bench-report` binary gathers those files into a [`Bundle`], refuses a
//! run that is quick, unhealthy or incomplete ([`expected`]) unless told
//! `--allow-partial`, copies the bundle into `data/bench/raw/`, collects it
//! into [`Results`](bench_results::Results) ([`collect`](mod@collect)) and writes them
//! to `data/bench/results.toml`, then draws every chart ([`charts`]) from
//! that file alone, once per edition with that edition's words
//! ([`labels`], from `data/bench/labels.toml`), into
//! `src/charts/<edition>/<name>.svg` ([`svg`], [`report`]), and chapter
//! 11's steps charts, `steps-<group>.svg`, for a run that measured its
//! steps ([`steps`](mod@steps)).
//!
//! The results file's types are `bench-results`', which the book's plug-in
//! reads too: it writes the numbers into chapters in place of
//! `{{#bench …}}`. So are the names of the run's groups and
//! implementations and the schema of its JSON files
//! (`bench_results::ids`, `bench_results::raw`), with which the
//! benchmarks write what this crate reads. Tests (`tests/committed.rs`) check that the committed
//! results file is what collecting `data/bench/raw/` gives and that the
//! committed charts are what this crate draws from it.

pub mod axis;
pub mod bundle;
pub mod charts;
pub mod collect;
pub mod expected;
pub mod labels;
pub mod machine;
pub mod report;
pub mod steps;
pub mod svg;
#[cfg(test)]
mod test_support;

pub use bundle::Bundle;
pub use collect::{Collected, collect};
pub use labels::{Labels, Lang};
pub use report::{Drawn, render_charts, write_report};
