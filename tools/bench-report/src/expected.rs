//! What a complete run measures: every implementation of every chart,
//! and the run's parameters. A run that misses one is not fit for the book
//! ([`check_complete`]).

use bench_results::ids::{
    self, BLOCK_ON_CASES, ECHO_CONNECTIONS, PARTS_CASE, PING_PONG_TURNS, SPAWN_TASKS,
    WAKES_PER_POLL, impl_ids, part_ids,
};
use bench_results::raw::{Echo, GroupFile, Timers};
use bench_results::{Group, Measure, Part};
use std::collections::BTreeSet;

/// The `block_on` group's implementations, as the charts label them, in
/// the order they draw them ([`ids::BLOCK_ON`]).
pub const BLOCK_ON: [&str; 6] = impl_ids(ids::BLOCK_ON);
/// The executors of `spawn`, `ping_pong` and `wake_many`
/// ([`ids::EXECUTORS`]).
pub const EXECUTORS: [&str; 10] = impl_ids(ids::EXECUTORS);
/// The primitives of `parts` (not implementations: the parts chart has
/// one colour).
pub const PARTS: [&str; 9] = part_ids(Part::ALL);
/// The timers' implementations ([`ids::TIMERS`]).
pub const TIMERS: [&str; 8] = impl_ids(ids::TIMERS);
/// The echo servers ([`ids::ECHO`]).
pub const ECHO: [&str; 5] = impl_ids(ids::ECHO);
/// The timers' metrics, each a measure `timers/<metric>/<impl>`.
const TIMER_METRICS: [&str; 7] = ["wall", "overhead", "p50", "p99", "max", "memory", "early"];
/// The echo group's metrics, each `echo/<metric>-<connections>/<impl>`.
const ECHO_METRICS: [&str; 3] = ["throughput", "p50", "p99"];

/// The case of a run's parameters: `timers/param/count`.
pub const PARAM: &str = "param";

/// A run's parameters, kept as measures (unit `count`) so that a chapter
/// can say them with `{{#bench …}}`: the timers' number of timers, their
/// duration and the runs whose median is reported; the echo messages'
/// size, the measured window and the runs per point
/// ([`GroupFile::PARAMETERS`]): `timers/param/count`.
pub fn parameters() -> Vec<String> {
    fn of<F: GroupFile>() -> impl Iterator<Item = String> {
        F::PARAMETERS
            .iter()
            .map(|name| F::GROUP.measure(PARAM, name))
    }
    of::<Timers>().chain(of::<Echo>()).collect()
}

/// Every measure of a complete run, as `(prefix, names)`: the measures
/// `<prefix><name>`. [`check_complete`] holds a run to it.
pub fn expected() -> Vec<(String, &'static [&'static str])> {
    let prefix = |group: Group, case: &dyn std::fmt::Display| group.measure(case, "");
    let mut out: Vec<(String, &'static [&'static str])> = Vec::new();
    for case in BLOCK_ON_CASES {
        out.push((prefix(Group::BlockOn, &case), &BLOCK_ON));
    }
    for (group, case) in [
        (Group::Spawn, SPAWN_TASKS),
        (Group::PingPong, PING_PONG_TURNS),
        (Group::WakeMany, WAKES_PER_POLL),
    ] {
        out.push((prefix(group, &case), &EXECUTORS));
    }
    out.push((prefix(Group::Parts, &PARTS_CASE), &PARTS));
    for metric in TIMER_METRICS {
        out.push((prefix(Group::Timers, &metric), &TIMERS));
    }
    for metric in ECHO_METRICS {
        for connections in ECHO_CONNECTIONS {
            out.push((
                prefix(Group::Echo, &format!("{metric}-{connections}")),
                &ECHO,
            ));
        }
    }
    out
}

/// What keeps `measures` from being a complete run: a measure of
/// [`expected`] or [`parameters`] that is missing (one line per case,
/// naming the missing implementations), and a measure that neither
/// expects (a misspelt id, a stale criterion folder).
pub fn check_complete(measures: &[Measure]) -> Vec<String> {
    let ids: BTreeSet<&str> = measures.iter().map(|m| m.id.as_str()).collect();
    let parameters = parameters();
    let mut known: BTreeSet<String> = parameters.iter().cloned().collect();
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
    for parameter in &parameters {
        if !ids.contains(parameter.as_str()) {
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
            .chain(parameters())
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
