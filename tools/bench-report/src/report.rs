//! Writing the report: the run's files, the results file, and every chart
//! in every edition.

use crate::bundle::Bundle;
use crate::charts::CHARTS;
use crate::labels::{Labels, Lang};
use crate::steps::{self, STEPS_CHARTS};
use crate::svg;
use bench_results::{CHART_DIR, RAW_DIR, RESULTS, Result, Results};
use std::collections::BTreeSet;
use std::path::Path;

/// A drawn chart: its edition, its name, its SVG.
#[derive(Debug, PartialEq)]
pub struct Drawn {
    /// The edition whose words it shows.
    pub lang: Lang,
    /// [`Chart::name`](crate::charts::Chart::name).
    pub name: &'static str,
    /// The SVG file's text.
    pub svg: String,
}

impl Drawn {
    /// Its file, from the repository root: `src/charts/ja/spawn.svg`.
    pub fn path(&self) -> String {
        format!("{CHART_DIR}/{}/{}.svg", self.lang.dir(), self.name)
    }
}

/// Every chart the results can draw, in every edition: by edition, then
/// in [`CHARTS`] order, then the steps charts ([`STEPS_CHARTS`]) whose
/// implementations the run has.
pub fn render_charts(results: &Results, labels: &Labels) -> Result<Vec<Drawn>> {
    let mut out = Vec::new();
    for lang in Lang::ALL {
        for chart in &CHARTS {
            if let Some(svg) = svg::render(chart, results, labels, lang)? {
                out.push(Drawn {
                    lang,
                    name: chart.name,
                    svg,
                });
            }
        }
        for chart in &STEPS_CHARTS {
            if let Some(svg) = steps::render(chart, results, labels, lang)? {
                out.push(Drawn {
                    lang,
                    name: chart.name,
                    svg,
                });
            }
        }
    }
    Ok(out)
}

/// Writes the run's files into [`RAW_DIR`] (replacing the last run's;
/// `None` when they were read from there and stay as they are),
/// [`RESULTS`] and the charts under the repository `root`, and removes
/// any other `.svg` of the charts' folders (a chart whose measures are
/// gone, or one from before the charts had an edition). Returns what it
/// wrote, one line per file or folder.
pub fn write_report(
    root: &Path,
    bundle: Option<&Bundle>,
    results: &Results,
    labels: &Labels,
) -> Result<Vec<String>> {
    let mut written = Vec::new();
    if let Some(bundle) = bundle {
        let files = bundle.write(&root.join(RAW_DIR))?;
        written.push(format!("{RAW_DIR}/: {files} files"));
    }
    let results_file = root.join(RESULTS);
    std::fs::create_dir_all(results_file.parent().expect("a folder"))?;
    std::fs::write(&results_file, results.to_toml())?;
    written.push(format!("{RESULTS}: {} measures", results.measure.len()));
    // What is written is what a reader of the file draws: render from the
    // file's text, not from the values in memory.
    let reread = Results::parse(&results.to_toml())?;
    let charts = render_charts(&reread, labels)?;
    let paths: BTreeSet<String> = charts.iter().map(Drawn::path).collect();
    let top = root.join(CHART_DIR);
    let folders = std::iter::once(top.clone()).chain(Lang::ALL.map(|lang| top.join(lang.dir())));
    for dir in folders {
        std::fs::create_dir_all(&dir)?;
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            if relative.ends_with(".svg") && !paths.contains(&relative) {
                std::fs::remove_file(&path)?;
                written.push(format!("{relative}: removed"));
            }
        }
    }
    for drawn in &charts {
        std::fs::write(root.join(drawn.path()), &drawn.svg)?;
        written.push(drawn.path());
    }
    for chart in &CHARTS {
        if !charts.iter().any(|drawn| drawn.name == chart.name) {
            written.push(format!("chart {}: not drawn, no measures", chart.name));
        }
    }
    for chart in &STEPS_CHARTS {
        let missing = chart.missing(&reread);
        if !missing.is_empty() {
            written.push(format!(
                "chart {}: not drawn, the run has no {} (chapter 11's steps)",
                chart.name,
                missing.join(", ")
            ));
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{TempDir, results, root, steps_results};

    #[test]
    fn a_report_writes_the_bundle_the_file_and_the_charts_and_removes_stale_charts() {
        let dir = TempDir::new("report");
        dir.write("src/charts/wake_many.svg", "from before the editions");
        dir.write("src/charts/ja/wake_many.svg", "old");
        dir.write("src/charts/zh/notes.txt", "not a chart");
        dir.write("data/bench/raw/criterion/old/benchmark.json", "{}");
        let bundle = Bundle {
            timers: Some("{}".into()),
            ..Bundle::default()
        };
        let labels = Labels::load(&root()).unwrap();
        let written = write_report(&dir.0, Some(&bundle), &results(), &labels).unwrap();
        assert_eq!(written[0], format!("{RAW_DIR}/: 1 files"));
        assert!(!dir.0.join(RAW_DIR).join("criterion").exists());
        for line in [
            "src/charts/wake_many.svg: removed",
            "src/charts/ja/wake_many.svg: removed",
            "chart ping_pong: not drawn, no measures",
            // A run from before chapter 11: no steps charts, said so.
            "chart steps-spawn: not drawn, the run has no book-ch10, book-ch11-step1, \
             book-ch11-step2, book-ch11 (chapter 11's steps)",
            "chart steps-timers-overhead: not drawn, the run has no book-ch09, \
             book-ch11-step1, book-ch11-step2, book-ch11 (chapter 11's steps)",
        ] {
            assert!(written.iter().any(|w| w == line), "{line} in {written:#?}");
        }
        let text = std::fs::read_to_string(dir.0.join(RESULTS)).unwrap();
        assert_eq!(text, results().to_toml());
        let list = |folder: &str| {
            let mut files: Vec<String> = std::fs::read_dir(dir.0.join(folder))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            files.sort();
            files
        };
        let drawn = [
            "block_on-once.svg",
            "echo-p99.svg",
            "echo-throughput.svg",
            "spawn.svg",
            "timers-p99.svg",
        ];
        assert_eq!(list("src/charts/ja"), drawn);
        let mut zh = drawn.map(String::from).to_vec();
        zh.push("notes.txt".into());
        zh.sort();
        assert_eq!(list("src/charts/zh"), zh);
        assert_eq!(list("src/charts"), ["ja", "zh"]);
        let spawn = std::fs::read_to_string(dir.0.join("src/charts/zh/spawn.svg")).unwrap();
        let again = render_charts(&results(), &labels).unwrap();
        let zh_spawn = again
            .iter()
            .find(|d| d.lang == Lang::Zh && d.name == "spawn")
            .unwrap();
        assert_eq!(spawn, zh_spawn.svg);
    }

    #[test]
    fn a_run_with_chapter_11s_steps_gets_a_steps_chart_per_group_and_edition() {
        let dir = TempDir::new("report-steps");
        let labels = Labels::load(&root()).unwrap();
        let written = write_report(&dir.0, None, &steps_results(), &labels).unwrap();
        assert!(
            !written.iter().any(|w| w.contains("chart steps-")),
            "{written:#?}"
        );
        for lang in Lang::ALL {
            for name in ["spawn", "ping_pong", "wake_many", "timers-overhead"] {
                let path = format!("src/charts/{}/steps-{name}.svg", lang.dir());
                assert!(written.contains(&path), "{path} in {written:#?}");
                assert!(dir.0.join(&path).exists());
            }
        }
    }
}
