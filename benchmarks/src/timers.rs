//! Timers: many timers started at once, each awaited in its own task.
//!
//! 10,000 timers of 100 ms (quick: 200 of 20 ms). Each task notes the
//! instant, creates its timer, awaits it, and notes the instant it resumed;
//! its deadline is the first instant plus the duration. What differs is the
//! timer mechanism:
//! - `book-ch02`: chapter 2's `TimerFuture`, a thread per timer;
//! - `book-ch07`: chapter 7's `Reactor`, one thread over a heap of
//!   deadlines (its `Sleep` starts its clock at its first poll, which is
//!   right after the task noted the instant, so its real deadline is never
//!   before the one we measure from);
//! - `book-ch09`: the runtime's own timers (`handle.sleep`), the earliest
//!   deadline being the timeout of `epoll_wait`;
//! - `tokio`: `tokio::time::sleep` on a current-thread runtime, tasks
//!   spawned with `spawn_local` on a `LocalSet`;
//! - `async-io`: `async_io::Timer::after` on an `async_executor::LocalExecutor`
//!   driven by `async_io::block_on`.
//!
//! `book-ch02` and `book-ch07` run on chapter 9's runtime (`Runtime::new()`,
//! as `book-ch09` does), so that only the timer differs, not the executor.
//!
//! async-io is not strictly one thread: besides the thread in its
//! `block_on`, it has a thread of its own, named "async-io", that drives
//! its reactor (and so fires its timers) whenever `block_on`'s thread is
//! busy running tasks instead of waiting on the reactor. On a machine with
//! two cores that second thread can fire timers while the first is still
//! polling, which may explain part of async-io's lower lateness. The group
//! starts that thread before anything else
//! ([`measure::start_async_io`]), so that no run pays for its start and
//! the thread counts taken between runs already include it.
//!
//! Fairness: every implementation runs the same task body (`timed`),
//! spawned as one task per timer, joined in spawn order by the main future;
//! the runtime (and chapter 7's reactor thread) is built before the clock
//! starts and dropped after it stops. As in the task groups (see
//! [`executors`](super::executors)), the tasks are spawned from inside the
//! main future that `block_on` runs, as a program would. The clock
//! (`wall_ms`) runs from just before `block_on` is called (each task
//! creates its timer at its first poll, so spawning is part of starting
//! the timers, for everyone) until the main future has joined every task.
//! Per run we record:
//! - `wall_ms`, and `overhead_ms` = `wall_ms` − the duration;
//! - `start_ms`: from the start until the last timer was created. All
//!   the timers are meant to start at once; where creating them takes
//!   longer than their duration (a thread each), the first ones fire
//!   while the executor is still busy creating the rest, and their
//!   lateness shows it;
//! - each timer's lateness, resumed − deadline; p50, p99 (nearest rank)
//!   and the maximum over the timers, in µs. A timer that resumes before its
//!   deadline is counted in `early` (the sum over all runs, so that one
//!   early timer in one run cannot hide behind a median) and makes its
//!   lateness negative, which the percentiles then show;
//! - `peak_rss_mib`: the peak resident memory during the run above the
//!   resident memory just before it (the kernel's high-water mark, reset
//!   through `/proc/self/clear_refs`; the allocator's free memory is given
//!   back first, so that a run cannot hide its allocations by reusing what
//!   the previous run freed; see [`PeakMethod::ClearRefs`] for how close
//!   the mark is). Kernel memory, such as the kernel stack of each of
//!   `book-ch02`'s threads, is not resident memory of the process and is
//!   not counted.
//!
//! Each implementation runs R times (R = 5, quick: 1), one after another,
//! and each metric is the median over its runs: the reported maximum is
//! the median of the runs' maxima (with R = 5, the third largest of five),
//! so one run's outlier does not decide it. Between runs we wait for the
//! threads of the last one to exit. `book-ch02` needs a thread per timer:
//! if the system will not give them, the thread limits are printed and the
//! result says why instead of the benchmark crashing.
//!
//! The report, `timers.json` (see [`measure::write_report`]; its schema is
//! `bench_results::raw::Timers`, which the report reads): `quick`,
//! `problems` (an implementation that failed, a timer that resumed early,
//! threads of a run still alive after the wait), the parameters `count`,
//! `duration_ms` and `runs`, `rss_method` (how the peak memory was read),
//! and `results`, one object per implementation in the order above: `impl`
//! and either `error` or the medians `wall_ms`, `overhead_ms`, `start_ms`,
//! `lateness_us` (`p50`, `p99`, and `max`, the median of the runs' maxima),
//! `peak_rss_mib`, and `early` (summed over the runs).

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use async_executor::LocalExecutor;
use bench_results::raw::{Lateness, Outcome, TimerMeasures, TimerResult, Timers};
use listings::reactor::Reactor;
use listings::runtime::Runtime;
use listings::timer::TimerFuture;

use super::executors::{BookRuntime, ch11_step};
use super::measure::{self, PeakMethod, rounded};
use super::support;

/// An implementation of the timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Impl {
    BookCh02,
    BookCh07,
    BookCh09,
    /// Chapter 11's runtime after its step 1, 2 or 3 (3: every step).
    BookCh11(u8),
    Tokio,
    AsyncIo,
}

impl Impl {
    /// Every implementation, in the order they run and are reported.
    const ALL: [Impl; 8] = [
        Impl::BookCh02,
        Impl::BookCh07,
        Impl::BookCh09,
        Impl::BookCh11(1),
        Impl::BookCh11(2),
        Impl::BookCh11(3),
        Impl::Tokio,
        Impl::AsyncIo,
    ];

    /// Its name, in the report and the charts.
    fn id(self) -> bench_results::Impl {
        match self {
            Impl::BookCh02 => bench_results::Impl::BookCh02,
            Impl::BookCh07 => bench_results::Impl::BookCh07,
            Impl::BookCh09 => bench_results::Impl::BookCh09,
            Impl::BookCh11(1) => bench_results::Impl::BookCh11Step1,
            Impl::BookCh11(2) => bench_results::Impl::BookCh11Step2,
            Impl::BookCh11(_) => bench_results::Impl::BookCh11,
            Impl::Tokio => bench_results::Impl::Tokio,
            Impl::AsyncIo => bench_results::Impl::AsyncIo,
        }
    }
}

/// What one run measured.
#[derive(Debug)]
struct Run {
    wall: Duration,
    /// From the start until the last timer was created.
    starting: Duration,
    /// Each timer's resume instant minus its deadline, in nanoseconds
    /// (negative if it resumed early), in spawn order.
    lateness_ns: Vec<i64>,
    peak_rss_mib: f64,
}

/// The median of each metric over one implementation's runs.
#[derive(Debug)]
struct Summary {
    wall_ms: f64,
    overhead_ms: f64,
    start_ms: f64,
    p50_us: f64,
    p99_us: f64,
    max_us: f64,
    /// Over all runs, not a median.
    early: usize,
    peak_rss_mib: f64,
}

impl Summary {
    /// As the report has them, rounded: the measurements are not that
    /// precise anyway.
    fn measures(&self) -> TimerMeasures {
        TimerMeasures {
            wall_ms: rounded(self.wall_ms, 3),
            overhead_ms: rounded(self.overhead_ms, 3),
            start_ms: rounded(self.start_ms, 3),
            lateness_us: Lateness {
                p50: rounded(self.p50_us, 1),
                p99: rounded(self.p99_us, 1),
                max: rounded(self.max_us, 1),
            },
            early: self.early as u64,
            peak_rss_mib: rounded(self.peak_rss_mib, 2),
        }
    }
}

/// Runs the group: every implementation, R times; prints a table and
/// writes `timers.json`.
pub fn run(quick: bool) {
    let (count, duration, runs) = if quick {
        (200, Duration::from_millis(20), 1)
    } else {
        (10_000, Duration::from_millis(100), 5)
    };
    // First: its thread must not start during a run, nor after the
    // thread count a run is compared with.
    measure::start_async_io();
    let peak = PeakMethod::detect();
    if let PeakMethod::Sampling(why) = &peak {
        println!("timers: peak memory by sampling, since {why}");
    }
    println!(
        "timers: {count} timers of {} ms, each in its own task; median of {runs} run(s)",
        duration.as_millis()
    );
    print_thread_limits(count);

    let mut results = Vec::new();
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for implementation in Impl::ALL {
        let name = implementation.id();
        let baseline_threads = measure::threads();
        let mut done = Vec::new();
        let mut failure = None;
        for _ in 0..runs {
            // A panic here is a failure to measure (a thread that could
            // not be spawned), not a reason to lose the other results.
            let outcome = first_panic_only(|| {
                panic::catch_unwind(AssertUnwindSafe(|| {
                    run_once(implementation, count, duration, &peak)
                }))
            });
            // Leftover threads (of a failed run, or still exiting) must not
            // run during the next measurement.
            let patience = duration * 4 + SETTLE;
            let left = measure::settle_threads(baseline_threads, patience);
            if outcome.is_ok() && left > baseline_threads {
                let problem = format!(
                    "{name}: {left} threads still alive {} s after a run, {baseline_threads} before it",
                    patience.as_secs_f64()
                );
                println!("timers: {problem}");
                problems.push(problem);
            }
            match outcome {
                Ok(run) => {
                    assert_eq!(
                        run.lateness_ns.len(),
                        count,
                        "{name}: a timer task is missing"
                    );
                    done.push(run);
                }
                Err(payload) => {
                    let message = measure::panic_message(&*payload);
                    failure = Some(format!(
                        "{message} (threads: {left} still alive, {baseline_threads} before the run)"
                    ));
                    break;
                }
            }
        }
        match failure {
            Some(error) => {
                println!("timers: {name}: FAILED: {error}");
                problems.push(format!("{name}: failed: {error}"));
                results.push(TimerResult {
                    implementation: name,
                    outcome: Outcome::Failed { error },
                });
            }
            None => {
                let summary = summarise(&done, duration);
                if summary.early > 0 {
                    let problem = format!(
                        "{name}: {} timer(s) resumed before their deadline",
                        summary.early
                    );
                    println!("timers: {problem}");
                    problems.push(problem);
                }
                results.push(TimerResult {
                    implementation: name,
                    outcome: Outcome::Measured(summary.measures()),
                });
                rows.push((name, summary));
            }
        }
    }
    print_table(&rows);
    let report = Timers {
        quick,
        problems,
        count: count as u64,
        duration_ms: duration.as_millis() as u64,
        runs,
        rss_method: peak.describe(),
        results,
    };
    let path = measure::write_report(&report);
    println!("timers: wrote {}", path.display());
    if !report.problems.is_empty() {
        println!(
            "timers: {} problem(s), listed in the report",
            report.problems.len()
        );
    }
}

/// Runs `f` with a panic hook that prints only the first panic: a run of
/// `book-ch02` that cannot spawn its threads panics once per timer left
/// (each task's panic is kept for its `JoinHandle`), and one message says
/// it all. The hook in place before is restored afterwards.
fn first_panic_only<T>(f: impl FnOnce() -> T) -> T {
    let previous: Arc<PanicHook> = Arc::from(panic::take_hook());
    let panics = Arc::new(AtomicUsize::new(0));
    {
        let (previous, panics) = (Arc::clone(&previous), Arc::clone(&panics));
        panic::set_hook(Box::new(move |info| {
            if panics.fetch_add(1, Ordering::Relaxed) == 0 {
                previous(info);
            }
        }));
    }
    let output = f();
    drop(panic::take_hook());
    panic::set_hook(Box::new(move |info| previous(info)));
    let panics = panics.load(Ordering::Relaxed);
    if panics > 1 {
        println!("timers: ({} more panics like it not shown)", panics - 1);
    }
    output
}

/// What `std::panic::set_hook` takes.
type PanicHook = dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send;

/// How long, beyond the timers' own duration, leftover threads get to exit.
const SETTLE: Duration = Duration::from_secs(5);

/// One run of `implementation`.
fn run_once(implementation: Impl, count: usize, duration: Duration, peak: &PeakMethod) -> Run {
    match implementation {
        Impl::BookCh02 => on_book_runtime(count, peak, || timed(duration, TimerFuture::new)),
        Impl::BookCh07 => {
            // Started before the clock, like a runtime; its thread is
            // joined when it is dropped, after the clock has stopped.
            let reactor = Rc::new(Reactor::new());
            on_book_runtime(count, peak, || {
                let reactor = Rc::clone(&reactor);
                async move { timed(duration, |d| reactor.sleep(d)).await }
            })
        }
        Impl::BookCh09 => {
            let runtime = Runtime::new().expect("a runtime (epoll, eventfd)");
            let handle = runtime.handle().clone();
            on_runtime(&runtime, count, peak, || {
                let handle = handle.clone();
                async move { timed(duration, |d| handle.sleep(d)).await }
            })
        }
        Impl::BookCh11(step) => {
            let runtime = listings::lean_runtime::Runtime::at_step(ch11_step(step))
                .expect("a runtime (epoll, eventfd)");
            let handle = runtime.handle().clone();
            on_runtime(&runtime, count, peak, || {
                let handle = handle.clone();
                async move { timed(duration, |d| handle.sleep(d)).await }
            })
        }
        Impl::Tokio => tokio_run(count, duration, peak),
        Impl::AsyncIo => async_io_run(count, duration, peak),
    }
}

/// The body of every timer task: creates a timer of `duration` with
/// `make`, awaits it, and returns when it created it and how late it
/// resumed. The deadline is counted from just before the
/// timer is created.
pub async fn timed<F: Future>(duration: Duration, make: impl FnOnce(Duration) -> F) -> Timed {
    let created = Instant::now();
    make(duration).await;
    let resumed = Instant::now();
    let deadline = created + duration;
    let lateness_ns = match resumed.checked_duration_since(deadline) {
        Some(late) => nanos(late),
        None => -nanos(deadline - resumed),
    };
    Timed {
        created,
        lateness_ns,
    }
}

/// What a timer task returns.
#[derive(Debug)]
pub struct Timed {
    /// Just before its timer was created.
    created: Instant,
    /// Resumed − deadline, in nanoseconds (negative if early).
    lateness_ns: i64,
}

fn nanos(duration: Duration) -> i64 {
    i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX)
}

/// `count` tasks made by `task` on a new chapter 9 runtime (the executor
/// of `book-ch02` and `book-ch07`).
fn on_book_runtime<F>(count: usize, peak: &PeakMethod, task: impl FnMut() -> F) -> Run
where
    F: Future<Output = Timed> + 'static,
{
    let runtime = Runtime::new().expect("a runtime (epoll, eventfd)");
    on_runtime(&runtime, count, peak, task)
}

/// `count` tasks made by `task`, spawned on `runtime` by the main future,
/// which joins them in order.
fn on_runtime<F>(
    runtime: &impl BookRuntime,
    count: usize,
    peak: &PeakMethod,
    mut task: impl FnMut() -> F,
) -> Run
where
    F: Future<Output = Timed> + 'static,
{
    let watch = peak.start();
    let start = Instant::now();
    let timed = runtime.spawn_and_join((0..count).map(|_| task()));
    finish(start, timed, watch)
}

/// `async-io`: an `async_executor::LocalExecutor` driven by
/// `async_io::block_on`, whose thread runs async-io's reactor (and so its
/// timers) when it has nothing to poll; while it is busy, the "async-io"
/// thread does (see the module's documentation).
fn async_io_run(count: usize, duration: Duration, peak: &PeakMethod) -> Run {
    let executor = LocalExecutor::new();
    let watch = peak.start();
    let start = Instant::now();
    let timed = async_io::block_on(executor.run(async {
        let tasks: Vec<_> = (0..count)
            .map(|_| executor.spawn(timed(duration, async_io::Timer::after)))
            .collect();
        let mut timed = Vec::with_capacity(count);
        for task in tasks {
            timed.push(task.await);
        }
        timed
    }));
    finish(start, timed, watch)
}

/// `tokio`: a current-thread runtime with its time driver, tasks spawned
/// with `spawn_local` on a `LocalSet`.
fn tokio_run(count: usize, duration: Duration, peak: &PeakMethod) -> Run {
    let runtime = support::tokio_current_thread().expect("a tokio runtime");
    let local = tokio::task::LocalSet::new();
    let watch = peak.start();
    let start = Instant::now();
    let timed = local.block_on(&runtime, async {
        let tasks: Vec<_> = (0..count)
            .map(|_| tokio::task::spawn_local(timed(duration, tokio::time::sleep)))
            .collect();
        let mut timed = Vec::with_capacity(count);
        for task in tasks {
            timed.push(task.await.expect("a timer task does not panic"));
        }
        timed
    });
    finish(start, timed, watch)
}

/// Ends a run that started at `start`: reads the peak memory (before
/// anything is dropped).
fn finish(start: Instant, timed: Vec<Timed>, watch: measure::PeakWatch) -> Run {
    let wall = start.elapsed();
    let peak_rss_mib = watch.peak_increase_mib();
    let last_created = timed.iter().map(|t| t.created).max().unwrap_or(start);
    Run {
        wall,
        starting: last_created - start,
        lateness_ns: timed.iter().map(|t| t.lateness_ns).collect(),
        peak_rss_mib,
    }
}

/// The median over `runs` of each metric; `early` summed.
fn summarise(runs: &[Run], duration: Duration) -> Summary {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut per_run = Vec::new();
    let mut early = 0;
    for run in runs {
        let mut micros: Vec<f64> = run.lateness_ns.iter().map(|&ns| ns as f64 / 1e3).collect();
        micros.sort_by(f64::total_cmp);
        early += run.lateness_ns.iter().filter(|&&ns| ns < 0).count();
        per_run.push([
            ms(run.wall),
            ms(run.wall) - ms(duration),
            ms(run.starting),
            measure::percentile(&micros, 50.0),
            measure::percentile(&micros, 99.0),
            micros[micros.len() - 1],
            run.peak_rss_mib,
        ]);
    }
    let metric = |i: usize| measure::median(per_run.iter().map(|run| run[i]).collect());
    Summary {
        wall_ms: metric(0),
        overhead_ms: metric(1),
        start_ms: metric(2),
        p50_us: metric(3),
        p99_us: metric(4),
        max_us: metric(5),
        early,
        peak_rss_mib: metric(6),
    }
}

fn print_table(rows: &[(bench_results::Impl, Summary)]) {
    println!(
        "{:<10} {:>9} {:>11} {:>9} {:>10} {:>10} {:>10} {:>6} {:>13}",
        "impl",
        "wall ms",
        "overhead ms",
        "start ms",
        "p50 µs",
        "p99 µs",
        "max µs",
        "early",
        "peak RSS MiB"
    );
    for (name, s) in rows {
        println!(
            "{:<10} {:>9.1} {:>11.1} {:>9.1} {:>10.0} {:>10.0} {:>10.0} {:>6} {:>13.1}",
            name,
            s.wall_ms,
            s.overhead_ms,
            s.start_ms,
            s.p50_us,
            s.p99_us,
            s.max_us,
            s.early,
            s.peak_rss_mib
        );
    }
}

/// `book-ch02` spawns a thread per timer: says what the system allows, and
/// warns if it looks too little.
fn print_thread_limits(count: usize) {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok())
    };
    let nproc = rustix::process::getrlimit(rustix::process::Resource::Nproc).current;
    let threads_max = read("/proc/sys/kernel/threads-max");
    let pid_max = read("/proc/sys/kernel/pid_max");
    let show = |limit: Option<u64>| limit.map_or("unlimited".to_owned(), |n| n.to_string());
    println!(
        "timers: book-ch02 needs {count} threads; RLIMIT_NPROC {}, threads-max {}, pid_max {}",
        show(nproc),
        show(threads_max),
        show(pid_max),
    );
    let needed = count as u64 + measure::threads() as u64;
    for (what, limit) in [
        ("RLIMIT_NPROC (per user)", nproc),
        ("kernel.threads-max", threads_max),
        ("kernel.pid_max", pid_max),
    ] {
        if limit.is_some_and(|limit| limit < needed) {
            println!("timers: WARNING: {what} is below the {needed} threads book-ch02 needs");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_results::ids;

    #[test]
    fn the_group_runs_the_implementations_the_report_expects_in_its_order() {
        assert_eq!(Impl::ALL.map(Impl::id), ids::TIMERS);
    }

    /// A run of `wall_ms` whose timers were each late by `late_us`.
    fn run(wall_ms: u64, late_us: &[i64]) -> Run {
        Run {
            wall: Duration::from_millis(wall_ms),
            starting: Duration::from_millis(3),
            lateness_ns: late_us.iter().map(|us| us * 1000).collect(),
            peak_rss_mib: 5.123,
        }
    }

    #[test]
    fn the_report_collects_what_the_group_writes() {
        let duration = Duration::from_millis(100);
        let summary = summarise(
            &[run(104, &[250, 1500, 2100]), run(106, &[260, 1400, -5])],
            duration,
        );
        let report = Timers {
            quick: false,
            problems: vec!["book-ch02: failed: no threads".into()],
            count: 3,
            duration_ms: 100,
            runs: 2,
            rss_method: PeakMethod::ClearRefs.describe(),
            results: vec![
                TimerResult {
                    implementation: Impl::BookCh07.id(),
                    outcome: Outcome::Measured(summary.measures()),
                },
                TimerResult {
                    implementation: Impl::BookCh02.id(),
                    outcome: Outcome::Failed {
                        error: "no threads".into(),
                    },
                },
            ],
        };
        let collected = measure::collected_by_the_report(&report, "timers");
        let value = |id: &str| collected.value(id);
        // Medians over the two runs of each run's own percentile.
        assert_eq!(value("timers/wall/book-ch07"), Some(105.0));
        assert_eq!(value("timers/overhead/book-ch07"), Some(5.0));
        assert_eq!(value("timers/p99/book-ch07"), Some(1750.0));
        assert_eq!(value("timers/p50/book-ch07"), Some(880.0));
        assert_eq!(value("timers/memory/book-ch07"), Some(5.12));
        assert_eq!(value("timers/early/book-ch07"), Some(1.0));
        assert_eq!(value("timers/param/count"), Some(3.0));
        assert_eq!(value("timers/param/duration-ms"), Some(100.0));
        assert_eq!(value("timers/p99/book-ch02"), None);
        measure::assert_reported(
            &collected,
            &[
                "timers.json: book-ch02: failed: no threads",
                "timers.json: book-ch02 failed: no threads",
            ],
        );
    }
}
