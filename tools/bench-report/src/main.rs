//! `bench-report`: turns the results a benchmark run left in the target
//! directory into `data/bench/raw/`, `data/bench/results.toml` and
//! `src/charts/<edition>/*.svg`, and records the machine around the run.
//! `tools/bench-report/run` runs it; the work is in the library.
//!
//! ```text
//! bench-report [--target-dir DIR] [--out ROOT] [--allow-partial]
//! bench-report --redraw [--out ROOT]
//! bench-report machine start|end [--load LOAD] [--target-dir DIR]
//! ```
//!
//! The first form collects. It refuses (exit 1, every reason listed) a run
//! that is quick, that the benchmarks reported problems in, that misses a
//! file or a measure, or that has a measure no chart or text expects;
//! `--allow-partial` writes the report anyway and prints the reasons as
//! warnings. `--target-dir`: where the run wrote `criterion/` and
//! `bench-raw/` (default: `$CARGO_TARGET_DIR`, else `ROOT/target`).
//! `--out`: the repository to write into (default: the current folder).
//!
//! `--redraw` collects the committed run, `data/bench/raw/`, again instead
//! of a target directory, and writes the results file and the charts from
//! it, leaving the raw files as they are: after a change to the renderer
//! or the labels, the charts are drawn again without measuring. It does
//! not judge the run again: that run was judged when it was measured, and
//! what a complete run holds grows with the book (chapter 11's steps, a
//! server more), so what it lacks now is printed as warnings and the
//! charts it lacks the measures for are not drawn (the report says which).
//!
//! `machine start` writes `bench-raw/machine.json` (this machine, today's
//! date in UTC, and the 1-minute load as `load_start`), warning if the
//! load says the machine is busy; `machine end` adds `load_end`. The load
//! is `--load`'s, else `/proc/loadavg`'s now.

use bench_report::machine::{self, busy};
use bench_report::{Bundle, Labels, collect, write_report};
use bench_results::{Machine, RAW_DIR, REPORT_COMMAND, RawFile, Result, Results};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

const USAGE: &str = "usage: bench-report [--target-dir DIR] [--out ROOT] [--allow-partial]\n       \
                     bench-report --redraw [--out ROOT]\n       \
                     bench-report machine start|end [--load LOAD] [--target-dir DIR]";

fn main() {
    if let Err(e) = run() {
        eprintln!("bench-report: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let machine = match args.first().map(String::as_str) {
        Some("machine") => {
            let when = args.get(1).cloned().unwrap_or_default();
            if when != "start" && when != "end" {
                return Err(format!("machine needs `start` or `end`\n{USAGE}").into());
            }
            args.drain(..2);
            Some(when)
        }
        _ => None,
    };
    let mut target = None;
    let mut out = PathBuf::from(".");
    let mut load = None;
    let mut allow_partial = false;
    let mut redraw = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--target-dir" => target = Some(PathBuf::from(value()?)),
            "--out" if machine.is_none() => out = PathBuf::from(value()?),
            "--allow-partial" if machine.is_none() => allow_partial = true,
            "--redraw" if machine.is_none() => redraw = true,
            "--load" if machine.is_some() => load = Some(machine::parse_load(&value()?)?),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument `{other}`\n{USAGE}").into()),
        }
    }
    let target = target
        .or_else(|| std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from))
        .unwrap_or_else(|| out.join("target"));
    match machine.as_deref() {
        Some(when) => record_machine(&target, when == "start", load),
        None if redraw => report(&out.join(RAW_DIR), None, &out, allow_partial),
        None => report(&target, Some(&target), &out, allow_partial),
    }
}

/// `machine start|end`.
fn record_machine(target: &Path, start: bool, load: Option<f64>) -> Result<()> {
    let load = match load {
        Some(load) => load,
        None => machine::load_average()?,
    };
    let path = target.join("bench-raw").join(Machine::FILE);
    let machine = if start {
        let mut machine = machine::this_machine(machine::utc_date(SystemTime::now()));
        machine.load_start = Some(load);
        if let Some(busy) = busy(&machine) {
            eprintln!("bench-report: warning: {busy}");
        }
        machine
    } else {
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "{}: {e} (`machine start` writes it before the run)",
                path.display()
            )
        })?;
        let mut machine =
            Machine::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        machine.load_end = Some(load);
        machine
    };
    std::fs::create_dir_all(path.parent().expect("a folder"))?;
    std::fs::write(&path, machine.to_json())?;
    Ok(())
}

/// Collects the run in `from` and writes the report under `out`: from a
/// `target` directory, whose files are copied into the raw folder, or
/// (`target` is `None`) from the raw folder itself, which stays as it is.
fn report(from: &Path, target: Option<&Path>, out: &Path, allow_partial: bool) -> Result<()> {
    let mut bundle = match target {
        Some(target) => Bundle::from_target(target)?,
        None => Bundle::read(from)?,
    };
    let collected = collect(&bundle)?;
    for warning in &collected.warnings {
        eprintln!("bench-report: warning: {warning}");
    }
    if collected.measures.is_empty() {
        return Err(format!(
            "no measurements under {}: run `{} --measure`",
            from.display(),
            REPORT_COMMAND
        )
        .into());
    }
    if !collected.problems.is_empty() {
        let list = collected.problems.join("\n  ");
        if target.is_none() {
            eprintln!(
                "bench-report: warning: the committed run, redrawn as it was measured; \
                 a run made now would be refused:\n  {list}"
            );
        } else if !allow_partial {
            return Err(format!(
                "the run in {} is not fit for the book, nothing written:\n  {list}\n\
                 Measure again (`{} --measure`), or write a partial report with --allow-partial.",
                from.display(),
                REPORT_COMMAND
            )
            .into());
        } else {
            eprintln!("bench-report: warning: a partial report (--allow-partial):\n  {list}");
        }
    }
    let machine = match collected.machine {
        Some(machine) => machine,
        None if target.is_none() => {
            return Err(format!("{}: no machine.json to redraw from", from.display()).into());
        }
        None => {
            // Only with --allow-partial. Described now, and kept in the
            // bundle, so that collecting the bundle again gives the same
            // results file.
            let machine = machine::this_machine(machine::utc_date(SystemTime::now()));
            bundle.machine = Some(machine.to_json());
            machine
        }
    };
    let results = Results::new(machine, collected.measures)?;
    let labels = Labels::load(out)?;
    let copy = target.map(|_| &bundle);
    for line in write_report(out, copy, &results, &labels)? {
        println!("{line}");
    }
    Ok(())
}
