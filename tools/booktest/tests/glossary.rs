//! The glossary check: prose in each edition uses the glossary's terms, not
//! their stray variants. It reads the project's own data, `data/glossary.toml`.

mod common;

use mdbook_asyncbook::data;
use mdbook_asyncbook::edition::Edition;
use mdbook_asyncbook::markdown::prose;

/// Where in `text` a stray `variant` stands on its own, that is, not as part
/// of one of the `accepted` spellings at that place.
fn strays(text: &str, variant: &str, accepted: &[&str]) -> Vec<usize> {
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
        for (file, text) in common::chapters(edition) {
            for (line, run) in prose(&text) {
                for term in &glossary.term {
                    let text = term.text(edition);
                    let accepted = text.accepted();
                    for variant in &text.variants {
                        for _ in strays(&run, variant, &accepted) {
                            found.push(format!(
                                "src/{}/{file}:{line}: `{variant}` — the glossary says `{}` ({})",
                                edition.dir(),
                                text.term,
                                term.en
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "stray terms:\n{}", found.join("\n"));
}
