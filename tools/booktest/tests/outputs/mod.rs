//! The book never shows made-up output. Every program output it shows is a
//! file under `listings/output/` and every compiler error a `.stderr` file
//! under `listings/compile_fail/`; these checks run the program (or the
//! compiler) and compare. Durations and addresses vary from run to run, so
//! both sides are normalised before the comparison. A program that reads
//! its standard input is fed `listings/output/<name>.stdin`.
//!
//! The programs are the listings crate's examples, as `cargo test` builds
//! them for the whole workspace before it runs any test. `cargo test -p
//! booktest` does not build them: it runs what an earlier build left, and
//! the check fails, saying so, if an example is missing or older than its
//! source or a file of `listings/src`. The checks run in the blocks test
//! binary (see `tests/blocks.rs`), beside the book's blocks: the demos
//! sleep on their timers in both, and cargo runs test binaries one after
//! the other, so here they wait at the same time.
//!
//! After a deliberate change, `BLESS=1 cargo test` rewrites the files from
//! a real run; review the diff before committing.

use std::env;
use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn listings_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../listings");
    dir.canonicalize().unwrap()
}

/// `target/<profile>/examples`, where `cargo test` has built every example.
fn examples_dir() -> PathBuf {
    let exe = env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().join("examples")
}

/// Files in `dir` whose name ends with `suffix`, sorted.
fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.to_str().unwrap().ends_with(suffix))
        .collect();
    files.sort();
    files
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// When the library's sources (its `.rs` files) last changed: an example
/// built before that would show stale output. An editor's hidden files
/// (`.x.rs.swp`) and other files do not count: cargo would not rebuild for
/// them.
fn newest_source() -> Option<std::time::SystemTime> {
    fn newest(dir: &Path) -> Option<std::time::SystemTime> {
        fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter_map(|path| {
                let name = path.file_name()?.to_str()?;
                if name.starts_with('.') {
                    None
                } else if path.is_dir() {
                    newest(&path)
                } else if name.ends_with(".rs") {
                    modified(&path)
                } else {
                    None
                }
            })
            .max()
    }
    newest(&listings_dir().join("src"))
}

/// Compares `actual` with the file `expected`, or rewrites it under BLESS.
fn compare(expected: &Path, actual: &str, what: &str) -> Option<String> {
    if env::var_os("BLESS").is_some() {
        fs::write(expected, actual).unwrap();
        return None;
    }
    let shown = fs::read_to_string(expected).unwrap();
    (normalise(&shown) != normalise(actual)).then(|| {
        format!(
            "{what} differs from {}\n--- shown in the book\n{shown}\n--- real\n{actual}",
            expected.display()
        )
    })
}

/// Runs every example that has a recorded output and compares.
pub fn every_shown_output_is_what_the_program_prints() {
    let listings = listings_dir();
    let outputs = files_ending(&listings.join("output"), ".txt");
    assert!(!outputs.is_empty());
    // The library's sources are read once, not once per example.
    let newest_source = newest_source();
    // Start every program first: many of them mostly sleep on timers.
    let running: Vec<_> = outputs
        .iter()
        .map(|expected| {
            let name = expected.file_stem().unwrap().to_str().unwrap();
            let program = examples_dir().join(name);
            let source = listings.join("examples").join(format!("{name}.rs"));
            assert!(
                source.exists(),
                "{}: no example named {name}",
                expected.display()
            );
            assert!(
                modified(&program) >= newest_source.max(modified(&source)),
                "example {name} is not built or out of date: run plain `cargo test` (the whole \
                 workspace) or `cargo test -p listings -p booktest`, which build the examples"
            );
            // A program that reads standard input gets its `<name>.stdin`
            // through a pipe, as if typed (a pipe, like a terminal, is
            // what epoll waits for; a file would be read directly). The
            // others get an empty input (`/dev/null`), never the terminal
            // of whoever runs the tests.
            let input = expected.with_extension("stdin");
            let input = input.exists().then(|| fs::read(&input).unwrap());
            let mut child = Command::new(&program)
                .stdin(if input.is_some() {
                    Stdio::piped()
                } else {
                    Stdio::null()
                })
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            if let Some(input) = input {
                // Small enough for the pipe's buffer: written at once.
                // Dropping our end is the end of the input. A program
                // that exits before reading it all breaks the pipe: no
                // error here, its exit status and output tell below.
                match child.stdin.take().unwrap().write_all(&input) {
                    Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
                    written => written.unwrap(),
                }
            }
            (expected, name, child)
        })
        .collect();
    let mut failures = Vec::new();
    for (expected, name, child) in running {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{name} failed: {output:?}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        failures.extend(compare(expected, &stdout, &format!("the output of {name}")));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Compiles every program of `listings/compile_fail/` and compares
/// rustc's errors.
pub fn every_shown_compiler_error_is_what_rustc_says() {
    let dir = listings_dir().join("compile_fail");
    let mut failures = Vec::new();
    for source in files_ending(&dir, ".rs") {
        let name = source.file_name().unwrap().to_str().unwrap();
        // Run in the directory so rustc names the file as the book does.
        let output = crate::compile_alone(&dir, Path::new(name));
        assert!(!output.status.success(), "{name} compiles, but must not");
        let stderr = String::from_utf8(output.stderr).unwrap();
        let expected = source.with_extension("stderr");
        failures.extend(compare(
            &expected,
            &stderr,
            &format!("rustc's error for {name}"),
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Replaces what varies between runs: durations such as `2.003s` or `15ms`
/// become `[duration]`, addresses such as `0x7ffd5e8c` become `[address]`.
/// Compiler notes that point into the standard library are dropped: their
/// path and snippet depend on the toolchain build and on whether its
/// sources are installed, not on the program.
fn normalise(text: &str) -> String {
    let text = drop_std_notes(text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(c) = rest.chars().next() {
        let word_start = !out.ends_with(|p: char| p.is_alphanumeric() || p == '_' || p == '.');
        if word_start {
            if let Some(len) = address_len(rest) {
                out.push_str("[address]");
                rest = &rest[len..];
                continue;
            }
            if let Some(len) = duration_len(rest) {
                out.push_str("[duration]");
                rest = &rest[len..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Removes each `note:` of a compiler message whose location is inside the
/// standard library (`/rustc/<hash>/library/…` or an installed `rust-src`),
/// with the indented lines that belong to it.
fn drop_std_notes(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with("note:") {
            let end = (i + 1..lines.len())
                .find(|&j| {
                    // Indented lines, gutters (`   |`) and source lines
                    // (`12 | …`) belong to the note; a blank line ends it.
                    let line = lines[j];
                    line.trim().is_empty()
                        || !line.starts_with(|c: char| c == ' ' || c == '|' || c.is_ascii_digit())
                })
                .unwrap_or(lines.len());
            let in_std = lines[i + 1..end].iter().any(|line| {
                let line = line.trim_start();
                line.starts_with("--> /rustc/") || line.contains("/lib/rustlib/src/rust/library/")
            });
            if in_std {
                i = end;
                continue;
            }
        }
        kept.push(lines[i]);
        i += 1;
    }
    kept.join("\n")
}

fn address_len(s: &str) -> Option<usize> {
    let digits = s
        .strip_prefix("0x")?
        .bytes()
        .take_while(u8::is_ascii_hexdigit)
        .count();
    (digits >= 4).then_some(2 + digits)
}

fn duration_len(s: &str) -> Option<usize> {
    let int = s.bytes().take_while(u8::is_ascii_digit).count();
    if int == 0 {
        return None;
    }
    let mut len = int;
    if let Some(frac) = s[len..].strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            len += 1 + digits;
        }
    }
    let unit = ["ns", "µs", "us", "ms", "s"]
        .into_iter()
        .find(|unit| s[len..].starts_with(unit))?;
    len += unit.len();
    let ends_word = !s[len..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
    ends_word.then_some(len)
}

#[test]
fn notes_inside_the_standard_library_are_ignored() {
    let with_hash = "error[E0277]: x\nnote: required by a bound in `f`\n  --> /rustc/59807616/library/core/src/pin.rs:1181:4\n\nerror: aborting";
    let with_src = "error[E0277]: x\nnote: required by a bound in `f`\n  --> /home/u/.rustup/toolchains/t/lib/rustlib/src/rust/library/core/src/pin.rs:1200:4\n   |\n12 | impl X {}\n   |      ^ here\n\nerror: aborting";
    assert_eq!(normalise(with_hash), normalise(with_src));
    assert_eq!(normalise(with_hash), "error[E0277]: x\n\nerror: aborting");
    let local = "note: required because it appears within the type\n  --> main.rs:7:32";
    assert_eq!(
        normalise(local),
        local,
        "notes about the program itself stay"
    );
}

#[test]
fn normalise_hides_durations_and_addresses_only() {
    assert_eq!(
        normalise("took 2.003s, then 15ms and 7 µs at 0x7ffd5e8c; 3 tasks, 10s"),
        "took [duration], then [duration] and 7 µs at [address]; 3 tasks, [duration]"
    );
    assert_eq!(
        normalise("poll 2: Ready(\"hello\") x2s"),
        "poll 2: Ready(\"hello\") x2s"
    );
}
