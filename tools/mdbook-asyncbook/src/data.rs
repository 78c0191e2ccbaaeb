//! The appendices' data, `data/glossary.toml`, `data/pitfalls.toml` and
//! `data/listings.toml`: one entry per term, bug or listing file, with the
//! text of both editions side by side, so a later chapter adds its terms,
//! bugs and files in one place.

use crate::edition::Edition;
use crate::{Error, Result};
use serde::Deserialize;
use std::path::Path;

/// `data/glossary.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Glossary {
    pub term: Vec<Term>,
}

/// One concept, and how each edition names it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Term {
    /// The anchor on the glossary page is `term-<id>`.
    pub id: String,
    pub en: String,
    pub ja: TermText,
    pub zh: TermText,
}

/// A term in one edition.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermText {
    /// The rendering the glossary fixes, as it appears in prose.
    pub term: String,
    /// The Rust name shown beside it, if any (`Waker`).
    #[serde(default)]
    pub code: Option<String>,
    /// Other spellings prose may use (inflections, the two halves of a pair).
    #[serde(default)]
    pub forms: Vec<String>,
    /// Stray renderings prose must not use (the glossary check rejects them).
    #[serde(default)]
    pub variants: Vec<String>,
    /// One to three sentences, Markdown inline.
    pub definition: String,
}

impl Term {
    pub fn text(&self, edition: Edition) -> &TermText {
        match edition {
            Edition::Ja => &self.ja,
            Edition::Zh => &self.zh,
        }
    }
}

impl TermText {
    /// Every accepted spelling: the term, its halves when it is a pair
    /// ("A / B"), and the listed forms.
    pub fn accepted(&self) -> Vec<&str> {
        let mut all: Vec<&str> = vec![self.term.as_str()];
        all.extend(self.term.split(" / ").map(str::trim));
        all.extend(self.forms.iter().map(String::as_str));
        all
    }
}

/// `data/pitfalls.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pitfalls {
    pub pitfall: Vec<Pitfall>,
}

/// A bug the book shows on purpose.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pitfall {
    /// The anchor on the pitfalls page is `pitfall-<id>`.
    pub id: String,
    /// The chapter file's stem (`ch02-wakers-and-timer`), the same in both editions.
    pub chapter: String,
    /// The id of the heading of the section that shows the bug.
    pub section: String,
    /// Tests that make the bug happen or check its fix.
    #[serde(default)]
    pub tests: Vec<TestRef>,
    /// Programs in `listings/compile_fail/` that show the compiler refusing it.
    #[serde(default)]
    pub compile_fail: Vec<String>,
    pub ja: PitfallText,
    pub zh: PitfallText,
}

impl Pitfall {
    pub fn text(&self, edition: Edition) -> &PitfallText {
        match edition {
            Edition::Ja => &self.ja,
            Edition::Zh => &self.zh,
        }
    }
}

/// A test in the listings crate.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestRef {
    /// The file it is in, from the repository root.
    pub file: String,
    /// The test function's name.
    pub name: String,
    /// `bug`: the test makes the bug happen; `fix`: it checks the fix.
    pub shows: Shows,
    /// Built only with `--cfg loom`.
    #[serde(default)]
    pub loom: bool,
}

#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Shows {
    Bug,
    Fix,
}

impl TestRef {
    /// The command that runs just this test.
    pub fn command(&self) -> String {
        if self.loom {
            format!(
                "RUSTFLAGS=\"--cfg loom\" cargo test -p listings --release --lib {}",
                self.name
            )
        } else {
            format!("cargo test -p listings {}", self.name)
        }
    }
}

/// A pitfall in one edition.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PitfallText {
    pub title: String,
    pub symptom: String,
    pub fix: String,
}

fn load<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::in_file(path.display(), e))?;
    toml::from_str(&text).map_err(|e| Error::in_file(path.display(), e))
}

/// Reads `data/glossary.toml` under the book's root.
pub fn glossary(root: &Path) -> Result<Glossary> {
    load(&root.join("data/glossary.toml"))
}

/// Reads `data/pitfalls.toml` under the book's root.
pub fn pitfalls(root: &Path) -> Result<Pitfalls> {
    load(&root.join("data/pitfalls.toml"))
}

/// Reads `data/listings.toml` under the book's root.
pub fn listings(root: &Path) -> Result<Listings> {
    load(&root.join("data/listings.toml"))
}

/// `data/listings.toml`: what appendix C says of each listing file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Listings {
    pub file: Vec<ListingFile>,
}

/// One file of the listings crate, described in each edition.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListingFile {
    /// From the repository root: `listings/src/timer.rs`.
    pub path: String,
    /// A sentence or two of Markdown: what the file holds and where the
    /// book explains it.
    pub ja: String,
    pub zh: String,
    /// The program waits for input (or runs until stopped): appendix C
    /// shows it `no_run`, compiled but not run, as its chapter does.
    #[serde(default)]
    pub no_run: bool,
}

impl ListingFile {
    pub fn text(&self, edition: Edition) -> &str {
        match edition {
            Edition::Ja => &self.ja,
            Edition::Zh => &self.zh,
        }
    }
}
