//! One test per ```rust block of both editions: `<lang>::<chapter>::line_<N>`
//! checks the block that opens on line N of `src/<lang>/<chapter>.md`, and
//! `<lang>::appendix_listings::listing_<file>` the block appendix C writes
//! for that listing file. `build.rs` generates them from the book as
//! mdBook renders it.
//!
//! skeptic compiles each program with `rustc` against this package's
//! dependencies, as edition 2024 (see ARCHITECTURE.md, "The edition-2024
//! wrapper"), and runs it.
//!
//! The same binary checks that every output the book shows is what the
//! program prints (`outputs`): its demos sleep like the blocks' do, and
//! here both wait at the same time.

use std::any::Any;
use std::collections::BTreeMap;
use std::env;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

mod copies;
mod outputs;

/// How a block is checked; see `Mode` in `tools/mdbook-asyncbook/src/program.rs`.
#[derive(PartialEq)]
enum Mode {
    Run,
    NoRun,
    ShouldPanic,
    CompileFail(&'static [&'static str]),
}

struct Block {
    chapter: &'static str,
    line: usize,
    mode: Mode,
    /// Where the program was written, so that rustc's line numbers in a
    /// failure can be read against it.
    program_file: &'static str,
    program: &'static str,
}

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const OUT_DIR: &str = env!("OUT_DIR");
const TARGET: &str = env!("BOOKTEST_TARGET");

/// Whether skeptic compiled (and, if asked, ran) `program` successfully.
///
/// Both editions embed the same listings, and the blocks that show parts of
/// one file differ only in which `// ANCHOR:` marker lines mdBook left in
/// (a marker line is dropped where its anchor is shown). Comments change
/// neither what compiles nor what runs, so programs that are the same
/// apart from marker lines are checked once and share the result: a demo
/// that waits two seconds runs once, not once per fragment.
fn through_skeptic(program: &'static str, run: bool) -> bool {
    /// Per program (without its marker lines) and way of checking it, the
    /// result, once known.
    type Results = BTreeMap<(String, bool), Arc<OnceLock<bool>>>;
    static CHECKED: Mutex<Results> = Mutex::new(BTreeMap::new());
    let once = Arc::clone(
        CHECKED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry((without_anchor_markers(program), run))
            .or_default(),
    );
    *once.get_or_init(|| check_once(program, run))
}

/// `program` without the lines that hold nothing but an mdBook anchor
/// marker (`// ANCHOR: name`, `// ANCHOR_END: name`).
fn without_anchor_markers(program: &str) -> String {
    program
        .lines()
        .filter(|line| {
            let comment = line.trim().strip_prefix("//").map(str::trim);
            !comment.is_some_and(|c| c.starts_with("ANCHOR:") || c.starts_with("ANCHOR_END:"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_once(program: &str, run: bool) -> bool {
    for attempt in 0..5 {
        if attempt > 0 {
            // Give the forked child time to reach `exec` (see below).
            std::thread::sleep(std::time::Duration::from_millis(50 << attempt));
        }
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
            if run {
                skeptic::rt::run_test(ROOT, OUT_DIR, TARGET, program);
            } else {
                skeptic::rt::compile_test(ROOT, OUT_DIR, TARGET, program);
            }
        }));
        match outcome {
            Ok(()) => return true,
            // skeptic runs a compiled program from its cache while other
            // threads spawn processes; a child that has not yet reached
            // `exec` can still hold the cache file open for writing, and
            // Linux then refuses to run it ("text file busy"). That says
            // nothing about the program: try again.
            Err(payload) if panic_message(&payload).contains("Text file busy") => continue,
            Err(_) => return false,
        }
    }
    false
}

fn panic_message(payload: &Box<dyn Any + Send>) -> &str {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("")
}

fn check(block: &Block) {
    let at = format!("{}:{}", block.chapter, block.line);
    let program = block.program_file;
    match block.mode {
        Mode::Run => assert!(
            through_skeptic(block.program, true),
            "{at}: the block failed to compile or to run (program: {program})"
        ),
        Mode::NoRun => assert!(
            through_skeptic(block.program, false),
            "{at}: the block failed to compile (program: {program})"
        ),
        Mode::ShouldPanic => {
            // Compile first, so that a compile error is not taken for the
            // expected panic.
            assert!(
                through_skeptic(block.program, false),
                "{at}: the block failed to compile (program: {program})"
            );
            assert!(
                !through_skeptic(block.program, true),
                "{at}: marked should_panic, but it ran successfully"
            );
        }
        Mode::CompileFail(codes) => {
            assert!(
                !through_skeptic(block.program, false),
                "{at}: marked compile_fail, but it compiles (program: {program})"
            );
            let stderr = rustc_errors(Path::new(block.program_file));
            for code in codes {
                assert!(
                    stderr.contains(&format!("error[{code}]")),
                    "{at}: expected error {code}; rustc said:\n{stderr}"
                );
            }
        }
    }
}

/// What rustc prints for `file` compiled alone (std only), as edition 2024.
fn rustc_errors(file: &Path) -> String {
    let output = compile_alone(file.parent().unwrap(), file);
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// rustc's result for `file` compiled alone (std only, no output but
/// metadata), as edition 2024, run in `dir`: rustc names the file in its
/// messages as it was given.
fn compile_alone(dir: &Path, file: &Path) -> std::process::Output {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compile-fail");
    std::fs::create_dir_all(&out).unwrap();
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    Command::new(rustc)
        .args([
            "--edition=2024",
            "--crate-type=bin",
            "--emit=metadata",
            "--out-dir",
        ])
        .arg(&out)
        .arg(file)
        .current_dir(dir)
        .output()
        .expect("cannot run rustc")
}

// At the top level, so that libtest, which starts tests in name order,
// starts these two among the first: the demos they run sleep for seconds.

#[test]
fn every_shown_output_is_what_the_program_prints() {
    outputs::every_shown_output_is_what_the_program_prints();
}

#[test]
fn every_shown_compiler_error_is_what_rustc_says() {
    outputs::every_shown_compiler_error_is_what_rustc_says();
}

/// Every block's program, the one a reader copies, is the program that
/// unpruned copies make minus only tests, loom code, their attributes and
/// markers, and modules it no longer needs (see `copies/mod.rs`).
#[test]
fn copies_leave_out_only_tests_loom_code_and_unneeded_modules() {
    let mut modules = Vec::new();
    let mut dirs = vec![Path::new(ROOT).join("../../listings/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
            }
            modules.push(stem);
        }
    }
    let mut problems = Vec::new();
    let mut total = copies::LeftOut::default();
    for (chapter, line, new, old) in COPIES {
        match copies::left_out(old, new, &modules) {
            Ok(left) => {
                total.items += left.items;
                total.attributes += left.attributes;
                total.lines += left.lines;
                total.modules.extend(left.modules);
            }
            Err(problem) => problems.push(format!("{chapter}:{line}: {problem}")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The book has tests and loom code beside the code it shows: pruning
    // left both out somewhere. (No module is left out today: what tests and
    // loom code name, the rest of each program needs too.)
    assert!(total.items > 0 && total.attributes > 0, "{total:?}");
}

/// `Future` is in the prelude from edition 2024 on: this compiles only if
/// the blocks really are compiled as 2024 (see ARCHITECTURE.md).
#[test]
fn blocks_compile_as_edition_2024() {
    let program = "fn main() { fn takes(_: impl Future<Output = ()>) {} takes(async {}); }";
    assert!(
        through_skeptic(program, false),
        "book blocks are not compiled as edition 2024: is RUSTC set in your \
         environment? .cargo/config.toml sets it to the edition wrapper only \
         where it is not already set"
    );
}

/// A block links the crates the book names, as the book uses them. The
/// target directory can hold several builds of one crate (other features,
/// or built for a build script); skeptic must link the one these tests were
/// built with, which has rustix's `event` feature (see Cargo.toml).
#[test]
fn blocks_link_the_book_crates_with_their_features() {
    let program = "use futures::executor::block_on;\n\
                   use rustix::event::{PollFd, PollFlags};\n\
                   fn main() { let _ = (block_on(async { 1 }), PollFlags::IN, PollFd::from_borrowed_fd); }";
    assert!(
        through_skeptic(program, false),
        "a block using futures and rustix::event does not compile: did skeptic \
         pick another build of rustix from the target directory?"
    );
}

/// Checks `program` as a block of the given mode; returns the failure
/// message, if the check failed.
fn failure_of(mode: Mode, program: &'static str) -> Option<String> {
    let block = Block {
        chapter: "src/ja/example.md",
        line: 1,
        mode,
        program_file: "(inline)",
        program,
    };
    let failure = panic::catch_unwind(|| check(&block)).err()?;
    Some(
        failure
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default(),
    )
}

#[test]
fn programs_differing_only_in_anchor_markers_share_a_check() {
    let a = "// ANCHOR: main\nfn main() {}\n// ANCHOR_END: main\n";
    let b = "    // ANCHOR: main\nfn main() {}\n";
    assert_eq!(without_anchor_markers(a), without_anchor_markers(b));
    assert_ne!(
        without_anchor_markers("fn main() {} // ANCHOR: main\n"),
        without_anchor_markers("fn main() {}\n"),
        "a marker after code is not a marker line"
    );
}

#[test]
fn a_compile_fail_block_that_compiles_is_reported() {
    let message = failure_of(Mode::CompileFail(&[]), "fn main() {}").unwrap();
    assert!(message.contains("src/ja/example.md:1: marked compile_fail, but it compiles"));
}

#[test]
fn a_should_panic_block_must_compile_and_then_fail() {
    assert_eq!(
        failure_of(Mode::ShouldPanic, "fn main() { panic!() }"),
        None
    );
    let message = failure_of(Mode::ShouldPanic, "fn main() {}").unwrap();
    assert!(message.contains("marked should_panic, but it ran successfully"));
    let message = failure_of(Mode::ShouldPanic, "fn main() { error }").unwrap();
    assert!(message.contains("failed to compile"), "{message}");
}

#[test]
fn a_no_run_block_is_compiled_but_not_run() {
    assert_eq!(failure_of(Mode::NoRun, "fn main() { panic!() }"), None);
    let message = failure_of(Mode::NoRun, "fn main() { error }").unwrap();
    assert!(message.contains("failed to compile"), "{message}");
}

/// One edition of a chapter: its heading ids, and its rust blocks' test
/// name (`line_<N>`), mode and program.
type Edition = Option<(
    &'static [&'static str],
    &'static [(&'static str, Mode, &'static str)],
)>;

/// Both editions of `chapter` exist, have the same sections and show the
/// same programs in the same order: a reader can switch language and find
/// the same section and the same code.
fn same_blocks(chapter: &str, ja: Edition, zh: Edition) {
    let (Some((ja_ids, ja)), Some((zh_ids, zh))) = (ja, zh) else {
        panic!("{chapter}.md must exist in both src/ja and src/zh");
    };
    assert_eq!(
        ja_ids, zh_ids,
        "src/ja/{chapter}.md and src/zh/{chapter}.md have different sections (heading ids)"
    );
    for (index, (a, b)) in ja.iter().zip(zh).enumerate() {
        assert!(
            a.1 == b.1 && a.2 == b.2,
            "rust block {} differs: src/ja/{chapter}.md ({}) and src/zh/{chapter}.md ({})",
            index + 1,
            a.0,
            b.0
        );
    }
    assert_eq!(
        ja.len(),
        zh.len(),
        "src/ja/{chapter}.md and src/zh/{chapter}.md have different numbers of rust blocks"
    );
}

include!(concat!(env!("OUT_DIR"), "/book_tests.rs"));
