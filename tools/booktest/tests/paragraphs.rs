//! One idea per paragraph: no paragraph or list item of prose is longer
//! than [`LIMIT`] characters, counted without white space, outside code
//! blocks and tables, in either edition. A reader who meets a wall of text
//! skims it; evidence that needs room goes in a table or an aside.

mod common;

use mdbook_asyncbook::edition::Edition;
use mdbook_asyncbook::markdown::text_units;
use mdbook_asyncbook::{Error, data};

/// The longest paragraph or list item, in characters without white space.
const LIMIT: usize = 400;

/// The length that counts: characters other than white space.
fn length(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// The chapters the limit holds for: those that have had their editorial
/// pass. (Chapters 10 and 11 get theirs once chapter 11 has landed; each
/// joins this list then.)
const EDITED: &[&str] = &[
    "ch00-introduction.md",
    "ch01-future-trait.md",
    "ch02-wakers-and-timer.md",
    "ch03-executor.md",
    "ch04-state-machine.md",
    "ch05-waker-by-hand.md",
    "ch06-block-on.md",
    "ch07-reactor.md",
    "ch08-epoll-reactor.md",
    "ch09-mini-runtime.md",
    "appendix-glossary.md",
    "appendix-pitfalls.md",
    "appendix-listings.md",
];

/// Set (to anything) to check every chapter, edited or not: for a writer
/// in the middle of a chapter's pass.
const CHECK_ALL: &str = "PARAGRAPHS_ALL";

#[test]
fn no_paragraph_or_list_item_is_longer_than_the_limit() {
    let all = std::env::var_os(CHECK_ALL).is_some();
    let mut problems = Vec::new();
    for edition in Edition::ALL {
        for (name, text) in common::chapters(edition) {
            if !all && !EDITED.contains(&name.as_str()) {
                continue;
            }
            for unit in text_units(&text) {
                let length = length(&unit.text);
                if length > LIMIT {
                    let start: String = unit.text.trim().chars().take(30).collect();
                    problems.push(
                        Error::located(
                            format!("src/{}/{name}", edition.dir()),
                            unit.line,
                            format!("{length} characters (limit {LIMIT}): {start}…"),
                        )
                        .to_string(),
                    );
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "paragraphs or list items over the limit; split them, or move evidence into a table or an aside:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_edited_chapter_exists_in_both_editions() {
    for edition in Edition::ALL {
        let names: Vec<String> = common::chapters(edition)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        for edited in EDITED {
            assert!(
                names.iter().any(|n| n == edited),
                "src/{}/{edited} does not exist",
                edition.dir()
            );
        }
    }
}

/// The appendices' words come from data/: each definition, symptom, fix and
/// file description is a paragraph on its page, under the same limit.
#[test]
fn no_text_of_the_appendices_data_is_longer_than_the_limit() {
    let root = common::root();
    let glossary = data::glossary(&root).unwrap();
    let pitfalls = data::pitfalls(&root).unwrap();
    let listings = data::listings(&root).unwrap();
    let mut problems = Vec::new();
    // Each text is Markdown, which may hold several paragraphs; counted as
    // the page shows it (link targets are not read).
    let mut check = |place: String, text: &str| {
        for unit in text_units(text) {
            if length(&unit.text) > LIMIT {
                problems.push(format!(
                    "{place}: {} characters (limit {LIMIT})",
                    length(&unit.text)
                ));
            }
        }
    };
    for edition in Edition::ALL {
        let lang = edition.dir();
        for term in &glossary.term {
            check(
                format!("data/glossary.toml {} ({lang})", term.id),
                &term.text(edition).definition,
            );
        }
        for pitfall in &pitfalls.pitfall {
            let text = pitfall.text(edition);
            check(
                format!("data/pitfalls.toml {} symptom ({lang})", pitfall.id),
                &text.symptom,
            );
            check(
                format!("data/pitfalls.toml {} fix ({lang})", pitfall.id),
                &text.fix,
            );
        }
        for file in &listings.file {
            check(
                format!("data/listings.toml {} ({lang})", file.path),
                file.text(edition),
            );
        }
    }
    assert!(
        problems.is_empty(),
        "texts over the limit:\n{}",
        problems.join("\n")
    );
}
