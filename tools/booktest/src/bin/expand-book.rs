//! Writes every chapter of the book, expanded by `booktest::expand`, into a
//! directory laid out like mdBook's `markdown` renderer output.
//!
//! `.ci/run` diffs the two, so the expansion the tests rely on is checked
//! against mdBook itself on every run:
//!
//! ```console
//! $ cargo run -q -p booktest --bin expand-book -- /tmp/ours
//! $ MDBOOK_OUTPUT__MARKDOWN='{}' mdbook build -d /tmp/theirs
//! $ diff -r /tmp/theirs/markdown /tmp/ours
//! ```
//!
//! `--src DIR` expands another book's sources (`.ci/run` also checks the
//! corner cases in `tools/booktest/fixtures/expansion`).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = env::args_os().skip(1).map(PathBuf::from).collect();
    let (src, out) = match args.as_slice() {
        [out] => (Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src"), out),
        [flag, src, out] if flag == Path::new("--src") => (src.clone(), out),
        _ => {
            eprintln!("usage: expand-book [--src <book src directory>] <output directory>");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for relative in chapters(&src) {
        let chapter = src.join(&relative);
        let text = fs::read_to_string(&chapter).unwrap();
        match booktest::expand::expand(&text, chapter.parent().unwrap()) {
            Ok(expanded) => {
                let target = out.join(&relative);
                fs::create_dir_all(target.parent().unwrap()).unwrap();
                fs::write(target, expanded.text).unwrap();
            }
            Err(e) => {
                eprintln!("error: src/{}:{e}", relative.display());
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The chapters `SUMMARY.md` links to (the pages mdBook renders), in order.
fn chapters(src: &Path) -> Vec<PathBuf> {
    let summary = fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    summary
        .split("](")
        .skip(1)
        .filter_map(|after| after.split_once(')'))
        .map(|(target, _)| PathBuf::from(target))
        .filter(|target| target.extension().is_some_and(|ext| ext == "md"))
        .collect()
}
