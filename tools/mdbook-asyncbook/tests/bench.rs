//! Chapter 10's numbers and charts come from one run, and nobody edits
//! them by hand: `data/bench/results.toml` is in the form the report
//! writes and is what collecting the run's own files in `data/bench/raw/`
//! gives; the committed charts are what the renderer makes of it now;
//! every `{{#bench …}}` of both editions names a measure it has; the
//! chapter types no measured number itself; and its chart links name
//! charts that exist. (The book's build fails on an unknown id too, naming
//! the chapter and line; these say so before a build.)

use mdbook_asyncbook::bench::{self, Bundle, CHART_DIR, CHARTS, RAW_DIR, RESULTS, Results};
use mdbook_asyncbook::markdown::line_of;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Chapter 10, in both editions.
const CHAPTER_10: [&str; 2] = ["src/ja/ch10-measuring.md", "src/zh/ch10-measuring.md"];

/// The `.svg` files of `src/charts/`, by file name.
fn committed_charts() -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(root().join(CHART_DIR)) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// Every chapter of both editions: `(src/<edition>/<file>, text)`.
fn chapters() -> Vec<(String, String)> {
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
            out.push((name, std::fs::read_to_string(&file).unwrap()));
        }
    }
    out
}

#[test]
fn the_results_file_is_in_the_form_the_report_writes() {
    let path = root().join(RESULTS);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let results = Results::parse(&text).unwrap();
    assert!(
        results.to_toml() == text,
        "{RESULTS} is not what the report writes (edited by hand, or written by an older \
         report): run `{}` to write it again from {RAW_DIR}/",
        bench::REPORT_COMMAND
    );
}

#[test]
fn the_results_are_what_the_runs_own_files_collect_to() {
    let Some(results) = Results::load(&root()).unwrap() else {
        assert!(
            !root().join(RAW_DIR).exists(),
            "{RAW_DIR}/ exists but {RESULTS} does not"
        );
        return;
    };
    let raw = root().join(RAW_DIR);
    assert!(
        raw.is_dir(),
        "{RESULTS} exists but {RAW_DIR}/, the run's files it was collected from, does not: \
         run `{} --measure`",
        bench::REPORT_COMMAND
    );
    let collected = bench::collect(&Bundle::read(&raw).unwrap()).unwrap();
    let machine = collected
        .machine
        .unwrap_or_else(|| panic!("{RAW_DIR}/ has no machine.json"));
    let again = Results::new(machine, collected.measures).unwrap();
    assert!(
        again.to_toml() == results.to_toml(),
        "{RESULTS} differs from what {RAW_DIR}/ collects to (one of them edited by hand): \
         run `{}` again",
        bench::REPORT_COMMAND
    );
}

#[test]
fn the_charts_are_what_the_results_draw_now() {
    let committed = committed_charts();
    let Some(results) = Results::load(&root()).unwrap() else {
        assert!(
            committed.is_empty(),
            "{CHART_DIR} has charts but there is no {RESULTS} to draw them from: {:?}",
            committed.keys()
        );
        return;
    };
    let drawn: BTreeMap<String, String> = bench::render_charts(&results)
        .unwrap()
        .into_iter()
        .map(|(name, svg)| (format!("{name}.svg"), svg))
        .collect();
    let mut problems = Vec::new();
    for (name, svg) in &drawn {
        match committed.get(name) {
            None => problems.push(format!("{name} is missing")),
            Some(file) if file != svg => problems.push(format!(
                "{name} differs from what the renderer draws (edited by hand, or drawn by an older renderer)"
            )),
            Some(_) => {}
        }
    }
    for name in committed.keys() {
        if !drawn.contains_key(name) {
            problems.push(format!("{name} is not a chart the results draw"));
        }
    }
    assert!(
        problems.is_empty(),
        "{CHART_DIR}/: {}\nrun `{}` to draw them again from {RESULTS}",
        problems.join("; "),
        bench::REPORT_COMMAND
    );
}

#[test]
fn every_bench_directive_of_both_editions_names_a_measure() {
    let results = Results::load(&root()).unwrap();
    let mut problems = Vec::new();
    for (file, text) in chapters() {
        if let Err((offset, message)) = bench::expand(&text, results.as_ref()) {
            let line = line_of(&text, offset);
            problems.push(format!("{file}:{line}: {message}"));
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
            problems.push(format!("{file}:{}: `{written}`", line_of(&text, offset)));
        }
    }
    assert!(
        problems.is_empty(),
        "numbers with a unit typed by hand: write {{{{#bench ID}}}} (or, for a fixed fact, \
         add it to bench::FIXED_NUMBERS):\n{}",
        problems.join("\n")
    );
}

#[test]
fn chart_links_name_charts_that_exist() {
    let committed = committed_charts();
    let mut problems = Vec::new();
    for (file, text) in chapters() {
        for (offset, _) in text.match_indices("../charts/") {
            let rest = &text[offset + "../charts/".len()..];
            let name_len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(rest.len());
            let (name, after) = rest.split_at(name_len);
            let line = line_of(&text, offset);
            if !after.starts_with(".svg") {
                problems.push(format!("{file}:{line}: `../charts/{name}` is not an .svg"));
            } else if !CHARTS.iter().any(|c| c.name == name) {
                problems.push(format!("{file}:{line}: no chart `{name}` in bench::CHARTS"));
            } else if !committed.contains_key(&format!("{name}.svg")) {
                problems.push(format!(
                    "{file}:{line}: {CHART_DIR}/{name}.svg does not exist (no measures for it?)"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
