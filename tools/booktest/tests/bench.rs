//! Chapter 10 shows only the run's numbers and charts: every
//! `{{#bench …}}` of both editions names a measure of
//! `data/bench/results.toml`, the chapter types no measured number itself,
//! and each edition's chart links name that edition's charts, which exist.
//! (The book's build fails on an unknown id too, naming the chapter and
//! line; these say so before a build. That the results file and the
//! charts are what the committed run gives is `bench-report`'s test,
//! `tools/bench-report/tests/committed.rs`.)

mod common;

use common::root;
use mdbook_asyncbook::Error;
use mdbook_asyncbook::bench::{self, CHART_DIR, Results};
use std::path::PathBuf;

/// Chapter 10, in both editions.
const CHAPTER_10: [&str; 2] = ["src/ja/ch10-measuring.md", "src/zh/ch10-measuring.md"];

/// Every chapter of both editions: `(edition, src/<edition>/<file>, text)`.
fn chapters() -> Vec<(&'static str, String, String)> {
    let mut out = Vec::new();
    for edition in ["ja", "zh"] {
        let dir = root().join("src").join(edition);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        files.sort();
        for file in files {
            let name = format!(
                "src/{edition}/{}",
                file.file_name().unwrap().to_string_lossy()
            );
            out.push((edition, name, std::fs::read_to_string(&file).unwrap()));
        }
    }
    out
}

#[test]
fn every_bench_directive_of_both_editions_names_a_measure() {
    let results = Results::load(&root()).unwrap();
    let mut problems = Vec::new();
    for (_, file, text) in chapters() {
        if let Err(e) = bench::expand(&text, results.as_ref()) {
            problems.push(e.with_file(&file).to_string());
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A measured number typed into chapter 10 would not change with the next
/// run. Its fixed facts (parameters, goals) are listed in
/// `bench::FIXED_NUMBERS`.
#[test]
fn chapter_10_types_no_number_with_a_unit() {
    let mut problems = Vec::new();
    for file in CHAPTER_10 {
        let Ok(text) = std::fs::read_to_string(root().join(file)) else {
            continue;
        };
        for (offset, written) in bench::typed_numbers(&text) {
            problems.push(
                Error::at(&text, offset, format!("`{written}`"))
                    .with_file(file)
                    .to_string(),
            );
        }
    }
    assert!(
        problems.is_empty(),
        "numbers with a unit typed by hand: write {{{{#bench ID}}}} (or, for a fixed fact, \
         add it to bench::FIXED_NUMBERS):\n{}",
        problems.join("\n")
    );
}

/// A chapter links its own edition's chart, `../charts/<edition>/<name>.svg`
/// (drawn with the edition's words), and the chart exists.
#[test]
fn chart_links_name_charts_of_their_edition_that_exist() {
    let mut problems = Vec::new();
    // Each edition's charts that some chapter links (chapter 11 shows
    // some of chapter 10's charts again).
    let mut linked = std::collections::BTreeSet::new();
    for (edition, file, text) in chapters() {
        for (offset, _) in text.match_indices("../charts/") {
            let rest = &text[offset + "../charts/".len()..];
            let link_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_-/.".contains(c)))
                .unwrap_or(rest.len());
            let link = &rest[..link_len];
            let at = |message: String| {
                Error::at(&text, offset, message)
                    .with_file(&file)
                    .to_string()
            };
            let own = format!("{edition}/");
            let Some(name) = link.strip_prefix(&own).and_then(|l| l.strip_suffix(".svg")) else {
                problems.push(at(format!(
                    "`../charts/{link}` is not `../charts/{edition}/<name>.svg`"
                )));
                continue;
            };
            linked.insert(link.to_owned());
            if name.contains('/') || !root().join(CHART_DIR).join(link).is_file() {
                problems.push(at(format!(
                    "{CHART_DIR}/{link} does not exist (no measures for it?)"
                )));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Both editions show every chart.
    let mut drawn = std::collections::BTreeSet::new();
    for edition in ["ja", "zh"] {
        let dir = std::fs::read_dir(root().join(CHART_DIR).join(edition)).unwrap();
        for entry in dir {
            let name = entry.unwrap().file_name().into_string().unwrap();
            drawn.insert(format!("{edition}/{name}"));
        }
    }
    assert_eq!(linked, drawn, "every chart linked, in both editions");
}

/// `{{#bench ID ci}}` groups thousands as the charts do: the plug-in's
/// separator is the one `data/bench/labels.toml` gives each edition.
#[test]
fn intervals_group_thousands_as_the_charts_do() {
    let text = std::fs::read_to_string(root().join("data/bench/labels.toml")).unwrap();
    let labels: toml::Table = toml::from_str(&text).unwrap();
    let thousands = &labels["format"]["thousands"];
    for edition in ["ja", "zh"] {
        assert_eq!(
            thousands[edition].as_str(),
            Some(bench::THOUSANDS),
            "format.thousands.{edition} of data/bench/labels.toml against bench::THOUSANDS"
        );
    }
}
