//! The files a report is made from, read from a run's target directory
//! or from the copy kept in `data/bench/raw/`.

use bench_results::raw::{Echo, RawFile, Timers};
use bench_results::{Machine, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// The files a report is made from: what a run left in the target
/// directory (`criterion/**/new/{benchmark,estimates}.json`,
/// `bench-raw/{timers,echo,machine}.json`), or the copy of them kept in
/// `data/bench/raw/` (`criterion/<group>/<impl>/<case>/{benchmark,estimates}.json`,
/// `timers.json`, `echo.json`, `machine.json`). Only those: criterion's
/// reports, samples and baselines stay behind, and so does `bench-raw/quick/`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Bundle {
    /// criterion's `benchmark.json` and `estimates.json`, by the
    /// benchmark's folder under `criterion/` (`spawn/tokio/100000`).
    pub criterion: BTreeMap<String, [String; 2]>,
    /// `timers.json`.
    pub timers: Option<String>,
    /// `echo.json`.
    pub echo: Option<String>,
    /// `machine.json`.
    pub machine: Option<String>,
}

impl Bundle {
    /// What a run left in the `target` directory.
    pub fn from_target(target: &Path) -> Result<Bundle> {
        let mut bundle = Bundle::default();
        let criterion = target.join("criterion");
        if criterion.is_dir() {
            // criterion keeps `new/` (this run), `base/` (the saved
            // baseline) and `change/`: only `new/` counts.
            find_criterion(&criterion, "", "new", &mut bundle.criterion)?;
        }
        bundle.read_raw_files(&target.join("bench-raw"))?;
        Ok(bundle)
    }

    /// The copy written by [`Bundle::write`].
    pub fn read(dir: &Path) -> Result<Bundle> {
        if !dir.is_dir() {
            return Err(format!("{}: no such folder", dir.display()).into());
        }
        let mut bundle = Bundle::default();
        let criterion = dir.join("criterion");
        if criterion.is_dir() {
            find_criterion(&criterion, "", "", &mut bundle.criterion)?;
        }
        bundle.read_raw_files(dir)?;
        Ok(bundle)
    }

    /// Reads `timers.json`, `echo.json` and `machine.json` from `dir`,
    /// those that are there.
    fn read_raw_files(&mut self, dir: &Path) -> Result<()> {
        self.timers = read_if_present(&dir.join(Timers::FILE))?;
        self.echo = read_if_present(&dir.join(Echo::FILE))?;
        self.machine = read_if_present(&dir.join(Machine::FILE))?;
        Ok(())
    }

    /// Replaces `dir` with these files; returns how many it wrote.
    pub fn write(&self, dir: &Path) -> Result<usize> {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(dir)?;
        let mut files = 0;
        for (folder, [benchmark, estimates]) in &self.criterion {
            let folder = dir.join("criterion").join(folder);
            std::fs::create_dir_all(&folder)?;
            std::fs::write(folder.join("benchmark.json"), benchmark)?;
            std::fs::write(folder.join("estimates.json"), estimates)?;
            files += 2;
        }
        for (name, text) in [
            (Timers::FILE, &self.timers),
            (Echo::FILE, &self.echo),
            (Machine::FILE, &self.machine),
        ] {
            if let Some(text) = text {
                std::fs::write(dir.join(name), text)?;
                files += 1;
            }
        }
        Ok(files)
    }
}

fn read_if_present(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display()).into()),
    }
}

/// Every folder under `dir` whose `inner/` holds a `benchmark.json`, with
/// its `estimates.json`, by its path from the top (`rel`).
fn find_criterion(
    dir: &Path,
    rel: &str,
    inner: &str,
    out: &mut BTreeMap<String, [String; 2]>,
) -> Result<()> {
    let files = dir.join(inner);
    if !rel.is_empty() && files.join("benchmark.json").is_file() {
        let read = |name: &str| {
            std::fs::read_to_string(files.join(name))
                .map_err(|e| format!("{}: {e}", files.join(name).display()))
        };
        out.insert(
            rel.to_string(),
            [read("benchmark.json")?, read("estimates.json")?],
        );
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for path in entries.into_iter().filter(|p| p.is_dir()) {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let rel = if rel.is_empty() {
            name.into_owned()
        } else {
            format!("{rel}/{name}")
        };
        find_criterion(&path, &rel, inner, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::collect;
    use crate::expected::expected;
    use crate::test_support::*;

    #[test]
    fn the_bundle_keeps_only_the_runs_inputs_and_reads_back() {
        let dir = TempDir::new("bundle");
        complete_run(&dir);
        criterion(
            &dir,
            "criterion/spawn/tokio/100000/base",
            "spawn",
            "tokio",
            "100000",
            r#"{"Elements":100000}"#,
            [0.5, 1.0, 1.5],
        );
        dir.write("criterion/spawn/tokio/100000/new/sample.json", "{}");
        dir.write("criterion/report/index.html", "<html></html>");
        dir.write("bench-raw/quick/timers.json", "{}");
        let bundle = Bundle::from_target(&dir.0).unwrap();
        assert!(bundle.criterion.contains_key("spawn/tokio/100000"));
        assert!(bundle.criterion.contains_key("parts/epoll-ctl-mod/op"));
        let out = dir.0.join("copy");
        std::fs::create_dir_all(out.join("stale")).unwrap();
        let files = bundle.write(&out).unwrap();
        let criterion_count: usize = expected()
            .iter()
            .filter(|(p, _)| !p.starts_with("timers/") && !p.starts_with("echo/"))
            .map(|(_, names)| names.len())
            .sum();
        assert_eq!(files, 2 * criterion_count + 3);
        assert!(!out.join("stale").exists());
        assert!(
            out.join("criterion/spawn/tokio/100000/estimates.json")
                .is_file()
        );
        assert!(
            !out.join("criterion/spawn/tokio/100000/sample.json")
                .exists()
        );
        assert!(!out.join("quick").exists());
        let read = Bundle::read(&out).unwrap();
        assert_eq!(read, bundle);
        assert_eq!(
            collect(&read).unwrap().measures,
            collect(&bundle).unwrap().measures
        );
        assert!(Bundle::read(&dir.0.join("nowhere")).is_err());
    }
}
