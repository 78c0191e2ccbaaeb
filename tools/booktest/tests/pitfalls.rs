//! Every section, test and file `data/pitfalls.toml` names exists, and each
//! edition has its words for every pitfall.

mod common;

use mdbook_asyncbook::data;
use mdbook_asyncbook::edition::Edition;
use mdbook_asyncbook::markdown::headings;

#[test]
fn every_pitfall_points_at_things_that_exist() {
    let root = common::root();
    let pitfalls = data::pitfalls(&root).unwrap();
    assert!(!pitfalls.pitfall.is_empty());
    let mut ids = std::collections::HashSet::new();
    for pitfall in &pitfalls.pitfall {
        let id = &pitfall.id;
        assert!(ids.insert(id), "pitfall `{id}` twice");
        for edition in Edition::ALL {
            let path = root
                .join("src")
                .join(edition.dir())
                .join(format!("{}.md", pitfall.chapter));
            let chapter = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("pitfall `{id}`: {}: {e}", path.display()));
            assert!(
                headings(&chapter)
                    .iter()
                    .any(|(h, _)| *h == pitfall.section),
                "pitfall `{id}`: {} has no heading {{#{}}}",
                path.display(),
                pitfall.section
            );
            let text = pitfall.text(edition);
            for (what, value) in [
                ("title", &text.title),
                ("symptom", &text.symptom),
                ("fix", &text.fix),
            ] {
                let value = value.trim();
                assert!(
                    !value.is_empty() && !value.contains("TODO"),
                    "pitfall `{id}`: no {} {what}",
                    edition.dir()
                );
            }
        }
        // Appendix B says so: every bug is shown happening, by a test or by
        // a program the compiler refuses, and its fix is checked.
        assert!(
            pitfall.tests.iter().any(|t| t.shows == data::Shows::Bug)
                || !pitfall.compile_fail.is_empty(),
            "pitfall `{id}`: no test that shows the bug, and no program that fails to compile"
        );
        assert!(
            pitfall.tests.iter().any(|t| t.shows == data::Shows::Fix),
            "pitfall `{id}`: no test of the fix"
        );
        for test in &pitfall.tests {
            let source = std::fs::read_to_string(root.join(&test.file))
                .unwrap_or_else(|e| panic!("pitfall `{id}`: {}: {e}", test.file));
            let definition = format!("fn {}()", test.name);
            assert!(
                source.contains(&definition),
                "pitfall `{id}`: no `{definition}` in {}",
                test.file
            );
            // The crate names its loom tests `loom_…`; they are built only
            // with --cfg loom, and their command says so.
            assert_eq!(
                test.loom,
                test.name.starts_with("loom_"),
                "pitfall `{id}`: `loom` of {}",
                test.name
            );
        }
        for program in &pitfall.compile_fail {
            assert!(
                program.starts_with("listings/compile_fail/") && root.join(program).is_file(),
                "pitfall `{id}`: {program}"
            );
        }
    }
}

#[test]
fn pitfalls_come_in_the_order_of_the_chapters_that_show_them() {
    // Chapter files are named `chNN-…`: their names sort in reading order.
    let pitfalls = data::pitfalls(&common::root()).unwrap();
    let chapters: Vec<&str> = pitfalls
        .pitfall
        .iter()
        .map(|p| p.chapter.as_str())
        .collect();
    let mut sorted = chapters.clone();
    sorted.sort();
    assert_eq!(chapters, sorted, "data/pitfalls.toml");
}
