//! What every group shares: whether this is a quick smoke run, what the
//! command line selects, where the hand-measured results go, the set-up of
//! the task groups, and the tokio runtime every tokio user here builds.

use std::ffi::OsStr;
use std::io;
use std::path::PathBuf;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};

/// True for a smoke run, in which every group runs every implementation
/// with small sizes, only to show that it works:
/// - `cargo bench -p benchmarks -- --test` (as CI does);
/// - `cargo test --benches`, which runs the benchmark without `--bench`
///   (criterion then runs each benchmark once: its test mode);
/// - `BENCH_QUICK=1`, exactly (`BENCH_QUICK=0` or an empty value is a
///   full run).
///
/// A quick run writes its JSON to [`quick_raw_dir`], never to
/// [`raw_dir`], so its numbers cannot reach the chapter.
pub fn quick() -> bool {
    quick_from(
        std::env::args().skip(1),
        std::env::var_os("BENCH_QUICK").as_deref(),
    )
}

/// [`quick`] for the arguments `args` (without the program's name) and the
/// value of `BENCH_QUICK`.
fn quick_from(args: impl IntoIterator<Item = String>, env: Option<&OsStr>) -> bool {
    let (mut test, mut bench) = (false, false);
    for arg in args {
        test |= arg == "--test";
        bench |= arg == "--bench";
    }
    // Criterion's rule: `--test` always tests; without `--bench` it tests.
    test || !bench || env == Some(OsStr::new("1"))
}

/// What to do with a hand-measured group (criterion decides for its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandGroup {
    /// Measure it.
    Run,
    /// `--list`: print its name as criterion prints its benchmarks'.
    List,
    /// Not selected, or `--ignored` (criterion then runs nothing).
    Skip,
}

/// What the command line asks of the hand-measured group `group`.
pub fn hand_group(group: &str) -> HandGroup {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|arg| arg == name);
    if flag("--ignored") || !selected(group) {
        HandGroup::Skip
    } else if flag("--list") {
        HandGroup::List
    } else {
        HandGroup::Run
    }
}

/// True when the command line's filter selects the hand-measured group
/// `group`, or there is no filter.
///
/// Criterion reads its filter (its one free argument) as a regular
/// expression matched against `group/function/parameter`; this reads it
/// as a `|`-separated list of substrings, which covers the filters one
/// types (`timers`, `echo`, `timers|echo`, `ping_pong|parts`) without a
/// regex engine. It selects `group` when one of them is part of the
/// group's name (`tim` selects `timers`), or names something inside the
/// group (`timers/book-ch07` runs the whole group: a hand-measured group
/// cannot run part of itself). An empty alternative (`timers|`) selects
/// everything, as it does for criterion. The values of criterion's options
/// (`--warm-up-time 0.2`) are not filters.
pub fn selected(group: &str) -> bool {
    match filter() {
        None => true,
        Some(filter) => filter.split('|').any(|part| {
            group.contains(part)
                || part
                    .strip_prefix(group)
                    .is_some_and(|rest| rest.starts_with('/'))
        }),
    }
}

/// Criterion's filter: the first argument that is neither an option nor
/// the value of one, as criterion's command line parser finds it.
fn filter() -> Option<String> {
    /// Criterion's options that take a value in the next argument
    /// (unless written `--option=value`).
    const WITH_VALUE: &[&str] = &[
        "-c",
        "--color",
        "--colour",
        "-s",
        "--save-baseline",
        "-b",
        "--baseline",
        "--baseline-lenient",
        "--format",
        "--profile-time",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--plotting-backend",
        "--output-format",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--" {
            // Everything after is free.
            return args.next();
        }
        if WITH_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

/// The workspace's target directory: `CARGO_TARGET_DIR`, or `target/` at
/// the workspace root (benchmarks run with the package as their working
/// directory).
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
    }
}

/// Where a full run's hand-measured groups write their JSON:
/// `<target>/bench-raw/`, which `tools/bench-report` collects.
pub fn raw_dir() -> PathBuf {
    target_dir().join("bench-raw")
}

/// Where a quick run writes its JSON instead: `<target>/bench-raw/quick/`,
/// which the collector never reads.
pub fn quick_raw_dir() -> PathBuf {
    raw_dir().join("quick")
}

/// Starts a task group (`spawn`, `ping_pong`, `wake_many`) whose report
/// divides by `elements` (tasks, hand-offs, rounds). An iteration takes
/// milliseconds: the same number of iterations in each of 20 samples
/// (criterion's flat sampling), not criterion's growing ones, keeps the
/// slowest implementation within seconds.
pub fn task_group<'c>(
    c: &'c mut Criterion,
    name: &str,
    elements: usize,
) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    group.sampling_mode(SamplingMode::Flat).sample_size(20);
    group.throughput(Throughput::Elements(elements as u64));
    group
}

/// A tokio current-thread runtime with its I/O and time drivers, as a
/// program would build it: the one configuration of tokio measured here
/// (the executors, the timers, the echo server and the echo client).
pub fn tokio_current_thread() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quick_with(args: &[&str], env: Option<&str>) -> bool {
        quick_from(args.iter().map(|&a| a.to_owned()), env.map(OsStr::new))
    }

    #[test]
    fn cargo_bench_is_a_full_run_and_its_test_mode_is_quick() {
        assert!(!quick_with(&["--bench"], None));
        assert!(!quick_with(&["--bench", "timers"], None));
        assert!(quick_with(&["--bench", "--test"], None));
    }

    #[test]
    fn without_bench_criterion_tests_so_the_run_is_quick() {
        // `cargo test --benches` passes no `--bench`.
        assert!(quick_with(&[], None));
        assert!(quick_with(&["timers"], None));
    }

    #[test]
    fn only_bench_quick_equal_to_one_makes_a_run_quick() {
        assert!(quick_with(&["--bench"], Some("1")));
        assert!(!quick_with(&["--bench"], Some("0")));
        assert!(!quick_with(&["--bench"], Some("")));
        assert!(!quick_with(&["--bench"], Some("yes")));
    }
}
