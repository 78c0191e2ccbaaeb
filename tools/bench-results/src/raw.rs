//! The JSON files of a run that criterion does not write: `timers.json`
//! and `echo.json`, which the hand-measured groups of `benchmarks/` write
//! with these types, and `machine.json` ([`Machine`]), which
//! `bench-report machine` writes around the run. `bench-report` reads all
//! three with the same types, so the files have one schema.
//!
//! A group's file says whether the run was a quick one (`quick`: small
//! sizes, written to `bench-raw/quick/`, never collected) and what went
//! wrong during it (`problems`, in words, empty when healthy), then its
//! parameters and one result per implementation (per implementation and
//! connection count for `echo`), each either measured or failed
//! ([`Outcome`]).

use crate::Result;
use crate::ids::{Group, Impl};
use crate::results::Machine;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize};

/// One of a run's JSON files.
pub trait RawFile: Serialize + DeserializeOwned {
    /// Its name, in `bench-raw/` and in `data/bench/raw/`.
    const FILE: &'static str;

    /// Its text: pretty JSON and a final newline.
    fn to_json(&self) -> String {
        // Plain structs of strings, numbers and lists cannot fail.
        serde_json::to_string_pretty(self).expect("a raw file serialises") + "\n"
    }

    /// Reads its text.
    fn from_json(text: &str) -> Result<Self> {
        Ok(serde_json::from_str(text)?)
    }
}

/// A hand-measured group's file: [`Timers`] or [`Echo`].
pub trait GroupFile: RawFile {
    /// The group it reports.
    const GROUP: Group;

    /// Whether the run was a quick one.
    fn quick(&self) -> bool;

    /// What went wrong during the run; empty when healthy.
    fn problems(&self) -> &[String];

    /// The names of the run's parameters that the report keeps, as
    /// measures `<group>/param/<name>` (unit `count`), so that a chapter
    /// can say them.
    const PARAMETERS: &'static [&'static str];

    /// Their values, in [`GroupFile::PARAMETERS`]' order.
    fn parameters(&self) -> Vec<f64>;
}

impl RawFile for Machine {
    const FILE: &'static str = "machine.json";
}

/// `timers.json`: many timers started at once, each awaited in its own
/// task (see `benchmarks/src/timers.rs` for what is measured and how).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timers {
    /// A quick run: not a measurement.
    pub quick: bool,
    /// What went wrong (a failed implementation, an early timer, threads
    /// still alive after a run).
    pub problems: Vec<String>,
    /// Timers per run.
    pub count: u64,
    /// Each timer's duration, in ms.
    pub duration_ms: u64,
    /// Runs per implementation; each metric is the median of the runs.
    pub runs: u64,
    /// How the peak memory was read.
    pub rss_method: String,
    /// One per implementation, in the order they ran.
    pub results: Vec<TimerResult>,
}

impl RawFile for Timers {
    const FILE: &'static str = "timers.json";
}

impl GroupFile for Timers {
    const GROUP: Group = Group::Timers;
    const PARAMETERS: &'static [&'static str] = &["count", "duration-ms", "runs"];

    fn parameters(&self) -> Vec<f64> {
        vec![self.count as f64, self.duration_ms as f64, self.runs as f64]
    }

    fn quick(&self) -> bool {
        self.quick
    }

    fn problems(&self) -> &[String] {
        &self.problems
    }
}

/// One implementation's timers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimerResult {
    /// The implementation.
    #[serde(rename = "impl")]
    pub implementation: Impl,
    /// Its medians, or why it has none.
    #[serde(flatten)]
    pub outcome: Outcome<TimerMeasures>,
}

/// What one implementation's timers measured: medians over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimerMeasures {
    /// From just before `block_on` until every task was joined, in ms.
    pub wall_ms: f64,
    /// `wall_ms` minus the timers' duration, in ms.
    pub overhead_ms: f64,
    /// From the start until the last timer was created, in ms.
    pub start_ms: f64,
    /// Each timer's lateness (resumed − deadline), in µs.
    pub lateness_us: Lateness,
    /// Timers that resumed before their deadline, summed over the runs.
    pub early: u64,
    /// The peak resident memory above the start's, in MiB.
    pub peak_rss_mib: f64,
}

/// Percentiles (nearest rank) of the timers' lateness, in µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lateness {
    /// The median.
    pub p50: f64,
    /// The 99th percentile.
    pub p99: f64,
    /// The maximum (the median of the runs' maxima).
    pub max: f64,
}

/// `echo.json`: a TCP echo server under load (see
/// `benchmarks/src/echo.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Echo {
    /// A quick run: not a measurement.
    pub quick: bool,
    /// What went wrong (a server that did not start, a failed point, a
    /// leak, connections that failed on the server).
    pub problems: Vec<String>,
    /// Bytes per message, each way.
    pub message_bytes: u64,
    /// The measured window of each run, in seconds.
    pub seconds: f64,
    /// The warm-up before it, in seconds.
    pub warm_up_seconds: f64,
    /// Runs per point; each metric is the median of the runs.
    pub runs: u64,
    /// The connection counts, in the order measured.
    pub connections: Vec<u64>,
    /// One per implementation and connection count, implementations in
    /// the order they ran.
    pub results: Vec<EchoResult>,
}

impl RawFile for Echo {
    const FILE: &'static str = "echo.json";
}

impl GroupFile for Echo {
    const GROUP: Group = Group::Echo;
    const PARAMETERS: &'static [&'static str] = &["message-bytes", "seconds", "runs"];

    fn parameters(&self) -> Vec<f64> {
        vec![self.message_bytes as f64, self.seconds, self.runs as f64]
    }

    fn quick(&self) -> bool {
        self.quick
    }

    fn problems(&self) -> &[String] {
        &self.problems
    }
}

/// One point of the echo group: a server at a number of connections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EchoResult {
    /// The server.
    #[serde(rename = "impl")]
    pub implementation: Impl,
    /// Concurrent connections.
    pub connections: u64,
    /// Its medians, or why it has none.
    #[serde(flatten)]
    pub outcome: Outcome<EchoMeasures>,
}

/// What one point measured: medians over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EchoMeasures {
    /// Round trips that ended inside the window.
    pub round_trips: u64,
    /// Their payload (one direction) over the window, in MiB/s.
    pub throughput_mib_s: f64,
    /// Their latency's median, in µs.
    pub p50_us: f64,
    /// Their latency's 99th percentile, in µs.
    pub p99_us: f64,
}

/// A result's measures, or why there are none. In the file its fields sit
/// beside the result's own (`impl`, …): the measures' fields, or `error`
/// alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Outcome<T> {
    /// Measured.
    Measured(T),
    /// Failed: why, in words.
    Failed {
        /// The error.
        error: String,
    },
}

/// Read by hand rather than `#[serde(untagged)]`, whose error for a field
/// missing or misspelt would name no field: an object with `error` has
/// failed, and nothing else; any other is `T`, with `T`'s own errors.
impl<'de, T: DeserializeOwned> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let mut fields = serde_json::Map::deserialize(deserializer)?;
        match fields.remove("error") {
            Some(error) => {
                if let Some(field) = fields.keys().next() {
                    return Err(D::Error::custom(format!(
                        "a failed result has `error` and no measures, not `{field}`"
                    )));
                }
                String::deserialize(error)
                    .map(|error| Outcome::Failed { error })
                    .map_err(D::Error::custom)
            }
            None => T::deserialize(serde_json::Value::Object(fields))
                .map(Outcome::Measured)
                .map_err(D::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timers() -> Timers {
        Timers {
            quick: false,
            problems: vec!["book-ch02: failed: no threads".into()],
            count: 10_000,
            duration_ms: 100,
            runs: 5,
            rss_method: "clear_refs+VmHWM".into(),
            results: vec![
                TimerResult {
                    implementation: Impl::BookCh07,
                    outcome: Outcome::Measured(TimerMeasures {
                        wall_ms: 116.395,
                        overhead_ms: 16.395,
                        start_ms: 14.629,
                        lateness_us: Lateness {
                            p50: 1760.6,
                            p99: 2392.2,
                            max: 2397.6,
                        },
                        early: 0,
                        peak_rss_mib: 5.94,
                    }),
                },
                TimerResult {
                    implementation: Impl::BookCh02,
                    outcome: Outcome::Failed {
                        error: "no threads".into(),
                    },
                },
            ],
        }
    }

    fn echo() -> Echo {
        Echo {
            quick: true,
            problems: Vec::new(),
            message_bytes: 1024,
            seconds: 0.2,
            warm_up_seconds: 0.05,
            runs: 1,
            connections: vec![1, 10],
            results: vec![
                EchoResult {
                    implementation: Impl::AsyncIo,
                    connections: 1,
                    outcome: Outcome::Measured(EchoMeasures {
                        round_trips: 11768,
                        throughput_mib_s: 5.75,
                        p50_us: 138.4,
                        p99_us: 688.3,
                    }),
                },
                EchoResult {
                    implementation: Impl::Tokio,
                    connections: 10,
                    outcome: Outcome::Failed {
                        error: "connect timed out".into(),
                    },
                },
            ],
        }
    }

    #[test]
    fn every_raw_file_reads_back_what_it_wrote() {
        let timers = timers();
        assert_eq!(Timers::from_json(&timers.to_json()).unwrap(), timers);
        let echo = echo();
        assert_eq!(Echo::from_json(&echo.to_json()).unwrap(), echo);
        let machine = Machine {
            cpu: "Example CPU".into(),
            cores: 2,
            memory_gib: 7.8,
            kernel: "6.1.0-test".into(),
            rustc: "rustc 1.95.0".into(),
            date: "2026-05-01".into(),
            load_start: Some(0.12),
            load_end: None,
            command: crate::MEASURE_COMMAND.into(),
        };
        assert_eq!(Machine::from_json(&machine.to_json()).unwrap(), machine);
        assert!(timers.to_json().ends_with("}\n"));
    }

    #[test]
    fn a_result_is_its_implementation_beside_its_measures_or_its_error() {
        let value: serde_json::Value = serde_json::from_str(&timers().to_json()).unwrap();
        assert_eq!(
            value["results"][1],
            serde_json::json!({ "impl": "book-ch02", "error": "no threads" })
        );
        assert_eq!(value["results"][0]["impl"], "book-ch07");
        assert_eq!(value["results"][0]["lateness_us"]["p99"], 2392.2);
        assert_eq!(value["results"][0]["early"], 0);
        let value: serde_json::Value = serde_json::from_str(&echo().to_json()).unwrap();
        assert_eq!(
            value["results"][1],
            serde_json::json!({ "impl": "tokio", "connections": 10, "error": "connect timed out" })
        );
    }

    #[test]
    fn a_missing_or_unknown_field_is_named() {
        let text = echo().to_json();
        let error = |text: &str| Echo::from_json(text).unwrap_err().to_string();
        let e = error(&text.replace("\"p99_us\"", "\"p98_us\""));
        assert!(e.contains("p98_us") && e.contains("p99_us"), "{e}");
        let e = error(&text.replace("\"warm_up_seconds\"", "\"warm_up\""));
        assert!(e.contains("warm_up"), "{e}");
        let e = error(&text.replace("\"quick\": true,", ""));
        assert!(e.contains("missing field `quick`"), "{e}");
        let e = error(&text.replace("\"impl\": \"tokio\"", "\"impl\": \"smol\""));
        assert!(e.contains("smol"), "{e}");
        let failed_with_measures = text.replace(
            "\"error\": \"connect timed out\"",
            "\"error\": \"x\", \"p50_us\": 1.0",
        );
        let e = error(&failed_with_measures);
        assert!(e.contains("`p50_us`"), "{e}");
    }
}
