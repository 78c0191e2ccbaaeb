//! What the hand-measured groups ([`super::timers`], [`super::echo`])
//! share: percentiles and medians, the process's memory, threads and
//! descriptors as Linux's `/proc` reports them, waiting for them to settle,
//! starting async-io's thread, and writing a group's JSON report (to
//! [`super::support::raw_dir`], or [`super::support::quick_raw_dir`] for a
//! quick run) in the schema the report reads (`bench_results::raw`).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Once};
use std::thread;
use std::time::{Duration, Instant};

use bench_results::raw::{GroupFile, RawFile};

use super::support;

/// The value at percentile `p` (0–100) of `sorted` (ascending), by the
/// nearest-rank method: the smallest value with at least `p` % of the
/// values at or below it, the one of rank ⌈p·n/100⌉ (counting from 1).
/// No interpolation: every number reported is one that was measured.
/// (`p·n` first, then the division: `p / 100` first would make 99.9 % of
/// 1,000 come out as 999.0000000000001, rank 1,000 instead of 999.)
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of nothing");
    let rank = (p * sorted.len() as f64 / 100.0).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The median of `values` (the mean of the two middle ones for an even
/// count).
pub fn median(mut values: Vec<f64>) -> f64 {
    assert!(!values.is_empty(), "median of nothing");
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// `value` rounded to `decimals` places, for the JSON: the measurements
/// are not that precise anyway.
pub fn rounded(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

/// A field of `/proc/self/status` given in KiB (`VmRSS`, `VmHWM`).
pub fn status_kib(field: &str) -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find(|line| line.split(':').next() == Some(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The threads of this process, main thread included.
pub fn threads() -> usize {
    fs::read_dir("/proc/self/task").map_or(0, Iterator::count)
}

/// The descriptors this process has open (counting, every time, the one
/// that reads the directory: compare counts, not absolute values).
pub fn open_fds() -> usize {
    fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

/// Waits, up to `patience`, until the process has at most `wanted`
/// threads: threads that have done their work (a timer's thread after its
/// wake) take a moment to exit, and must not run during the next
/// measurement. Returns how many are left.
pub fn settle_threads(wanted: usize, patience: Duration) -> usize {
    settle(threads, wanted, patience)
}

/// Waits, up to `patience`, until at most `wanted` descriptors are open:
/// a server closes its side of a connection only once it has seen the
/// client's end of stream. Returns how many are open.
pub fn settle_fds(wanted: usize, patience: Duration) -> usize {
    settle(open_fds, wanted, patience)
}

/// Waits, up to `patience`, until `count()` is at most `wanted`; returns
/// its last value.
fn settle(count: fn() -> usize, wanted: usize, patience: Duration) -> usize {
    let give_up = Instant::now() + patience;
    loop {
        let now = count();
        if now <= wanted || Instant::now() >= give_up {
            return now;
        }
        thread::sleep(Duration::from_millis(2));
    }
}

/// Starts async-io's global machinery, once per process: its reactor (an
/// epoll instance and its notification descriptor) and its thread, named
/// "async-io", which drives the reactor whenever no `block_on` is waiting
/// on it (so an async-io program is not strictly one thread: while the
/// thread in `async_io::block_on` is busy running tasks, the "async-io"
/// thread may be the one that fires their timers and wakes them). Both
/// stay for the life of the process. A group calls this first, before it
/// takes any baseline or starts any clock, so that the first measured run
/// does not pay for the start, and the thread counts compared before and
/// after a run are not thrown off by a thread that never exits.
pub fn start_async_io() {
    static STARTED: Once = Once::new();
    STARTED.call_once(|| {
        async_io::block_on(async_io::Timer::after(Duration::from_millis(1)));
    });
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    /// glibc's `malloc_trim(3)`.
    fn malloc_trim(pad: usize) -> i32;
}

/// Gives the memory the allocator holds free back to the kernel (glibc's
/// `malloc_trim(0)`), so that the next run's allocations show in its
/// resident memory instead of silently reusing what the previous run freed.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only walks glibc's own arenas under their
    // locks; it has no preconditions, and 0 asks it to keep no padding.
    unsafe {
        malloc_trim(0);
    }
}

/// How a run's peak resident memory is found.
#[derive(Debug, Clone)]
pub enum PeakMethod {
    /// The kernel's high-water mark of resident memory: reset by writing
    /// "5" to `/proc/self/clear_refs`, read as `VmHWM`. It sees peaks
    /// however short, but it is not exact to the page: the kernel adds up
    /// its resident-page counters in batches (per CPU, or per thread on
    /// older kernels), so a reading can lag by a few pages, and it counts
    /// every resident page of the process, file-backed ones (code and
    /// libraries touched for the first time) as well as the heap and the
    /// stacks.
    ClearRefs,
    /// `/proc/self/clear_refs` is not writable (the reason is kept):
    /// `VmRSS` sampled every millisecond by a thread. Misses peaks shorter
    /// than that, and its thread adds its stack.
    Sampling(String),
}

impl PeakMethod {
    /// Tries to reset the high-water mark once, to choose.
    pub fn detect() -> Self {
        match reset_high_water_mark() {
            Ok(()) if status_kib("VmHWM").is_some() => PeakMethod::ClearRefs,
            Ok(()) => PeakMethod::Sampling("no VmHWM in /proc/self/status".into()),
            Err(e) => PeakMethod::Sampling(format!("/proc/self/clear_refs: {e}")),
        }
    }

    /// What the JSON says about it.
    pub fn describe(&self) -> String {
        match self {
            PeakMethod::ClearRefs => "clear_refs+VmHWM".into(),
            PeakMethod::Sampling(why) => format!("sampling VmRSS every 1 ms ({why})"),
        }
    }

    /// Starts watching: gives free memory back, resets the mark, and notes
    /// the resident memory now. Call it last before the measured work.
    pub fn start(&self) -> PeakWatch {
        release_free_memory();
        let sampler = match self {
            PeakMethod::ClearRefs => {
                reset_high_water_mark().expect("clear_refs worked a moment ago");
                None
            }
            PeakMethod::Sampling(_) => Some(Sampler::start()),
        };
        PeakWatch {
            before_kib: status_kib("VmRSS").unwrap_or(0),
            sampler,
        }
    }
}

/// Resets the kernel's record of this process's peak resident memory to
/// its current resident memory (proc(5), `clear_refs`, value 5).
fn reset_high_water_mark() -> io::Result<()> {
    fs::write("/proc/self/clear_refs", "5")
}

/// A run being watched; see [`PeakMethod::start`].
#[derive(Debug)]
pub struct PeakWatch {
    before_kib: u64,
    sampler: Option<Sampler>,
}

impl PeakWatch {
    /// The peak resident memory since the start, above what was resident
    /// at the start, in MiB.
    pub fn peak_increase_mib(self) -> f64 {
        let peak_kib = match self.sampler {
            Some(sampler) => sampler.stop(),
            None => status_kib("VmHWM").unwrap_or(0),
        };
        peak_kib.saturating_sub(self.before_kib) as f64 / 1024.0
    }
}

/// The fallback: a thread that keeps the largest `VmRSS` it sees.
#[derive(Debug)]
struct Sampler {
    stop: Arc<AtomicBool>,
    peak_kib: Arc<AtomicU64>,
    thread: thread::JoinHandle<()>,
}

impl Sampler {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let peak_kib = Arc::new(AtomicU64::new(0));
        let thread = {
            let (stop, peak_kib) = (Arc::clone(&stop), Arc::clone(&peak_kib));
            thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if let Some(rss) = status_kib("VmRSS") {
                        peak_kib.fetch_max(rss, Ordering::Relaxed);
                    }
                    thread::sleep(Duration::from_millis(1));
                }
            })
        };
        Sampler {
            stop,
            peak_kib,
            thread,
        }
    }

    fn stop(self) -> u64 {
        // One last sample: the end of the run may be its peak.
        if let Some(rss) = status_kib("VmRSS") {
            self.peak_kib.fetch_max(rss, Ordering::Relaxed);
        }
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("the sampler does not panic");
        self.peak_kib.load(Ordering::Relaxed)
    }
}

/// Writes a hand-measured group's report (`timers.json`, `echo.json`, in
/// the schema `bench_results::raw` gives them, which the collector,
/// `tools/bench-report`, reads) and returns its path. Before any number,
/// the collector checks the report's two common fields:
/// - `quick`: whether this is a quick run; a quick run's report goes to
///   [`support::quick_raw_dir`], a full run's to [`support::raw_dir`];
/// - `problems`: what went wrong during the run, in words (a failed
///   implementation, a leak, an early timer…), empty when healthy.
///
/// A report that cannot be written ends the run with a panic: a run that
/// silently leaves an old report in place would be worse.
pub fn write_report<F: GroupFile>(report: &F) -> PathBuf {
    let dir = report_dir(report.quick());
    match write_report_to(&dir, report) {
        Ok(path) => path,
        Err(e) => panic!("could not write {} to {}: {e}", F::FILE, dir.display()),
    }
}

/// Where a report goes: [`support::quick_raw_dir`] for a quick run,
/// else [`support::raw_dir`].
fn report_dir(quick: bool) -> PathBuf {
    if quick {
        support::quick_raw_dir()
    } else {
        support::raw_dir()
    }
}

/// Writes `report` to `dir` (created if need be) under its file name;
/// returns the path.
pub fn write_report_to<F: RawFile>(dir: &Path, report: &F) -> io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = dir.join(F::FILE);
    fs::write(&path, report.to_json())?;
    Ok(path)
}

/// A panic's message, from its payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// For the groups' tests: `report` written as a run writes it, into a
/// target directory of its own (`name`), and read back as `bench-report`
/// collects a run; returns what it collected.
#[cfg(test)]
pub(crate) fn collected_by_the_report<F: RawFile>(
    report: &F,
    name: &str,
) -> bench_report::Collected {
    let target = std::env::temp_dir().join(format!("benchmarks-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&target);
    write_report_to(&target.join("bench-raw"), report).unwrap();
    let bundle = bench_report::Bundle::from_target(&target).unwrap();
    fs::remove_dir_all(&target).unwrap();
    bench_report::collect(&bundle).unwrap()
}

/// For the groups' tests: fails unless `collected` reports each of
/// `problems`, word for word.
#[cfg(test)]
pub(crate) fn assert_reported(collected: &bench_report::Collected, problems: &[&str]) {
    for problem in problems {
        assert!(
            collected.problems.iter().any(|p| p == problem),
            "{problem} in {:#?}",
            collected.problems
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles_are_measured_values() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&values, 50.0), 50.0);
        assert_eq!(percentile(&values, 99.0), 99.0);
        assert_eq!(percentile(&values, 100.0), 100.0);
        assert_eq!(percentile(&[7.0], 99.0), 7.0);
    }

    #[test]
    fn the_99_9th_percentile_of_a_thousand_is_the_999th() {
        let values: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(percentile(&values, 99.9), 999.0);
        assert_eq!(percentile(&values, 99.0), 990.0);
        assert_eq!(percentile(&values, 50.0), 500.0);
        let ten_thousand: Vec<f64> = (1..=10_000).map(f64::from).collect();
        assert_eq!(percentile(&ten_thousand, 99.9), 9990.0);
        // Fewer than 1,000 values: the largest.
        assert_eq!(percentile(&values[..100], 99.9), 100.0);
    }

    #[test]
    fn a_quick_runs_report_goes_where_nothing_collects_it() {
        assert_eq!(report_dir(true), support::quick_raw_dir());
        assert_eq!(report_dir(false), support::raw_dir());
        assert!(support::quick_raw_dir().starts_with(support::raw_dir()));
    }

    #[test]
    fn settling_returns_at_once_when_already_there() {
        // A count of its own: the process's threads come and go while the
        // other tests of this binary run.
        let started = Instant::now();
        assert_eq!(settle(|| 7, 7, Duration::from_secs(60)), 7);
        assert!(started.elapsed() < Duration::from_secs(30), "it waited");
    }

    #[test]
    fn settling_gives_up_after_its_patience() {
        assert_eq!(settle(|| 9, 7, Duration::ZERO), 9);
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn the_process_has_resident_memory_threads_and_descriptors() {
        assert!(status_kib("VmRSS").unwrap() > 0);
        assert!(threads() >= 1);
        assert!(open_fds() >= 3);
    }
}
