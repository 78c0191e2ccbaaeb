//! The machine a run is made on: what it is, its load, and the day.

use bench_results::{MEASURE_COMMAND, Machine, Result};
use std::time::SystemTime;

/// Above this 1-minute load per core, the machine was not quiet.
pub const BUSY_LOAD_PER_CORE: f64 = 0.5;

/// A warning if the load before the run says the machine was busy. Only
/// the start counts: the load after it is the run's own.
pub fn busy(machine: &Machine) -> Option<String> {
    let load = machine.load_start?;
    (load > BUSY_LOAD_PER_CORE * f64::from(machine.cores.max(1))).then(|| {
        format!(
            "the 1-minute load before the run was {load:.2} on {} cores (more than \
             {BUSY_LOAD_PER_CORE} per core): the machine was not quiet, the numbers are noisier",
            machine.cores
        )
    })
}

/// This machine, as `[machine]` describes it, on the given day, without
/// its load.
pub fn this_machine(date: String) -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |line: &str, name: &str| {
        let (key, value) = line.split_once(':')?;
        (key.trim() == name).then(|| value.trim().to_string())
    };
    let cpu = cpuinfo
        .lines()
        .find_map(|l| field(l, "model name"))
        .unwrap_or_else(|| "unknown".into());
    let cores = cpuinfo
        .lines()
        .filter(|l| field(l, "processor").is_some())
        .count() as u32;
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib: f64 = meminfo
        .lines()
        .find_map(|l| field(l, "MemTotal"))
        .and_then(|v| v.trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    let memory_gib = (kib / (1024.0 * 1024.0) * 10.0).round() / 10.0;
    let output = |program: &str, arg: &str| {
        std::process::Command::new(program)
            .arg(arg)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|| "unknown".into())
    };
    Machine {
        cpu,
        cores,
        memory_gib,
        kernel: output("uname", "-r"),
        rustc: output("rustc", "-V"),
        date,
        load_start: None,
        load_end: None,
        command: MEASURE_COMMAND.into(),
    }
}

/// The 1-minute load average: the first field of `/proc/loadavg`.
pub fn load_average() -> Result<f64> {
    let text =
        std::fs::read_to_string("/proc/loadavg").map_err(|e| format!("/proc/loadavg: {e}"))?;
    parse_load(&text)
}

/// The first field of a `/proc/loadavg` line (or of a number alone).
pub fn parse_load(text: &str) -> Result<f64> {
    let first = text.split_whitespace().next().unwrap_or_default();
    first
        .parse::<f64>()
        .ok()
        .filter(|l| l.is_finite() && *l >= 0.0)
        .ok_or_else(|| format!("`{first}` is not a load average").into())
}

/// `YYYY-MM-DD` of a time, in UTC.
pub fn utc_date(time: SystemTime) -> String {
    // `Date`'s Display is ISO 8601's `YYYY-MM-DD`.
    time::OffsetDateTime::from(time).date().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::machine;

    #[test]
    fn dates_are_utc_days() {
        let at = |seconds: u64| {
            utc_date(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(seconds))
        };
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_767_225_599), "2025-12-31");
        assert_eq!(at(1_767_225_600), "2026-01-01");
    }

    #[test]
    fn a_busy_machine_is_one_whose_load_before_the_run_was_high() {
        let mut quiet = machine();
        // The load after the run is the run's own: no warning.
        quiet.load_end = Some(2.0);
        assert_eq!(busy(&quiet), None);
        let mut loaded = machine();
        loaded.load_start = Some(1.25);
        assert_eq!(
            busy(&loaded).as_deref(),
            Some(
                "the 1-minute load before the run was 1.25 on 2 cores (more than 0.5 per core): \
                 the machine was not quiet, the numbers are noisier"
            )
        );
        assert_eq!(parse_load("0.52 0.58 0.59 1/512 4242\n").unwrap(), 0.52);
        assert!(parse_load("nan").is_err());
        assert!(parse_load("-1").is_err());
    }

    #[test]
    fn the_machine_file_reads_back() {
        let machine = machine();
        let json = serde_json::to_string(&machine).unwrap();
        assert_eq!(serde_json::from_str::<Machine>(&json).unwrap(), machine);
        let mut no_load = machine.clone();
        no_load.load_end = None;
        let json = serde_json::to_string(&no_load).unwrap();
        assert!(!json.contains("load_end"), "{json}");
        assert_eq!(serde_json::from_str::<Machine>(&json).unwrap(), no_load);
    }
}
