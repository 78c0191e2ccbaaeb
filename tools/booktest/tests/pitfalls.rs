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
            assert!(
                defines_test(&source, &test.name),
                "pitfall `{id}`: no `#[test]` `fn {}()` in {}",
                test.name,
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

/// Whether `source` defines `fn name()` as a test: `#[test]` on the line
/// just above it, or above a `#[should_panic…]` that is just above it. (A
/// commented-out attribute, or none, does not count.)
fn defines_test(source: &str, name: &str) -> bool {
    let definition = format!("fn {name}()");
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    lines.iter().enumerate().any(|(i, line)| {
        if !line.starts_with(&definition) {
            return false;
        }
        let mut above = lines[..i].iter().rev();
        match above.next() {
            Some(&"#[test]") => true,
            Some(attribute) if attribute.starts_with("#[should_panic") => {
                above.next() == Some(&"#[test]")
            }
            _ => false,
        }
    })
}

#[test]
fn a_test_is_recognised_only_under_its_attribute() {
    let test = "#[test]\nfn shows() {}\n";
    assert!(defines_test(test, "shows"));
    assert!(defines_test(
        "    #[test]\n    #[should_panic(expected = \"deadlock\")]\n    fn shows() {}\n",
        "shows"
    ));
    assert!(!defines_test(test, "show"), "another name");
    assert!(!defines_test("// #[test]\nfn shows() {}\n", "shows"));
    assert!(!defines_test("fn shows() {}\n", "shows"));
    assert!(!defines_test("#[should_panic]\nfn shows() {}\n", "shows"));
    assert!(!defines_test("#[test]\n// fn shows() {}\n", "shows"));
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
