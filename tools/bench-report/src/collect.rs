//! A run's files read into measures: criterion's estimates, the timers'
//! and echo server's JSON, and the machine, with what makes the run unfit
//! for the book.

use crate::bundle::Bundle;
use crate::expected::{PARAM, check_complete};
use crate::machine::busy;
use bench_results::raw::{Echo, GroupFile, Outcome, RawFile, Timers};
use bench_results::{Group, Machine, Measure, REPORT_COMMAND, Result, Unit};
use serde::Deserialize;

/// What a [`Bundle`] holds, read.
#[derive(Debug, Default)]
pub struct Collected {
    /// Every number the files hold, in no particular order.
    pub measures: Vec<Measure>,
    /// From `machine.json`.
    pub machine: Option<Machine>,
    /// What makes the run unfit for the book: a file missing, a quick run,
    /// a problem the benchmarks reported, an implementation that failed, a
    /// measure missing ([`check_complete`]). `bench-report` refuses the
    /// run unless told `--allow-partial`.
    pub problems: Vec<String>,
    /// Worth saying, not refusing: a machine that was busy.
    pub warnings: Vec<String>,
}

impl Collected {
    /// A hand-measured value: the groups record no spread, so no interval.
    fn push(&mut self, id: String, value: f64, unit: Unit) {
        self.measures.push(Measure {
            id,
            value,
            unit,
            ci_lower: None,
            ci_upper: None,
        });
    }

    /// The value of measure `id`, if the run has it.
    pub fn value(&self, id: &str) -> Option<f64> {
        self.measures.iter().find(|m| m.id == id).map(|m| m.value)
    }
}

/// Reads a bundle: criterion's estimates (ns per iteration, per element
/// with a throughput, each with its 95 % confidence interval), the timers' and echo server's results and
/// parameters, and the machine. A file that cannot be read as what it
/// should be is an error; what makes the run incomplete is a problem.
pub fn collect(bundle: &Bundle) -> Result<Collected> {
    let mut collected = Collected::default();
    if bundle.criterion.is_empty() {
        collected.problems.push("no criterion results".into());
    }
    for (folder, [benchmark, estimates]) in &bundle.criterion {
        collect_benchmark(benchmark, estimates, &mut collected)
            .map_err(|e| format!("criterion/{folder}: {e}"))?;
    }
    for (file, text, read) in [
        (
            Timers::FILE,
            &bundle.timers,
            collect_timers as fn(&str, &mut Collected) -> Result<()>,
        ),
        (Echo::FILE, &bundle.echo, collect_echo),
    ] {
        match text {
            Some(text) => read(text, &mut collected).map_err(|e| format!("{file}: {e}"))?,
            None => collected.problems.push(format!("no {file}")),
        }
    }
    match &bundle.machine {
        Some(text) => {
            let machine =
                Machine::from_json(text).map_err(|e| format!("{}: {e}", Machine::FILE))?;
            for (name, load) in [
                ("load_start", machine.load_start),
                ("load_end", machine.load_end),
            ] {
                if load.is_none() {
                    collected
                        .problems
                        .push(format!("{}: no {name}", Machine::FILE));
                }
            }
            collected.warnings.extend(busy(&machine));
            collected.machine = Some(machine);
        }
        None => collected.problems.push(format!(
            "no {} (`{REPORT_COMMAND} --measure` writes it around the run)",
            Machine::FILE
        )),
    }
    collected
        .problems
        .extend(check_complete(&collected.measures));
    Ok(collected)
}

/// criterion's `benchmark.json`.
#[derive(Deserialize)]
struct CriterionId {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
    /// `{"Elements": n}`, or null.
    throughput: Option<serde_json::Value>,
}

/// The part of criterion's `estimates.json` the report uses: the median
/// of the run's samples, in ns per iteration, and its bootstrapped
/// confidence interval.
#[derive(Deserialize)]
struct Estimates {
    median: Estimate,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
    confidence_interval: ConfidenceInterval,
}

#[derive(Deserialize)]
struct ConfidenceInterval {
    confidence_level: f64,
    lower_bound: f64,
    upper_bound: f64,
}

/// The confidence level the charts' legends name.
const CONFIDENCE_LEVEL: f64 = 0.95;

fn collect_benchmark(benchmark: &str, estimates: &str, collected: &mut Collected) -> Result<()> {
    let id: CriterionId =
        serde_json::from_str(benchmark).map_err(|e| format!("benchmark.json: {e}"))?;
    let estimates: Estimates =
        serde_json::from_str(estimates).map_err(|e| format!("estimates.json: {e}"))?;
    let (Some(implementation), Some(case)) = (id.function_id, id.value_str) else {
        return Err(format!(
            "benchmark `{}` needs BenchmarkId::new(implementation, case)",
            id.group_id
        )
        .into());
    };
    // With Throughput::Elements(n) one iteration does n things: report
    // the time per thing.
    let per = match &id.throughput {
        None | Some(serde_json::Value::Null) => 1.0,
        Some(throughput) => match throughput.get("Elements").and_then(|n| n.as_u64()) {
            Some(n) if n > 0 => n as f64,
            _ => return Err(format!("unsupported throughput {throughput}").into()),
        },
    };
    let median = estimates.median;
    let ci = median.confidence_interval;
    // criterion's default, which the benchmarks keep; the legends say 95 %.
    if ci.confidence_level != CONFIDENCE_LEVEL {
        return Err(format!(
            "a confidence level of {}, where the charts say {CONFIDENCE_LEVEL}",
            ci.confidence_level
        )
        .into());
    }
    // The bounds are per iteration too: scaled as the median is.
    collected.measures.push(Measure {
        id: format!("{}/{case}/{implementation}", id.group_id),
        value: median.point_estimate / per,
        unit: Unit::Nanoseconds,
        ci_lower: Some(ci.lower_bound / per),
        ci_upper: Some(ci.upper_bound / per),
    });
    Ok(())
}

/// What the benchmarks say about a file's run: a quick run, and what
/// went wrong (a leak, a failed connection, a failed implementation, an
/// early timer), each a problem.
fn check_health<F: GroupFile>(file: &F, collected: &mut Collected) {
    if file.quick() {
        collected.problems.push(format!(
            "{}: a quick run (`-- --test` or BENCH_QUICK=1), with a quick run's sizes",
            F::FILE
        ));
    }
    collected
        .problems
        .extend(file.problems().iter().map(|p| format!("{}: {p}", F::FILE)));
}

/// A run's parameters as measures (unit `count`): `<group>/param/<name>`.
fn collect_parameters<F: GroupFile>(file: &F, collected: &mut Collected) {
    for (name, value) in F::PARAMETERS.iter().zip(file.parameters()) {
        collected.push(F::GROUP.measure(PARAM, name), value, Unit::Count);
    }
}

/// `timers.json`: its parameters, and each implementation's measures,
/// `timers/<metric>/<impl>`; an implementation that failed is a problem.
fn collect_timers(text: &str, collected: &mut Collected) -> Result<()> {
    let timers = Timers::from_json(text)?;
    check_health(&timers, collected);
    collect_parameters(&timers, collected);
    for r in timers.results {
        let name = r.implementation;
        let m = match r.outcome {
            Outcome::Measured(m) => m,
            Outcome::Failed { error } => {
                collected
                    .problems
                    .push(format!("{}: {name} failed: {error}", Timers::FILE));
                continue;
            }
        };
        for (metric, value, unit) in [
            ("wall", m.wall_ms, Unit::Milliseconds),
            ("overhead", m.overhead_ms, Unit::Milliseconds),
            ("p50", m.lateness_us.p50, Unit::Microseconds),
            ("p99", m.lateness_us.p99, Unit::Microseconds),
            ("max", m.lateness_us.max, Unit::Microseconds),
            ("memory", m.peak_rss_mib, Unit::Mebibytes),
            ("early", m.early as f64, Unit::Count),
        ] {
            collected.push(Group::Timers.measure(metric, name), value, unit);
        }
    }
    Ok(())
}

/// `echo.json`: its parameters, and each point's measures,
/// `echo/<metric>-<connections>/<impl>`; a point that failed is a problem.
fn collect_echo(text: &str, collected: &mut Collected) -> Result<()> {
    let echo = Echo::from_json(text)?;
    check_health(&echo, collected);
    collect_parameters(&echo, collected);
    for r in echo.results {
        let (name, connections) = (r.implementation, r.connections);
        let m = match r.outcome {
            Outcome::Measured(m) => m,
            Outcome::Failed { error } => {
                collected.problems.push(format!(
                    "{}: {name} with {connections} connections failed: {error}",
                    Echo::FILE
                ));
                continue;
            }
        };
        for (metric, value, unit) in [
            ("throughput", m.throughput_mib_s, Unit::MebibytesPerSecond),
            ("p50", m.p50_us, Unit::Microseconds),
            ("p99", m.p99_us, Unit::Microseconds),
        ] {
            let case = format!("{metric}-{connections}");
            collected.push(Group::Echo.measure(case, name), value, unit);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::CHARTS;
    use crate::expected::{expected, parameters};
    use crate::labels::{Labels, Lang};
    use crate::report::render_charts;
    use crate::test_support::*;
    use bench_results::Results;
    use bench_results::{Impl, ids};

    #[test]
    fn a_run_is_collected_into_ids_units_and_values_per_element() {
        let dir = TempDir::new("collect");
        criterion(
            &dir,
            "criterion/block_on/pollster/once/new",
            "block_on",
            "pollster",
            "once",
            "null",
            [18.0, 18.25, 18.75],
        );
        criterion(
            &dir,
            "criterion/spawn/tokio/100000/new",
            "spawn",
            "tokio",
            "100000",
            r#"{"Elements":100000}"#,
            [8.0e6, 8.5e6, 9.25e6],
        );
        // The saved baseline is an older run: only new/ counts.
        criterion(
            &dir,
            "criterion/spawn/tokio/100000/base",
            "spawn",
            "tokio",
            "100000",
            r#"{"Elements":100000}"#,
            [0.5, 1.0, 1.5],
        );
        dir.write("criterion/report/index.html", "<html></html>");
        dir.write(
            "bench-raw/timers.json",
            r#"{"quick": false, "problems": [], "count": 10000, "duration_ms": 100, "runs": 5, "rss_method": "clear_refs", "results": [
                {"impl": "book-ch07", "wall_ms": 104.5, "overhead_ms": 4.5, "start_ms": 3.0,
                 "lateness_us": {"p50": 250.0, "p99": 1500.0, "max": 2100.0}, "early": 0, "peak_rss_mib": 5.4},
                {"impl": "book-ch02", "error": "could not spawn a thread"}]}"#,
        );
        dir.write(
            "bench-raw/echo.json",
            r#"{"quick": false, "problems": [], "message_bytes": 1024, "seconds": 2.0, "warm_up_seconds": 0.5, "runs": 3, "connections": [1, 100], "results": [
                {"impl": "tokio", "connections": 1, "round_trips": 50000, "throughput_mib_s": 24.4, "p50_us": 38.0, "p99_us": 61.0},
                {"impl": "tokio", "connections": 100, "round_trips": 90000, "throughput_mib_s": 43.9, "p50_us": 2100.0, "p99_us": 3050.0}]}"#,
        );
        // A quick run's files are elsewhere, never read.
        dir.write("bench-raw/quick/echo.json", "not even JSON");
        let collected = collect_target(&dir);
        let results = Results::new(machine(), collected.measures).unwrap();
        let found: Vec<(&str, f64, &str)> = results
            .measure
            .iter()
            .map(|m| (m.id.as_str(), m.value, m.unit.symbol()))
            .collect();
        // criterion's measures carry the median's 95 % interval, scaled as
        // the median is; the hand-measured ones none.
        let intervals: Vec<(&str, (f64, f64))> = results
            .measure
            .iter()
            .filter_map(|m| Some((m.id.as_str(), m.interval()?)))
            .collect();
        assert_eq!(
            intervals,
            [
                ("block_on/once/pollster", (18.0, 18.75)),
                // 8.0 ms and 9.25 ms per iteration of 100000 spawns.
                ("spawn/100000/tokio", (80.0, 92.5)),
            ]
        );
        assert_eq!(
            found,
            [
                ("block_on/once/pollster", 18.25, "ns"),
                ("echo/p50-1/tokio", 38.0, "µs"),
                ("echo/p50-100/tokio", 2100.0, "µs"),
                ("echo/p99-1/tokio", 61.0, "µs"),
                ("echo/p99-100/tokio", 3050.0, "µs"),
                ("echo/param/message-bytes", 1024.0, "count"),
                ("echo/param/runs", 3.0, "count"),
                ("echo/param/seconds", 2.0, "count"),
                ("echo/throughput-1/tokio", 24.4, "MiB/s"),
                ("echo/throughput-100/tokio", 43.9, "MiB/s"),
                // 8.5 ms per iteration of 100000 spawns.
                ("spawn/100000/tokio", 85.0, "ns"),
                ("timers/early/book-ch07", 0.0, "count"),
                ("timers/max/book-ch07", 2100.0, "µs"),
                ("timers/memory/book-ch07", 5.4, "MiB"),
                ("timers/overhead/book-ch07", 4.5, "ms"),
                ("timers/p50/book-ch07", 250.0, "µs"),
                ("timers/p99/book-ch07", 1500.0, "µs"),
                ("timers/param/count", 10000.0, "count"),
                ("timers/param/duration-ms", 100.0, "count"),
                ("timers/param/runs", 5.0, "count"),
                ("timers/wall/book-ch07", 104.5, "ms"),
            ]
        );
        // Far from complete: each of these refuses the run.
        let problems = &collected.problems;
        for expected in [
            "timers.json: book-ch02 failed: could not spawn a thread",
            "no machine.json (`tools/bench-report/run --measure` writes it around the run)",
            "block_on/once: no book-ch06, book-ch10-parker, book-ch10, futures, futures-lite",
            "echo/throughput-1000: no book-ch09, book-ch10, book-ch11, tokio, async-io",
            "parts/op: no condvar-notify, mutex, eventfd-write, epoll-wait-0, epoll-ctl-mod, clock, hashmap-sip, arc-new, box-pin-future",
        ] {
            assert!(
                problems.iter().any(|p| p == expected),
                "{expected} in {problems:#?}"
            );
        }
        assert!(collected.machine.is_none());
    }

    #[test]
    fn a_complete_healthy_run_has_no_problems() {
        let dir = TempDir::new("complete");
        complete_run(&dir);
        let collected = collect_target(&dir);
        assert_eq!(collected.problems, Vec::<String>::new());
        assert_eq!(collected.warnings, Vec::<String>::new());
        let machine = collected.machine.unwrap();
        assert_eq!(
            (machine.date.as_str(), machine.load_start, machine.load_end),
            ("2026-05-01", Some(0.12), Some(1.6))
        );
        let expected_count: usize = expected().iter().map(|(_, names)| names.len()).sum();
        assert_eq!(
            collected.measures.len(),
            expected_count + parameters().len()
        );
        // Every chart is drawn, with every bar it expects, and every
        // steps chart: a complete run has chapter 11's steps.
        let results = Results::new(machine, collected.measures).unwrap();
        let labels = Labels::load(&crate::test_support::root()).unwrap();
        assert_eq!(
            render_charts(&results, &labels).unwrap().len(),
            (CHARTS.len() + crate::steps::STEPS_CHARTS.len()) * Lang::ALL.len()
        );
    }

    #[test]
    fn a_quick_or_unhealthy_run_is_refused() {
        let dir = TempDir::new("unhealthy");
        complete_run(&dir);
        let mut quick = timers(&ids::TIMERS);
        quick.quick = true;
        dir.write("bench-raw/timers.json", &quick.to_json());
        let mut unhealthy = echo(&ids::ECHO, &ids::ECHO_CONNECTIONS);
        unhealthy.problems = vec![
            "tokio at 1000: LEAK of 3 fds".into(),
            "async-io at 100: 2 connections failed".into(),
        ];
        unhealthy.results[0].outcome = Outcome::Failed {
            error: "connect timed out".into(),
        };
        dir.write("bench-raw/echo.json", &unhealthy.to_json());
        let collected = collect_target(&dir);
        assert_eq!(
            collected.problems,
            [
                "timers.json: a quick run (`-- --test` or BENCH_QUICK=1), with a quick run's sizes",
                "echo.json: tokio at 1000: LEAK of 3 fds",
                "echo.json: async-io at 100: 2 connections failed",
                "echo.json: book-ch09 with 1 connections failed: connect timed out",
                "echo/throughput-1: no book-ch09",
                "echo/p50-1: no book-ch09",
                "echo/p99-1: no book-ch09",
            ]
        );
        // Files without the two fields are from before them: not read.
        let text = timers(&ids::TIMERS)
            .to_json()
            .replace("\"quick\": false,", "");
        dir.write("bench-raw/timers.json", &text);
        let error = collect(&Bundle::from_target(&dir.0).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("timers.json: missing field `quick`"),
            "{error}"
        );
    }

    #[test]
    fn a_busy_machine_is_a_warning_and_a_missing_load_a_problem() {
        let dir = TempDir::new("busy");
        complete_run(&dir);
        dir.write(
            "bench-raw/machine.json",
            &MACHINE_JSON
                .replace(r#""load_start": 0.12"#, r#""load_start": 1.25"#)
                .replace(r#", "load_end": 1.6"#, ""),
        );
        let collected = collect_target(&dir);
        assert_eq!(collected.problems, ["machine.json: no load_end"]);
        assert_eq!(
            collected.warnings,
            [
                "the 1-minute load before the run was 1.25 on 2 cores (more than 0.5 per core): the machine was not quiet, the numbers are noisier"
            ]
        );
    }

    #[test]
    fn missing_files_are_problems_and_bad_ones_errors() {
        let dir = TempDir::new("missing");
        let collected = collect_target(&dir);
        assert!(collected.measures.is_empty());
        for file in ["no criterion results", "no timers.json", "no echo.json"] {
            assert!(collected.problems.iter().any(|p| p == file), "{file}");
        }
        let text = echo(&[Impl::Tokio], &[1])
            .to_json()
            .replace("\"connections\": 1,", "");
        dir.write("bench-raw/echo.json", &text);
        let error = collect(&Bundle::from_target(&dir.0).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("echo.json: missing field `connections`"),
            "{error}"
        );
        criterion(
            &dir,
            "criterion/g/x/1/new",
            "g",
            "x",
            "1",
            r#"{"Bytes":10}"#,
            [0.5, 1.0, 1.5],
        );
        let error = collect(&Bundle::from_target(&dir.0).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("criterion/g/x/1") && error.contains("unsupported throughput"),
            "{error}"
        );
        // The legends say 95 %: an interval at another level is refused.
        criterion(
            &dir,
            "criterion/g/x/1/new",
            "g",
            "x",
            "1",
            "null",
            [0.5, 1.0, 1.5],
        );
        let estimates = dir.0.join("criterion/g/x/1/new/estimates.json");
        let text = std::fs::read_to_string(&estimates).unwrap();
        dir.write(
            "criterion/g/x/1/new/estimates.json",
            &text.replace("0.95", "0.99"),
        );
        let error = collect(&Bundle::from_target(&dir.0).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("criterion/g/x/1") && error.contains("confidence level of 0.99"),
            "{error}"
        );
    }
}
