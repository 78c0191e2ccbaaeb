//! The glossary check: prose in each edition uses the glossary's terms, not
//! their stray variants. It reads the project's own data, `data/glossary.toml`.

mod common;

use std::collections::{BTreeSet, HashMap};

use mdbook_asyncbook::appendix::{self, Chapter};
use mdbook_asyncbook::edition::Edition;
use mdbook_asyncbook::markdown::prose;
use mdbook_asyncbook::{Error, data};

/// Where in `text` a stray `variant` stands on its own, that is, not as part
/// of one of the `accepted` spellings at that place.
fn strays(text: &str, variant: &str, accepted: &[&str]) -> Vec<usize> {
    // Most runs of prose hold no variant at all: look for it first.
    if !text.contains(variant) {
        return Vec::new();
    }
    let covered: Vec<(usize, usize)> = accepted
        .iter()
        .filter(|a| !a.is_empty())
        .flat_map(|a| text.match_indices(a).map(|(at, m)| (at, at + m.len())))
        .collect();
    text.match_indices(variant)
        .map(|(at, _)| at)
        .filter(|&at| {
            !covered
                .iter()
                .any(|&(s, e)| s <= at && at + variant.len() <= e)
        })
        .collect()
}

#[test]
fn a_variant_inside_the_accepted_term_is_not_a_stray() {
    // "エグゼキュータ" is a stray, but also the start of "エグゼキューター".
    let text = "エグゼキューターとエグゼキュータ";
    assert_eq!(
        strays(text, "エグゼキュータ", &["エグゼキューター"]),
        ["エグゼキューターと".len()]
    );
    assert!(strays("唤醒器", "唤醒", &["唤醒器"]).is_empty());
}

#[test]
fn the_data_is_complete() {
    let glossary = data::glossary(&common::root()).unwrap();
    let mut ids = std::collections::HashSet::new();
    for term in &glossary.term {
        assert!(ids.insert(&term.id), "term `{}` twice", term.id);
        for edition in Edition::ALL {
            let text = term.text(edition);
            let dir = edition.dir();
            assert!(
                !text.term.trim().is_empty() && !text.term.contains("TODO"),
                "term `{}`: no {dir} rendering",
                term.id
            );
            let definition = text.definition.trim();
            assert!(
                !definition.is_empty() && !definition.contains("TODO"),
                "term `{}`: no {dir} definition",
                term.id
            );
            for variant in &text.variants {
                assert!(
                    !text.accepted().iter().any(|a| a == variant),
                    "term `{}`: {dir} variant `{variant}` is also accepted",
                    term.id
                );
            }
        }
    }
}

#[test]
fn prose_uses_the_glossary_terms_not_their_variants() {
    let glossary = data::glossary(&common::root()).unwrap();
    let mut found = Vec::new();
    for edition in Edition::ALL {
        let texts: Vec<_> = glossary.term.iter().map(|t| (t, t.text(edition))).collect();
        // Each variant with the spellings accepted where it occurs.
        let variants: Vec<_> = texts
            .iter()
            .flat_map(|(term, text)| {
                let accepted = text.accepted();
                text.variants
                    .iter()
                    .map(move |variant| (*term, text, variant, accepted.clone()))
            })
            .collect();
        // The variants by their first character, to find in one pass over
        // a chapter which of them it spells at all (even inside an
        // accepted term): most chapters spell few of them.
        let mut by_first: HashMap<char, Vec<usize>> = HashMap::new();
        for (index, (_, _, variant, _)) in variants.iter().enumerate() {
            if let Some(first) = variant.chars().next() {
                by_first.entry(first).or_default().push(index);
            }
        }
        for (file, text) in common::chapters(edition) {
            let mut spelled = BTreeSet::new();
            for (at, c) in text.char_indices() {
                for &index in by_first.get(&c).into_iter().flatten() {
                    if text[at..].starts_with(variants[index].2.as_str()) {
                        spelled.insert(index);
                    }
                }
            }
            let runs = prose(&text);
            for (term, term_text, variant, accepted) in spelled.into_iter().map(|i| &variants[i]) {
                for (line, run) in &runs {
                    for _ in strays(run, variant, accepted) {
                        found.push(
                            Error::located(
                                format!("src/{}/{file}", edition.dir()),
                                *line,
                                format!(
                                    "`{variant}` — the glossary says `{}` ({})",
                                    term_text.term, term.en
                                ),
                            )
                            .to_string(),
                        );
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "stray terms:\n{}", found.join("\n"));
}

#[test]
fn every_term_is_used_by_a_chapter() {
    // Every chapter is written: appendix A's "first used" column links a
    // chapter for every term, never the placeholder for chapters to come.
    let glossary = data::glossary(&common::root()).unwrap();
    for edition in Edition::ALL {
        let chapters: Vec<Chapter> = common::chapters(edition)
            .into_iter()
            .map(|(file, content)| Chapter {
                path: format!("{}/{file}", edition.dir()),
                name: file,
                content,
            })
            .collect();
        let table = appendix::glossary(&glossary, edition, &chapters);
        let unused: Vec<&str> = table
            .lines()
            .filter(|line| line.contains(edition.words().not_yet))
            .collect();
        assert!(
            unused.is_empty(),
            "{}: terms no chapter uses: {unused:?}",
            edition.dir()
        );
    }
}
