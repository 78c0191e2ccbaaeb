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
