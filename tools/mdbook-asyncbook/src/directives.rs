//! The one place that reads `{{#…}}` directives.
//!
//! mdBook's `links` preprocessor expands `{{#include}}`, `{{#rustdoc_include}}`,
//! `{{#playground}}` and `{{#title}}`; this plug-in adds `{{#glossary}}`,
//! `{{#pitfalls}}`, `{{#listings GROUP}}` and `{{#bench …}}` (see
//! [`Bench`]). Every other name would stay on the page as written (mdBook's
//! `links` leaves it alone): the preprocessor rejects it, naming its line.
//! Everything here that needs to
//! know which directives a text holds — captions, hidden frames, the
//! appendices and the book's checks — asks this module, which matches them
//! the way mdBook 0.5.4 does: `{{ #name args }}` where `args` holds no `}`,
//! and `\{{#…}}` (up to the last `}}` of its line) is an escape that renders
//! as written without the backslash. One difference: mdBook needs
//! arguments, and this also finds the plug-in's `{{#glossary}}`, which
//! mdBook leaves alone.

use crate::{Error, Result};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A directive found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive<'a> {
    /// Its bytes in the text, braces included.
    pub range: Range<usize>,
    /// `include`, `rustdoc_include`, `glossary`, …
    pub name: &'a str,
    /// What follows the name, trimmed (empty for `{{#glossary}}`).
    pub args: &'a str,
}

/// Every unescaped directive of `text`, in order.
pub fn directives(text: &str) -> Vec<Directive<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = text[at..].find("{{") {
        let start = at + found;
        if start > 0 && bytes[start - 1] == b'\\' && text[start..].starts_with("{{#") {
            // An escape runs to the last `}}` of its line (mdBook's `.*`).
            // Without one on the line it is no escape, and mdBook reads a
            // directive from the `{{` on.
            let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            if let Some(close) = text[start..line_end].rfind("}}") {
                at = start + close + 2;
                continue;
            }
        }
        match parse_at(text, start) {
            Some(directive) => {
                at = directive.range.end;
                out.push(directive);
            }
            // `{{{#…}}`: mdBook tries again from the next brace.
            None => at = start + 1,
        }
    }
    out
}

/// `{{ #name args }}` starting at `start`, if that is one.
fn parse_at(text: &str, start: usize) -> Option<Directive<'_>> {
    let after_open = &text[start + 2..];
    let hash = after_open.len() - after_open.trim_start().len();
    let rest = after_open[hash..].strip_prefix('#')?;
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    if name_len == 0 {
        return None;
    }
    let name_start = start + 2 + hash + 1;
    let name = &text[name_start..name_start + name_len];
    let after_name = &text[name_start + name_len..];
    let close = after_name.find('}')?;
    if !after_name[close..].starts_with("}}") {
        return None;
    }
    let args = &after_name[..close];
    // mdBook needs whitespace between the name and its arguments.
    if !args.is_empty() && !args.starts_with(char::is_whitespace) {
        return None;
    }
    let end = name_start + name_len + close + 2;
    Some(Directive {
        range: start..end,
        name,
        args: args.trim(),
    })
}

/// The name of the directive that shows chapter 10's measurements.
pub const BENCH: &str = "bench";

/// A `{{#bench …}}` directive: a number from `data/bench/results.toml`,
/// written into prose or a table (`crate::bench` finds the value and
/// formats it). Arguments are separated by whitespace:
///
/// - `{{#bench ID}}`: the value of measure `ID` with its unit (`12.3 ns`);
/// - `{{#bench ID ci}}`: the 95 % confidence interval of that value, as
///   the value is shown (`12.1–12.7 ns`); criterion's measures have one;
/// - `{{#bench ratio ID_A ID_B}}`: how many times A's value is B's (`1.45×`);
/// - `{{#bench machine.FIELD}}`: what the measuring machine was
///   (`cpu`, `cores`, `memory`, `kernel`, `rustc`, `date`, `load_start`,
///   `load_end`, `command`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bench<'a> {
    Value(&'a str),
    Interval(&'a str),
    Ratio(&'a str, &'a str),
    Machine(&'a str),
}

impl<'a> Bench<'a> {
    /// The bench directive a directive is, if it is one: `Some(Err(..))`
    /// for a `{{#bench}}` whose arguments are not one of the four forms.
    pub fn of(directive: &Directive<'a>) -> Option<Result<Bench<'a>>> {
        if directive.name != BENCH {
            return None;
        }
        let words: Vec<&str> = directive.args.split_whitespace().collect();
        Some(match words[..] {
            ["ratio", a, b] => Ok(Bench::Ratio(a, b)),
            [id, "ci"] if id != "ratio" && !id.starts_with("machine.") => Ok(Bench::Interval(id)),
            [id] if id != "ratio" => Ok(match id.strip_prefix("machine.") {
                Some(field) => Bench::Machine(field),
                None => Bench::Value(id),
            }),
            _ => Err(Error::new(format!(
                "`{{{{#bench {}}}}}`: write `{{{{#bench ID}}}}`, `{{{{#bench ID ci}}}}`, \
                 `{{{{#bench ratio ID_A ID_B}}}}` or `{{{{#bench machine.FIELD}}}}`",
                directive.args
            ))),
        })
    }
}

/// What an include directive shows of its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// The whole file.
    Whole,
    /// The lines between `ANCHOR: name` and `ANCHOR_END: name`.
    Anchor(String),
    /// A range of lines, as written (`3:10`, `:0`, …).
    Lines(String),
}

/// An `{{#include}}` or `{{#rustdoc_include}}` directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// `rustdoc_include`: the lines outside [`Include::part`] are included
    /// too, as hidden lines.
    pub rustdoc: bool,
    /// The path as written, relative to the including file's folder.
    pub path: String,
    pub part: Part,
}

impl Include {
    /// The include a directive is, if it is one.
    pub fn of(directive: &Directive<'_>) -> Option<Include> {
        let rustdoc = match directive.name {
            "include" => false,
            "rustdoc_include" => true,
            _ => return None,
        };
        let target = directive.args.split_whitespace().next()?;
        let (path, spec) = target.split_once(':').unwrap_or((target, ""));
        // mdBook reads the first `:`-field as a line number if it can, else
        // as an anchor name.
        let first = spec.split(':').next().unwrap_or("");
        let part = if spec.is_empty() {
            Part::Whole
        } else if first.is_empty() || first.parse::<usize>().is_ok() {
            Part::Lines(spec.to_string())
        } else {
            Part::Anchor(first.to_string())
        };
        Some(Include {
            rustdoc,
            path: path.to_string(),
            part,
        })
    }

    /// Whether the reader sees any line of the file: `file::0` ("lines up
    /// to 0") shows none.
    pub fn is_visible(&self) -> bool {
        self.part != Part::Lines(":0".into())
    }

    /// The file from the repository root, for an include written in a file
    /// whose folder is `dir` (from the repository root, e.g. `src/ja`).
    pub fn file_from_root(&self, dir: &str) -> String {
        normalize(&format!("{dir}/{}", self.path))
    }
}

/// `src/ja/../../listings/src/timer.rs` → `listings/src/timer.rs`.
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The path from folder `dir` to `file`, both from the repository root:
/// `src/ja` and `listings/src/timer.rs` → `../../listings/src/timer.rs`.
pub fn relative(dir: &str, file: &str) -> String {
    let depth = dir.split('/').filter(|p| !p.is_empty()).count();
    format!("{}{file}", "../".repeat(depth))
}

/// mdBook's limit on includes inside included files.
const MAX_DEPTH: usize = 10;

/// Checks every include of `text` (a file whose folder is `dir`, an
/// absolute path) and, recursively, of the files it includes: where mdBook
/// would log an error and carry on (a missing file, includes nested too
/// deep) or silently render nothing (an anchor the file does not have),
/// this returns an error at the directive's line of `text`.
pub fn check_includes(text: &str, dir: &Path) -> Vec<Error> {
    let mut problems = Vec::new();
    for directive in directives(text) {
        if let Some(problem) = check_one(&directive, dir, 0) {
            problems.push(Error::at(text, directive.range.start, problem));
        }
    }
    problems
}

/// What is wrong with one include, in the file it names (as written).
fn check_one(directive: &Directive<'_>, dir: &Path, depth: usize) -> Option<Error> {
    let include = Include::of(directive)?;
    let file: PathBuf = dir.join(&include.path);
    let Ok(content) = std::fs::read_to_string(&file) else {
        return Some(Error::in_file(&include.path, "no such file"));
    };
    if let Part::Anchor(anchor) = &include.part
        && !has_anchor(&content, anchor)
    {
        return Some(Error::in_file(
            &include.path,
            format!("no `ANCHOR: {anchor}` … `ANCHOR_END: {anchor}` in the file"),
        ));
    }
    let inner_dir = file.parent().unwrap_or(dir);
    for inner in directives(&content) {
        if Include::of(&inner).is_none() {
            continue;
        }
        if depth + 1 >= MAX_DEPTH {
            return Some(Error::in_file(&include.path, "includes nested too deep"));
        }
        if let Some(problem) = check_one(&inner, inner_dir, depth + 1) {
            return Some(Error::new(format!(
                "{problem} (included from {})",
                include.path
            )));
        }
    }
    None
}

/// Whether `content` opens and closes the anchor `name` (mdBook matches
/// `ANCHOR:\s*name` anywhere in a line, `name` being `[\w-]+`).
fn has_anchor(content: &str, name: &str) -> bool {
    let marks = |marker: &str| {
        content.lines().any(|line| {
            line.match_indices(marker).any(|(i, _)| {
                let rest = line[i + marker.len()..].trim_start();
                rest.strip_prefix(name).is_some_and(|after| {
                    !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '-')
                })
            })
        })
    };
    marks("ANCHOR:") && marks("ANCHOR_END:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_directives_and_skips_escapes() {
        // An escape runs to the last `}}` of its line, as in mdBook.
        let text = "a {{#include x.rs:main}} b \\{{#include y.rs}} and }} {{#include no.rs}}\nc {{ #glossary }}\n{{#rustdoc_include\n  z.rs::0 }}{{#bad}";
        let found: Vec<(&str, &str)> = directives(text).iter().map(|d| (d.name, d.args)).collect();
        assert_eq!(
            found,
            [
                ("include", "x.rs:main"),
                ("glossary", ""),
                ("rustdoc_include", "z.rs::0")
            ]
        );
        assert_eq!(
            &text[directives(text)[0].range.clone()],
            "{{#include x.rs:main}}"
        );
    }

    #[test]
    fn corner_cases_read_as_mdbook_reads_them() {
        // A third brace: mdBook matches from the second.
        let three = "{{{#include a.rs}}}";
        assert_eq!(directives(three)[0].range, 1..18);
        // A backslash with no `}}` on its line escapes nothing.
        let open = "\\{{#include\n  a.rs}}";
        assert_eq!(directives(open)[0].args, "a.rs");
    }

    #[test]
    fn a_name_must_be_followed_by_space_or_the_end() {
        assert!(directives("{{#include}}").len() == 1);
        assert!(directives("{{#include:x}}").is_empty());
    }

    #[test]
    fn includes_know_what_they_show() {
        let parse = |t: &str| Include::of(&directives(t)[0]).unwrap();
        let whole = parse("{{#include ../../listings/src/a.rs}}");
        assert_eq!((whole.rustdoc, whole.part.clone()), (false, Part::Whole));
        assert_eq!(whole.file_from_root("src/ja"), "listings/src/a.rs");
        let hidden = parse("{{#rustdoc_include a.rs::0}}");
        assert!(hidden.rustdoc && !hidden.is_visible());
        assert_eq!(
            parse("{{#rustdoc_include a.rs:main}}").part,
            Part::Anchor("main".into())
        );
        assert_eq!(
            parse("{{#include a.rs:3:5}}").part,
            Part::Lines("3:5".into())
        );
        assert!(Include::of(&directives("{{#glossary}}")[0]).is_none());
    }

    #[test]
    fn bench_directives_have_four_forms() {
        fn parse(text: &str) -> Option<Result<Bench<'_>>> {
            Bench::of(&directives(text)[0])
        }
        assert_eq!(
            parse("{{#bench spawn/100000/tokio}}"),
            Some(Ok(Bench::Value("spawn/100000/tokio")))
        );
        assert_eq!(
            parse("{{#bench spawn/100000/tokio ci}}"),
            Some(Ok(Bench::Interval("spawn/100000/tokio")))
        );
        assert_eq!(
            parse("{{#bench ratio a/b/c  d/e/f}}"),
            Some(Ok(Bench::Ratio("a/b/c", "d/e/f")))
        );
        assert_eq!(
            parse("{{#bench machine.cpu}}"),
            Some(Ok(Bench::Machine("cpu")))
        );
        for wrong in [
            "{{#bench}}",
            "{{#bench ratio a}}",
            "{{#bench a b}}",
            "{{#bench ratio}}",
            "{{#bench ratio ci}}",
            "{{#bench machine.cpu ci}}",
            "{{#bench a/b/c ci x}}",
        ] {
            let error = parse(wrong).unwrap().unwrap_err().to_string();
            assert!(error.contains("{{#bench ID}}"), "{wrong}: {error}");
        }
        assert_eq!(parse("{{#include a.rs}}"), None);
    }

    #[test]
    fn paths_between_folders() {
        assert_eq!(
            normalize("src/ja/../../listings/./src/a.rs"),
            "listings/src/a.rs"
        );
        assert_eq!(
            relative("src/ja", "listings/src/a.rs"),
            "../../listings/src/a.rs"
        );
    }

    #[test]
    fn a_missing_file_or_anchor_is_reported_where_it_is_written() {
        // A chapter's folder in the fixture book (tests/fixture/).
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture/src/ja");
        let text = "ok {{#include ../../listings/src/timer.rs:timer}}\n\
                    {{#include ../../listings/src/timer.rs:no_such}}\n\
                    {{#rustdoc_include ../../nope.rs}}\n";
        assert_eq!(
            check_includes(text, &dir),
            [
                Error::at(
                    text,
                    text.find("{{#include ../../listings/src/timer.rs:no_such")
                        .unwrap(),
                    "../../listings/src/timer.rs: no `ANCHOR: no_such` … `ANCHOR_END: no_such` \
                     in the file"
                ),
                Error::at(
                    text,
                    text.find("{{#rustdoc_include").unwrap(),
                    "../../nope.rs: no such file"
                ),
            ]
        );
    }

    #[test]
    fn anchors_match_whole_names() {
        let file = "// ANCHOR: main_loop\nx\n// ANCHOR_END: main_loop\n";
        assert!(has_anchor(file, "main_loop"));
        assert!(!has_anchor(file, "main"));
    }
}
