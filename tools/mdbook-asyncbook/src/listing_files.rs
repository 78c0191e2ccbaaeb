//! Appendix C, generated: `{{#listings GROUP}}` writes a section for every
//! file of `listings/GROUP`, with its description from `data/listings.toml`.
//! A module of `listings/src` is shown as a complete program without its
//! tests and loom-only code (the hidden frame gives it the modules it
//! needs), and those follow as Rust text; an example as a complete program;
//! a program of `listings/compile_fail` as one that must fail to compile;
//! `lib.rs`, the `mod.rs` files and the integration tests of
//! `listings/tests` as Rust text. A new listing file appears without
//! editing Markdown.

use crate::data::Listings;
use crate::directives::relative;
use crate::edition::{Edition, listing_anchor};
use crate::frame::{Copies, Frames};
use crate::program::RUST_TEXT;
use crate::{Error, Result};
use std::path::Path;

/// The directive's name.
pub const DIRECTIVE: &str = "listings";

/// The groups a `{{#listings GROUP}}` may name: the folders of `listings/`
/// whose files the appendix shows.
pub const GROUPS: [&str; 4] = ["src", "examples", "compile_fail", "tests"];

/// How appendix C shows a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// As a complete program that `cargo test` runs (a module of
    /// `listings/src` without its tests and loom-only code, which follow
    /// as Rust text).
    Program,
    /// As a program that must fail to compile, with these error codes.
    CompileFail,
    /// As Rust text (a ```rs block), not a program: `lib.rs` and `mod.rs`
    /// only declare modules, and the integration tests need the listings
    /// crate and its dev-dependencies.
    Text,
}

/// The files of a group that appendix C shows, from the repository root,
/// in path order, with how each is shown.
pub fn files(root: &Path, group: &str) -> Result<Vec<(String, Shown)>> {
    if !GROUPS.contains(&group) {
        return Err(format!(
            "`{{{{#listings {group}}}}}`: the groups are {}",
            GROUPS.join(", ")
        )
        .into());
    }
    let mut out = Vec::new();
    walk(root, &format!("listings/{group}"), &mut out)?;
    out.retain(|f| f.ends_with(".rs"));
    out.sort();
    Ok(out
        .into_iter()
        .map(|file| {
            let shown = if group == "compile_fail" {
                Shown::CompileFail
            } else if group == "tests" || file.ends_with("/lib.rs") || file.ends_with("/mod.rs") {
                Shown::Text
            } else {
                Shown::Program
            };
            (file, shown)
        })
        .collect())
}

fn walk(root: &Path, dir: &str, out: &mut Vec<String>) -> Result<()> {
    let entries = std::fs::read_dir(root.join(dir)).map_err(|e| Error::in_file(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::in_file(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{dir}/{name}");
        if entry.path().is_dir() {
            walk(root, &path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// The error codes rustc reports for a program in `listings/compile_fail/`,
/// read from the `.stderr` recorded beside it, in order of appearance.
fn error_codes(root: &Path, file: &str) -> Result<Vec<String>> {
    let stderr = file.replace(".rs", ".stderr");
    let text = std::fs::read_to_string(root.join(&stderr))
        .map_err(|e| format!("{stderr} (the errors of {file}): {e}"))?;
    let mut codes: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("error[E") {
        let code = &text[at + 6..];
        let code: String = code.chars().take_while(|c| *c != ']').collect();
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    Ok(codes)
}

/// The sections of one group for the appendix of `edition`, whose chapter
/// folder is `dir` (from the repository root, e.g. `src/ja`).
pub fn render(
    root: &Path,
    group: &str,
    edition: Edition,
    dir: &str,
    listings: &Listings,
    frames: &Frames,
) -> Result<String> {
    let mut out = String::new();
    for (file, shown) in files(root, group)? {
        let entry = listings
            .file
            .iter()
            .find(|f| f.path == file)
            .ok_or_else(|| format!("data/listings.toml has no entry for {file}"))?;
        let include = format!("{{{{#include {}}}}}\n", relative(dir, &file));
        // What follows the program: a module's tests and loom code.
        let mut after = String::new();
        let (info, body) = match shown {
            Shown::Text => (RUST_TEXT.to_string(), include),
            Shown::CompileFail => {
                let codes = error_codes(root, &file)?;
                let mut info = "rust,compile_fail".to_string();
                for code in codes {
                    info.push(',');
                    info.push_str(&code);
                }
                (info, include)
            }
            Shown::Program => {
                let is_module = file.starts_with("listings/src/");
                // A module has no `main` of its own: say so, rather than let
                // mdBook wrap the whole crate in one.
                let body = if is_module {
                    format!("{include}# fn main() {{}}\n")
                } else {
                    include.clone()
                };
                let mut framed = frames
                    .write(&body, dir)
                    .map_err(|e| Error::in_file(&file, e))?
                    .unwrap_or(body);
                if is_module {
                    let (program, left_out) = frames.split(&file)?;
                    // The frame holds the include where the module goes:
                    // the module, visible, without what it leaves out.
                    // Unpruned copies show the whole file, as they did.
                    if frames.copies() == Copies::Pruned {
                        let at = framed
                            .find(&include)
                            .ok_or_else(|| Error::in_file(&file, "the frame lost its include"))?;
                        framed.replace_range(at..at + include.len(), &format!("{program}\n"));
                    }
                    if !left_out.is_empty() {
                        after = format!(
                            "{}\n\n{}\n\n",
                            left_out_intro(edition, &left_out),
                            fenced(RUST_TEXT, &format!("{left_out}\n"))
                        );
                    }
                }
                let info = if entry.no_run { "rust,no_run" } else { "rust" };
                (info.to_string(), framed)
            }
        };
        out.push_str(&format!(
            "### `{file}` {{#{}}}\n\n{}\n\n{}\n\n{after}",
            listing_anchor(&file),
            entry.text(edition).trim(),
            fenced(&info, &body),
        ));
    }
    Ok(out)
}

/// A fenced code block: a fence longer than any run of backticks that
/// starts a line of `body` (which ends with a newline).
fn fenced(info: &str, body: &str) -> String {
    let longest = body
        .lines()
        .map(|l| l.trim_start().chars().take_while(|c| *c == '`').count())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{info}\n{body}{fence}")
}

/// The sentence before a module's left-out items: what they are, and how
/// the listings crate runs them.
fn left_out_intro(edition: Edition, left_out: &str) -> &'static str {
    let words = edition.words();
    // Every test module says `not(loom)`: loom code is what a `cfg` builds
    // only under loom.
    let loom = left_out.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("#[cfg") && line.replace("not(loom)", "").contains("loom")
    });
    if loom {
        words.left_out_loom
    } else {
        words.left_out_tests
    }
}

/// The entries of `data/listings.toml` that name no file appendix C shows.
pub fn stale_entries(root: &Path, listings: &Listings) -> Result<Vec<String>> {
    let mut shown = Vec::new();
    for group in GROUPS {
        shown.extend(files(root, group)?.into_iter().map(|(f, _)| f));
    }
    Ok(listings
        .file
        .iter()
        .filter(|f| !shown.contains(&f.path))
        .map(|f| f.path.clone())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::ListingFile;

    /// The fixture book (tests/fixture/), whose appendix C the fixture's
    /// tests check page by page (tests/fixture_book.rs).
    fn fixture() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture")
    }

    #[test]
    fn groups_list_their_rust_files_in_path_order() {
        let files = |group| files(&fixture(), group).unwrap();
        let file = |path: &str, shown| (path.to_string(), shown);
        assert_eq!(
            files("src"),
            [
                file("listings/src/clock.rs", Shown::Program),
                file("listings/src/lib.rs", Shown::Text),
                file("listings/src/timer.rs", Shown::Program),
            ]
        );
        assert_eq!(
            files("examples"),
            [file("listings/examples/ch01_timer.rs", Shown::Program)]
        );
        // Only the `.rs` files: not the recorded errors beside them.
        assert_eq!(
            files("compile_fail"),
            [file(
                "listings/compile_fail/use_after_move.rs",
                Shown::CompileFail
            )]
        );
        assert_eq!(
            files("tests"),
            [file("listings/tests/timer.rs", Shown::Text)]
        );
        assert_eq!(
            super::files(&fixture(), "output").unwrap_err().to_string(),
            "`{{#listings output}}`: the groups are src, examples, compile_fail, tests"
        );
    }

    /// What appendix C shows of each module of the fixture's listings is
    /// the whole file. (On the fixture, not the book's listings, so that
    /// an edit to a listing cannot fail it: the fixture's `timer.rs` has
    /// what matters here, a `#[cfg(not(loom))]` import beside its loom
    /// stand-in, a loom-only function, a test module and anchors.)
    #[test]
    fn a_modules_program_and_left_out_code_are_its_whole_file() {
        // Nothing but markers, the `cfg(not(loom))`, `cfg(not(test))` and
        // loom or test `cfg_attr` attributes that change nothing, and blank
        // lines is lost between a module file and the two blocks that show
        // it, and nothing is added.
        let frames = Frames::load(&fixture()).unwrap();
        let mut lost_by_file = Vec::new();
        for (file, shown) in files(&fixture(), "src").unwrap() {
            if shown != Shown::Program {
                continue;
            }
            let (program, left_out) = frames.split(&file).unwrap();
            let text = std::fs::read_to_string(fixture().join(&file)).unwrap();
            let lines = |t: &str| -> Vec<String> {
                t.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect()
            };
            // Every line shown is a line of the file, once for each time
            // it is shown; what is left of the file is only lines a
            // reader's program drops: markers, and the attributes that
            // change nothing there, on lines of their own. (Spelled out
            // here, not taken from `expand::fates`, which this checks.)
            let droppable = |line: &str| {
                let l = line.trim();
                let marker =
                    l.starts_with("//") && (l.contains("ANCHOR:") || l.contains("ANCHOR_END:"));
                let cfg_attr = (l.starts_with("#[cfg_attr(loom, ")
                    || l.starts_with("#[cfg_attr(test, "))
                    && l.ends_with(")]");
                marker || l == "#[cfg(not(loom))]" || l == "#[cfg(not(test))]" || cfg_attr
            };
            let mut unshown: std::collections::BTreeMap<String, isize> = Default::default();
            for line in lines(&text) {
                *unshown.entry(line).or_default() += 1;
            }
            for line in lines(&program).into_iter().chain(lines(&left_out)) {
                let count = unshown.entry(line.clone()).or_default();
                *count -= 1;
                assert!(*count >= 0, "{file}: shown more often than written: {line}");
            }
            let mut lost = Vec::new();
            for (line, count) in unshown {
                assert!(
                    count == 0 || droppable(&line),
                    "{file}: written, not shown: {line}"
                );
                if count > 0 {
                    lost.push(line);
                }
            }
            lost_by_file.push((file, !left_out.is_empty(), lost));
        }
        // Both modules were checked, the timer's tests and loom code were
        // left out of its program, and what was lost is exactly this.
        let lost = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        assert_eq!(
            lost_by_file,
            [
                (
                    "listings/src/clock.rs".to_string(),
                    false,
                    lost(&["// ANCHOR: now", "// ANCHOR_END: now"])
                ),
                (
                    "listings/src/timer.rs".to_string(),
                    true,
                    lost(&[
                        "#[cfg(not(loom))]",
                        "// ANCHOR: timer",
                        "// ANCHOR_END: timer"
                    ])
                ),
            ]
        );
    }

    #[test]
    fn a_program_that_waits_for_input_is_shown_no_run() {
        // Only the fence changes: `rust,no_run`, compiled but not run.
        let frames = Frames::load(&fixture()).unwrap();
        let section = |no_run| {
            let listings = Listings {
                file: vec![ListingFile {
                    path: "listings/examples/ch01_timer.rs".into(),
                    ja: "説明。".into(),
                    zh: "说明。".into(),
                    no_run,
                }],
            };
            render(
                &fixture(),
                "examples",
                Edition::Ja,
                "src/ja",
                &listings,
                &frames,
            )
            .unwrap()
        };
        let shown = section(false);
        assert!(shown.contains("\n```rust\n"), "{shown}");
        assert_eq!(
            section(true),
            shown.replacen("\n```rust\n", "\n```rust,no_run\n", 1)
        );
    }
}
