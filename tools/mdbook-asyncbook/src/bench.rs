//! Chapter 10's measurements on the page: the `{{#bench …}}` directive,
//! and the check that the chapter types no measured number itself.
//!
//! The numbers are `data/bench/results.toml`'s, whose schema lives in the
//! `bench-results` crate (re-exported here); `bench-report`
//! (`tools/bench-report`) writes that file from a benchmark run and draws
//! its charts. The preprocessor replaces each `{{#bench …}}` of a chapter
//! by a value of the file ([`expand`]), so every number of chapter 10
//! comes from one run, and a test checks that the chapter writes no number
//! with a unit outside the directive ([`typed_numbers`]).
//!
//! A measure's id is `<group>/<case>/<implementation>`: for criterion,
//! `block_on/once/pollster` (group, value, function); for the timers,
//! `timers/<metric>/<impl>`; for the echo server,
//! `echo/<metric>-<connections>/<impl>`; a run's parameters are
//! `timers/param/count` and the like. How a value is shown
//! (`12.3 ns`, `59.8 µs`, `1.45×`, an interval `12.1–12.7 ns`) is
//! [`bench_results::format`]'s.

use crate::directives::{BENCH, Bench, directives};
use crate::markdown::{code_ranges, escape_markdown};
use crate::{Error, Result};
/// The results file's schema and where it and the charts are: what the
/// preprocessor and the book's tests read.
pub use bench_results::{CHART_DIR, RESULTS, Results};
use bench_results::{REPORT_COMMAND, format_interval, format_ratio, format_value};

/// What separates the thousands of an interval's bounds: both editions'
/// prose writes `100,000` (as `data/bench/labels.toml`'s
/// `format.thousands` tells the charts; a book test checks they agree).
pub const THOUSANDS: &str = ",";

/// What a `{{#bench …}}` directive shows.
pub fn show(results: &Results, bench: &Bench<'_>) -> Result<String> {
    let measure = |id: &str| {
        results
            .get(id)
            .ok_or_else(|| format!("no measure `{id}` in {RESULTS}"))
    };
    match *bench {
        Bench::Value(id) => {
            let m = measure(id)?;
            Ok(format_value(m.value, m.unit))
        }
        Bench::Interval(id) => {
            let m = measure(id)?;
            let interval = m.interval().ok_or_else(|| {
                format!(
                    "`{id}` has no confidence interval in {RESULTS}: only criterion's \
                     measures have one, not the hand-measured timers and echo"
                )
            })?;
            Ok(format_interval(m.value, interval, m.unit, THOUSANDS))
        }
        Bench::Ratio(a, b) => Ok(format_ratio(measure(a)?, measure(b)?)?),
        Bench::Machine(field) => {
            let m = &results.machine;
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
                    return Err(Error::new(format!(
                        "no `machine.{field}`: the fields are cpu, cores, memory, kernel, \
                         rustc, date, load_start, load_end, command"
                    )));
                }
            })
        }
    }
}

// ---------------------------------------------------------------------------
// The directive

/// A chapter with every `{{#bench …}}` replaced by its text. In prose and
/// tables the text is escaped for Markdown; in an inline code span it goes
/// in as it is. In a code block the directive is an error: blocks show
/// code and program output, never a measurement (write `\{{#bench …}}` to
/// show the directive itself). A directive must stay on one line, so that
/// the chapter's line numbers do not move. An error is at the
/// directive's line of `text`.
pub fn expand(text: &str, results: Option<&Results>) -> Result<String> {
    let mut code: Option<Vec<(std::ops::Range<usize>, bool)>> = None;
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for directive in directives(text) {
        let Some(bench) = Bench::of(&directive) else {
            continue;
        };
        let at = directive.range.start;
        let written = &text[directive.range.clone()];
        let error = |message: &dyn std::fmt::Display| Error::at(text, at, message);
        let bench = bench.map_err(|e| error(&e))?;
        if written.contains('\n') {
            return Err(error(&format!("`{written}`: write it on one line")));
        }
        // Parsed only for a chapter that uses the directive.
        let code = code.get_or_insert_with(|| code_ranges(text));
        let in_code = code
            .iter()
            .find(|(range, _)| range.start <= at && at < range.end)
            .map(|(_, block)| *block);
        if in_code == Some(true) {
            return Err(error(&format!(
                "`{written}` in a code block: measurements go in prose and tables \
                 (write `\\{written}` to show the directive itself)"
            )));
        }
        let Some(results) = results else {
            return Err(error(&format!(
                "`{written}`: there is no {RESULTS} yet (run `{REPORT_COMMAND}`)"
            )));
        };
        let value = show(results, &bench).map_err(|e| error(&e))?;
        let value = if in_code == Some(false) {
            if value.contains('`') {
                return Err(error(&format!("`{written}` holds a backtick: not in code")));
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
/// too (`timers/param/count` and the like).
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

#[cfg(test)]
mod tests {
    use super::*;
    use bench_results::test_support::results;

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
        // An interval, in the value's unit with the value's decimals.
        assert_eq!(
            show(
                "It takes {{#bench block_on/once/book-ch10}} ({{#bench block_on/once/book-ch10 ci}}); tokio {{#bench spawn/100000/tokio ci}}.\n"
            ),
            Ok("It takes 12.5 ns (12.3–12.7 ns); tokio 80.2–91.5 ns.\n".into())
        );
        assert_eq!(
            show("| tokio | {{#bench spawn/100000/tokio}} | {{#bench spawn/100000/tokio ci}} |\n"),
            Ok("| tokio | 85.0 ns | 80.2–91.5 ns |\n".into())
        );
        assert_eq!(show("{{#bench timers/param/count}}"), Ok("10000".into()));
        // Escaped, the directive is left for mdBook, which shows it as written.
        let escaped = "Write \\{{#bench ID}} in a chapter.";
        assert_eq!(show(escaped), Ok(escaped.into()));
    }

    #[test]
    fn an_unknown_id_is_an_error_naming_it_where_it_is_written() {
        let results = results();
        let text = "Line one.\nIt takes {{#bench spawn/100000/nope}}.\n";
        assert_eq!(
            expand(text, Some(&results)),
            Err(Error::at(
                text,
                text.find("{{#bench").unwrap(),
                format!("no measure `spawn/100000/nope` in {RESULTS}")
            ))
        );
        let message = expand("{{#bench ratio spawn/100000/tokio x/y/z}}", Some(&results))
            .unwrap_err()
            .to_string();
        assert!(message.contains("`x/y/z`"), "{message}");
        // Hand-measured values have no interval to show.
        let message = expand("{{#bench timers/p99/tokio ci}}", Some(&results))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("`timers/p99/tokio` has no confidence interval"),
            "{message}"
        );
        let message = expand("{{#bench machine.gpu}}", Some(&results))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("machine.gpu") && message.contains("load_start"),
            "{message}"
        );
        // A run collected without machine.json has no load to show.
        let mut no_load = results.clone();
        no_load.machine.load_end = None;
        let message = expand("{{#bench machine.load_end}}", Some(&no_load))
            .unwrap_err()
            .to_string();
        assert!(message.contains("machine.json"), "{message}");
        // Before the first report, every directive is an error naming itself.
        let message = expand(text, None).unwrap_err().to_string();
        assert!(message.contains("spawn/100000/nope") && message.contains(REPORT_COMMAND));
    }

    #[test]
    fn directives_stay_out_of_code_blocks_and_on_one_line() {
        let results = results();
        let block = "Text.\n\n```text\n{{#bench spawn/100000/tokio}}\n```\n";
        let error = expand(block, Some(&results)).unwrap_err();
        assert_eq!(error.line(), Some(4), "{error}");
        assert!(error.message().contains("code block"), "{error}");
        let message = expand("a {{#bench\nspawn/100000/tokio}}", Some(&results))
            .unwrap_err()
            .to_string();
        assert!(message.contains("one line"), "{message}");
        // A text without the directive is not even parsed.
        let plain = "```text\n{{#include x.txt}}\n```\n";
        assert_eq!(expand(plain, None), Ok(plain.into()));
    }

    #[test]
    fn numbers_typed_with_a_unit_are_found_outside_directives() {
        let text = "It takes 59.8 µs, or 1,234 ns; 2.5×, 3 倍, 12ミリ秒, 7 毫秒, 0.3 秒 and 9 MiB/s.\n\
                    Fixed: 100 ms, 100ミリ秒, 1 KiB, 2 秒, 1.0倍, 0.8×, 500 毫秒.\n\
                    Not units: 10,000 samples, 3 steps, p99 ms, ch10 s, 2 コア, 30%, v1.2 ms.\n\
                    Directives: {{#bench spawn/100000/tokio}} ms, {{#bench ratio a/1 b/2}}×, \
                    {{#bench a/1 ci}} ns.\n\
                    A typed interval: 12.1–12.7 ns.\n";
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
                "9 MiB/s",
                "12.7 ns"
            ]
        );
        let (offset, written) = &typed_numbers(text)[0];
        assert_eq!(&text[*offset..*offset + written.len()], "59.8 µs");
        // Fixed numbers are normalised before they are looked up.
        assert_eq!(typed_numbers("0.5 秒, 0.5s, 16KiB"), []);
    }
}
