//! Appendix C, generated: `{{#listings GROUP}}` writes a section for every
//! file of `listings/GROUP` — its description from `data/listings.toml` and
//! the whole file as a complete program (the hidden frame gives it the
//! modules it needs). A new listing file appears without editing Markdown.

use crate::Result;
use crate::data::Listings;
use crate::directives::relative;
use crate::edition::{Edition, listing_anchor};
use crate::frame::Frames;
use std::path::Path;

/// The directive's name.
pub const DIRECTIVE: &str = "listings";

/// The groups a `{{#listings GROUP}}` may name: the folders of `listings/`
/// whose files the appendix shows.
pub const GROUPS: [&str; 3] = ["src", "examples", "compile_fail"];

/// How appendix C shows a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// As a complete program that `cargo test` runs.
    Program,
    /// As a program that must fail to compile, with these error codes.
    CompileFail,
    /// As text: `lib.rs` and `mod.rs` only declare modules.
    Text,
}

/// The files of a group that appendix C shows, from the repository root,
/// in path order, with how each is shown.
pub fn files(root: &Path, group: &str) -> Result<Vec<(String, Shown)>> {
    if !GROUPS.contains(&group) {
        return Err(format!(
            "`{{{{#listings {group}}}}}`: the groups are {}",
            GROUPS.join(", ")
        )
        .into());
    }
    let mut out = Vec::new();
    walk(root, &format!("listings/{group}"), &mut out)?;
    out.retain(|f| f.ends_with(".rs"));
    out.sort();
    Ok(out
        .into_iter()
        .map(|file| {
            let shown = if group == "compile_fail" {
                Shown::CompileFail
            } else if file.ends_with("/lib.rs") || file.ends_with("/mod.rs") {
                Shown::Text
            } else {
                Shown::Program
            };
            (file, shown)
        })
        .collect())
}

fn walk(root: &Path, dir: &str, out: &mut Vec<String>) -> Result<()> {
    let entries = std::fs::read_dir(root.join(dir)).map_err(|e| format!("{dir}: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{dir}: {e}"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = format!("{dir}/{name}");
        if entry.path().is_dir() {
            walk(root, &path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// The error codes rustc reports for a program in `listings/compile_fail/`,
/// read from the `.stderr` recorded beside it, in order of appearance.
fn error_codes(root: &Path, file: &str) -> Result<Vec<String>> {
    let stderr = file.replace(".rs", ".stderr");
    let text = std::fs::read_to_string(root.join(&stderr))
        .map_err(|e| format!("{stderr} (the errors of {file}): {e}"))?;
    let mut codes: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("error[E") {
        let code = &text[at + 6..];
        let code: String = code.chars().take_while(|c| *c != ']').collect();
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    Ok(codes)
}

/// The sections of one group for the appendix of `edition`, whose chapter
/// folder is `dir` (from the repository root, e.g. `src/ja`).
pub fn render(
    root: &Path,
    group: &str,
    edition: Edition,
    dir: &str,
    listings: &Listings,
    frames: &Frames,
) -> Result<String> {
    let mut out = String::new();
    for (file, shown) in files(root, group)? {
        let entry = listings
            .file
            .iter()
            .find(|f| f.path == file)
            .ok_or_else(|| format!("data/listings.toml has no entry for {file}"))?;
        let include = format!("{{{{#include {}}}}}\n", relative(dir, &file));
        let (info, body) = match shown {
            Shown::Text => ("text".to_string(), include),
            Shown::CompileFail => {
                let codes = error_codes(root, &file)?;
                let mut info = "rust,compile_fail".to_string();
                for code in codes {
                    info.push(',');
                    info.push_str(&code);
                }
                (info, include)
            }
            Shown::Program => {
                // A module has no `main` of its own: say so, rather than let
                // mdBook wrap the whole crate in one.
                let body = if file.starts_with("listings/src/") {
                    format!("{include}# fn main() {{}}\n")
                } else {
                    include
                };
                let framed = frames
                    .write(&body, dir)
                    .map_err(|e| format!("{file}: {e}"))?
                    .unwrap_or(body);
                let info = if entry.no_run { "rust,no_run" } else { "rust" };
                (info.to_string(), framed)
            }
        };
        out.push_str(&format!(
            "### `{file}` {{#{}}}\n\n{}\n\n```{info}\n{body}```\n\n",
            listing_anchor(&file),
            entry.text(edition).trim(),
        ));
    }
    Ok(out)
}

/// The entries of `data/listings.toml` that name no file appendix C shows.
pub fn stale_entries(root: &Path, listings: &Listings) -> Result<Vec<String>> {
    let mut shown = Vec::new();
    for group in GROUPS {
        shown.extend(files(root, group)?.into_iter().map(|(f, _)| f));
    }
    Ok(listings
        .file
        .iter()
        .filter(|f| !shown.contains(&f.path))
        .map(|f| f.path.clone())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::ListingFile;

    fn root() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    #[test]
    fn groups_list_their_rust_files_in_path_order() {
        let src = files(&root(), "src").unwrap();
        let lib = src
            .iter()
            .position(|(f, _)| f == "listings/src/lib.rs")
            .unwrap();
        assert_eq!(src[lib].1, Shown::Text);
        assert!(src.windows(2).all(|w| w[0].0 < w[1].0));
        let failing = files(&root(), "compile_fail").unwrap();
        assert!(
            failing
                .iter()
                .all(|(f, s)| f.ends_with(".rs") && *s == Shown::CompileFail)
        );
        assert!(files(&root(), "output").is_err());
    }

    #[test]
    fn a_section_shows_the_file_whole_with_its_description() {
        let frames = Frames::load(&root()).unwrap();
        let listings = Listings {
            file: files(&root(), "compile_fail")
                .unwrap()
                .into_iter()
                .map(|(path, _)| ListingFile {
                    path,
                    ja: "説明。".into(),
                    zh: "说明。".into(),
                    no_run: false,
                })
                .collect(),
        };
        let text = render(
            &root(),
            "compile_fail",
            Edition::Zh,
            "src/zh",
            &listings,
            &frames,
        )
        .unwrap();
        assert!(
            text.contains("### `listings/compile_fail/pin_forbids_swap.rs` {#listing-compile-fail-pin-forbids-swap-rs}\n\n说明。\n\n```rust,compile_fail,E0596\n{{#include ../../listings/compile_fail/pin_forbids_swap.rs}}\n```\n"),
            "{text}"
        );
        let missing =
            render(&root(), "src", Edition::Ja, "src/ja", &listings, &frames).unwrap_err();
        assert!(
            missing.to_string().contains("no entry for listings/src/"),
            "{missing}"
        );
    }

    #[test]
    fn a_program_that_waits_for_input_is_shown_no_run() {
        let frames = Frames::load(&root()).unwrap();
        let listings = Listings {
            file: files(&root(), "examples")
                .unwrap()
                .into_iter()
                .map(|(path, _)| ListingFile {
                    no_run: path.ends_with("ch08_stdin.rs"),
                    path,
                    ja: "説明。".into(),
                    zh: "说明。".into(),
                })
                .collect(),
        };
        let text = render(
            &root(),
            "examples",
            Edition::Ja,
            "src/ja",
            &listings,
            &frames,
        )
        .unwrap();
        let fence = |file: &str| {
            let at = text
                .find(&format!("### `listings/examples/{file}`"))
                .unwrap();
            text[at..]
                .lines()
                .find(|l| l.starts_with("```"))
                .unwrap()
                .to_string()
        };
        assert_eq!(fence("ch08_stdin.rs"), "```rust,no_run");
        assert_eq!(fence("ch08_epoll.rs"), "```rust");
    }
}
