//! What every group shares: whether this is a quick smoke run, the
//! hand-measured groups' command line, where their results go, the set-up
//! of the task groups, and the tokio runtime every tokio user here builds.

use std::ffi::OsStr;
use std::io;
use std::path::PathBuf;

use bench_results::Group;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};

/// True for a smoke run, in which every group runs every implementation
/// with small sizes, only to show that it works:
/// - `cargo bench -p benchmarks -- --test` (as CI does);
/// - `cargo test --benches`, which runs the benchmarks without `--bench`
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

/// The command line of the hand-measured groups' target
/// (`benches/hand.rs`, a plain `main`): criterion never sees it, and it
/// takes none of criterion's options.
///
/// ```text
/// hand [--bench] [--test] [--list] [--ignored] [FILTER...]
/// ```
///
/// - `--bench`: cargo's, for `cargo bench`; without it (`cargo test
///   --benches`) or with `--test`, the run is a quick one ([`quick`]);
/// - `--list`: prints the selected groups, as criterion lists its
///   benchmarks (`timers: benchmark`), and runs nothing;
/// - `--ignored`: runs nothing (no group is ignored), as criterion does;
/// - a filter selects the groups it names. Each is a `|`-separated list
///   of alternatives, which covers the filters one types for criterion's
///   target as well (`timers`, `timers|echo`, `ping_pong|parts`): an
///   alternative selects a group when it is part of the group's name
///   (`tim` selects `timers`) or names something inside it
///   (`timers/book-ch07` runs the whole group: a hand-measured group
///   cannot run part of itself), and an empty one (`timers|`) selects
///   everything. Without a filter every group runs.
///
/// Any other option is an error, naming criterion's target for
/// criterion's options: `cargo bench -p benchmarks -- --warm-up-time 0.5`
/// is for `--bench book`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandArgs {
    /// A quick run ([`quick`]'s rule).
    pub quick: bool,
    /// `--list`.
    pub list: bool,
    /// `--ignored`.
    pub ignored: bool,
    /// The filters, as typed.
    pub filters: Vec<String>,
}

impl HandArgs {
    /// This process's command line and `BENCH_QUICK`.
    pub fn from_env() -> Result<HandArgs, String> {
        HandArgs::parse(
            std::env::args().skip(1),
            std::env::var_os("BENCH_QUICK").as_deref(),
        )
    }

    /// Reads `args` (without the program's name), with `env` the value of
    /// `BENCH_QUICK`.
    pub fn parse(
        args: impl IntoIterator<Item = String>,
        env: Option<&OsStr>,
    ) -> Result<HandArgs, String> {
        let args: Vec<String> = args.into_iter().collect();
        let mut parsed = HandArgs {
            quick: quick_from(args.iter().cloned(), env),
            list: false,
            ignored: false,
            filters: Vec::new(),
        };
        for arg in args {
            match arg.as_str() {
                "--bench" | "--test" => {}
                "--list" => parsed.list = true,
                "--ignored" => parsed.ignored = true,
                option if option.starts_with('-') => {
                    return Err(format!(
                        "unknown option `{option}`: the hand-measured groups take \
                         --test, --list, --ignored and filters; criterion's options are \
                         for its own target (cargo bench -p benchmarks --bench book -- {option} …)"
                    ));
                }
                _ => parsed.filters.push(arg),
            }
        }
        Ok(parsed)
    }

    /// Whether `group` runs (or, with `--list`, is listed).
    pub fn selects(&self, group: Group) -> bool {
        let name = group.name();
        let names = |part: &str| {
            name.contains(part)
                || part
                    .strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with('/'))
        };
        !self.ignored
            && (self.filters.is_empty()
                || self
                    .filters
                    .iter()
                    .any(|filter| filter.split('|').any(names)))
    }
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
    group: Group,
    elements: usize,
) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(group.name());
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

    fn hand(args: &[&str]) -> Result<HandArgs, String> {
        HandArgs::parse(args.iter().map(|&a| a.to_owned()), None)
    }

    fn selected(args: &[&str]) -> Vec<&'static str> {
        let args = hand(args).unwrap();
        Group::HAND_MEASURED
            .into_iter()
            .filter(|&g| args.selects(g))
            .map(Group::name)
            .collect()
    }

    #[test]
    fn the_hand_measured_groups_are_selected_by_criterions_kind_of_filter() {
        assert_eq!(selected(&["--bench"]), ["timers", "echo"]);
        assert_eq!(selected(&["--bench", "timers"]), ["timers"]);
        assert_eq!(selected(&["--bench", "tim"]), ["timers"]);
        assert_eq!(selected(&["--bench", "timers/book-ch07"]), ["timers"]);
        assert_eq!(selected(&["--bench", "timers|echo"]), ["timers", "echo"]);
        assert_eq!(selected(&["--bench", "ping_pong|parts"]), [""; 0]);
        assert_eq!(selected(&["--bench", "ping_pong"]), [""; 0]);
        assert_eq!(selected(&["--bench", "timers|"]), ["timers", "echo"]);
        assert_eq!(selected(&["--bench", "echo", "timers"]), ["timers", "echo"]);
        assert_eq!(selected(&["--bench", "--ignored"]), [""; 0]);
    }

    #[test]
    fn the_hand_measured_groups_take_test_list_and_no_criterion_option() {
        let args = hand(&["--test", "--bench", "--list"]).unwrap();
        assert!(args.quick && args.list && !args.ignored && args.filters.is_empty());
        assert!(!hand(&["--bench"]).unwrap().quick);
        let error = hand(&["--bench", "--warm-up-time", "0.5"]).unwrap_err();
        assert!(
            error.contains("`--warm-up-time`") && error.contains("--bench book"),
            "{error}"
        );
    }

    #[test]
    fn only_bench_quick_equal_to_one_makes_a_run_quick() {
        assert!(quick_with(&["--bench"], Some("1")));
        assert!(!quick_with(&["--bench"], Some("0")));
        assert!(!quick_with(&["--bench"], Some("")));
        assert!(!quick_with(&["--bench"], Some("yes")));
    }
}
