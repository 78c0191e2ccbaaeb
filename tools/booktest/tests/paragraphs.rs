//! One idea per paragraph: no paragraph or list item of prose is longer
//! than [`LIMIT`] characters, counted without white space, outside code
//! blocks and tables, in either edition. A reader who meets a wall of text
//! skims it; evidence that needs room goes in a table or an aside. Every
//! chapter and appendix of both editions, since each has had its
//! editorial pass.

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

#[test]
fn no_paragraph_or_list_item_is_longer_than_the_limit() {
    let mut problems = Vec::new();
    for edition in Edition::ALL {
        for (name, text) in common::chapters(edition) {
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
