//! What a complete run measures: every implementation of every chart,
//! and the run's parameters. A run that misses one is not fit for the book
//! ([`check_complete`]).

use bench_results::Measure;
use std::collections::BTreeSet;

/// The `block_on` group's implementations, in the order the charts draw
/// them: the book's in the order the book builds them, then the libraries.
pub const BLOCK_ON: [&str; 6] = [
    "book-ch06",
    "book-ch10-parker",
    "book-ch10",
    "pollster",
    "futures",
    "futures-lite",
];
/// The executors of `spawn`, `ping_pong` and `wake_many`.
pub const EXECUTORS: [&str; 7] = [
    "book-ch03",
    "book-ch03-fixed",
    "book-ch09",
    "book-ch10",
    "async-executor",
    "tokio",
    "futures",
];
/// The primitives of `parts` (not implementations: the parts chart has
/// one colour).
pub const PARTS: [&str; 9] = [
    "condvar-notify",
    "mutex",
    "eventfd-write",
    "epoll-wait-0",
    "epoll-ctl-mod",
    "clock",
    "hashmap-sip",
    "arc-new",
    "box-pin-future",
];
/// The timers' implementations.
pub const TIMERS: [&str; 5] = ["book-ch02", "book-ch07", "book-ch09", "tokio", "async-io"];
/// The echo servers.
pub const ECHO: [&str; 4] = ["book-ch09", "book-ch10", "tokio", "async-io"];
/// The echo group's connection counts.
pub const ECHO_CONNECTIONS: [u64; 3] = [1, 100, 1000];
/// The timers' metrics, each a measure `timers/<metric>/<impl>`.
const TIMER_METRICS: [&str; 7] = ["wall", "overhead", "p50", "p99", "max", "memory", "early"];
/// The echo group's metrics, each `echo/<metric>-<connections>/<impl>`.
const ECHO_METRICS: [&str; 3] = ["throughput", "p50", "p99"];

/// A run's parameters, kept as measures (unit `count`) so that a chapter
/// can say them with `{{#bench …}}`: the timers' number of timers, their
/// duration and the runs whose median is reported; the echo messages'
/// size, the measured window and the runs per point.
pub const PARAMETERS: [&str; 6] = [
    "timers/param/count",
    "timers/param/duration-ms",
    "timers/param/runs",
    "echo/param/message-bytes",
    "echo/param/seconds",
    "echo/param/runs",
];

/// Every measure of a complete run, as `(prefix, names)`: the measures
/// `<prefix><name>`. [`check_complete`] holds a run to it.
pub fn expected() -> Vec<(String, &'static [&'static str])> {
    let mut out: Vec<(String, &'static [&'static str])> = Vec::new();
    for case in ["ready", "once", "thread"] {
        out.push((format!("block_on/{case}/"), &BLOCK_ON));
    }
    for prefix in ["spawn/100000/", "ping_pong/10000/", "wake_many/100/"] {
        out.push((prefix.into(), &EXECUTORS));
    }
    out.push(("parts/op/".into(), &PARTS));
    for metric in TIMER_METRICS {
        out.push((format!("timers/{metric}/"), &TIMERS));
    }
    for metric in ECHO_METRICS {
        for connections in ECHO_CONNECTIONS {
            out.push((format!("echo/{metric}-{connections}/"), &ECHO));
        }
    }
    out
}

/// What keeps `measures` from being a complete run: a measure of
/// [`expected`] or [`PARAMETERS`] that is missing (one line per case,
/// naming the missing implementations), and a measure that neither
/// expects (a misspelt id, a stale criterion folder).
pub fn check_complete(measures: &[Measure]) -> Vec<String> {
    let ids: BTreeSet<&str> = measures.iter().map(|m| m.id.as_str()).collect();
    let mut known: BTreeSet<String> = PARAMETERS.iter().map(|p| p.to_string()).collect();
    let mut problems = Vec::new();
    for (prefix, names) in expected() {
        let missing: Vec<&str> = names
            .iter()
            .copied()
            .filter(|name| !ids.contains(format!("{prefix}{name}").as_str()))
            .collect();
        if !missing.is_empty() {
            problems.push(format!(
                "{}: no {}",
                prefix.trim_end_matches('/'),
                missing.join(", ")
            ));
        }
        known.extend(names.iter().map(|name| format!("{prefix}{name}")));
    }
    for parameter in PARAMETERS {
        if !ids.contains(parameter) {
            problems.push(format!("no parameter `{parameter}`"));
        }
    }
    for id in ids {
        if !known.contains(id) {
            problems.push(format!("`{id}` is not a measure of a complete run"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::measure;
    use bench_results::Unit;

    #[test]
    fn missing_and_unexpected_measures_are_named() {
        let complete: Vec<Measure> = expected()
            .iter()
            .flat_map(|(prefix, names)| names.iter().map(move |n| format!("{prefix}{n}")))
            .chain(PARAMETERS.iter().map(|p| p.to_string()))
            .map(|id| measure(&id, 1.0, Unit::Nanoseconds))
            .collect();
        assert_eq!(check_complete(&complete), Vec::<String>::new());
        let mut partial: Vec<Measure> = complete
            .into_iter()
            .filter(|m| {
                m.id != "block_on/thread/futures-lite"
                    && m.id != "block_on/thread/pollster"
                    && m.id != "echo/param/seconds"
            })
            .collect();
        partial.push(measure("block_on/thread/smol", 1.0, Unit::Nanoseconds));
        partial.push(measure("echo/p99-10/tokio", 1.0, Unit::Microseconds));
        assert_eq!(
            check_complete(&partial),
            [
                "block_on/thread: no pollster, futures-lite",
                "no parameter `echo/param/seconds`",
                "`block_on/thread/smol` is not a measure of a complete run",
                "`echo/p99-10/tokio` is not a measure of a complete run",
            ]
        );
    }
}
