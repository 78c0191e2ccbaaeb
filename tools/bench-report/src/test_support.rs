//! What the tests share: a scratch folder, the files a run leaves behind,
//! and (from `bench_results`, whose schema they are) a machine, a measure
//! and a plausible set of results.

use crate::bundle::Bundle;
use crate::collect::{Collected, collect};
use crate::expected::expected;
use bench_results::raw::{
    Echo, EchoMeasures, EchoResult, Lateness, Outcome, RawFile, TimerMeasures, TimerResult, Timers,
};
pub use bench_results::test_support::{machine, measure, results};
use bench_results::{Impl, ids};
use std::path::PathBuf;

/// A fresh folder for one test, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("bench-report-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn write(&self, path: &str, text: &str) {
        let path = self.0.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A criterion benchmark's two files in `folder`: its id, and its
/// estimates, whose median is `median` within the 95 % confidence
/// interval `lower`–`upper` (the mean is far from them all: only the
/// median counts).
pub fn criterion(
    dir: &TempDir,
    folder: &str,
    group: &str,
    implementation: &str,
    case: &str,
    throughput: &str,
    [lower, median, upper]: [f64; 3],
) {
    dir.write(
        &format!("{folder}/benchmark.json"),
        &format!(
            r#"{{"group_id":"{group}","function_id":"{implementation}","value_str":"{case}","throughput":{throughput},"full_id":"{group}/{implementation}/{case}","directory_name":"x","title":"x"}}"#
        ),
    );
    dir.write(
        &format!("{folder}/estimates.json"),
        &format!(
            r#"{{"mean":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},"point_estimate":999.0,"standard_error":1.0}},"median":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":{lower},"upper_bound":{upper}}},"point_estimate":{median},"standard_error":1.0}}}}"#
        ),
    );
}

pub const MACHINE_JSON: &str = r#"{"cpu": "Example CPU", "cores": 2, "memory_gib": 7.8, "kernel": "6.1.0-test", "rustc": "rustc 1.95.0", "date": "2026-05-01", "load_start": 0.12, "load_end": 1.6, "command": "cargo bench -p benchmarks"}"#;

/// The timers' file of a healthy full run of these implementations.
pub fn timers(implementations: &[Impl]) -> Timers {
    Timers {
        quick: false,
        problems: Vec::new(),
        count: 10_000,
        duration_ms: 100,
        runs: 5,
        rss_method: "clear_refs+VmHWM".into(),
        results: implementations
            .iter()
            .map(|&implementation| TimerResult {
                implementation,
                outcome: Outcome::Measured(TimerMeasures {
                    wall_ms: 104.5,
                    overhead_ms: 4.5,
                    start_ms: 3.25,
                    lateness_us: Lateness {
                        p50: 250.0,
                        p99: 1500.0,
                        max: 2100.0,
                    },
                    early: 0,
                    peak_rss_mib: 5.4,
                }),
            })
            .collect(),
    }
}

/// The echo group's file of a healthy full run.
pub fn echo(implementations: &[Impl], connections: &[u64]) -> Echo {
    let mut results = Vec::new();
    for &implementation in implementations {
        for &connections in connections {
            results.push(EchoResult {
                implementation,
                connections,
                outcome: Outcome::Measured(EchoMeasures {
                    round_trips: 50_000,
                    throughput_mib_s: 24.4,
                    p50_us: 38.0,
                    p99_us: 61.0,
                }),
            });
        }
    }
    Echo {
        quick: false,
        problems: Vec::new(),
        message_bytes: 1024,
        seconds: 2.0,
        warm_up_seconds: 0.5,
        runs: 3,
        connections: connections.to_vec(),
        results,
    }
}

/// A target directory as a complete, healthy run leaves it.
pub fn complete_run(dir: &TempDir) {
    for (prefix, names) in expected() {
        let mut parts = prefix.trim_end_matches('/').splitn(2, '/');
        let (group, case) = (parts.next().unwrap(), parts.next().unwrap());
        if matches!(group, "timers" | "echo") {
            continue;
        }
        let throughput = match case.parse::<u64>() {
            Ok(n) => format!(r#"{{"Elements":{n}}}"#),
            Err(_) => "null".into(),
        };
        for name in names {
            criterion(
                dir,
                &format!("criterion/{group}/{name}/{case}/new"),
                group,
                name,
                case,
                &throughput,
                [950.0, 1000.0, 1080.0],
            );
        }
    }
    dir.write("bench-raw/timers.json", &timers(&ids::TIMERS).to_json());
    dir.write(
        "bench-raw/echo.json",
        &echo(&ids::ECHO, &ids::ECHO_CONNECTIONS).to_json(),
    );
    dir.write("bench-raw/machine.json", MACHINE_JSON);
}

pub fn collect_target(dir: &TempDir) -> Collected {
    collect(&Bundle::from_target(&dir.0).unwrap()).unwrap()
}

/// The repository's root.
pub fn root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A run with chapter 11's steps in every group that measures them, the
/// book's other runtimes and some libraries beside them: the executor
/// groups with criterion's intervals, the timers without; in `wake_many`
/// the first step costs a little.
pub fn steps_results() -> bench_results::Results {
    use bench_results::Unit::*;
    use bench_results::test_support::measure_ci;
    let ci = |id: &str, value: [f64; 3]| measure_ci(id, value, Nanoseconds);
    let ms = |id: &str, value: f64| measure(id, value, Milliseconds);
    bench_results::Results::new(
        machine(),
        vec![
            ci("spawn/100000/book-ch03", [880.0, 900.0, 930.0]),
            ci("spawn/100000/book-ch10", [676.0, 690.0, 705.0]),
            ci("spawn/100000/book-ch11-step1", [370.0, 378.0, 389.0]),
            ci("spawn/100000/book-ch11-step2", [295.0, 301.0, 310.0]),
            ci("spawn/100000/book-ch11", [290.0, 296.0, 303.0]),
            ci("spawn/100000/tokio", [80.2, 85.0, 91.5]),
            ci("spawn/100000/async-executor", [231.0, 240.0, 250.0]),
            ci("spawn/100000/futures", [500.0, 512.0, 530.0]),
            ci("ping_pong/10000/book-ch10", [117.0, 120.0, 124.0]),
            ci("ping_pong/10000/book-ch11-step1", [115.0, 118.0, 121.0]),
            ci("ping_pong/10000/book-ch11-step2", [62.0, 64.0, 66.0]),
            ci("ping_pong/10000/book-ch11", [61.0, 63.0, 65.0]),
            ci("ping_pong/10000/tokio", [68.0, 70.0, 73.0]),
            ci("ping_pong/10000/async-executor", [92.0, 95.0, 99.0]),
            ci("wake_many/100/book-ch10", [2350.0, 2400.0, 2460.0]),
            ci("wake_many/100/book-ch11-step1", [2400.0, 2450.0, 2510.0]),
            ci("wake_many/100/book-ch11-step2", [880.0, 900.0, 925.0]),
            ci("wake_many/100/book-ch11", [860.0, 880.0, 905.0]),
            ci("wake_many/100/tokio", [1270.0, 1300.0, 1340.0]),
            ci("wake_many/100/futures", [2900.0, 3000.0, 3100.0]),
            ms("timers/overhead/book-ch07", 30.0),
            ms("timers/overhead/book-ch09", 12.5),
            ms("timers/overhead/book-ch11-step1", 12.0),
            ms("timers/overhead/book-ch11-step2", 11.8),
            ms("timers/overhead/book-ch11", 3.1),
            ms("timers/overhead/tokio", 2.2),
            ms("timers/overhead/async-io", 4.0),
        ],
    )
    .expect("distinct ids, finite values")
}
