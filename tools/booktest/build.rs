//! Generates one test per ```rust block of both editions.
//!
//! Each chapter is expanded the way mdBook expands it, each block becomes a
//! program file in `OUT_DIR/blocks/<lang>/<chapter>/line_<N>.rs`, and
//! `OUT_DIR/book_tests.rs` gets a test named `<lang>::<chapter>::line_<N>`
//! that compiles and runs it through skeptic (see `tests/book.rs`). Files
//! are only written when their content changes, so an unchanged book does
//! not rebuild the tests.

#[path = "src/blocks.rs"]
mod blocks;
#[path = "src/expand.rs"]
mod expand;

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process;

use blocks::{Mode, heading_ids, rust_blocks};

/// What the parity tests compare between the two editions of a chapter.
#[derive(Default)]
struct Edition {
    heading_ids: Vec<String>,
    /// Each rust block's line, mode and program file.
    blocks: Vec<(usize, String, PathBuf)>,
}

/// Chapter -> language -> its edition.
type Editions = BTreeMap<String, BTreeMap<&'static str, Edition>>;

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.join("../..").canonicalize().unwrap();
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!(
        "cargo:rustc-env=BOOKTEST_TARGET={}",
        env::var("TARGET").unwrap()
    );
    for own in ["build.rs", "src/blocks.rs", "src/expand.rs"] {
        println!("cargo:rerun-if-changed={own}");
    }
    // A directory is watched as a whole: new chapters count too.
    println!("cargo:rerun-if-changed={}", root.join("src").display());

    let mut tests = String::new();
    let mut written = BTreeSet::new();
    let mut watched = BTreeSet::new();
    let mut failures = Vec::new();
    let mut editions = Editions::new();
    // `book` is the pages outside the editions (the landing page); they have
    // no counterpart, so no parity test.
    for lang in ["book", "ja", "zh"] {
        writeln!(tests, "mod {lang} {{").unwrap();
        let dir = match lang {
            "book" => root.join("src"),
            _ => root.join("src").join(lang),
        };
        for chapter in chapters(&dir) {
            let name = chapter.file_stem().unwrap().to_str().unwrap().to_owned();
            let shown = chapter.strip_prefix(&root).unwrap().display().to_string();
            let at = |e: expand::Error| format!("{shown}:{}: {}", e.line, e.message);
            let text = fs::read_to_string(&chapter).unwrap();
            let expanded = match expand::expand(&text, chapter.parent().unwrap()) {
                Ok(expanded) => expanded,
                Err(e) => {
                    failures.push(at(e));
                    continue;
                }
            };
            watched.extend(expanded.files_read.iter().cloned());
            let blocks = match rust_blocks(&expanded) {
                Ok(blocks) => blocks,
                Err(e) => {
                    failures.push(at(e));
                    continue;
                }
            };
            let mut no_parity = Edition::default();
            let parity = match lang {
                "book" => &mut no_parity,
                _ => editions
                    .entry(name.clone())
                    .or_default()
                    .entry(lang)
                    .or_default(),
            };
            match heading_ids(&expanded) {
                Ok(ids) => parity.heading_ids = ids,
                Err(e) => failures.push(at(e)),
            }
            if blocks.is_empty() {
                continue;
            }
            writeln!(
                tests,
                "    mod {} {{\n        use super::super::*;",
                ident(&name)
            )
            .unwrap();
            for block in blocks {
                let file = out_dir
                    .join("blocks")
                    .join(lang)
                    .join(&name)
                    .join(format!("line_{}.rs", block.line));
                let mode = match &block.mode {
                    Mode::Run => "Mode::Run".to_owned(),
                    Mode::NoRun => "Mode::NoRun".to_owned(),
                    Mode::ShouldPanic => "Mode::ShouldPanic".to_owned(),
                    Mode::CompileFail(codes) => format!("Mode::CompileFail(&{codes:?})"),
                };
                write_if_changed(&file, &block.program);
                written.insert(file.clone());
                parity.blocks.push((block.line, mode.clone(), file.clone()));
                writeln!(
                    tests,
                    "        /// `{shown}`, line {line}\n        #[test]\n        fn line_{line}() {{\n            check(&Block {{\n                chapter: {shown:?},\n                line: {line},\n                mode: {mode},\n                program_file: {file:?},\n                program: include_str!({file:?}),\n            }});\n        }}",
                    line = block.line,
                    file = file.display().to_string(),
                )
                .unwrap();
            }
            writeln!(tests, "    }}").unwrap();
        }
        writeln!(tests, "}}").unwrap();
    }
    write_parity_tests(&mut tests, &editions);
    if !failures.is_empty() {
        for failure in &failures {
            eprintln!("error: {failure}");
        }
        process::exit(1);
    }
    for file in &watched {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    remove_stale(&out_dir.join("blocks"), &written);
    write_if_changed(&out_dir.join("book_tests.rs"), &tests);
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
                    .map(|(line, mode, file)| {
                        let file = file.display().to_string();
                        format!("({line}, {mode}, include_str!({file:?}))")
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

/// The pages in `dir` (not below it), in a stable order. `SUMMARY.md` is
/// the table of contents, not a page.
fn chapters(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .filter(|path| !path.ends_with("SUMMARY.md"))
        .collect();
    files.sort();
    files
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
