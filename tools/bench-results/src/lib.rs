//! Chapter 10's results file, `data/bench/results.toml`, in one place: the
//! typed schema ([`Results`], [`Machine`], [`Measure`], [`Unit`]), reading
//! and writing the file, and how a measure is shown ([`format`](mod@format));
//! and the run it is collected from: the names of its groups and
//! implementations ([`ids`]) and the JSON files criterion does not write
//! ([`raw`]).
//!
//! Three crates use it: the benchmarks (`benchmarks/`), which name their
//! measures with [`ids`] and write [`raw`]'s files; `bench-report`
//! (`tools/bench-report`), which reads those, collects a benchmark run
//! into the results file and draws its charts; and the book's plug-in
//! (`tools/mdbook-asyncbook`), which writes the results file's numbers
//! into chapters in place of `{{#bench …}}`. None keeps a copy of these
//! types, so each file has one schema.

pub mod format;
pub mod ids;
pub mod raw;
pub mod results;
#[doc(hidden)]
pub mod test_support;

pub use format::{
    display_unit, format_interval, format_ratio, format_value, group_thousands, rounded,
    significant, value_parts,
};
pub use ids::{Group, Impl, Part};
pub use raw::{GroupFile, RawFile};
pub use results::{Machine, Measure, Results, Unit};

/// The results file, from the repository root.
pub const RESULTS: &str = "data/bench/results.toml";
/// The run's own files that [`RESULTS`] was collected from, from the
/// repository root.
pub const RAW_DIR: &str = "data/bench/raw";
/// The charts' folder, from the repository root: one folder per edition
/// (`src/charts/ja/`, `src/charts/zh/`), every `.svg` in them generated.
pub const CHART_DIR: &str = "src/charts";
/// The command that writes [`RESULTS`] and the charts.
pub const REPORT_COMMAND: &str = "tools/bench-report/run";
/// The command that measures.
pub const MEASURE_COMMAND: &str = "cargo bench -p benchmarks";

/// Errors end the program with a message; there is nothing to recover.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;
