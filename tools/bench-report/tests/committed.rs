//! Chapter 10's numbers and charts come from one run, and nobody edits
//! them by hand: `data/bench/results.toml` is in the form the report
//! writes and is what collecting the run's own files in `data/bench/raw/`
//! gives; the committed charts of both editions are what the renderer
//! makes of it and of `data/bench/labels.toml` now; every chart has its
//! words in both editions, and its text is in its edition's language.

use bench_report::charts::CHARTS;
use bench_report::steps::STEPS_CHARTS;
use bench_report::{Bundle, Labels, Lang, collect, render_charts};
use bench_results::{CHART_DIR, Group, RAW_DIR, REPORT_COMMAND, RESULTS, Results};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.svg` under `src/charts/`, by its path from the root.
fn committed_charts() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let top = root().join(CHART_DIR);
    let mut folders = vec![top.clone()];
    folders.extend(Lang::ALL.map(|lang| top.join(lang.dir())));
    for dir in folders {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.extension().is_some_and(|e| e == "svg") {
                let relative = path.strip_prefix(root()).unwrap();
                let text = std::fs::read_to_string(&path).unwrap();
                out.insert(relative.to_string_lossy().into_owned(), text);
            }
        }
    }
    out
}

#[test]
fn the_results_file_is_in_the_form_the_report_writes() {
    let Ok(text) = std::fs::read_to_string(root().join(RESULTS)) else {
        return;
    };
    let results = Results::parse(&text).unwrap();
    assert!(
        results.to_toml() == text,
        "{RESULTS} is not what the report writes (edited by hand, or written by an older \
         report): run `{REPORT_COMMAND}` to write it again from {RAW_DIR}/"
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
         run `{REPORT_COMMAND} --measure`"
    );
    let collected = collect(&Bundle::read(&raw).unwrap()).unwrap();
    let machine = collected
        .machine
        .unwrap_or_else(|| panic!("{RAW_DIR}/ has no machine.json"));
    let again = Results::new(machine, collected.measures).unwrap();
    assert!(
        again.to_toml() == results.to_toml(),
        "{RESULTS} differs from what {RAW_DIR}/ collects to (one of them edited by hand): \
         run `{REPORT_COMMAND}` again"
    );
}

/// Every measure of criterion's groups carries its 95 % confidence
/// interval, which holds its value; the hand-measured groups record no
/// spread and have none.
#[test]
fn every_criterion_value_lies_within_its_interval() {
    let Some(results) = Results::load(&root()).unwrap() else {
        return;
    };
    let mut problems = Vec::new();
    for m in &results.measure {
        let group = m.id.split('/').next().unwrap_or_default();
        let hand_measured = Group::HAND_MEASURED.iter().any(|g| g.name() == group);
        match (hand_measured, m.interval()) {
            (true, None) => {}
            (true, Some(_)) => problems.push(format!("{}: hand-measured, with an interval", m.id)),
            (false, None) => problems.push(format!("{}: no interval", m.id)),
            (false, Some((lower, upper))) if lower <= m.value && m.value <= upper => {}
            (false, Some((lower, upper))) => problems.push(format!(
                "{}: {} outside its interval {lower}–{upper}",
                m.id, m.value
            )),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(results.measure.iter().any(|m| m.interval().is_some()));
}

#[test]
fn the_charts_of_both_editions_are_what_the_results_and_labels_draw_now() {
    let committed = committed_charts();
    let Some(results) = Results::load(&root()).unwrap() else {
        assert!(
            committed.is_empty(),
            "{CHART_DIR} has charts but there is no {RESULTS} to draw them from: {:?}",
            committed.keys()
        );
        return;
    };
    let labels = Labels::load(&root()).unwrap();
    let drawn: BTreeMap<String, String> = render_charts(&results, &labels)
        .unwrap()
        .into_iter()
        .map(|d| (d.path(), d.svg))
        .collect();
    let mut problems = Vec::new();
    for (path, svg) in &drawn {
        match committed.get(path) {
            None => problems.push(format!("{path} is missing")),
            Some(file) if file != svg => problems.push(format!(
                "{path} differs from what the renderer draws (edited by hand, or drawn by an \
                 older renderer or older labels)"
            )),
            Some(_) => {}
        }
    }
    for path in committed.keys() {
        if !drawn.contains_key(path) {
            problems.push(format!("{path} is not a chart the results draw"));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nrun `{REPORT_COMMAND}` to draw them again from {RESULTS}",
        problems.join("\n")
    );
}

/// Chapter 11's steps charts are drawn from the committed run exactly
/// when it measured the steps of their group: a run from before chapter
/// 11 redraws without them, and one after it cannot leave them out.
#[test]
fn the_steps_charts_are_committed_exactly_when_the_run_has_the_steps() {
    let Some(results) = Results::load(&root()).unwrap() else {
        return;
    };
    let committed = committed_charts();
    for chart in &STEPS_CHARTS {
        let has_steps = chart.missing(&results).is_empty();
        for lang in Lang::ALL {
            let path = format!("{CHART_DIR}/{}/{}.svg", lang.dir(), chart.name);
            assert_eq!(
                committed.contains_key(&path),
                has_steps,
                "{path}: the run has {} of {:?}",
                if has_steps { "all" } else { "not all" },
                chart.steps
            );
        }
    }
}

#[test]
fn every_chart_has_its_words_and_every_word_a_chart() {
    let labels = Labels::load(&root()).unwrap();
    let names: Vec<&str> = CHARTS
        .iter()
        .map(|c| c.name)
        .chain(STEPS_CHARTS.iter().map(|c| c.name))
        .collect();
    let labelled: Vec<&str> = labels.chart.keys().map(String::as_str).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        labelled, sorted,
        "[chart.*] of the labels against CHARTS and STEPS_CHARTS"
    );
    // Every unit a chart can show, in either edition.
    for symbol in ["ns", "µs", "ms", "s", "MiB", "MiB/s"] {
        for lang in Lang::ALL {
            assert!(labels.unit(symbol, lang).is_ok(), "{symbol} ({lang:?})");
        }
    }
}

/// Kana, which Japanese writes and Chinese does not.
fn is_kana(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}')
}

/// CJK ideographs, which both write.
fn is_han(c: char) -> bool {
    matches!(c, '\u{4e00}'..='\u{9fff}')
}

/// The character data of an SVG: everything between `>` and `<`.
fn text_of(svg: &str) -> String {
    svg.split('>')
        .filter_map(|part| part.split_once('<').map(|(text, _)| text))
        .collect()
}

#[test]
fn each_charts_text_is_in_its_editions_language() {
    for (path, svg) in committed_charts() {
        let text = text_of(&svg);
        if path.starts_with(&format!("{CHART_DIR}/ja/")) {
            assert!(text.chars().any(is_kana), "{path}: no Japanese in {text:?}");
            assert!(svg.contains(r#"xml:lang="ja" lang="ja""#), "{path}");
            assert!(svg.contains("'Noto Sans CJK JP'"), "{path}");
        } else if path.starts_with(&format!("{CHART_DIR}/zh/")) {
            assert!(text.chars().any(is_han), "{path}: no Chinese in {text:?}");
            assert!(!text.chars().any(is_kana), "{path}: kana in {text:?}");
            assert!(svg.contains(r#"xml:lang="zh-CN" lang="zh-CN""#), "{path}");
            assert!(svg.contains("'Noto Sans CJK SC'"), "{path}");
        } else {
            panic!("{path}: a chart belongs in {CHART_DIR}/ja/ or {CHART_DIR}/zh/");
        }
    }
}

/// A number of four digits or more that is not glued to a word (`p99`,
/// `book-ch10`, `ping_pong`) must group its thousands: `10,000`.
#[test]
fn numbers_in_the_charts_group_their_thousands() {
    for (path, svg) in committed_charts() {
        let text = text_of(&svg);
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let glued =
                i > 0 && (chars[i - 1].is_ascii_alphanumeric() || "-_.,".contains(chars[i - 1]));
            if !chars[i].is_ascii_digit() || glued {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let run: String = chars[start..i].iter().collect();
            assert!(run.len() < 4, "{path}: `{run}` written without separators");
        }
    }
}
