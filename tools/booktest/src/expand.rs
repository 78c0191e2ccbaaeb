//! mdBook's include expansion, reproduced so that tests see what readers see.
//!
//! skeptic reads raw markdown and knows nothing of `{{#include}}`. This module
//! expands a chapter the way mdBook 0.5.4's `links` preprocessor does:
//! `{{#include}}`, `{{#rustdoc_include}}`, `{{#playground}}` and `{{#title}}`,
//! with line ranges, `ANCHOR:` regions, `\{{#…}}` escapes and includes nested
//! up to ten deep. The output must be byte for byte what mdBook renders;
//! `.ci/run` diffs the two (see `src/bin/expand-book.rs`).
//!
//! It is stricter than mdBook in one way only: where mdBook logs an error
//! and carries on (a missing file, includes nested too deep) or silently
//! renders nothing (an anchor that is not in the file), this returns an
//! [`Error`] naming the chapter and line, so a broken include fails the
//! build instead of silently showing nothing.
//!
//! This file is also compiled into the build script with `#[path]`, so it
//! uses nothing but `std`.

use std::fmt;
use std::fs;
use std::ops::{Bound, RangeBounds};
use std::path::{Path, PathBuf};

/// mdBook's limit on nested includes.
const MAX_DEPTH: usize = 10;

/// A chapter after expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// The markdown mdBook would render.
    pub text: String,
    /// For each line of `text`, the 1-based line of the chapter it came
    /// from. Lines produced by an include map to the line of the directive.
    pub source_lines: Vec<usize>,
    /// Every file read while expanding, for `rerun-if-changed`.
    pub files_read: Vec<PathBuf>,
}

/// An include that mdBook would have skipped or rendered as nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The chapter line holding the top-level directive.
    pub line: usize,
    /// What went wrong, naming the nested file where it happened.
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Expands `content`, the text of a chapter whose directory is `dir`.
pub fn expand(content: &str, dir: &Path) -> Result<Expanded, Error> {
    let mut files_read = Vec::new();
    let mut text = String::with_capacity(content.len());
    let mut source_lines = vec![1];
    let mut line = 1;
    let mut previous_end = 0;
    for link in find_links(content) {
        push_mapped(
            &mut text,
            &mut source_lines,
            &content[previous_end..link.start],
            &mut line,
        );
        let directive_line = line;
        let rendered = render_nested(&link, dir, 0, &mut files_read).map_err(|message| Error {
            line: directive_line,
            message,
        })?;
        // Every line the directive produced maps back to the directive.
        for ch in rendered.chars() {
            text.push(ch);
            if ch == '\n' {
                source_lines.push(directive_line);
            }
        }
        line += link.text.matches('\n').count();
        previous_end = link.end;
    }
    push_mapped(
        &mut text,
        &mut source_lines,
        &content[previous_end..],
        &mut line,
    );
    Ok(Expanded {
        text,
        source_lines,
        files_read,
    })
}

/// Appends chapter text, recording where each new line starts.
fn push_mapped(text: &mut String, source_lines: &mut Vec<usize>, piece: &str, line: &mut usize) {
    for ch in piece.chars() {
        text.push(ch);
        if ch == '\n' {
            *line += 1;
            source_lines.push(*line);
        }
    }
}

/// mdBook's `replace_all` below the chapter level, strict about errors.
fn replace_all(
    s: &str,
    dir: &Path,
    depth: usize,
    files_read: &mut Vec<PathBuf>,
) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut previous_end = 0;
    for link in find_links(s) {
        out.push_str(&s[previous_end..link.start]);
        out.push_str(&render_nested(&link, dir, depth, files_read)?);
        previous_end = link.end;
    }
    out.push_str(&s[previous_end..]);
    Ok(out)
}

/// Renders one directive, then expands the directives inside what it
/// produced, relative to the directory of the file it read.
fn render_nested(
    link: &Link<'_>,
    dir: &Path,
    depth: usize,
    files_read: &mut Vec<PathBuf>,
) -> Result<String, String> {
    // mdBook checks the depth before using any directive, even one that
    // reads no file (an escape, a title).
    if depth >= MAX_DEPTH {
        return Err(format!(
            "includes nested more than {MAX_DEPTH} deep at {}",
            link.text
        ));
    }
    let rendered = link.render(dir, files_read)?;
    let Some(target) = link.kind.path() else {
        return Ok(rendered);
    };
    let nested_dir = dir
        .join(target)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    replace_all(&rendered, &nested_dir, depth + 1, files_read)
        .map_err(|e| format!("in {}: {e}", dir.join(target).display()))
}

/// Which lines of a file a directive takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Selection {
    /// 0-based, half-open, as mdBook stores it.
    Lines(Bound<usize>, Bound<usize>),
    Anchor(String),
}

impl RangeBounds<usize> for Selection {
    fn start_bound(&self) -> Bound<&usize> {
        match self {
            Selection::Lines(start, _) => start.as_ref(),
            Selection::Anchor(_) => Bound::Unbounded,
        }
    }
    fn end_bound(&self) -> Bound<&usize> {
        match self {
            Selection::Lines(_, end) => end.as_ref(),
            Selection::Anchor(_) => Bound::Unbounded,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind<'a> {
    Escaped,
    Include(&'a str, Selection),
    RustdocInclude(&'a str, Selection),
    Playground(&'a str, Vec<&'a str>),
    Title,
}

impl<'a> Kind<'a> {
    fn path(&self) -> Option<&'a str> {
        match self {
            Kind::Include(path, _) | Kind::RustdocInclude(path, _) | Kind::Playground(path, _) => {
                Some(path)
            }
            Kind::Escaped | Kind::Title => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Link<'a> {
    start: usize,
    end: usize,
    kind: Kind<'a>,
    text: &'a str,
}

impl Link<'_> {
    fn render(&self, dir: &Path, files_read: &mut Vec<PathBuf>) -> Result<String, String> {
        let mut read = |path: &str| {
            let target = dir.join(path);
            files_read.push(target.clone());
            fs::read_to_string(&target)
                .map_err(|e| format!("cannot read {} for {}: {e}", target.display(), self.text))
        };
        let missing_anchor = |path: &str, anchor: &str| {
            format!(
                "no `ANCHOR: {anchor}` in {} for {}",
                dir.join(path).display(),
                self.text
            )
        };
        Ok(match &self.kind {
            Kind::Escaped => self.text[1..].to_owned(),
            Kind::Title => String::new(),
            Kind::Include(path, Selection::Anchor(anchor)) => {
                let s = read(path)?;
                take_anchored_lines(&s, anchor).ok_or_else(|| missing_anchor(path, anchor))?
            }
            Kind::Include(path, range) => take_lines(&read(path)?, range),
            Kind::RustdocInclude(path, Selection::Anchor(anchor)) => {
                let s = read(path)?;
                take_rustdoc_include_anchored_lines(&s, anchor)
                    .ok_or_else(|| missing_anchor(path, anchor))?
            }
            Kind::RustdocInclude(path, range) => take_rustdoc_include_lines(&read(path)?, range),
            Kind::Playground(path, attrs) => {
                let mut contents = read(path)?;
                if !contents.ends_with('\n') {
                    contents.push('\n');
                }
                let separator = if attrs.is_empty() { "" } else { "," };
                format!("```rust{separator}{}\n{contents}```\n", attrs.join(","))
            }
        })
    }
}

/// The directives in `s`, in order, as mdBook's regular expression finds
/// them:
///
/// ```text
/// \\\{\{\#.*\}\}                               an escaped directive, or
/// \{\{\s*\#([a-zA-Z0-9_]+)\s+([^}]+)\}\}        a directive
/// ```
///
/// A match whose type is not one mdBook knows is skipped, text and all.
fn find_links(s: &str) -> impl Iterator<Item = Link<'_>> {
    let bytes = s.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let start = at;
            // Both forms start with an ASCII byte, which is always a char
            // boundary; skip everything else.
            if !matches!(bytes[at], b'\\' | b'{') {
                at += 1;
                continue;
            }
            let found = match_escaped(s, start).or_else(|| match_directive(s, start));
            let Some((end, kind)) = found else {
                at += 1;
                continue;
            };
            at = end;
            if let Some(kind) = kind {
                return Some(Link {
                    start,
                    end,
                    kind,
                    text: &s[start..end],
                });
            }
        }
        None
    })
}

/// `\{{#` then the rest of the line up to its last `}}`.
fn match_escaped(s: &str, start: usize) -> Option<(usize, Option<Kind<'_>>)> {
    let rest = s[start..].strip_prefix("\\{{#")?;
    let line = rest.split('\n').next().unwrap_or("");
    let close = line.rfind("}}")?;
    Some((start + 4 + close + 2, Some(Kind::Escaped)))
}

/// `{{`, spaces, `#type`, spaces, `args` without `}`, `}}`.
fn match_directive(s: &str, start: usize) -> Option<(usize, Option<Kind<'_>>)> {
    let rest = s[start..].strip_prefix("{{")?;
    let after_space = rest.trim_start();
    let after_hash = after_space.strip_prefix('#')?;
    let name_len = after_hash
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    if name_len == 0 {
        return None;
    }
    let (name, after_name) = after_hash.split_at(name_len);
    let args_with_space = &after_name[..after_name.find('}')?];
    if !after_name[args_with_space.len()..].starts_with("}}") {
        return None;
    }
    // `\s+` needs one whitespace and `[^}]+` one more character.
    let args = args_with_space.trim_start();
    let space = args_with_space.len() - args.len();
    let args = if args.is_empty() {
        // All whitespace: `\s+` gives its last character back to `[^}]+`.
        // The regular expression counts characters, not bytes.
        if args_with_space.chars().count() < 2 {
            return None;
        }
        let last = args_with_space.chars().next_back()?;
        &args_with_space[args_with_space.len() - last.len_utf8()..]
    } else if space == 0 {
        return None;
    } else {
        args
    };
    let end = s.len() - after_name.len() + args_with_space.len() + 2;
    Some((end, parse_kind(name, args)))
}

fn parse_kind<'a>(name: &str, args: &'a str) -> Option<Kind<'a>> {
    if name == "title" {
        return Some(Kind::Title);
    }
    let mut words = args.split_whitespace();
    let file = words.next()?;
    match name {
        "include" => {
            let (path, selection) = parse_path(file);
            Some(Kind::Include(path, selection))
        }
        "rustdoc_include" => {
            let (path, selection) = parse_path(file);
            Some(Kind::RustdocInclude(path, selection))
        }
        "playground" | "playpen" => Some(Kind::Playground(file, words.collect())),
        _ => None,
    }
}

/// `path[:start[:end]]` or `path:anchor`, as mdBook's
/// `parse_range_or_anchor` reads it (line numbers are 1-based there).
fn parse_path(file: &str) -> (&str, Selection) {
    let (path, spec) = file.split_once(':').unwrap_or((file, ""));
    let mut parts = spec.splitn(3, ':');
    let first = parts.next();
    let start = match first {
        Some(value) if value.parse::<usize>().is_ok() => {
            Some(value.parse::<usize>().unwrap_or(0).saturating_sub(1))
        }
        Some("") | None => None,
        Some(anchor) => return (path, Selection::Anchor(anchor.to_owned())),
    };
    let end = parts.next().map(str::parse::<usize>);
    let selection = match (start, end) {
        (Some(start), Some(Ok(end))) => {
            Selection::Lines(Bound::Included(start), Bound::Excluded(end))
        }
        (Some(start), Some(Err(_))) => Selection::Lines(Bound::Included(start), Bound::Unbounded),
        (Some(start), None) => Selection::Lines(Bound::Included(start), Bound::Excluded(start + 1)),
        (None, Some(Ok(end))) => Selection::Lines(Bound::Unbounded, Bound::Excluded(end)),
        (None, None) | (None, Some(Err(_))) => Selection::Lines(Bound::Unbounded, Bound::Unbounded),
    };
    (path, selection)
}

/// The name in an `ANCHOR: name` marker on this line, if any.
fn anchor_start(line: &str) -> Option<&str> {
    marker_name(line, "ANCHOR:")
}

/// The name in an `ANCHOR_END: name` marker on this line, if any.
fn anchor_end(line: &str) -> Option<&str> {
    marker_name(line, "ANCHOR_END:")
}

/// mdBook's `MARKER:\s*(?P<name>[\w_-]+)`: the first marker on the line
/// that is followed by a name.
fn marker_name<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.match_indices(marker).find_map(|(at, _)| {
        let rest = line[at + marker.len()..].trim_start();
        let len: usize = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-' || is_word_mark(*c))
            .map(char::len_utf8)
            .sum();
        (len > 0).then(|| &rest[..len])
    })
}

/// Combining marks and connector punctuation also count as `\w`; anchor
/// names in this book are ASCII, so a rough test is enough.
fn is_word_mark(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36f}' | '\u{203f}' | '\u{2040}')
}

fn take_lines(s: &str, range: &Selection) -> String {
    let start = match range.start_bound() {
        Bound::Excluded(&n) => n + 1,
        Bound::Included(&n) => n,
        Bound::Unbounded => 0,
    };
    let lines = s.lines().skip(start);
    let taken: Vec<&str> = match range.end_bound() {
        Bound::Excluded(&end) => lines.take(end.saturating_sub(start)).collect(),
        Bound::Included(&end) => lines.take((end + 1).saturating_sub(start)).collect(),
        Bound::Unbounded => lines.collect(),
    };
    taken.join("\n")
}

/// `None` when the file has no `ANCHOR: anchor` (mdBook gives "").
fn take_anchored_lines(s: &str, anchor: &str) -> Option<String> {
    let mut retained = Vec::new();
    let mut found = false;
    for line in s.lines() {
        if found {
            match anchor_end(line) {
                Some(name) if name == anchor => break,
                Some(_) => {}
                None if anchor_start(line).is_none() => retained.push(line),
                None => {}
            }
        } else if anchor_start(line) == Some(anchor) {
            found = true;
        }
    }
    found.then(|| retained.join("\n"))
}

fn take_rustdoc_include_lines(s: &str, range: &Selection) -> String {
    let mut output = String::with_capacity(s.len());
    for (index, line) in s.lines().enumerate() {
        if !range.contains(&index) {
            output.push_str("# ");
        }
        output.push_str(line);
        output.push('\n');
    }
    output.pop();
    output
}

/// `None` when the file has no `ANCHOR: anchor` (mdBook hides every line).
fn take_rustdoc_include_anchored_lines(s: &str, anchor: &str) -> Option<String> {
    let mut output = String::with_capacity(s.len());
    let mut within = false;
    let mut found = false;
    for line in s.lines() {
        if within {
            match anchor_end(line) {
                Some(name) if name == anchor => within = false,
                Some(_) => {}
                None if anchor_start(line).is_none() => {
                    output.push_str(line);
                    output.push('\n');
                }
                None => {}
            }
        } else if let Some(name) = anchor_start(line) {
            if name == anchor {
                within = true;
                found = true;
            }
        } else if anchor_end(line).is_none() {
            output.push_str("# ");
            output.push_str(line);
            output.push('\n');
        }
    }
    output.pop();
    found.then_some(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory holding the given files.
    fn files(name: &str, list: &[(&str, &str)]) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("booktest-expand-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for (path, text) in list {
            let path = dir.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    const CODE: &str = "fn a() {}\n// ANCHOR: b\nfn b() {}\n// ANCHOR: inner\nfn c() {}\n// ANCHOR_END: inner\n// ANCHOR_END: b\nfn d() {}\n";

    #[test]
    fn include_whole_file_ranges_and_anchors() {
        let dir = files("ranges", &[("x.rs", CODE)]);
        let run = |s: &str| expand(s, &dir).unwrap().text;
        assert_eq!(run("{{#include x.rs}}"), CODE.trim_end());
        assert_eq!(run("{{#include x.rs:3}}"), "fn b() {}");
        assert_eq!(
            run("{{#include x.rs:3:5}}"),
            "fn b() {}\n// ANCHOR: inner\nfn c() {}"
        );
        assert_eq!(run("{{#include x.rs:7:}}"), "// ANCHOR_END: b\nfn d() {}");
        assert_eq!(run("{{#include x.rs::1}}"), "fn a() {}");
        assert_eq!(run("{{#include x.rs:b}}"), "fn b() {}\nfn c() {}");
        assert_eq!(run("{{#include x.rs:inner}}"), "fn c() {}");
    }

    #[test]
    fn rustdoc_include_hides_what_is_not_selected() {
        let dir = files("rustdoc", &[("x.rs", CODE)]);
        let run = |s: &str| expand(s, &dir).unwrap().text;
        assert_eq!(
            run("{{#rustdoc_include x.rs:b}}"),
            "# fn a() {}\nfn b() {}\nfn c() {}\n# fn d() {}"
        );
        assert_eq!(
            run("{{#rustdoc_include x.rs:1:1}}"),
            "fn a() {}\n# // ANCHOR: b\n# fn b() {}\n# // ANCHOR: inner\n# fn c() {}\n# // ANCHOR_END: inner\n# // ANCHOR_END: b\n# fn d() {}"
        );
        // An empty range hides the whole file.
        assert!(
            run("{{#rustdoc_include x.rs::0}}")
                .lines()
                .all(|l| l.starts_with("# "))
        );
    }

    #[test]
    fn escapes_titles_unknown_directives_and_playground() {
        let dir = files("misc", &[("p.rs", "fn main() {}")]);
        let run = |s: &str| expand(s, &dir).unwrap().text;
        assert_eq!(run("a \\{{#include x.rs}} b"), "a {{#include x.rs}} b");
        assert_eq!(run("{{#title Hello}}# Hi"), "# Hi");
        assert_eq!(run("{{#unknown x.rs}}"), "{{#unknown x.rs}}");
        assert_eq!(run("{{#include}}"), "{{#include}}");
        assert_eq!(
            run("{{ #playground p.rs editable }}"),
            "```rust,editable\nfn main() {}\n```\n"
        );
        assert_eq!(run("{{#playground p.rs}}"), "```rust\nfn main() {}\n```\n");
    }

    #[test]
    fn nested_includes_resolve_relative_to_the_including_file() {
        let dir = files(
            "nested",
            &[
                ("a/outer.md", "before {{#include inner/x.rs:2}} after"),
                ("a/inner/x.rs", "one\ntwo\n"),
            ],
        );
        assert_eq!(
            expand("{{#include a/outer.md}}", &dir).unwrap().text,
            "before two after"
        );
    }

    #[test]
    fn source_lines_point_at_the_directive() {
        let dir = files("lines", &[("x.rs", "1\n2\n3")]);
        let expanded = expand("a\n{{#include x.rs}}\nb\n", &dir).unwrap();
        assert_eq!(expanded.text, "a\n1\n2\n3\nb\n");
        assert_eq!(expanded.source_lines, [1, 2, 2, 2, 3, 4]);
    }

    #[test]
    fn missing_files_and_anchors_are_errors_with_the_chapter_line() {
        let dir = files("errors", &[("x.rs", CODE)]);
        let err = expand("a\n\nsee {{#include nope.rs}}", &dir).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("cannot read"), "{err}");
        let err = expand("{{#rustdoc_include x.rs:nope}}", &dir).unwrap_err();
        assert!(err.message.contains("no `ANCHOR: nope`"), "{err}");
    }

    #[test]
    fn whitespace_is_counted_in_characters() {
        let dir = files("ideographic", &[]);
        // U+3000 is one character (three bytes): `\s+[^}]+` needs two.
        assert_eq!(
            expand("{{#title\u{3000}}}x", &dir).unwrap().text,
            "{{#title\u{3000}}}x"
        );
        assert_eq!(expand("{{#title \u{3000}}}x", &dir).unwrap().text, "x");
    }

    #[test]
    fn the_depth_limit_applies_to_escapes_and_titles_too() {
        let mut list = vec![("d10.md".to_owned(), "\\{{#include nothing}}".to_owned())];
        for depth in 0..10 {
            list.push((
                format!("d{depth}.md"),
                format!("{{{{#include d{}.md}}}}", depth + 1),
            ));
        }
        let list: Vec<(&str, &str)> = list.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let dir = files("deep", &list);
        let err = expand("{{#include d1.md}}", &dir).unwrap_err();
        assert!(err.message.contains("nested more than 10 deep"), "{err}");
        // One level less is fine, and the escape is rendered.
        assert_eq!(
            expand("{{#include d2.md}}", &dir).unwrap().text,
            "{{#include nothing}}"
        );
    }

    #[test]
    fn self_inclusion_stops_at_the_depth_limit() {
        let dir = files("loop", &[("loop.md", "{{#include loop.md}}")]);
        let err = expand("{{#include loop.md}}", &dir).unwrap_err();
        assert!(err.message.contains("nested more than 10 deep"), "{err}");
    }
}
