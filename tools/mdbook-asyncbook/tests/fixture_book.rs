//! The preprocessor over a small book of the real one's shape
//! (`tests/fixture/`), run as mdBook runs it: mdbook-driver loads the book
//! (`book.toml`, `SUMMARY.md`) and pipes `[context, book]` as JSON to the
//! binary, which answers with the book on stdout, or fails with a message
//! on stderr.
//!
//! Each page's Markdown out must be exactly the file of the same path under
//! `tests/fixture/expected/`. After a deliberate change, `BLESS=1 cargo
//! test -p mdbook-asyncbook --test fixture_book` rewrites them: read the
//! diff before committing it.
//!
//! The errors are checked on copies of the fixture, each with one mistake
//! in it: the preprocessor must exit unsuccessfully, naming the page and
//! the line.

use mdbook_asyncbook::preprocess::chapter_texts;
use mdbook_driver::MDBook;
use mdbook_driver::config::Config;
use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::Book;
use mdbook_renderer::{RenderContext, Renderer};
use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_mdbook-asyncbook");

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture")
}

/// The book at `root`, with its `asyncbook` preprocessor run by the
/// binary under test and mdBook's own preprocessors (`links`, `index`)
/// left out: the pipeline gives exactly what the plug-in writes.
fn load(root: &Path) -> MDBook {
    let mut config = Config::from_disk(root.join("book.toml")).unwrap();
    // Loading must never write into the fixture.
    config.build.create_missing = false;
    config.build.use_default_preprocessors = false;
    config
        .set("preprocessor.asyncbook.command", format!("'{BIN}'"))
        .unwrap();
    MDBook::load_with_config(root, config).unwrap()
}

/// A renderer named `html` that renders nothing: what mdBook preprocesses
/// the book for.
struct Html;

impl Renderer for Html {
    fn name(&self) -> &str {
        "html"
    }

    fn render(&self, _: &RenderContext) -> mdbook_renderer::errors::Result<()> {
        Ok(())
    }
}

/// The files under `dir`, as paths relative to it.
fn files_under(dir: &Path, prefix: &str, out: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let entry = entry.unwrap();
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.path().is_dir() {
            files_under(&entry.path(), &format!("{name}/"), out);
        } else {
            out.insert(name);
        }
    }
}

/// Where `expected` and `actual` first differ, for the failure message.
fn first_difference(expected: &str, actual: &str) -> String {
    let (mut e, mut a) = (expected.lines(), actual.lines());
    for line in 1.. {
        match (e.next(), a.next()) {
            (None, None) => break,
            (x, y) if x == y => {}
            (x, y) => {
                return format!("line {line}:\n  expected: {x:?}\n  actual:   {y:?}");
            }
        }
    }
    "the line endings differ".into()
}

#[test]
fn each_page_is_the_expected_markdown() {
    let root = fixture();
    let md = load(&root);
    let (book, _) = md.preprocess_book(&Html).unwrap();
    let expected_dir = root.join("expected");
    let bless = std::env::var_os("BLESS").is_some();
    let mut problems = Vec::new();
    let mut pages_seen = BTreeSet::new();
    for (path, content) in chapter_texts(&book) {
        let file = expected_dir.join(&path);
        pages_seen.insert(path.clone());
        if bless {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &content).unwrap();
            continue;
        }
        match std::fs::read_to_string(&file) {
            Ok(expected) if expected == content => {}
            Ok(expected) => problems.push(format!(
                "src/{path} differs from {}: {}",
                file.display(),
                first_difference(&expected, &content)
            )),
            Err(e) => problems.push(format!("{}: {e}", file.display())),
        }
    }
    // Every expected file is a page of the book.
    let mut expected_files = BTreeSet::new();
    files_under(&expected_dir, "", &mut expected_files);
    for stale in expected_files.difference(&pages_seen) {
        if bless {
            std::fs::remove_file(expected_dir.join(stale)).unwrap();
        } else {
            problems.push(format!("expected/{stale}: no such page in the fixture"));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n(after a deliberate change: BLESS=1 cargo test -p mdbook-asyncbook --test fixture_book)",
        problems.join("\n")
    );
}

/// The pages mdBook gives the plug-in are the chapters as written: the
/// expected files differ from them only where the plug-in writes.
#[test]
fn pages_without_work_for_the_plug_in_come_back_unchanged() {
    let root = fixture();
    let md = load(&root);
    let (book, _) = md.preprocess_book(&Html).unwrap();
    let written: Vec<(String, String)> = chapter_texts(&md.book);
    let out = chapter_texts(&book);
    assert_eq!(
        written.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        out.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    let index = |pages: &[(String, String)]| {
        pages
            .iter()
            .find(|(p, _)| p == "index.md")
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(index(&written), index(&out));
}

// ---------------------------------------------------------------------------
// Mistakes

/// A copy of the fixture in a folder of its own, removed when dropped.
struct Copy(PathBuf);

impl Copy {
    fn new(name: &str) -> Copy {
        let to =
            std::env::temp_dir().join(format!("asyncbook-fixture-{name}-{}", std::process::id()));
        if to.exists() {
            std::fs::remove_dir_all(&to).unwrap();
        }
        copy_dir(&fixture(), &to);
        let _ = std::fs::remove_dir_all(to.join("expected"));
        Copy(to)
    }

    /// Replaces `from` (which must be there) with `to` in the file `path`.
    fn edit(&self, path: &str, from: &str, to: &str) -> &Self {
        let file = self.0.join(path);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{path} has no {from:?}");
        std::fs::write(&file, text.replacen(from, to, 1)).unwrap();
        self
    }

    /// Runs the binary as mdBook would for the `html` renderer, writing
    /// the `[context, book]` it writes to the preprocessor's stdin.
    fn preprocess(&self) -> Output {
        let md = load(&self.0);
        let ctx = PreprocessorContext::new(md.root.clone(), md.config.clone(), "html".into());
        let input = serde_json::to_vec(&(&ctx, &md.book)).unwrap();
        let mut child = Command::new(BIN)
            .current_dir(&self.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&input).unwrap();
        child.wait_with_output().unwrap()
    }

    /// The preprocessor's error message: it must have failed.
    fn error(&self) -> String {
        let output = self.preprocess();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(!output.status.success(), "it succeeded; stderr: {stderr}");
        assert!(output.stdout.is_empty(), "a failed run writes no book");
        stderr
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_copy_of_the_fixture_preprocesses_as_the_fixture_does() {
    // The mistakes below are the only difference from a book that works.
    let copy = Copy::new("unchanged");
    let output = copy.preprocess();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let book: Book = serde_json::from_slice(&output.stdout).unwrap();
    let (expected, _) = load(&fixture()).preprocess_book(&Html).unwrap();
    assert_eq!(chapter_texts(&book), chapter_texts(&expected));
}

#[test]
fn a_missing_anchor_is_an_error_naming_its_line() {
    let copy = Copy::new("anchor");
    copy.edit(
        "src/ja/ch01-timer.md",
        "timer.rs:timer}}",
        "timer.rs:no_such}}",
    );
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/ja/ch01-timer.md:11: \
         ../../listings/src/timer.rs: no `ANCHOR: no_such` … `ANCHOR_END: no_such` in the file\n"
    );
}

#[test]
fn a_missing_file_is_an_error_naming_its_line() {
    let copy = Copy::new("file");
    copy.edit(
        "src/zh/ch01-timer.md",
        "{{#include ../../listings/src/clock.rs:now}}",
        "{{#include ../../listings/src/nope.rs}}",
    );
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/zh/ch01-timer.md:42: ../../listings/src/nope.rs: no such file\n"
    );
}

#[test]
fn an_unknown_directive_is_an_error_naming_its_line() {
    let copy = Copy::new("directive");
    copy.edit(
        "src/ja/appendix-glossary.md",
        "{{#glossary}}",
        "{{#glosary}}",
    );
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/ja/appendix-glossary.md:3: unknown directive `{{#glosary}}`: \
         mdBook's are include, rustdoc_include, playground, title; \
         the plug-in's are glossary, pitfalls, listings, bench (write `\\{{#…}}` to show one as text)\n"
    );
}

#[test]
fn ignore_is_an_error_naming_the_blocks_line() {
    let copy = Copy::new("ignore");
    copy.edit("src/zh/ch01-timer.md", "```rust,no_run", "```rust,ignore");
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/zh/ch01-timer.md:24: `ignore` is not allowed: every block is tested\n"
    );
}

#[test]
fn an_rs_block_in_a_chapter_is_an_error_naming_its_line() {
    let copy = Copy::new("rs");
    copy.edit("src/zh/ch01-timer.md", "```rust,no_run", "```rs");
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/zh/ch01-timer.md:24: a ```rs block is Rust that no test \
         compiles, which only appendix C's listing files show: write ```rust (a tested \
         program) or ```text\n"
    );
}

#[test]
fn a_module_no_file_declares_is_an_error_naming_the_blocks_line() {
    let copy = Copy::new("module");
    copy.edit(
        "src/ja/ch01-timer.md",
        "let x = 1 + 1;",
        "listings::nothing::f();",
    );
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/ja/ch01-timer.md:37: \
         the block: `nothing::f` names no module of listings/src\n"
    );
}

#[test]
fn an_appendix_outside_the_editions_is_an_error() {
    let copy = Copy::new("outside");
    copy.edit(
        "src/index.md",
        "as it is.\n",
        "as it is.\n\n{{#pitfalls}}\n",
    );
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/index.md:5: the appendices can only be written in an edition (ja/, zh/)\n"
    );
}

#[test]
fn an_appendix_mistake_after_framed_blocks_names_its_own_line() {
    // The frames written into the blocks above add lines to the text the
    // directive is read from: the line named is still the author's.
    let copy = Copy::new("after-frames");
    copy.edit(
        "src/ja/ch01-timer.md",
        "そのままです。\n",
        "そのままです。\n\n{{#listings output}}\n",
    );
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/ja/ch01-timer.md:37: \
         `{{#listings output}}`: the groups are src, examples, compile_fail, tests\n"
    );
}

#[test]
fn a_listing_file_without_a_description_is_an_error() {
    let copy = Copy::new("description");
    std::fs::write(
        copy.0.join("listings/src/extra.rs"),
        "//! Not in data/listings.toml.\n",
    )
    .unwrap();
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/ja/appendix-listings.md:5: \
         data/listings.toml has no entry for listings/src/extra.rs\n"
    );
}

#[test]
fn a_bench_directive_needs_the_results_file() {
    // The fixture has no data/bench/results.toml: the book builds, but a
    // measurement cannot be shown.
    let copy = Copy::new("bench");
    copy.edit(
        "src/ja/ch01-timer.md",
        "本章では、",
        "本章では（{{#bench timers/spawn/mean}}）、",
    );
    let error = copy.error();
    assert!(
        error.starts_with(
            "mdbook-asyncbook: src/ja/ch01-timer.md:3: `{{#bench timers/spawn/mean}}`: \
             there is no data/bench/results.toml yet"
        ),
        "{error}"
    );
}

#[test]
fn a_pitfall_whose_section_is_gone_is_an_error() {
    let copy = Copy::new("pitfall");
    copy.edit("src/zh/ch01-timer.md", "{#lost-tick}", "{#lost}");
    assert_eq!(
        copy.error(),
        "mdbook-asyncbook: src/zh/appendix-pitfalls.md:3: \
         pitfall `lost-tick`: zh/ch01-timer.md has no heading {#lost-tick}\n"
    );
}
