//! Chapter 10's measurements, from a benchmark run to the page: the
//! results file, its charts, and the `{{#bench …}}` directive.
//!
//! `cargo bench -p benchmarks` leaves criterion's estimates under
//! `<target>/criterion/` and the hand-measured groups' JSON under
//! `<target>/bench-raw/` (a quick run, `-- --test` or `BENCH_QUICK=1`,
//! writes into `bench-raw/quick/` instead, which is never read here);
//! `tools/bench-report/run --measure` adds `bench-raw/machine.json`, the
//! machine and its load before and after the run. The `bench-report`
//! binary gathers those files into a [`Bundle`], refuses a run that is
//! quick, unhealthy or incomplete (every chart needs every implementation
//! expected for it, see [`expected`]) unless told `--allow-partial`,
//! copies the bundle into [`RAW_DIR`], [`collect`]s it into [`Results`]
//! and writes them to [`RESULTS`], then draws every [`CHARTS`] entry from
//! that file alone into `src/charts/<name>.svg`. The preprocessor replaces
//! each `{{#bench …}}` of a chapter by a value of the same file
//! ([`expand`]). So every number and chart of chapter 10 comes from one
//! run, none is typed by hand, and tests check it: the results file is
//! what collecting the committed bundle gives, the charts are what the
//! renderer makes of the results file, and the chapter writes no number
//! with a unit outside the directive ([`typed_numbers`]).
//!
//! A measure's id is `<group>/<case>/<implementation>`: for criterion,
//! `block_on/once/pollster` (group, value, function); for the timers,
//! `timers/<metric>/<impl>`; for the echo server,
//! `echo/<metric>-<connections>/<impl>`; a run's parameters are
//! `timers/param/count` and the like (see [`PARAMETERS`]).
//!
//! The results file keeps each measure in the unit it was measured in.
//! Text and charts show it in the unit a reader reads it in: a time steps
//! up from ns to µs, ms and s while it is 1000 or more, so 59800 ns shows
//! as `59.8 µs`. Numbers show three significant digits and their unit,
//! without thousands separators: `12.3 ns`, `1.52 ms`, `250 µs`,
//! `5.40 MiB`, `1230 MiB/s`; counts show as whole numbers without a unit.
//! Ratios show two decimals below 10 and one above: `0.83×`, `1.45×`,
//! `12.5×`.

use crate::Result;
use crate::directives::{BENCH, Bench, directives};
use crate::markdown::{code_ranges, escape_html, escape_markdown};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::time::SystemTime;

/// The results file, from the repository root.
pub const RESULTS: &str = "data/bench/results.toml";
/// The run's own files that [`RESULTS`] was collected from, from the
/// repository root (see [`Bundle`]).
pub const RAW_DIR: &str = "data/bench/raw";
/// The charts' folder, from the repository root. Every `.svg` in it is
/// generated.
pub const CHART_DIR: &str = "src/charts";
/// The command that writes [`RESULTS`] and the charts.
pub const REPORT_COMMAND: &str = "tools/bench-report/run";
/// The command that measures.
pub const MEASURE_COMMAND: &str = "cargo bench -p benchmarks";

// ---------------------------------------------------------------------------
// What a complete run measures

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

// ---------------------------------------------------------------------------
// The results file

/// The contents of [`RESULTS`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Results {
    pub machine: Machine,
    /// Sorted by id, ids unique.
    #[serde(default)]
    pub measure: Vec<Measure>,
}

/// The machine the measurements were made on: `[machine]` of [`RESULTS`],
/// and `bench-raw/machine.json`, which `bench-report machine` writes
/// around the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    /// `model name` of `/proc/cpuinfo`.
    pub cpu: String,
    /// Logical cores (`processor` entries of `/proc/cpuinfo`).
    pub cores: u32,
    /// `MemTotal` of `/proc/meminfo`, in GiB, one decimal.
    pub memory_gib: f64,
    /// `uname -r`.
    pub kernel: String,
    /// `rustc -V`.
    pub rustc: String,
    /// The day (UTC, `YYYY-MM-DD`) the run started.
    pub date: String,
    /// The 1-minute load average (`/proc/loadavg`) before the run: what
    /// else the machine was doing. `None` for a run without
    /// `machine.json` (collected with `--allow-partial`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_start: Option<f64>,
    /// The same right after the run. It counts the run's own last minute,
    /// in which the echo group keeps every core busy, so it is expected
    /// near the number of cores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_end: Option<f64>,
    /// The command that measured.
    pub command: String,
}

/// Above this 1-minute load per core, the machine was not quiet.
pub const BUSY_LOAD_PER_CORE: f64 = 0.5;

impl Machine {
    /// A warning if the load before the run says the machine was busy.
    /// Only the start counts: the load after it is the run's own.
    pub fn busy(&self) -> Option<String> {
        let load = self.load_start?;
        (load > BUSY_LOAD_PER_CORE * f64::from(self.cores.max(1))).then(|| {
            format!(
                "the 1-minute load before the run was {load:.2} on {} cores (more than \
                 {BUSY_LOAD_PER_CORE} per core): the machine was not quiet, the numbers are noisier",
                self.cores
            )
        })
    }
}

/// One number of a run.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    /// `spawn/100000/tokio`.
    pub id: String,
    pub value: f64,
    pub unit: Unit,
}

/// The unit a measure was measured in, written as its symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Unit {
    #[serde(rename = "ns")]
    Nanoseconds,
    #[serde(rename = "µs")]
    Microseconds,
    #[serde(rename = "ms")]
    Milliseconds,
    #[serde(rename = "MiB")]
    Mebibytes,
    #[serde(rename = "MiB/s")]
    MebibytesPerSecond,
    /// A number of things (timers that fired early, a run's parameters).
    #[serde(rename = "count")]
    Count,
}

impl Unit {
    /// How the results file writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Nanoseconds => "ns",
            Unit::Microseconds => "µs",
            Unit::Milliseconds => "ms",
            Unit::Mebibytes => "MiB",
            Unit::MebibytesPerSecond => "MiB/s",
            Unit::Count => "count",
        }
    }
}

impl Results {
    /// Results with their measures sorted by id and rounded to the five
    /// significant digits the file keeps (so that what is drawn from these
    /// is what is drawn from the file); fails on a repeated id or a value
    /// that is not a finite number.
    pub fn new(machine: Machine, mut measure: Vec<Measure>) -> Result<Results> {
        measure.sort_by(|a, b| a.id.cmp(&b.id));
        for m in &mut measure {
            m.value = rounded(m.value, 5);
        }
        for pair in measure.windows(2) {
            if pair[0].id == pair[1].id {
                return Err(format!("measure `{}` appears twice", pair[0].id).into());
            }
        }
        if let Some(bad) = measure.iter().find(|m| !m.value.is_finite()) {
            return Err(format!("measure `{}` is {}", bad.id, bad.value).into());
        }
        Ok(Results { machine, measure })
    }

    /// Parses the results file's text.
    pub fn parse(text: &str) -> Result<Results> {
        let parsed: Results = toml::from_str(text)?;
        Results::new(parsed.machine, parsed.measure)
    }

    /// Reads [`RESULTS`] under the repository `root`; `None` until the
    /// first report is written.
    pub fn load(root: &Path) -> Result<Option<Results>> {
        let path = root.join(RESULTS);
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{RESULTS}: {e}"))?;
        Results::parse(&text)
            .map(Some)
            .map_err(|e| format!("{RESULTS}: {e}").into())
    }

    /// The measure with this id.
    pub fn get(&self, id: &str) -> Option<&Measure> {
        self.measure
            .binary_search_by(|m| m.id.as_str().cmp(id))
            .ok()
            .map(|i| &self.measure[i])
    }

    /// The results file: a header saying where it comes from, `[machine]`,
    /// then one `[[measure]]` per id in id order. Written by hand, not by
    /// a serializer, so that a new run changes only the lines of the
    /// numbers that changed; a test checks that the committed file is in
    /// this form.
    pub fn to_toml(&self) -> String {
        let m = &self.machine;
        let mut out = format!(
            "# Chapter 10's measurements. Generated by `{REPORT_COMMAND} --measure`, which runs\n\
             # `{MEASURE_COMMAND}` and collects criterion's estimates and the timers' and\n\
             # echo server's JSON (kept in {RAW_DIR}/). Do not edit: chapters show these\n\
             # numbers with {{{{#bench ID}}}} and {CHART_DIR}/*.svg are drawn from this file; tests\n\
             # check that it is what {RAW_DIR}/ collects to, and the charts what it draws.\n\
             \n[machine]\n"
        );
        let load = |load: Option<f64>| load.map(toml_float);
        for (key, value) in [
            ("cpu", Some(toml_string(&m.cpu))),
            ("cores", Some(m.cores.to_string())),
            ("memory_gib", Some(toml_float(m.memory_gib))),
            ("kernel", Some(toml_string(&m.kernel))),
            ("rustc", Some(toml_string(&m.rustc))),
            ("date", Some(toml_string(&m.date))),
            ("load_start", load(m.load_start)),
            ("load_end", load(m.load_end)),
            ("command", Some(toml_string(&m.command))),
        ] {
            if let Some(value) = value {
                writeln!(out, "{key} = {value}").unwrap();
            }
        }
        for measure in &self.measure {
            write!(
                out,
                "\n[[measure]]\nid = {}\nvalue = {}\nunit = {}\n",
                toml_string(&measure.id),
                toml_float(measure.value),
                toml_string(measure.unit.symbol())
            )
            .unwrap();
        }
        out
    }

    /// What a `{{#bench …}}` directive shows.
    pub fn text(&self, bench: &Bench<'_>) -> std::result::Result<String, String> {
        let measure = |id: &str| {
            self.get(id)
                .ok_or_else(|| format!("no measure `{id}` in {RESULTS}"))
        };
        match *bench {
            Bench::Value(id) => {
                let m = measure(id)?;
                Ok(format_value(m.value, m.unit))
            }
            Bench::Ratio(a, b) => format_ratio(measure(a)?, measure(b)?),
            Bench::Machine(field) => {
                let m = &self.machine;
                let load = |load: Option<f64>| {
                    load.map(|l| format!("{l:.2}")).ok_or_else(|| {
                        format!(
                            "no `machine.{field}` in {RESULTS}: the run had no machine.json \
                             (run `{REPORT_COMMAND} --measure`)"
                        )
                    })
                };
                Ok(match field {
                    "cpu" => m.cpu.clone(),
                    "cores" => m.cores.to_string(),
                    "memory" => format!("{:.1} GiB", m.memory_gib),
                    "kernel" => m.kernel.clone(),
                    "rustc" => m.rustc.clone(),
                    "date" => m.date.clone(),
                    "load_start" => load(m.load_start)?,
                    "load_end" => load(m.load_end)?,
                    "command" => m.command.clone(),
                    _ => {
                        return Err(format!(
                            "no `machine.{field}`: the fields are cpu, cores, memory, kernel, \
                             rustc, date, load_start, load_end, command"
                        ));
                    }
                })
            }
        }
    }
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => write!(out, "\\u{:04X}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A TOML float: five significant digits (the runs' noise is far larger),
/// always with a decimal point or an exponent, so TOML reads a float.
fn toml_float(value: f64) -> String {
    let text = format!("{}", rounded(value, 5));
    if text.contains(['.', 'e', 'i', 'N']) {
        text
    } else {
        format!("{text}.0")
    }
}

// ---------------------------------------------------------------------------
// Formatting

/// The time units a value steps through, each 1000 of the one before.
const TIME_UNITS: [&str; 4] = ["ns", "µs", "ms", "s"];

/// How a value of `unit` is shown: `(divisor, symbol)`, the value divided
/// by the divisor being the number shown. A time steps up to the next
/// unit while the number, rounded to three significant digits, is 1000 or
/// more (999.6 ns rounds to 1000 and shows as `1.00 µs`); other units stay.
pub fn display_unit(value: f64, unit: Unit) -> (f64, &'static str) {
    let Some(mut step) = TIME_UNITS.iter().position(|s| *s == unit.symbol()) else {
        return (1.0, unit.symbol());
    };
    let mut divisor = 1.0;
    while step + 1 < TIME_UNITS.len() && rounded(value.abs() / divisor, 3) >= 1000.0 {
        divisor *= 1000.0;
        step += 1;
    }
    (divisor, TIME_UNITS[step])
}

/// `value` with three significant digits and the unit it reads best in
/// (`12.3 ns`, `59.8 µs`, `1230 MiB/s`); a count as a whole number, alone.
pub fn format_value(value: f64, unit: Unit) -> String {
    match unit {
        Unit::Count if value.fract() == 0.0 => format!("{}", value as i64),
        Unit::Count => significant(value, 3),
        _ => {
            let (divisor, symbol) = display_unit(value, unit);
            format!("{} {symbol}", significant(value / divisor, 3))
        }
    }
}

/// `value` rounded to `digits` significant digits, written out in full
/// (no exponent, no thousands separators, trailing zeros kept: `5.40`).
fn significant(value: f64, digits: usize) -> String {
    if value == 0.0 {
        return "0".into();
    }
    // `{:.2e}` rounds correctly, including the carry of 9.996 → 1.00e1.
    let scientific = format!("{:.*e}", digits - 1, value);
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i64 = exponent.parse().expect("a number");
    let sign = if mantissa.starts_with('-') { "-" } else { "" };
    let figures: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // The decimal point goes after this many figures.
    let point = exponent + 1;
    let body = if point <= 0 {
        format!("0.{}{figures}", "0".repeat((-point) as usize))
    } else if point as usize >= figures.len() {
        format!("{figures}{}", "0".repeat(point as usize - figures.len()))
    } else {
        let (whole, fraction) = figures.split_at(point as usize);
        format!("{whole}.{fraction}")
    };
    format!("{sign}{body}")
}

/// `value` rounded to `digits` significant digits (itself if it is not
/// finite).
fn rounded(value: f64, digits: usize) -> f64 {
    format!("{:.*e}", digits - 1, value)
        .parse()
        .unwrap_or(value)
}

/// How many times `a` is `b`: two decimals below 10 (`0.83×`), one above
/// (`12.5×`). The two must have the same unit.
pub fn format_ratio(a: &Measure, b: &Measure) -> std::result::Result<String, String> {
    if a.unit != b.unit {
        return Err(format!(
            "`{}` is in {} and `{}` in {}: a ratio needs one unit",
            a.id,
            a.unit.symbol(),
            b.id,
            b.unit.symbol()
        ));
    }
    if b.value == 0.0 {
        return Err(format!("`{}` is 0: no ratio", b.id));
    }
    let ratio = a.value / b.value;
    let two = format!("{ratio:.2}");
    // 9.996 rounds to "10.00", which is already above 10.
    if two.parse::<f64>().is_ok_and(|r| r.abs() < 10.0) {
        Ok(format!("{two}×"))
    } else {
        Ok(format!("{ratio:.1}×"))
    }
}

// ---------------------------------------------------------------------------
// The directive

/// A chapter with every `{{#bench …}}` replaced by its text. In prose and
/// tables the text is escaped for Markdown; in an inline code span it goes
/// in as it is. In a code block the directive is an error: blocks show
/// code and program output, never a measurement (write `\{{#bench …}}` to
/// show the directive itself). A directive must stay on one line, so that
/// the chapter's line numbers do not move. The error is `(byte offset of
/// the directive, message)`.
pub fn expand(
    text: &str,
    results: Option<&Results>,
) -> std::result::Result<String, (usize, String)> {
    let mut code: Option<Vec<(std::ops::Range<usize>, bool)>> = None;
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for directive in directives(text) {
        let Some(bench) = Bench::of(&directive) else {
            continue;
        };
        let at = directive.range.start;
        let written = &text[directive.range.clone()];
        let bench = bench.map_err(|e| (at, e))?;
        if written.contains('\n') {
            return Err((at, format!("`{written}`: write it on one line")));
        }
        // Parsed only for a chapter that uses the directive.
        let code = code.get_or_insert_with(|| code_ranges(text));
        let in_code = code
            .iter()
            .find(|(range, _)| range.start <= at && at < range.end)
            .map(|(_, block)| *block);
        if in_code == Some(true) {
            return Err((
                at,
                format!(
                    "`{written}` in a code block: measurements go in prose and tables \
                     (write `\\{written}` to show the directive itself)"
                ),
            ));
        }
        let Some(results) = results else {
            return Err((
                at,
                format!("`{written}`: there is no {RESULTS} yet (run `{REPORT_COMMAND}`)"),
            ));
        };
        let value = results.text(&bench).map_err(|e| (at, e))?;
        let value = if in_code == Some(false) {
            if value.contains('`') {
                return Err((at, format!("`{written}` holds a backtick: not in code")));
            }
            value
        } else {
            escape_markdown(&value).replace('|', "\\|")
        };
        out.push_str(&text[copied..at]);
        out.push_str(&value);
        copied = directive.range.end;
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

// ---------------------------------------------------------------------------
// Numbers typed by hand

/// The numbers with a unit that chapter 10 may write by hand, as
/// [`typed_numbers`] normalises them: fixed facts the chapter states, not
/// measurements, each with the reason it is fixed. Keep it short: a
/// measured number goes through `{{#bench …}}`, and a run's parameter can
/// too (see [`PARAMETERS`]).
pub const FIXED_NUMBERS: [(&str, &str); 13] = [
    (
        "1 s",
        "criterion's warm-up time (benchmarks/benches/book.rs)",
    ),
    ("3 s", "criterion's measurement time"),
    ("500 ms", "the echo group's warm-up"),
    ("0.5 s", "the echo group's warm-up"),
    ("2 s", "the echo group's measured window"),
    ("100 ms", "the timers' duration"),
    ("10 ms", "a wait in a listings test the chapter describes"),
    ("50 ms", "a wait in a listings test the chapter describes"),
    ("1 KiB", "the echo messages"),
    ("8 KiB", "a buffer of the echo servers"),
    ("16 KiB", "a buffer of the echo servers"),
    ("0.8×", "a goal: the echo throughput, at least 0.8× tokio's"),
    ("1.0×", "a goal: at most (or at least) 1.0× a library"),
];

/// The units [`typed_numbers`] looks for after a number, as written
/// (longest first where one begins another) and as normalised: the
/// symbols, the Japanese and Chinese words for the times, and 倍 for ×.
const TYPED_UNITS: [(&str, &str); 19] = [
    ("MiB/s", "MiB/s"),
    ("MiB", "MiB"),
    ("KiB", "KiB"),
    ("GiB", "GiB"),
    ("ns", "ns"),
    ("µs", "µs"),
    ("μs", "µs"),
    ("us", "µs"),
    ("ms", "ms"),
    ("s", "s"),
    ("×", "×"),
    ("ナノ秒", "ns"),
    ("マイクロ秒", "µs"),
    ("ミリ秒", "ms"),
    ("纳秒", "ns"),
    ("微秒", "µs"),
    ("毫秒", "ms"),
    ("秒", "s"),
    ("倍", "×"),
];

/// Every number of `text` written with a unit (`59.8 µs`, `1.2×`,
/// `100ミリ秒`, `2 秒`) outside `{{#bench …}}` directives, except the
/// [`FIXED_NUMBERS`]: `(byte offset, as written)`. A number is ASCII
/// digits with optional `,` grouping and decimals, not glued to a word
/// before it (`p99`, `ch10`); the unit may follow after spaces; a unit in
/// Latin letters must end there (`2 samples` is no unit). The whole text
/// counts, code included: chapter 10 shows no measurement in code either.
pub fn typed_numbers(text: &str) -> Vec<(usize, String)> {
    let skipped: Vec<std::ops::Range<usize>> = directives(text)
        .into_iter()
        .filter(|d| d.name == BENCH)
        .map(|d| d.range)
        .collect();
    let bytes = text.as_bytes();
    let glued = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b',';
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        if !bytes[at].is_ascii_digit() || (at > 0 && glued(bytes[at - 1])) {
            at += 1;
            continue;
        }
        // The number: digits, with `,` or `.` only between digits.
        let mut end = at;
        while end < bytes.len()
            && (bytes[end].is_ascii_digit()
                || (matches!(bytes[end], b',' | b'.')
                    && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)))
        {
            end += 1;
        }
        at = end;
        if skipped.iter().any(|r| r.contains(&start)) {
            continue;
        }
        let number = text[start..end].replace(',', "");
        let rest = &text[end..];
        let after_space = rest.trim_start_matches([' ', '\u{a0}', '\u{2009}', '\u{202f}']);
        let Some((written, unit)) = TYPED_UNITS.iter().find(|(written, _)| {
            after_space.strip_prefix(written).is_some_and(|after| {
                !written.is_ascii() || !after.starts_with(|c: char| c.is_ascii_alphanumeric())
            })
        }) else {
            continue;
        };
        let normal = if *unit == "×" {
            format!("{number}×")
        } else {
            format!("{number} {unit}")
        };
        if !FIXED_NUMBERS.iter().any(|(fixed, _)| *fixed == normal) {
            let unit_end = text.len() - after_space.len() + written.len();
            found.push((start, text[start..unit_end].to_string()));
        }
    }
    found
}

// ---------------------------------------------------------------------------
// A run's files

/// The files a report is made from: what a run left in the target
/// directory (`criterion/**/new/{benchmark,estimates}.json`,
/// `bench-raw/{timers,echo,machine}.json`), or the copy of them kept in
/// [`RAW_DIR`] (`criterion/<group>/<impl>/<case>/{benchmark,estimates}.json`,
/// `timers.json`, `echo.json`, `machine.json`). Only those: criterion's
/// reports, samples and baselines stay behind, and so does `bench-raw/quick/`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Bundle {
    /// criterion's `benchmark.json` and `estimates.json`, by the
    /// benchmark's folder under `criterion/` (`spawn/tokio/100000`).
    pub criterion: BTreeMap<String, [String; 2]>,
    pub timers: Option<String>,
    pub echo: Option<String>,
    pub machine: Option<String>,
}

impl Bundle {
    /// What a run left in the `target` directory.
    pub fn from_target(target: &Path) -> Result<Bundle> {
        let mut bundle = Bundle::default();
        let criterion = target.join("criterion");
        if criterion.is_dir() {
            // criterion keeps `new/` (this run), `base/` (the saved
            // baseline) and `change/`: only `new/` counts.
            find_criterion(&criterion, "", "new", &mut bundle.criterion)?;
        }
        let raw = target.join("bench-raw");
        bundle.timers = read_if_present(&raw.join("timers.json"))?;
        bundle.echo = read_if_present(&raw.join("echo.json"))?;
        bundle.machine = read_if_present(&raw.join("machine.json"))?;
        Ok(bundle)
    }

    /// The copy written by [`Bundle::write`].
    pub fn read(dir: &Path) -> Result<Bundle> {
        if !dir.is_dir() {
            return Err(format!("{}: no such folder", dir.display()).into());
        }
        let mut bundle = Bundle::default();
        let criterion = dir.join("criterion");
        if criterion.is_dir() {
            find_criterion(&criterion, "", "", &mut bundle.criterion)?;
        }
        bundle.timers = read_if_present(&dir.join("timers.json"))?;
        bundle.echo = read_if_present(&dir.join("echo.json"))?;
        bundle.machine = read_if_present(&dir.join("machine.json"))?;
        Ok(bundle)
    }

    /// Replaces `dir` with these files; returns how many it wrote.
    pub fn write(&self, dir: &Path) -> Result<usize> {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(dir)?;
        let mut files = 0;
        for (folder, [benchmark, estimates]) in &self.criterion {
            let folder = dir.join("criterion").join(folder);
            std::fs::create_dir_all(&folder)?;
            std::fs::write(folder.join("benchmark.json"), benchmark)?;
            std::fs::write(folder.join("estimates.json"), estimates)?;
            files += 2;
        }
        for (name, text) in [
            ("timers.json", &self.timers),
            ("echo.json", &self.echo),
            ("machine.json", &self.machine),
        ] {
            if let Some(text) = text {
                std::fs::write(dir.join(name), text)?;
                files += 1;
            }
        }
        Ok(files)
    }
}

fn read_if_present(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display()).into()),
    }
}

/// Every folder under `dir` whose `inner/` holds a `benchmark.json`, with
/// its `estimates.json`, by its path from the top (`rel`).
fn find_criterion(
    dir: &Path,
    rel: &str,
    inner: &str,
    out: &mut BTreeMap<String, [String; 2]>,
) -> Result<()> {
    let files = dir.join(inner);
    if !rel.is_empty() && files.join("benchmark.json").is_file() {
        let read = |name: &str| {
            std::fs::read_to_string(files.join(name))
                .map_err(|e| format!("{}: {e}", files.join(name).display()))
        };
        out.insert(
            rel.to_string(),
            [read("benchmark.json")?, read("estimates.json")?],
        );
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for path in entries.into_iter().filter(|p| p.is_dir()) {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let rel = if rel.is_empty() {
            name.into_owned()
        } else {
            format!("{rel}/{name}")
        };
        find_criterion(&path, &rel, inner, out)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Collecting a run

/// What a [`Bundle`] holds, read.
#[derive(Debug, Default)]
pub struct Collected {
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
    fn push(&mut self, id: String, value: f64, unit: Unit) {
        self.measures.push(Measure { id, value, unit });
    }

    /// Records measure `id`, or, where its file left the value out, the
    /// problem that `missing` words.
    fn push_or_missing(
        &mut self,
        id: String,
        value: Option<f64>,
        unit: Unit,
        missing: impl FnOnce() -> String,
    ) {
        match value {
            Some(value) => self.push(id, value, unit),
            None => self.problems.push(missing()),
        }
    }
}

/// Reads a bundle: criterion's estimates (ns per iteration, per element
/// with a throughput), the timers' and echo server's results and
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
            "timers.json",
            &bundle.timers,
            collect_timers as fn(&str, &mut Collected) -> Result<()>,
        ),
        ("echo.json", &bundle.echo, collect_echo),
    ] {
        match text {
            Some(text) => read(text, &mut collected).map_err(|e| format!("{file}: {e}"))?,
            None => collected.problems.push(format!("no {file}")),
        }
    }
    match &bundle.machine {
        Some(text) => {
            let machine: Machine =
                serde_json::from_str(text).map_err(|e| format!("machine.json: {e}"))?;
            for (name, load) in [
                ("load_start", machine.load_start),
                ("load_end", machine.load_end),
            ] {
                if load.is_none() {
                    collected.problems.push(format!("machine.json: no {name}"));
                }
            }
            collected.warnings.extend(machine.busy());
            collected.machine = Some(machine);
        }
        None => collected.problems.push(format!(
            "no machine.json (`{REPORT_COMMAND} --measure` writes it around the run)"
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
/// of the run's samples, in ns per iteration.
#[derive(Deserialize)]
struct Estimates {
    median: Estimate,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
}

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
    collected.push(
        format!("{}/{case}/{implementation}", id.group_id),
        estimates.median.point_estimate / per,
        Unit::Nanoseconds,
    );
    Ok(())
}

/// What the benchmarks say about a file's run: whether it was a quick one
/// (`quick`), and what went wrong (`problems`: a leak, a failed
/// connection, a failed implementation, an early timer; empty when
/// healthy). Both must be there.
fn check_health(
    file: &str,
    quick: Option<bool>,
    problems: Option<Vec<String>>,
    collected: &mut Collected,
) {
    match quick {
        Some(false) => {}
        Some(true) => collected.problems.push(format!(
            "{file}: a quick run (`-- --test` or BENCH_QUICK=1), with a quick run's sizes"
        )),
        None => collected.problems.push(format!("{file}: no `quick` field")),
    }
    match problems {
        Some(problems) => collected
            .problems
            .extend(problems.into_iter().map(|p| format!("{file}: {p}"))),
        None => collected
            .problems
            .push(format!("{file}: no `problems` field")),
    }
}

/// A run's parameters as measures (unit `count`); a missing one is a
/// problem.
fn collect_parameters(file: &str, parameters: &[(&str, Option<f64>)], collected: &mut Collected) {
    for (id, value) in parameters {
        collected.push_or_missing(id.to_string(), *value, Unit::Count, || {
            let field = id.rsplit('/').next().unwrap_or(id).replace('-', "_");
            format!("{file}: no `{field}`")
        });
    }
}

/// `timers.json`, as `benchmarks/src/timers.rs` writes it. An
/// implementation that failed has only `error`.
#[derive(Deserialize)]
struct Timers {
    quick: Option<bool>,
    problems: Option<Vec<String>>,
    count: Option<f64>,
    duration_ms: Option<f64>,
    runs: Option<f64>,
    results: Vec<TimerResult>,
}

#[derive(Deserialize)]
struct TimerResult {
    #[serde(rename = "impl")]
    implementation: String,
    error: Option<String>,
    wall_ms: Option<f64>,
    overhead_ms: Option<f64>,
    lateness_us: Option<Lateness>,
    early: Option<u64>,
    peak_rss_mib: Option<f64>,
}

#[derive(Deserialize)]
struct Lateness {
    p50: f64,
    p99: f64,
    max: f64,
}

fn collect_timers(text: &str, collected: &mut Collected) -> Result<()> {
    let timers: Timers = serde_json::from_str(text)?;
    check_health("timers.json", timers.quick, timers.problems, collected);
    collect_parameters(
        "timers.json",
        &[
            ("timers/param/count", timers.count),
            ("timers/param/duration-ms", timers.duration_ms),
            ("timers/param/runs", timers.runs),
        ],
        collected,
    );
    for r in timers.results {
        let name = &r.implementation;
        if let Some(error) = &r.error {
            collected
                .problems
                .push(format!("timers.json: {name} failed: {error}"));
            continue;
        }
        let lateness = r.lateness_us.as_ref();
        for (metric, value, unit) in [
            ("wall", r.wall_ms, Unit::Milliseconds),
            ("overhead", r.overhead_ms, Unit::Milliseconds),
            ("p50", lateness.map(|l| l.p50), Unit::Microseconds),
            ("p99", lateness.map(|l| l.p99), Unit::Microseconds),
            ("max", lateness.map(|l| l.max), Unit::Microseconds),
            ("memory", r.peak_rss_mib, Unit::Mebibytes),
            ("early", r.early.map(|n| n as f64), Unit::Count),
        ] {
            collected.push_or_missing(format!("timers/{metric}/{name}"), value, unit, || {
                format!("timers.json: {name} has no {metric}")
            });
        }
    }
    Ok(())
}

/// `echo.json`, as `benchmarks/src/echo.rs` writes it: one entry per
/// implementation and number of connections.
#[derive(Deserialize)]
struct Echo {
    quick: Option<bool>,
    problems: Option<Vec<String>>,
    message_bytes: Option<f64>,
    seconds: Option<f64>,
    runs: Option<f64>,
    results: Vec<EchoResult>,
}

#[derive(Deserialize)]
struct EchoResult {
    #[serde(rename = "impl")]
    implementation: String,
    connections: Option<u64>,
    error: Option<String>,
    throughput_mib_s: Option<f64>,
    p50_us: Option<f64>,
    p99_us: Option<f64>,
}

fn collect_echo(text: &str, collected: &mut Collected) -> Result<()> {
    let echo: Echo = serde_json::from_str(text)?;
    check_health("echo.json", echo.quick, echo.problems, collected);
    collect_parameters(
        "echo.json",
        &[
            ("echo/param/message-bytes", echo.message_bytes),
            ("echo/param/seconds", echo.seconds),
            ("echo/param/runs", echo.runs),
        ],
        collected,
    );
    for r in echo.results {
        let name = &r.implementation;
        let connections = r
            .connections
            .map_or_else(|| "?".to_string(), |c| c.to_string());
        if let Some(error) = &r.error {
            collected.problems.push(format!(
                "echo.json: {name} with {connections} connections failed: {error}"
            ));
            continue;
        }
        if r.connections.is_none() {
            return Err(format!("{name}: no `connections`").into());
        }
        for (metric, value, unit) in [
            ("throughput", r.throughput_mib_s, Unit::MebibytesPerSecond),
            ("p50", r.p50_us, Unit::Microseconds),
            ("p99", r.p99_us, Unit::Microseconds),
        ] {
            collected.push_or_missing(
                format!("echo/{metric}-{connections}/{name}"),
                value,
                unit,
                || format!("echo.json: {name} with {connections} connections has no {metric}"),
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The machine

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
    let seconds = match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    };
    // Howard Hinnant's days-to-civil algorithm (proleptic Gregorian).
    let days = seconds.div_euclid(86_400) + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

// ---------------------------------------------------------------------------
// Charts

/// A chart of chapter 10, drawn into `src/charts/<name>.svg`.
#[derive(Debug)]
pub struct Chart {
    pub name: &'static str,
    /// The title before its parenthesis, which says the unit (on a linear
    /// axis), `per` and which way is better.
    pub subject: &'static str,
    /// What one value is per (`per call`), or empty.
    pub per: &'static str,
    pub higher_is_better: bool,
    /// Every bar's unit, as measured.
    pub unit: Unit,
    pub layout: Layout,
    /// The bars every cluster has, in the order drawn (one not listed is
    /// drawn after these, in alphabetical order).
    pub bars: &'static [&'static str],
    pub colours: Colours,
}

/// Which measures a chart draws.
#[derive(Debug)]
pub enum Layout {
    /// One bar per implementation: the measures `<prefix><impl>`.
    Bars(&'static str),
    /// One cluster per connection count, one bar per implementation in
    /// each: the measures `<group>/<metric>-<connections>/<impl>`.
    Clusters {
        group: &'static str,
        metric: &'static str,
    },
}

/// How a chart colours its bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colours {
    /// The book's code (`book-…`) in one colour, the libraries in another,
    /// with a legend.
    BookAndLibrary,
    /// One neutral colour, no legend: the bars are not implementations.
    Neutral,
}

/// Every chart of chapter 10.
pub const CHARTS: [Chart; 12] = [
    Chart {
        name: "block_on-ready",
        subject: "block_on, future ready at once",
        per: "per call",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("block_on/ready/"),
        bars: &BLOCK_ON,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "block_on-once",
        subject: "block_on, future woken once",
        per: "per call",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("block_on/once/"),
        bars: &BLOCK_ON,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "block_on-thread",
        subject: "block_on, future woken by another thread",
        per: "per call",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("block_on/thread/"),
        bars: &BLOCK_ON,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "spawn",
        subject: "spawn, 100000 tasks",
        per: "per task",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("spawn/100000/"),
        bars: &EXECUTORS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "ping_pong",
        subject: "ping_pong, 10000 hand-offs",
        per: "per hand-off",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("ping_pong/10000/"),
        bars: &EXECUTORS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "wake_many",
        subject: "wake_many, 100 wakes per poll",
        per: "per round of 100 wakes",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("wake_many/100/"),
        bars: &EXECUTORS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "parts",
        subject: "parts: one operation of each primitive",
        per: "",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("parts/op/"),
        bars: &PARTS,
        colours: Colours::Neutral,
    },
    Chart {
        name: "timers-overhead",
        subject: "timers, wall time beyond the timers' duration",
        per: "",
        higher_is_better: false,
        unit: Unit::Milliseconds,
        layout: Layout::Bars("timers/overhead/"),
        bars: &TIMERS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "timers-p99",
        subject: "timers, p99 lateness",
        per: "",
        higher_is_better: false,
        unit: Unit::Microseconds,
        layout: Layout::Bars("timers/p99/"),
        bars: &TIMERS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "timers-memory",
        subject: "timers, peak memory increase",
        per: "",
        higher_is_better: false,
        unit: Unit::Mebibytes,
        layout: Layout::Bars("timers/memory/"),
        bars: &TIMERS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "echo-throughput",
        subject: "echo, 1 KiB round trips: throughput",
        per: "",
        higher_is_better: true,
        unit: Unit::MebibytesPerSecond,
        layout: Layout::Clusters {
            group: "echo",
            metric: "throughput",
        },
        bars: &ECHO,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "echo-p99",
        subject: "echo, 1 KiB round trips: p99 latency",
        per: "",
        higher_is_better: false,
        unit: Unit::Microseconds,
        layout: Layout::Clusters {
            group: "echo",
            metric: "p99",
        },
        bars: &ECHO,
        colours: Colours::BookAndLibrary,
    },
];

/// A line of a chart.
#[derive(Debug, PartialEq)]
enum Row {
    /// A cluster's heading.
    Heading(String),
    Bar {
        label: String,
        value: f64,
    },
}

impl Chart {
    /// The chart's SVG, or `None` if the results have none of its
    /// measures. A missing implementation is simply not drawn (a complete
    /// run has them all: [`check_complete`]).
    pub fn render(&self, results: &Results) -> Result<Option<String>> {
        let rows = self.rows(results)?;
        if rows.is_empty() {
            return Ok(None);
        }
        Ok(Some(svg(self, &rows)))
    }

    fn rows(&self, results: &Results) -> Result<Vec<Row>> {
        let mut found: Vec<(u64, &str, &Measure)> = Vec::new();
        for measure in &results.measure {
            let cluster = match &self.layout {
                Layout::Bars(prefix) => measure
                    .id
                    .strip_prefix(prefix)
                    .filter(|rest| !rest.contains('/'))
                    .map(|rest| (0, rest)),
                Layout::Clusters { group, metric } => {
                    let mut parts = measure.id.splitn(3, '/');
                    match (parts.next(), parts.next(), parts.next()) {
                        (Some(g), Some(case), Some(implementation))
                            if g == *group && !implementation.contains('/') =>
                        {
                            case.strip_prefix(metric)
                                .and_then(|c| c.strip_prefix('-'))
                                .and_then(|c| c.parse::<u64>().ok())
                                .map(|c| (c, implementation))
                        }
                        _ => None,
                    }
                }
            };
            let Some((cluster, implementation)) = cluster else {
                continue;
            };
            if measure.unit != self.unit {
                return Err(format!(
                    "chart {}: `{}` is in {}, the chart in {}",
                    self.name,
                    measure.id,
                    measure.unit.symbol(),
                    self.unit.symbol()
                )
                .into());
            }
            found.push((cluster, implementation, measure));
        }
        found.sort_by_key(|&(cluster, implementation, _)| {
            let rank = self
                .bars
                .iter()
                .position(|i| *i == implementation)
                .unwrap_or(self.bars.len());
            (cluster, rank, implementation)
        });
        let mut rows = Vec::new();
        let mut last_cluster = None;
        for (cluster, implementation, measure) in found {
            if matches!(self.layout, Layout::Clusters { .. }) && last_cluster != Some(cluster) {
                let plural = if cluster == 1 { "" } else { "s" };
                rows.push(Row::Heading(format!("{cluster} connection{plural}")));
                last_cluster = Some(cluster);
            }
            rows.push(Row::Bar {
                label: implementation.to_string(),
                value: measure.value,
            });
        }
        Ok(rows)
    }

    /// The title: on a linear axis it names the unit the axis is in; on a
    /// log axis every tick says its own.
    fn title(&self, axis: &Axis) -> String {
        let better = if self.higher_is_better {
            "higher is better"
        } else {
            "lower is better"
        };
        let unit = match axis {
            Axis::Linear { symbol, .. } => *symbol,
            Axis::Log { .. } => "",
        };
        let what = [unit, self.per]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if what.is_empty() {
            format!("{} ({better})", self.subject)
        } else {
            format!("{} ({what}, {better})", self.subject)
        }
    }
}

/// Every chart the results can draw: `(name, SVG)`, in [`CHARTS`] order.
pub fn render_charts(results: &Results) -> Result<Vec<(&'static str, String)>> {
    let mut out = Vec::new();
    for chart in &CHARTS {
        if let Some(svg) = chart.render(results)? {
            out.push((chart.name, svg));
        }
    }
    Ok(out)
}

// The drawing, in SVG user units (pixels at 100%).
const WIDTH: f64 = 720.0;
const MARGIN: f64 = 16.0;
/// Implementation labels end here (right-aligned)…
const LABEL_END: f64 = 172.0;
/// …and the value axis runs from here (0) to `PLOT_END`, leaving room for
/// the value written after the longest bar.
const PLOT_START: f64 = 180.0;
const PLOT_END: f64 = 610.0;
/// The first row starts below the title and the legend, or below the
/// title alone.
const TOP: f64 = 64.0;
const TOP_WITHOUT_LEGEND: f64 = 44.0;
const ROW: f64 = 24.0;
const BAR: f64 = 16.0;
const HEADING: f64 = 24.0;
/// Above this ratio of the largest bar to the smallest, the axis is
/// logarithmic: on a linear one the small bars would be slivers.
pub const LOG_SCALE_RATIO: f64 = 20.0;
/// Okabe–Ito vermilion and blue: told apart with every common colour
/// vision deficiency, and dark enough against white.
const BOOK_COLOUR: &str = "#d55e00";
const LIBRARY_COLOUR: &str = "#0072b2";
/// A grey for bars that are neither the book's nor a library's.
const NEUTRAL_COLOUR: &str = "#6e7781";
const TEXT: &str = "#1f2328";
const MUTED: &str = "#57606a";
const GRID: &str = "#d8dee4";
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', Arial, sans-serif";

/// A coordinate with at most one decimal, without a trailing `.0`, so the
/// same chart is always the same text.
fn coordinate(x: f64) -> String {
    let text = format!("{x:.1}");
    match text.strip_suffix(".0") {
        Some(whole) => whole.to_string(),
        None => text,
    }
}

/// The grid's step and how many steps reach past `max`: 1, 2 or 5 times
/// a power of ten, at most five steps.
fn scale(max: f64) -> (f64, u32) {
    if max.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return (1.0, 1);
    }
    let rough = max / 5.0;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|step| *step >= rough * (1.0 - 1e-9))
        .unwrap_or(10.0 * power);
    let steps = ((max / step) - 1e-9).ceil().max(1.0) as u32;
    (step, steps)
}

/// A grid value with as many decimals as its step needs.
fn tick(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    format!("{value:.decimals$}")
}

/// A chart's value axis.
#[derive(Debug, PartialEq)]
enum Axis {
    /// From 0 to `step × steps` in the display unit `symbol`, which is the
    /// measured unit divided by `divisor`.
    Linear {
        divisor: f64,
        symbol: &'static str,
        step: f64,
        steps: u32,
    },
    /// From 10^`low` to 10^`high` of the measured unit, a tick at each
    /// power of ten.
    Log { low: i32, high: i32 },
}

impl Axis {
    /// Linear, in the unit the largest value reads best in, unless the
    /// largest value is more than [`LOG_SCALE_RATIO`] times the smallest
    /// (a value of 0 counts as the smallest of all): then log10, from the
    /// power of ten below the smallest positive value to the one at or
    /// above the largest.
    fn of(values: &[f64], unit: Unit) -> Axis {
        let max = values.iter().copied().fold(0.0, f64::max);
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let min_positive = values
            .iter()
            .copied()
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        if max > 0.0 && max > LOG_SCALE_RATIO * min && min_positive.is_finite() {
            // The nudges keep an exact power of ten from becoming the
            // next one through rounding.
            let low = ((min_positive.log10() - 1e-9).ceil() - 1.0) as i32;
            let high = ((max.log10() - 1e-9).ceil() as i32).max(low + 1);
            return Axis::Log { low, high };
        }
        let (divisor, symbol) = display_unit(max, unit);
        let (step, steps) = scale(max / divisor);
        Axis::Linear {
            divisor,
            symbol,
            step,
            steps,
        }
    }

    /// Where a value is drawn.
    fn x(&self, value: f64) -> f64 {
        let fraction = match *self {
            Axis::Linear {
                divisor,
                step,
                steps,
                ..
            } => value / divisor / (step * f64::from(steps)),
            Axis::Log { .. } if value <= 0.0 => 0.0,
            Axis::Log { low, high } => {
                ((value.log10() - f64::from(low)) / f64::from(high - low)).max(0.0)
            }
        };
        PLOT_START + (PLOT_END - PLOT_START) * fraction
    }

    /// The grid lines: where, and the value written under each (on a log
    /// axis with its unit, which changes along it: `100 ns`, `1 µs`).
    fn ticks(&self, unit: Unit) -> Vec<(f64, String)> {
        match *self {
            Axis::Linear {
                divisor,
                step,
                steps,
                ..
            } => (0..=steps)
                .map(|i| {
                    let value = step * f64::from(i);
                    (self.x(value * divisor), tick(value, step))
                })
                .collect(),
            Axis::Log { low, high } => (low..=high)
                .map(|power| {
                    let value = 10f64.powi(power);
                    let (divisor, symbol) = display_unit(value, unit);
                    let number = significant(value / divisor, 3);
                    let number = if number.contains('.') {
                        number.trim_end_matches('0').trim_end_matches('.')
                    } else {
                        &number
                    };
                    (self.x(value), format!("{number} {symbol}"))
                })
                .collect(),
        }
    }
}

/// A horizontal bar chart: title, legend (the book's code, the
/// libraries) unless the bars are neutral, a light grid with its values
/// under it, the axis at its start, one bar per row with its label on its
/// left and the value with its unit at its end; "log scale" under a log
/// axis.
fn svg(chart: &Chart, rows: &[Row]) -> String {
    let values: Vec<f64> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Bar { value, .. } => Some(*value),
            Row::Heading(_) => None,
        })
        .collect();
    let axis = Axis::of(&values, chart.unit);
    let legend = chart.colours == Colours::BookAndLibrary;
    let top = if legend { TOP } else { TOP_WITHOUT_LEGEND };

    let mut body = String::new();
    let mut y = top;
    for row in rows {
        match row {
            Row::Heading(text) => {
                writeln!(
                    body,
                    r#"<text x="{}" y="{}" font-weight="bold">{}</text>"#,
                    coordinate(MARGIN),
                    coordinate(y + 16.0),
                    escape_html(text)
                )
                .unwrap();
                y += HEADING;
            }
            Row::Bar { label, value } => {
                let colour = match chart.colours {
                    Colours::Neutral => NEUTRAL_COLOUR,
                    Colours::BookAndLibrary if label.starts_with("book-") => BOOK_COLOUR,
                    Colours::BookAndLibrary => LIBRARY_COLOUR,
                };
                let bar_y = y + (ROW - BAR) / 2.0;
                let baseline = coordinate(bar_y + 12.5);
                // A bar too short to see is still drawn, one unit wide.
                let end = axis.x(*value).max(PLOT_START + 1.0);
                writeln!(
                    body,
                    r#"<text x="{}" y="{baseline}" text-anchor="end">{}</text>"#,
                    coordinate(LABEL_END),
                    escape_html(label)
                )
                .unwrap();
                writeln!(
                    body,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{colour}"/>"#,
                    coordinate(PLOT_START),
                    coordinate(bar_y),
                    coordinate(end - PLOT_START),
                    coordinate(BAR)
                )
                .unwrap();
                writeln!(
                    body,
                    r#"<text x="{}" y="{baseline}">{}</text>"#,
                    coordinate(end + 6.0),
                    escape_html(&format_value(*value, chart.unit))
                )
                .unwrap();
                y += ROW;
            }
        }
    }
    let plot_bottom = y + 4.0;
    let mut height = plot_bottom + 28.0;

    let mut grid = String::new();
    let mut ticks = String::new();
    for (x, label) in axis.ticks(chart.unit) {
        let x = coordinate(x);
        writeln!(
            grid,
            r#"<line x1="{x}" y1="{}" x2="{x}" y2="{}"/>"#,
            coordinate(top - 4.0),
            coordinate(plot_bottom)
        )
        .unwrap();
        writeln!(
            ticks,
            r#"<text x="{x}" y="{}">{}</text>"#,
            coordinate(plot_bottom + 16.0),
            escape_html(&label)
        )
        .unwrap();
    }
    let mut scale_note = String::new();
    if let Axis::Log { .. } = axis {
        writeln!(
            scale_note,
            r#"<text x="{}" y="{}" fill="{MUTED}" font-style="italic">log scale</text>"#,
            coordinate(PLOT_START),
            coordinate(plot_bottom + 34.0)
        )
        .unwrap();
        height += 16.0;
    }

    let mut head = String::new();
    if legend {
        let legend_y = coordinate(46.0);
        let swatch_y = coordinate(37.0);
        write!(
            head,
            r#"<rect x="{m}" y="{swatch_y}" width="10" height="10" fill="{BOOK_COLOUR}"/>
<text x="{book_text}" y="{legend_y}">book</text>
<rect x="{library}" y="{swatch_y}" width="10" height="10" fill="{LIBRARY_COLOUR}"/>
<text x="{library_text}" y="{legend_y}">library</text>
"#,
            m = coordinate(MARGIN),
            book_text = coordinate(MARGIN + 14.0),
            library = coordinate(MARGIN + 64.0),
            library_text = coordinate(MARGIN + 78.0),
        )
        .unwrap();
    }

    let (w, h) = (coordinate(WIDTH), coordinate(height));
    let title = escape_html(&chart.title(&axis));
    format!(
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT}" font-size="12" fill="{TEXT}">
<title>{title}</title>
<rect width="{w}" height="{h}" fill="#ffffff"/>
<text x="{m}" y="24" font-size="15" font-weight="bold">{title}</text>
{head}<g stroke="{GRID}" stroke-width="1">
{grid}</g>
<g fill="{MUTED}" text-anchor="middle">
{ticks}</g>
{scale_note}{body}<line x1="{axis_x}" y1="{axis_top}" x2="{axis_x}" y2="{bottom}" stroke="{TEXT}" stroke-width="1"/>
</svg>
"##,
        m = coordinate(MARGIN),
        axis_x = coordinate(PLOT_START),
        axis_top = coordinate(top - 4.0),
        bottom = coordinate(plot_bottom),
    )
}

// ---------------------------------------------------------------------------
// Writing the report

/// Writes the run's files into [`RAW_DIR`] (replacing the last run's),
/// [`RESULTS`] and the charts under the repository `root`, and removes
/// any other `.svg` of the charts' folder (a chart whose measures are
/// gone). Returns what it wrote, one line per file or folder.
pub fn write_report(root: &Path, bundle: &Bundle, results: &Results) -> Result<Vec<String>> {
    let mut written = Vec::new();
    let files = bundle.write(&root.join(RAW_DIR))?;
    written.push(format!("{RAW_DIR}/: {files} files"));
    let results_file = root.join(RESULTS);
    std::fs::create_dir_all(results_file.parent().expect("a folder"))?;
    std::fs::write(&results_file, results.to_toml())?;
    written.push(format!("{RESULTS}: {} measures", results.measure.len()));
    // What is written is what a reader of the file draws: render from the
    // file's text, not from the values in memory.
    let reread = Results::parse(&results.to_toml())?;
    let dir = root.join(CHART_DIR);
    std::fs::create_dir_all(&dir)?;
    let charts = render_charts(&reread)?;
    let names: BTreeSet<String> = charts.iter().map(|(n, _)| format!("{n}.svg")).collect();
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.ends_with(".svg") && !names.contains(name.as_ref()) {
            std::fs::remove_file(&path)?;
            written.push(format!("{CHART_DIR}/{name}: removed (no measures)"));
        }
    }
    for (name, svg) in charts {
        std::fs::write(dir.join(format!("{name}.svg")), svg)?;
        written.push(format!("{CHART_DIR}/{name}.svg"));
    }
    for chart in &CHARTS {
        if !names.contains(&format!("{}.svg", chart.name)) {
            written.push(format!(
                "{CHART_DIR}/{}.svg: not drawn, no measures",
                chart.name
            ));
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fresh folder for one test, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir()
                .join(format!("mdbook-asyncbook-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        fn write(&self, path: &str, text: &str) {
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

    fn measure(id: &str, value: f64, unit: Unit) -> Measure {
        Measure {
            id: id.into(),
            value,
            unit,
        }
    }

    fn machine() -> Machine {
        Machine {
            cpu: "Example CPU @ 2.20GHz".into(),
            cores: 2,
            memory_gib: 7.8,
            kernel: "6.1.0-test".into(),
            rustc: "rustc 1.95.0 (59807616e 2026-04-14)".into(),
            date: "2026-05-01".into(),
            load_start: Some(0.12),
            load_end: Some(1.5),
            command: MEASURE_COMMAND.into(),
        }
    }

    /// A plausible run: some groups, a missing implementation or two.
    fn results() -> Results {
        use Unit::*;
        Results::new(
            machine(),
            vec![
                measure("block_on/once/book-ch06", 61.27, Nanoseconds),
                measure("block_on/once/book-ch10", 12.5, Nanoseconds),
                measure("block_on/once/pollster", 18.0, Nanoseconds),
                measure("block_on/once/futures", 25.0, Nanoseconds),
                measure("spawn/100000/tokio", 85.0, Nanoseconds),
                measure("spawn/100000/book-ch03", 410.0, Nanoseconds),
                measure("timers/early/book-ch07", 0.0, Count),
                measure("timers/p99/book-ch02", 2450.0, Microseconds),
                measure("timers/p99/tokio", 1100.0, Microseconds),
                measure("timers/param/count", 10000.0, Count),
                measure("echo/throughput-1/book-ch09", 95.5, MebibytesPerSecond),
                measure("echo/throughput-1/tokio", 120.0, MebibytesPerSecond),
                measure("echo/throughput-100/book-ch09", 1234.0, MebibytesPerSecond),
                measure("echo/throughput-100/async-io", 1100.0, MebibytesPerSecond),
                measure("echo/p99-100/tokio", 310.0, Microseconds),
            ],
        )
        .unwrap()
    }

    fn criterion(
        dir: &TempDir,
        folder: &str,
        group: &str,
        implementation: &str,
        case: &str,
        throughput: &str,
        median: f64,
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
                r#"{{"mean":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},"point_estimate":999.0,"standard_error":1.0}},"median":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},"point_estimate":{median},"standard_error":1.0}}}}"#
            ),
        );
    }

    const MACHINE_JSON: &str = r#"{"cpu": "Example CPU", "cores": 2, "memory_gib": 7.8, "kernel": "6.1.0-test", "rustc": "rustc 1.95.0", "date": "2026-05-01", "load_start": 0.12, "load_end": 1.6, "command": "cargo bench -p benchmarks"}"#;

    /// The timers' JSON of a healthy full run of these implementations.
    fn timers_json(implementations: &[&str]) -> String {
        let results: Vec<String> = implementations
            .iter()
            .map(|name| {
                format!(
                    r#"{{"impl": "{name}", "wall_ms": 104.5, "overhead_ms": 4.5, "lateness_us": {{"p50": 250.0, "p99": 1500.0, "max": 2100.0}}, "early": 0, "peak_rss_mib": 5.4}}"#
                )
            })
            .collect();
        format!(
            r#"{{"quick": false, "problems": [], "count": 10000, "duration_ms": 100, "runs": 5, "results": [{}]}}"#,
            results.join(", ")
        )
    }

    /// The echo group's JSON of a healthy full run.
    fn echo_json(implementations: &[&str], connections: &[u64]) -> String {
        let mut results = Vec::new();
        for name in implementations {
            for c in connections {
                results.push(format!(
                    r#"{{"impl": "{name}", "connections": {c}, "round_trips": 50000, "throughput_mib_s": 24.4, "p50_us": 38.0, "p99_us": 61.0}}"#
                ));
            }
        }
        format!(
            r#"{{"quick": false, "problems": [], "message_bytes": 1024, "seconds": 2, "runs": 3, "connections": [1, 100, 1000], "results": [{}]}}"#,
            results.join(", ")
        )
    }

    /// A target directory as a complete, healthy run leaves it.
    fn complete_run(dir: &TempDir) {
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
                    1000.0,
                );
            }
        }
        dir.write("bench-raw/timers.json", &timers_json(&TIMERS));
        dir.write("bench-raw/echo.json", &echo_json(&ECHO, &ECHO_CONNECTIONS));
        dir.write("bench-raw/machine.json", MACHINE_JSON);
    }

    fn collect_target(dir: &TempDir) -> Collected {
        collect(&Bundle::from_target(&dir.0).unwrap()).unwrap()
    }

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
            18.25,
        );
        criterion(
            &dir,
            "criterion/spawn/tokio/100000/new",
            "spawn",
            "tokio",
            "100000",
            r#"{"Elements":100000}"#,
            8.5e6,
        );
        // The saved baseline is an older run: only new/ counts.
        criterion(
            &dir,
            "criterion/spawn/tokio/100000/base",
            "spawn",
            "tokio",
            "100000",
            r#"{"Elements":100000}"#,
            1.0,
        );
        dir.write("criterion/report/index.html", "<html></html>");
        dir.write(
            "bench-raw/timers.json",
            r#"{"quick": false, "problems": [], "count": 10000, "duration_ms": 100, "runs": 5, "rss_method": "clear_refs", "results": [
                {"impl": "book-ch07", "wall_ms": 104.5, "overhead_ms": 4.5,
                 "lateness_us": {"p50": 250.0, "p99": 1500.0, "max": 2100.0}, "early": 0, "peak_rss_mib": 5.4},
                {"impl": "book-ch02", "error": "could not spawn a thread"}]}"#,
        );
        dir.write(
            "bench-raw/echo.json",
            r#"{"quick": false, "problems": [], "message_bytes": 1024, "seconds": 2.0, "runs": 3, "connections": [1, 100], "results": [
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
            "echo/throughput-1000: no book-ch09, book-ch10, tokio, async-io",
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
        assert_eq!(collected.measures.len(), expected_count + PARAMETERS.len());
        // Every chart is drawn, with every bar it expects.
        let results = Results::new(machine, collected.measures).unwrap();
        assert_eq!(render_charts(&results).unwrap().len(), CHARTS.len());
    }

    #[test]
    fn a_quick_or_unhealthy_run_is_refused() {
        let dir = TempDir::new("unhealthy");
        complete_run(&dir);
        dir.write(
            "bench-raw/timers.json",
            &timers_json(&TIMERS).replace(r#""quick": false"#, r#""quick": true"#),
        );
        dir.write(
            "bench-raw/echo.json",
            &echo_json(&ECHO, &ECHO_CONNECTIONS).replace(
                r#""problems": []"#,
                r#""problems": ["tokio at 1000: LEAK of 3 fds", "async-io at 100: 2 connections failed"]"#,
            ),
        );
        let collected = collect_target(&dir);
        assert_eq!(
            collected.problems,
            [
                "timers.json: a quick run (`-- --test` or BENCH_QUICK=1), with a quick run's sizes",
                "echo.json: tokio at 1000: LEAK of 3 fds",
                "echo.json: async-io at 100: 2 connections failed",
            ]
        );
        // Files without the two fields are from before them: refused too.
        dir.write(
            "bench-raw/timers.json",
            &timers_json(&TIMERS)
                .replace(r#""quick": false, "problems": [], "count": 10000, "#, ""),
        );
        dir.write("bench-raw/echo.json", &echo_json(&ECHO, &ECHO_CONNECTIONS));
        let collected = collect_target(&dir);
        assert_eq!(
            collected.problems,
            [
                "timers.json: no `quick` field",
                "timers.json: no `problems` field",
                "timers.json: no `count`",
                "no parameter `timers/param/count`",
            ]
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
        // The load after the run is the run's own: no warning.
        let mut quiet = machine();
        quiet.load_end = Some(2.0);
        assert_eq!(quiet.busy(), None);
        assert_eq!(parse_load("0.52 0.58 0.59 1/512 4242\n").unwrap(), 0.52);
        assert!(parse_load("nan").is_err());
    }

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

    #[test]
    fn missing_files_are_problems_and_bad_ones_errors() {
        let dir = TempDir::new("missing");
        let collected = collect_target(&dir);
        assert!(collected.measures.is_empty());
        for file in ["no criterion results", "no timers.json", "no echo.json"] {
            assert!(collected.problems.iter().any(|p| p == file), "{file}");
        }
        dir.write("bench-raw/echo.json", r#"{"results": [{"impl": "tokio"}]}"#);
        let error = collect(&Bundle::from_target(&dir.0).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("echo.json") && error.contains("connections"),
            "{error}"
        );
        criterion(
            &dir,
            "criterion/g/x/1/new",
            "g",
            "x",
            "1",
            r#"{"Bytes":10}"#,
            1.0,
        );
        let error = collect(&Bundle::from_target(&dir.0).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("criterion/g/x/1") && error.contains("unsupported throughput"),
            "{error}"
        );
    }

    #[test]
    fn the_bundle_keeps_only_the_runs_inputs_and_reads_back() {
        let dir = TempDir::new("bundle");
        complete_run(&dir);
        criterion(
            &dir,
            "criterion/spawn/tokio/100000/base",
            "spawn",
            "tokio",
            "100000",
            r#"{"Elements":100000}"#,
            1.0,
        );
        dir.write("criterion/spawn/tokio/100000/new/sample.json", "{}");
        dir.write("criterion/report/index.html", "<html></html>");
        dir.write("bench-raw/quick/timers.json", "{}");
        let bundle = Bundle::from_target(&dir.0).unwrap();
        assert!(bundle.criterion.contains_key("spawn/tokio/100000"));
        assert!(bundle.criterion.contains_key("parts/epoll-ctl-mod/op"));
        let out = dir.0.join("copy");
        std::fs::create_dir_all(out.join("stale")).unwrap();
        let files = bundle.write(&out).unwrap();
        let criterion_count: usize = expected()
            .iter()
            .filter(|(p, _)| !p.starts_with("timers/") && !p.starts_with("echo/"))
            .map(|(_, names)| names.len())
            .sum();
        assert_eq!(files, 2 * criterion_count + 3);
        assert!(!out.join("stale").exists());
        assert!(
            out.join("criterion/spawn/tokio/100000/estimates.json")
                .is_file()
        );
        assert!(
            !out.join("criterion/spawn/tokio/100000/sample.json")
                .exists()
        );
        assert!(!out.join("quick").exists());
        let read = Bundle::read(&out).unwrap();
        assert_eq!(read, bundle);
        assert_eq!(
            collect(&read).unwrap().measures,
            collect(&bundle).unwrap().measures
        );
        assert!(Bundle::read(&dir.0.join("nowhere")).is_err());
    }

    #[test]
    fn values_show_three_significant_digits_in_the_unit_they_read_best_in() {
        use Unit::*;
        for (value, unit, shown) in [
            (12.345, Nanoseconds, "12.3 ns"),
            (1.5249, Milliseconds, "1.52 ms"),
            (250.0, Microseconds, "250 µs"),
            (5.4, Mebibytes, "5.40 MiB"),
            (1234.5, MebibytesPerSecond, "1230 MiB/s"),
            (59_800.0, Nanoseconds, "59.8 µs"),
            (123_456.0, Nanoseconds, "123 µs"),
            (1_161_400.0, Microseconds, "1.16 s"),
            (2450.0, Microseconds, "2.45 ms"),
            (12_345_678.0, Milliseconds, "12300 s"),
            (0.012_34, Milliseconds, "0.0123 ms"),
            (9.996, Nanoseconds, "10.0 ns"),
            (999.4, Microseconds, "999 µs"),
            // Rounded to 1000, it steps up.
            (999.6, Microseconds, "1.00 ms"),
            (0.0, Milliseconds, "0 ms"),
            (3.0, Count, "3"),
            (10_000.0, Count, "10000"),
            (0.5, Count, "0.500"),
        ] {
            assert_eq!(format_value(value, unit), shown, "{value}");
        }
    }

    #[test]
    fn ratios_show_two_decimals_below_ten_and_one_above() {
        let ns = |id: &str, value| measure(id, value, Unit::Nanoseconds);
        let ratio = |a, b| format_ratio(&ns("a", a), &ns("b", b)).unwrap();
        assert_eq!(ratio(10.0, 12.0), "0.83×");
        assert_eq!(ratio(14.5, 10.0), "1.45×");
        assert_eq!(ratio(125.0, 10.0), "12.5×");
        assert_eq!(ratio(9.996, 1.0), "10.0×");
        assert_eq!(ratio(1234.0, 1.0), "1234.0×");
        let error = format_ratio(&ns("a", 1.0), &measure("b", 1.0, Unit::Milliseconds));
        assert!(error.unwrap_err().contains("one unit"));
        assert!(format_ratio(&ns("a", 1.0), &ns("b", 0.0)).is_err());
    }

    #[test]
    fn directives_show_values_ratios_and_the_machine() {
        let results = results();
        let show = |text: &str| expand(text, Some(&results));
        assert_eq!(
            show(
                "It takes {{#bench block_on/once/book-ch10}}, {{#bench ratio block_on/once/book-ch06 block_on/once/book-ch10}} less.\n"
            ),
            Ok("It takes 12.5 ns, 4.90× less.\n".into())
        );
        assert_eq!(
            show("| impl | ns |\n| --- | --- |\n| tokio | {{#bench spawn/100000/tokio}} |\n"),
            Ok("| impl | ns |\n| --- | --- |\n| tokio | 85.0 ns |\n".into())
        );
        assert_eq!(
            show(
                "{{#bench machine.cpu}}, {{#bench machine.cores}} cores, {{#bench machine.memory}}, {{#bench machine.date}}, `{{#bench machine.command}}`"
            ),
            Ok(
                "Example CPU @ 2.20GHz, 2 cores, 7.8 GiB, 2026-05-01, `cargo bench -p benchmarks`"
                    .into()
            )
        );
        assert_eq!(
            show("load {{#bench machine.load_start}}, then {{#bench machine.load_end}}"),
            Ok("load 0.12, then 1.50".into())
        );
        // In the unit it reads best in; a count and a parameter alone.
        assert_eq!(
            show("{{#bench timers/p99/book-ch02}}"),
            Ok("2.45 ms".into())
        );
        assert_eq!(show("{{#bench timers/early/book-ch07}}"), Ok("0".into()));
        assert_eq!(show("{{#bench timers/param/count}}"), Ok("10000".into()));
        // Escaped, the directive is left for mdBook, which shows it as written.
        let escaped = "Write \\{{#bench ID}} in a chapter.";
        assert_eq!(show(escaped), Ok(escaped.into()));
    }

    #[test]
    fn an_unknown_id_is_an_error_naming_it_where_it_is_written() {
        let results = results();
        let text = "Line one.\nIt takes {{#bench spawn/100000/nope}}.\n";
        let (offset, message) = expand(text, Some(&results)).unwrap_err();
        assert_eq!(offset, text.find("{{#bench").unwrap());
        assert_eq!(
            message,
            format!("no measure `spawn/100000/nope` in {RESULTS}")
        );
        let (_, message) =
            expand("{{#bench ratio spawn/100000/tokio x/y/z}}", Some(&results)).unwrap_err();
        assert!(message.contains("`x/y/z`"), "{message}");
        let (_, message) = expand("{{#bench machine.gpu}}", Some(&results)).unwrap_err();
        assert!(
            message.contains("machine.gpu") && message.contains("load_start"),
            "{message}"
        );
        // A run collected without machine.json has no load to show.
        let mut no_load = results.clone();
        no_load.machine.load_end = None;
        let (_, message) = expand("{{#bench machine.load_end}}", Some(&no_load)).unwrap_err();
        assert!(message.contains("machine.json"), "{message}");
        // Before the first report, every directive is an error naming itself.
        let (_, message) = expand(text, None).unwrap_err();
        assert!(message.contains("spawn/100000/nope") && message.contains(REPORT_COMMAND));
    }

    #[test]
    fn directives_stay_out_of_code_blocks_and_on_one_line() {
        let results = results();
        let block = "Text.\n\n```text\n{{#bench spawn/100000/tokio}}\n```\n";
        let (offset, message) = expand(block, Some(&results)).unwrap_err();
        assert_eq!(offset, block.find("{{").unwrap());
        assert!(message.contains("code block"), "{message}");
        let (_, message) = expand("a {{#bench\nspawn/100000/tokio}}", Some(&results)).unwrap_err();
        assert!(message.contains("one line"), "{message}");
        // A text without the directive is not even parsed.
        let plain = "```text\n{{#include x.txt}}\n```\n";
        assert_eq!(expand(plain, None), Ok(plain.into()));
    }

    #[test]
    fn the_results_file_is_sorted_commented_and_reads_back() {
        let results = results();
        let text = results.to_toml();
        assert!(text.starts_with(
            "# Chapter 10's measurements. Generated by `tools/bench-report/run --measure`"
        ));
        assert!(text.contains("Do not edit"));
        assert!(text.contains(RAW_DIR));
        assert!(text.contains(
            "\n[machine]\ncpu = \"Example CPU @ 2.20GHz\"\ncores = 2\nmemory_gib = 7.8\n"
        ));
        assert!(text.contains(
            "date = \"2026-05-01\"\nload_start = 0.12\nload_end = 1.5\ncommand = \"cargo bench -p benchmarks\"\n"
        ));
        assert!(text.contains(
            "\n[[measure]]\nid = \"block_on/once/book-ch06\"\nvalue = 61.27\nunit = \"ns\"\n"
        ));
        assert!(text.contains(
            "id = \"echo/throughput-100/book-ch09\"\nvalue = 1234.0\nunit = \"MiB/s\"\n"
        ));
        assert!(text.contains("value = 0.0\nunit = \"count\"\n"));
        let ids: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("id = "))
            .collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
        assert_eq!(Results::parse(&text).unwrap(), results);
        // Without a load (collected with --allow-partial), no load lines.
        let mut no_load = results.clone();
        no_load.machine.load_start = None;
        no_load.machine.load_end = None;
        let text = no_load.to_toml();
        assert!(text.contains("date = \"2026-05-01\"\ncommand = "), "{text}");
        assert_eq!(Results::parse(&text).unwrap(), no_load);
        // Five significant digits are kept.
        let long = Results::new(
            machine(),
            vec![measure("a/b/c", 123.456_789, Unit::Nanoseconds)],
        )
        .unwrap();
        assert!(long.to_toml().contains("value = 123.46\n"));
        assert_eq!(long.measure[0].value, 123.46);
        assert_eq!(Results::parse(&long.to_toml()).unwrap(), long);
        // One id, one value.
        let twice = vec![
            measure("a/b/c", 1.0, Unit::Nanoseconds),
            measure("a/b/c", 2.0, Unit::Nanoseconds),
        ];
        assert!(
            Results::new(machine(), twice)
                .unwrap_err()
                .to_string()
                .contains("twice")
        );
        assert!(toml_string("a \"b\" \\ \n").eq("\"a \\\"b\\\" \\\\ \\u000A\""));
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
    fn numbers_typed_with_a_unit_are_found_outside_directives() {
        let text = "It takes 59.8 µs, or 1,234 ns; 2.5×, 3 倍, 12ミリ秒, 7 毫秒, 0.3 秒 and 9 MiB/s.\n\
                    Fixed: 100 ms, 100ミリ秒, 1 KiB, 2 秒, 1.0倍, 0.8×, 500 毫秒.\n\
                    Not units: 10,000 samples, 3 steps, p99 ms, ch10 s, 2 コア, 30%, v1.2 ms.\n\
                    Directives: {{#bench spawn/100000/tokio}} ms, {{#bench ratio a/1 b/2}}×.\n";
        let found: Vec<String> = typed_numbers(text).into_iter().map(|(_, w)| w).collect();
        assert_eq!(
            found,
            [
                "59.8 µs",
                "1,234 ns",
                "2.5×",
                "3 倍",
                "12ミリ秒",
                "7 毫秒",
                "0.3 秒",
                "9 MiB/s"
            ]
        );
        let (offset, written) = &typed_numbers(text)[0];
        assert_eq!(&text[*offset..*offset + written.len()], "59.8 µs");
        // Fixed numbers are normalised before they are looked up.
        assert_eq!(typed_numbers("0.5 秒, 0.5s, 16KiB"), []);
    }

    /// The well-formedness an SVG 1.1 reader needs: one root, every
    /// element closed in order, attributes quoted, no stray `&` or `<`.
    fn assert_well_formed(svg: &str) {
        let body = svg
            .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .expect("an XML declaration");
        let mut open: Vec<&str> = Vec::new();
        let mut roots = 0;
        let mut rest = body;
        while let Some(start) = rest.find('<') {
            let text = &rest[..start];
            assert!(!text.contains('>'), "stray > in {text:?}");
            for (i, _) in text.match_indices('&') {
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;"]
                        .iter()
                        .any(|e| text[i..].starts_with(e)),
                    "stray & in {text:?}"
                );
            }
            let end = start + rest[start..].find('>').expect("a closed tag");
            let tag = &rest[start + 1..end];
            assert!(!tag.contains('<'), "< inside {tag:?}");
            assert_eq!(
                tag.matches('"').count() % 2,
                0,
                "unbalanced quotes in {tag:?}"
            );
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop(), Some(name), "closing {name}");
            } else {
                let name = tag.split([' ', '/']).next().unwrap();
                if open.is_empty() {
                    roots += 1;
                }
                if !tag.ends_with('/') {
                    open.push(name);
                }
            }
            rest = &rest[end + 1..];
        }
        assert!(open.is_empty(), "unclosed {open:?}");
        assert_eq!(roots, 1);
        assert!(rest.trim().is_empty());
    }

    /// The texts of a chart's labels, value labels and ticks.
    fn texts(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.starts_with("<text"))
            .map(|l| l.rsplit_once("\">").unwrap().1.trim_end_matches("</text>"))
            .collect()
    }

    /// The bar labels (right-aligned) of a chart, in order.
    fn labels(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.contains(r#"text-anchor="end""#))
            .map(|l| l.rsplit_once("\">").unwrap().1.trim_end_matches("</text>"))
            .collect()
    }

    /// The bars' fills, in order.
    fn fills(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.starts_with("<rect x=\"180\""))
            .map(|l| l.split("fill=\"").nth(1).unwrap().trim_end_matches("\"/>"))
            .collect()
    }

    fn chart(name: &str) -> &'static Chart {
        CHARTS.iter().find(|c| c.name == name).unwrap()
    }

    #[test]
    fn a_chart_draws_the_implementations_it_has_in_the_books_order() {
        let chart = chart("block_on-once");
        let svg = chart.render(&results()).unwrap().unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains(r#"viewBox="0 0 720 "#), "{svg}");
        assert!(
            svg.contains(
                "<title>block_on, future woken once (ns per call, lower is better)</title>"
            )
        );
        // book-ch10-parker, futures-lite: not measured, not drawn.
        assert_eq!(
            labels(&svg),
            ["book-ch06", "book-ch10", "pollster", "futures"]
        );
        for value in ["61.3 ns", "12.5 ns", "18.0 ns", "25.0 ns"] {
            assert!(svg.contains(&format!(">{value}</text>")), "{value}");
        }
        assert_eq!(
            fills(&svg),
            [BOOK_COLOUR, BOOK_COLOUR, LIBRARY_COLOUR, LIBRARY_COLOUR]
        );
        assert!(svg.contains(">book</text>") && svg.contains(">library</text>"));
        // The grid: 0 to 80 in steps of 20, past the longest bar (61.27).
        for tick in ["0", "20", "40", "60", "80"] {
            assert!(svg.contains(&format!(">{tick}</text>")), "{tick}");
        }
        assert!(!svg.contains(">100</text>"));
        assert!(!svg.contains("log scale"));
        // Four rows: the height follows the bars.
        assert!(svg.contains(r#"height="192""#), "{svg}");
        assert_eq!(
            chart.render(&results()).unwrap().unwrap(),
            svg,
            "deterministic"
        );
    }

    #[test]
    fn a_linear_axis_is_in_the_unit_its_largest_value_reads_best_in() {
        let svg = chart("timers-p99").render(&results()).unwrap().unwrap();
        assert_well_formed(&svg);
        // 2450 µs and 1100 µs: an axis in ms, 0 to 2.5 in steps of 0.5.
        assert!(
            svg.contains("<title>timers, p99 lateness (ms, lower is better)</title>"),
            "{svg}"
        );
        let texts = texts(&svg);
        for tick in ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5"] {
            assert!(texts.contains(&tick), "{tick} in {texts:?}");
        }
        for value in ["2.45 ms", "1.10 ms"] {
            assert!(texts.contains(&value), "{value} in {texts:?}");
        }
        // The longest bar ends at 2.45 of 2.5.
        let width = 0.98 * (PLOT_END - PLOT_START);
        assert!(
            svg.contains(&format!(r#"width="{}""#, coordinate(width))),
            "{svg}"
        );
    }

    #[test]
    fn bars_more_than_twenty_times_apart_are_drawn_on_a_log_scale() {
        use Unit::*;
        let spread = Results::new(
            machine(),
            vec![
                measure("block_on/thread/book-ch06", 59_800.0, Nanoseconds),
                measure("block_on/thread/book-ch10", 45_000.0, Nanoseconds),
                measure("block_on/thread/pollster", 850.0, Nanoseconds),
            ],
        )
        .unwrap();
        let svg = chart("block_on-thread").render(&spread).unwrap().unwrap();
        assert_well_formed(&svg);
        // Every tick says its unit, so the title does not.
        assert!(
            svg.contains(
                "<title>block_on, future woken by another thread (per call, lower is better)</title>"
            ),
            "{svg}"
        );
        assert!(svg.contains(">log scale</text>"));
        // From the power of ten below 850 ns to the one above 59.8 µs.
        let texts = texts(&svg);
        let ticks: Vec<&str> = texts
            .iter()
            .copied()
            .filter(|t| ["100 ns", "1 µs", "10 µs", "100 µs", "10 ns", "1 ms"].contains(t))
            .collect();
        assert_eq!(ticks, ["100 ns", "1 µs", "10 µs", "100 µs"]);
        for value in ["59.8 µs", "45.0 µs", "850 ns"] {
            assert!(texts.contains(&value), "{value} in {texts:?}");
        }
        // The axis: 10^2 to 10^5, 430 units for three decades.
        let axis = Axis::of(&[59_800.0, 45_000.0, 850.0], Nanoseconds);
        assert_eq!(axis, Axis::Log { low: 2, high: 5 });
        assert_eq!(axis.x(100.0), PLOT_START);
        assert_eq!(axis.x(100_000.0), PLOT_END);
        assert!((axis.x(1000.0) - (PLOT_START + 430.0 / 3.0)).abs() < 1e-9);
        // An exact power of ten is above the axis' start, and a 0 at it.
        assert_eq!(
            Axis::of(&[100.0, 5000.0], Nanoseconds),
            Axis::Log { low: 1, high: 4 }
        );
        assert_eq!(axis.x(0.0), PLOT_START);
        assert_eq!(
            Axis::of(&[0.0, 2.0], Mebibytes),
            Axis::Log { low: 0, high: 1 }
        );
        // Twenty times apart, or less, stays linear.
        assert!(matches!(
            Axis::of(&[1.0, 20.0], Nanoseconds),
            Axis::Linear { .. }
        ));
        // Ticks below 1 keep their decimals.
        let ticks: Vec<String> = Axis::Log { low: -2, high: 0 }
            .ticks(Mebibytes)
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        assert_eq!(ticks, ["0.01 MiB", "0.1 MiB", "1 MiB"]);
    }

    #[test]
    fn the_parts_chart_has_one_neutral_colour_and_no_legend() {
        use Unit::*;
        let parts = Results::new(
            machine(),
            vec![
                measure("parts/op/mutex", 20.0, Nanoseconds),
                measure("parts/op/condvar-notify", 30.0, Nanoseconds),
                measure("parts/op/clock", 25.0, Nanoseconds),
            ],
        )
        .unwrap();
        let svg = chart("parts").render(&parts).unwrap().unwrap();
        assert_well_formed(&svg);
        assert!(svg.contains(
            "<title>parts: one operation of each primitive (ns, lower is better)</title>"
        ));
        // In the order of PARTS, not alphabetical.
        assert_eq!(labels(&svg), ["condvar-notify", "mutex", "clock"]);
        assert_eq!(fills(&svg), [NEUTRAL_COLOUR; 3]);
        assert!(!svg.contains(">book</text>") && !svg.contains(">library</text>"));
        // Without the legend the rows start higher.
        assert!(svg.contains(r#"height="148""#), "{svg}");
    }

    #[test]
    fn a_clustered_chart_has_a_heading_per_connection_count() {
        let chart = chart("echo-throughput");
        let svg = chart.render(&results()).unwrap().unwrap();
        assert_well_formed(&svg);
        let order: Vec<&str> = svg
            .lines()
            .filter(|l| l.contains(r#"font-weight="bold">"#) || l.contains(r#"text-anchor="end""#))
            .map(|l| l.rsplit_once("\">").unwrap().1.trim_end_matches("</text>"))
            .skip(1) // the title
            .collect();
        assert_eq!(
            order,
            [
                "1 connection",
                "book-ch09",
                "tokio",
                "100 connections",
                "book-ch09",
                "async-io"
            ]
        );
        assert!(svg.contains(">1230 MiB/s</text>"));
        assert!(svg.contains("(MiB/s, higher is better)"));
    }

    #[test]
    fn only_charts_with_measures_are_drawn() {
        let drawn: Vec<&str> = render_charts(&results())
            .unwrap()
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        assert_eq!(
            drawn,
            [
                "block_on-once",
                "spawn",
                "timers-p99",
                "echo-throughput",
                "echo-p99"
            ]
        );
        let wrong = Results::new(
            machine(),
            vec![measure("spawn/100000/tokio", 1.0, Unit::Milliseconds)],
        )
        .unwrap();
        assert!(
            render_charts(&wrong)
                .unwrap_err()
                .to_string()
                .contains("chart spawn")
        );
    }

    #[test]
    fn the_scale_ends_on_a_round_step() {
        assert_eq!(scale(61.27), (20.0, 4));
        assert_eq!(scale(100.0), (20.0, 5));
        assert_eq!(scale(0.37), (0.1, 4));
        assert_eq!(scale(2450.0), (500.0, 5));
        assert_eq!(scale(0.0), (1.0, 1));
        assert_eq!(tick(0.30000000000000004, 0.1), "0.3");
        assert_eq!(tick(1500.0, 500.0), "1500");
    }

    #[test]
    fn a_report_writes_the_bundle_the_file_and_the_charts_and_removes_stale_charts() {
        let dir = TempDir::new("report");
        dir.write("src/charts/wake_many.svg", "old");
        dir.write("data/bench/raw/criterion/old/benchmark.json", "{}");
        let bundle = Bundle {
            timers: Some("{}".into()),
            ..Bundle::default()
        };
        let written = write_report(&dir.0, &bundle, &results()).unwrap();
        assert_eq!(written[0], format!("{RAW_DIR}/: 1 files"));
        assert!(!dir.0.join(RAW_DIR).join("criterion").exists());
        assert!(written.contains(&format!("{CHART_DIR}/wake_many.svg: removed (no measures)")));
        assert!(written.contains(&format!(
            "{CHART_DIR}/ping_pong.svg: not drawn, no measures"
        )));
        let text = std::fs::read_to_string(dir.0.join(RESULTS)).unwrap();
        assert_eq!(text, results().to_toml());
        let mut files: Vec<String> = std::fs::read_dir(dir.0.join(CHART_DIR))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(
            files,
            [
                "block_on-once.svg",
                "echo-p99.svg",
                "echo-throughput.svg",
                "spawn.svg",
                "timers-p99.svg"
            ]
        );
    }
}
