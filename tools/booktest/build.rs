//! Generates one test per ```rust block of both editions.
//!
//! The book goes through mdBook's own pipeline: `mdbook-driver` loads it
//! (book.toml, SUMMARY.md), the book's preprocessor runs as a library
//! (hidden frames, appendices, captions), then mdBook's `links`
//! preprocessor expands the includes. Each ```rust block of the result
//! becomes the program a reader gets, written to
//! `OUT_DIR/blocks/<lang>/<chapter>/<name>.rs`, and `OUT_DIR/book_tests.rs`
//! gets a test `<lang>::<chapter>::<name>` that compiles and runs it through
//! skeptic (see `tests/blocks.rs`). `<name>` is `line_<N>` for the block
//! whose fence is on line N of the chapter, and `listing_<file>` for a
//! block that appendix C's `{{#listings}}` writes. Files are only written
//! when their content changes, so an unchanged book does not rebuild the
//! tests.
//!
//! Where mdBook would log an error and carry on, or render nothing, this
//! fails the build naming `src/<lang>/<file>.md:<line>`: a missing file or
//! anchor, `ignore`, an unknown attribute, another edition (the
//! preprocessor's checks, which run here as in every mdBook build), a
//! block that shows nothing, a heading without an id.
//!
//! The book also goes through the pipeline a second time with unpruned
//! copies (whole module files, as the frame wrote them before tests and
//! loom code were left out): each block's program is written to
//! `OUT_DIR/unpruned/…`, and `copies` (in `tests/copies/`) checks that the
//! reader's copy is that one minus only what pruning leaves out.
//! `OUT_DIR/copies.tsv` lists every block's mode, program file and place,
//! for `tools/copies/run`, which builds and tests each distinct program in
//! a fresh project.

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process;
use std::sync::{Arc, Mutex};

use mdbook_asyncbook::Error;
use mdbook_asyncbook::captions::LISTINGS_PAGE;
use mdbook_asyncbook::directives::directives;
use mdbook_asyncbook::edition::listing_anchor;
use mdbook_asyncbook::frame::Copies;
use mdbook_asyncbook::listing_files::{self, Shown};
use mdbook_asyncbook::markdown::line_of;
use mdbook_asyncbook::preprocess::{AsyncBook, chapter_texts, process_with};
use mdbook_asyncbook::program::{self, Mode, heading_ids, rust_blocks, visible_lines};
use mdbook_driver::MDBook;
use mdbook_driver::builtin_preprocessors::LinkPreprocessor;
use mdbook_driver::config::Config;
use mdbook_preprocessor::book::Book;
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};

/// What the parity tests compare between the two editions of a chapter.
#[derive(Default)]
struct Edition {
    heading_ids: Vec<String>,
    /// Each rust block's name, mode and program file.
    blocks: Vec<(String, String, PathBuf)>,
}

/// Chapter -> language -> its edition.
type Editions = BTreeMap<String, BTreeMap<String, Edition>>;

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.join("../..").canonicalize().unwrap();
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!(
        "cargo:rustc-env=BOOKTEST_TARGET={}",
        env::var("TARGET").unwrap()
    );
    println!("cargo:rerun-if-changed=build.rs");
    // Directories are watched as a whole (new files count too): the
    // chapters, everything they can include, and the appendices' data.
    for watched in [
        "book.toml",
        "src",
        "data",
        "listings/src",
        "listings/examples",
        "listings/compile_fail",
        "listings/tests",
        "listings/output",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }

    let mut failures = Vec::new();
    let book = match expand(&root, &mut failures) {
        Some(book) => book,
        None => fail(&failures),
    };
    let mut tests = String::new();
    let mut written = BTreeSet::new();
    let mut editions = Editions::new();
    let mut by_lang: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    // Per block: its place, the reader's program and the unpruned one.
    let mut copies = String::new();
    let mut index = String::new();
    for (path, original, expanded, unpruned) in &book {
        let lang = match path.split_once('/') {
            Some(("ja", _)) => "ja",
            Some(("zh", _)) => "zh",
            _ => "book",
        };
        let name = Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let shown = format!("src/{path}");
        // A problem at a line of the chapter as written.
        let at = |offset: usize, message: &dyn std::fmt::Display| {
            Error::at(original, offset, message)
                .with_file(&shown)
                .to_string()
        };
        for (offset, id) in heading_ids(original) {
            if id.is_none() {
                failures.push(at(
                    offset,
                    &"a heading without an id: end it with {#some-id}",
                ));
            }
        }
        let origins = match origins(&root, original) {
            Ok(origins) => origins,
            Err(e) => {
                failures.push(e.with_file(&shown).to_string());
                continue;
            }
        };
        let blocks = match rust_blocks(expanded) {
            Ok(blocks) => blocks,
            // Its line is one of the expanded text, which no one reads.
            Err(e) => {
                failures.push(
                    Error::in_file(&shown, format!("after expansion: {}", e.message())).to_string(),
                );
                continue;
            }
        };
        if blocks.len() != origins.len() {
            failures.push(
                Error::in_file(
                    &shown,
                    format!(
                        "{} rust blocks after expansion, {} written in the chapter: \
                         does an include bring in code blocks?",
                        blocks.len(),
                        origins.len()
                    ),
                )
                .to_string(),
            );
            continue;
        }
        let unpruned_blocks = match rust_blocks(unpruned) {
            Ok(blocks) if blocks.len() == origins.len() => blocks,
            _ => {
                failures.push(
                    Error::in_file(
                        &shown,
                        "the unpruned copies have other rust blocks than the book",
                    )
                    .to_string(),
                );
                continue;
            }
        };
        let mut edition = Edition {
            heading_ids: heading_ids(expanded)
                .into_iter()
                .filter_map(|(_, id)| id)
                .collect(),
            blocks: Vec::new(),
        };
        let mut chapter_tests = String::new();
        for ((block, unpruned), (test, offset)) in blocks.iter().zip(&unpruned_blocks).zip(&origins)
        {
            if visible_lines(&block.body) == 0 {
                failures.push(at(
                    *offset,
                    &"the block shows the reader nothing (an empty anchor or range?)",
                ));
                continue;
            }
            let program = match program::program(block) {
                Ok(program) => program,
                Err(e) => {
                    failures.push(at(*offset, &e));
                    continue;
                }
            };
            let file = out_dir
                .join("blocks")
                .join(lang)
                .join(&name)
                .join(format!("{test}.rs"));
            let mode = match &program.mode {
                Mode::Run => "Mode::Run".to_owned(),
                Mode::NoRun => "Mode::NoRun".to_owned(),
                Mode::ShouldPanic => "Mode::ShouldPanic".to_owned(),
                Mode::CompileFail(codes) => format!("Mode::CompileFail(&{codes:?})"),
            };
            write_if_changed(&file, &program.program);
            written.insert(file.clone());
            let line = line_of(original, *offset);
            // Pruning changes hidden lines only: the reader sees what
            // mdBook's own includes show. Except in appendix C's sections of
            // modules, which show a module as a program, without the tests
            // and loom code that follow it as Rust text (the plug-in's
            // `listing_files` tests check, on its fixture, that the two hold
            // the whole file);
            // the copies test still checks what the program leaves out.
            let module_in_appendix_c =
                path.ends_with(LISTINGS_PAGE) && test.starts_with("listing_src_");
            if !module_in_appendix_c && shown_lines(&block.body) != shown_lines(&unpruned.body) {
                failures.push(at(
                    *offset,
                    &"the block shows other lines than mdBook's includes would \
                      (the plug-in's expansion of listings modules must change hidden lines only)",
                ));
            }
            if let Ok(old) = program::program(unpruned) {
                let old_file = out_dir
                    .join("unpruned")
                    .join(lang)
                    .join(&name)
                    .join(format!("{test}.rs"));
                write_if_changed(&old_file, &old.program);
                written.insert(old_file.clone());
                writeln!(
                    copies,
                    "    ({shown:?}, {line}, include_str!({:?}), include_str!({:?})),",
                    file.display().to_string(),
                    old_file.display().to_string()
                )
                .unwrap();
            }
            let kind = match &program.mode {
                Mode::Run => "run",
                Mode::NoRun => "no_run",
                Mode::ShouldPanic => "should_panic",
                Mode::CompileFail(_) => "compile_fail",
            };
            writeln!(index, "{kind}\t{}\t{shown}:{line}", file.display()).unwrap();
            edition
                .blocks
                .push((test.clone(), mode.clone(), file.clone()));
            writeln!(
                chapter_tests,
                "        /// `{shown}`, line {line}\n        #[test]\n        fn {test}() {{\n            check(&Block {{\n                chapter: {shown:?},\n                line: {line},\n                mode: {mode},\n                program_file: {file:?},\n                program: include_str!({file:?}),\n            }});\n        }}",
                file = file.display().to_string(),
            )
            .unwrap();
        }
        if !chapter_tests.is_empty() {
            by_lang.entry(lang).or_default().push(format!(
                "    mod {} {{\n        use super::super::*;\n{chapter_tests}    }}\n",
                ident(&name)
            ));
        }
        if lang != "book" {
            editions
                .entry(name)
                .or_default()
                .insert(lang.to_owned(), edition);
        }
    }
    if !failures.is_empty() {
        fail(&failures);
    }
    for (lang, modules) in &by_lang {
        writeln!(tests, "mod {lang} {{\n{}}}", modules.concat()).unwrap();
    }
    write_parity_tests(&mut tests, &editions);
    writeln!(
        tests,
        "/// Per block: its chapter, its line, the program a reader copies and\n\
         /// the program unpruned copies make.\n\
         const COPIES: &[(&str, usize, &str, &str)] = &[\n{copies}];"
    )
    .unwrap();
    remove_stale(&out_dir.join("blocks"), &written);
    remove_stale(&out_dir.join("unpruned"), &written);
    write_if_changed(&out_dir.join("book_tests.rs"), &tests);
    write_if_changed(&out_dir.join("copies.tsv"), &index);
}

fn fail(failures: &[String]) -> ! {
    for failure in failures {
        eprintln!("error: {failure}");
    }
    process::exit(1)
}

/// Each chapter of the book as `(path under src/, as written, as mdBook
/// renders it, as it renders with unpruned copies)`, in reading order;
/// `None` if mdBook's pipeline failed (then `failures` says why).
#[allow(clippy::type_complexity)]
fn expand(
    root: &Path,
    failures: &mut Vec<String>,
) -> Option<Vec<(String, String, String, String)>> {
    let mut config = match Config::from_disk(root.join("book.toml")) {
        Ok(config) => config,
        Err(e) => {
            failures.push(Error::from(e).with_file("book.toml").to_string());
            return None;
        }
    };
    // Loading must never write: mdBook would create a chapter that
    // SUMMARY.md names and that does not exist.
    config.build.create_missing = false;
    let md = match MDBook::load_with_config(root, config.clone()) {
        Ok(md) => md,
        Err(e) => {
            failures.push(format!("mdBook cannot load the book: {e:#}"));
            return None;
        }
    };
    let src = md.source_dir();
    // The chapters as written. The preprocessor, below, checks their
    // includes: a missing file or anchor fails it, naming the chapter and
    // line.
    let originals = chapter_texts(&md.book);
    let ctx = PreprocessorContext::new(root.to_path_buf(), config, "html".into());
    let mut unpruned = md.book.clone();
    let book = match AsyncBook.run(&ctx, md.book) {
        Ok(book) => book,
        Err(e) => {
            failures.push(format!("{e:#}"));
            return None;
        }
    };
    // After the book as readers get it, so that an author's mistake is
    // reported as that pass reports it.
    if let Err(e) = process_with(root, &src, &mut unpruned, Copies::Unpruned) {
        failures.push(format!("unpruned copies: {e}"));
        return None;
    }
    let unpruned = match LinkPreprocessor::new().run(&ctx, unpruned) {
        Ok(book) => book,
        Err(e) => {
            failures.push(format!(
                "unpruned copies: mdBook's links preprocessor: {e:#}"
            ));
            return None;
        }
    };
    // mdBook logs what it cannot include, and carries on: collect the log.
    let log = Arc::new(Mutex::new(Vec::new()));
    let book: mdbook_driver::errors::Result<Book> =
        tracing::subscriber::with_default(Log(Arc::clone(&log)), || {
            LinkPreprocessor::new().run(&ctx, book)
        });
    let book = match book {
        Ok(book) => book,
        Err(e) => {
            failures.push(format!("mdBook's links preprocessor: {e:#}"));
            return None;
        }
    };
    for line in log.lock().unwrap().iter() {
        failures.push(format!("mdBook's links preprocessor: {line}"));
    }
    if !failures.is_empty() {
        return None;
    }
    let contents =
        |book: &Book| -> BTreeMap<String, String> { chapter_texts(book).into_iter().collect() };
    let (expanded, unpruned) = (contents(&book), contents(&unpruned));
    Some(
        originals
            .into_iter()
            .map(|(path, original)| {
                let (expanded, unpruned) = (expanded[&path].clone(), unpruned[&path].clone());
                (path, original, expanded, unpruned)
            })
            .collect(),
    )
}

/// Where each rust block of the rendered chapter comes from, in order: the
/// test name and the byte offset (in the chapter as written) of the fence,
/// or of the `{{#listings}}` directive that writes it. An error is at its
/// line of `original`.
fn origins(root: &Path, original: &str) -> Result<Vec<(String, usize)>, Error> {
    let mut origins: Vec<(usize, String)> = rust_blocks(original)?
        .into_iter()
        .map(|block| {
            (
                block.offset,
                format!("line_{}", line_of(original, block.offset)),
            )
        })
        .collect();
    for directive in directives(original) {
        if directive.name != listing_files::DIRECTIVE {
            continue;
        }
        let files = listing_files::files(root, directive.args)
            .map_err(|e| Error::at(original, directive.range.start, e))?;
        for (file, shown) in files {
            if shown != Shown::Text {
                origins.push((directive.range.start, ident(&listing_anchor(&file))));
            }
        }
    }
    // A stable sort keeps each directive's files in their order.
    origins.sort_by_key(|(offset, _)| *offset);
    Ok(origins
        .into_iter()
        .map(|(offset, name)| (name, offset))
        .collect())
}

/// A `tracing` subscriber that keeps the warnings and errors mdBook logs.
struct Log(Arc<Mutex<Vec<String>>>);

impl tracing::Subscriber for Log {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= tracing::Level::WARN
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Message(String);
        impl tracing::field::Visit for Message {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                }
            }
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        self.0
            .lock()
            .unwrap()
            .push(format!("{}: {}", event.metadata().level(), message.0));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// One test per chapter, `parity::<chapter>`: both editions must exist, have
/// the same sections (heading ids) and hold the same rust blocks (same
/// programs, same modes, same order).
fn write_parity_tests(tests: &mut String, editions: &Editions) {
    writeln!(tests, "mod parity {{\n    use super::*;").unwrap();
    for (name, by_lang) in editions {
        let list = |lang: &str| match by_lang.get(lang) {
            None => "None".to_owned(),
            Some(edition) => {
                let items: Vec<String> = edition
                    .blocks
                    .iter()
                    .map(|(test, mode, file)| {
                        let file = file.display().to_string();
                        format!("({test:?}, {mode}, include_str!({file:?}))")
                    })
                    .collect();
                format!(
                    "Some((&{:?}, &[{}]))",
                    edition.heading_ids,
                    items.join(", ")
                )
            }
        };
        writeln!(
            tests,
            "    #[test]\n    fn {}() {{\n        same_blocks({name:?}, {}, {});\n    }}",
            ident(name),
            list("ja"),
            list("zh"),
        )
        .unwrap();
    }
    writeln!(tests, "}}").unwrap();
}

/// The lines of a block the reader sees without the eye button: those
/// that mdBook does not hide (`# x`, a lone `#`).
fn shown_lines(body: &str) -> Vec<&str> {
    body.lines()
        .filter(|line| {
            let rest = line.trim_start();
            !(rest == "#" || rest.starts_with("# "))
        })
        .collect()
}

/// A Rust identifier for a file stem such as `ch01-future-trait`.
fn ident(stem: &str) -> String {
    let ident: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{ident}")
    } else {
        ident
    }
}

/// Writing an unchanged file would update its time and make cargo rebuild
/// (and rerun this script) for nothing.
fn write_if_changed(path: &Path, content: &str) {
    if fs::read_to_string(path).is_ok_and(|old| old == content) {
        return;
    }
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

/// Deletes program files of blocks that no longer exist.
fn remove_stale(dir: &Path, keep: &BTreeSet<PathBuf>) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            remove_stale(&path, keep);
        } else if !keep.contains(&path) {
            let _ = fs::remove_file(path);
        }
    }
}
