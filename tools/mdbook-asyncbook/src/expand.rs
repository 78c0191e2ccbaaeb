//! The plug-in's own expansion of includes of `listings/src` modules.
//!
//! mdBook's `links` preprocessor would copy a module's file whole into a
//! block: its tests, which need the listings crate's test helpers and
//! dev-dependencies, and the code that only the loom model checker builds,
//! which a fresh project warns about (`unexpected cfg condition name:
//! loom`). A reader who copies a block must get a program that builds
//! without a warning and whose `cargo test` passes, so the plug-in expands
//! these includes itself, exactly as mdBook 0.5.4 does (the lines the
//! include shows stay as they are, every other line is hidden behind `# `,
//! and marker lines are dropped where mdBook drops them), and then leaves
//! out of the *hidden* lines:
//!
//! - every item whose `#[cfg(…)]` is false when neither `test` nor `loom` is
//!   set, with its attributes, doc comments and the comment lines just above
//!   it;
//! - `#[cfg(not(loom))]` and `#[cfg(not(test))]` attributes (the item
//!   stays: a reader's `cargo test` builds it too, since the `cfg(test)`
//!   stand-in is left out) and `cfg_attr`s that never apply;
//! - `// ANCHOR:` and `// ANCHOR_END:` marker lines.
//!
//! An item with a line the reader sees is kept whole: the visible code is
//! never changed.
//!
//! Appendix C shows each module in two blocks ([`split`]): the module as a
//! reader's program keeps it, a complete program whose every line is
//! visible, and then, as Rust text, the items left out here.

use crate::directives::Part;
use crate::frame::{Cfg, Token, leaves_out_at, lex, skip_item};
use crate::{Error, Result};
use std::ops::Range;

/// What becomes of a line of a module file in a reader's program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Compiled: kept.
    Kept,
    /// A line of the left-out item with this number.
    Item(usize),
    /// An attribute line that changes nothing in a reader's program.
    Noise,
}

/// Per line of a module's source (as `str::lines` splits it), its fate.
///
/// Fails if a left-out item or a noise attribute shares a line with other
/// code: only whole lines are left out.
pub(crate) fn fates(text: &str) -> Result<Vec<Fate>> {
    let lexed = lex(text)?;
    let tokens: Vec<Token> = lexed.iter().map(|(t, _)| t.clone()).collect();
    let lines = Lines::of(text);
    let mut fates = vec![Fate::Kept; lines.count()];
    let mut items = 0;
    let mut i = 0;
    while i < tokens.len() {
        let Some(cfg) = Cfg::at(&tokens[i..]) else {
            i += 1;
            continue;
        };
        if leaves_out_at(&tokens, i) {
            let start = attributes_before(&tokens, i);
            let end = skip_item(&tokens, i);
            let bytes = lexed[start].1.start..lexed[end - 1].1.end;
            let mut range = lines.whole(text, bytes).ok_or_else(|| {
                Error::at(
                    text,
                    lexed[i].1.start,
                    "an item under `#[cfg(…)]` that a reader's program leaves out \
                     must stand on lines of its own",
                )
            })?;
            // The comment lines just above it are about it.
            while range.start > 0 && is_comment_about_next(lines.get(text, range.start - 1)) {
                range.start -= 1;
            }
            for fate in &mut fates[range] {
                *fate = Fate::Item(items);
            }
            items += 1;
            i = end;
        } else if cfg.is_noise() {
            let bytes = lexed[i].1.start..lexed[i + cfg.len - 1].1.end;
            let range = lines.whole(text, bytes).ok_or_else(|| {
                Error::at(
                    text,
                    lexed[i].1.start,
                    "a `#[cfg(not(loom))]`, `#[cfg(not(test))]` or `#[cfg_attr(loom, …)]` \
                     attribute must stand on lines of its own",
                )
            })?;
            for fate in &mut fates[range] {
                *fate = Fate::Noise;
            }
            i += cfg.len;
        } else {
            i += 1;
        }
    }
    Ok(fates)
}

/// The first token of the attributes that stand before the one at `i`
/// (`#[derive(Debug)]` before `#[cfg(test)]`).
fn attributes_before(tokens: &[Token], mut i: usize) -> usize {
    while i > 0 && tokens[i - 1] == Token::Punct(']') {
        let mut depth = 0;
        let mut j = i - 1;
        let open = loop {
            match tokens[j] {
                Token::Punct(']') => depth += 1,
                Token::Punct('[') => {
                    depth -= 1;
                    if depth == 0 {
                        break Some(j);
                    }
                }
                _ => {}
            }
            if j == 0 {
                break None;
            }
            j -= 1;
        };
        match open {
            Some(open) if open > 0 && tokens[open - 1] == Token::Punct('#') => i = open - 1,
            _ => break,
        }
    }
    i
}

/// A line that is only a comment about the code below it: not a module's
/// own doc (`//!`) and not an anchor marker.
fn is_comment_about_next(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("//") && !line.starts_with("//!") && !is_marker(line)
}

/// Whether mdBook reads the line as an anchor marker.
fn is_marker(line: &str) -> bool {
    anchor(line, "ANCHOR:").is_some() || anchor(line, "ANCHOR_END:").is_some()
}

/// The name in the line's first `ANCHOR:`/`ANCHOR_END:` marker, as mdBook's
/// `ANCHOR:\s*([\w_-]+)` finds it.
fn anchor<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.match_indices(marker).find_map(|(at, _)| {
        let rest = line[at + marker.len()..].trim_start();
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        (len > 0).then(|| &rest[..len])
    })
}

/// The lines of a text as `str::lines` splits them, by byte offset.
struct Lines {
    /// The byte offset where each line starts.
    starts: Vec<usize>,
}

impl Lines {
    fn of(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        if starts.last() == Some(&text.len()) {
            starts.pop();
        }
        Lines { starts }
    }

    fn count(&self) -> usize {
        self.starts.len()
    }

    fn line_of(&self, byte: usize) -> usize {
        self.starts.partition_point(|&s| s <= byte) - 1
    }

    fn get<'a>(&self, text: &'a str, line: usize) -> &'a str {
        let end = self.starts.get(line + 1).copied().unwrap_or(text.len());
        text[self.starts[line]..end].trim_end_matches(['\n', '\r'])
    }

    /// The lines that `bytes` covers, if nothing but blanks stands before
    /// it on its first line and nothing but blanks or a comment after it
    /// on its last.
    fn whole(&self, text: &str, bytes: Range<usize>) -> Option<Range<usize>> {
        let first = self.line_of(bytes.start);
        let last = self.line_of(bytes.end - 1);
        let before = &text[self.starts[first]..bytes.start];
        let line_end = self.starts.get(last + 1).copied().unwrap_or(text.len());
        let after = text[bytes.end..line_end].trim();
        (before.trim().is_empty() && (after.is_empty() || after.starts_with("//")))
            .then_some(first..last + 1)
    }
}

/// How mdBook shows a line of an included file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Visible,
    /// Behind `# `: in the program, not on the page.
    Hidden,
    /// Not in the block at all.
    Dropped,
}

/// Per line of `text`, how mdBook 0.5.4's `links` shows it for an include
/// of `part` (`rustdoc_include` when `rustdoc`): `take_lines`,
/// `take_anchored_lines`, `take_rustdoc_include_lines` and
/// `take_rustdoc_include_anchored_lines` in
/// `crates/mdbook-driver/src/builtin_preprocessors/links/take_lines.rs`.
fn shown(text: &str, part: &Part, rustdoc: bool) -> Vec<Shown> {
    let outside = if rustdoc {
        Shown::Hidden
    } else {
        Shown::Dropped
    };
    let lines: Vec<&str> = text.lines().collect();
    match part {
        Part::Anchor(name) => {
            let mut out = Vec::with_capacity(lines.len());
            let mut within = false;
            // `take_anchored_lines` stops at the anchor's first end;
            // `take_rustdoc_include_anchored_lines` shows every section of it.
            let mut ended = false;
            for line in lines {
                let start = anchor(line, "ANCHOR:");
                let end = anchor(line, "ANCHOR_END:");
                let fate = if within {
                    if end.is_some() {
                        if end == Some(name) {
                            within = false;
                            ended = true;
                        }
                        Shown::Dropped
                    } else if start.is_some() {
                        Shown::Dropped
                    } else {
                        Shown::Visible
                    }
                } else if start.is_some() {
                    if start == Some(name) && (rustdoc || !ended) {
                        within = true;
                    }
                    Shown::Dropped
                } else if end.is_some() {
                    Shown::Dropped
                } else {
                    outside
                };
                out.push(fate);
            }
            out
        }
        Part::Whole => vec![Shown::Visible; lines.len()],
        Part::Lines(spec) => {
            let (start, end) = line_range(spec);
            (0..lines.len())
                .map(|i| {
                    if i >= start && end.is_none_or(|end| i < end) {
                        Shown::Visible
                    } else {
                        outside
                    }
                })
                .collect()
        }
    }
}

/// mdBook's `parse_range_or_anchor` for a range (`3`, `3:10`, `:0`, `3:`):
/// the first line shown (from 0) and the line after the last, if any.
fn line_range(spec: &str) -> (usize, Option<usize>) {
    let mut parts = spec.splitn(3, ':');
    let start = parts
        .next()
        .and_then(|s| s.parse::<usize>().ok())
        .map(|n| n.saturating_sub(1));
    let end = parts.next().map(str::parse::<usize>);
    match (start, end) {
        (Some(start), Some(Ok(end))) => (start, Some(end)),
        (Some(start), Some(Err(_))) => (start, None),
        (Some(start), None) => (start, Some(start + 1)),
        (None, Some(Ok(end))) => (0, Some(end)),
        (None, _) => (0, None),
    }
}

/// What an include of a module file puts in a block: mdBook's expansion
/// of `text` for an include of `part`, without what a reader's program
/// leaves out of its hidden lines (see the module's documentation).
/// `fates` is [`fates`]`(text)`.
pub(crate) fn expand(text: &str, fates: &[Fate], part: &Part, rustdoc: bool) -> Result<String> {
    if let Part::Anchor(name) = part
        && !text
            .lines()
            .any(|line| anchor(line, "ANCHOR:") == Some(name.as_str()))
    {
        return Err(format!("no `ANCHOR: {name}` in the file").into());
    }
    refuse_directives(text)?;
    Ok(assemble(text, fates, &shown(text, part, rustdoc), "# "))
}

/// Fails if a module's text holds a `{{#` directive: the plug-in expands
/// its includes itself and would not follow one.
pub(crate) fn refuse_directives(text: &str) -> Result<()> {
    if text.contains("{{#") {
        return Err(
            "a listings module must not hold a `{{#` directive: the plug-in expands \
             its includes itself and would not follow one"
                .into(),
        );
    }
    Ok(())
}

/// A module file as appendix C shows it, in two parts: the module as a
/// reader's program keeps it, every line visible (what the hidden lines of
/// a whole-file `rustdoc_include` hold, unhidden), and the items it leaves
/// out (tests, loom models, loom-only imports) in the file's order, a blank
/// line between two that stand apart in the file, without marker lines;
/// empty if there are none. `fates` is [`fates`]`(text)`.
pub(crate) fn split(text: &str, fates: &[Fate]) -> (String, String) {
    let program = assemble(text, fates, &vec![Shown::Hidden; fates.len()], "");
    let lines: Vec<&str> = text.lines().collect();
    let mut left_out: Vec<&str> = Vec::new();
    let mut last: Option<usize> = None;
    for (i, (line, fate)) in lines.iter().zip(fates).enumerate() {
        if !matches!(fate, Fate::Item(_)) || is_marker(line) {
            continue;
        }
        // Apart in the file: something the program keeps stands between.
        let apart = last.is_some_and(|last| {
            (last + 1..i).any(|j| !matches!(fates[j], Fate::Item(_)) && !is_marker(lines[j]))
        });
        if apart && left_out.last().is_some_and(|l| !l.trim().is_empty()) {
            left_out.push("");
        }
        left_out.push(line);
        last = Some(i);
    }
    while left_out.last().is_some_and(|l| l.trim().is_empty()) {
        left_out.pop();
    }
    (program, left_out.join("\n"))
}

/// The block text of `text`'s lines, each shown as `shown` says, without
/// what a reader's program leaves out of its hidden lines; hidden lines
/// start with `hide` (`# `, or nothing for a module shown as a program).
fn assemble(text: &str, fates: &[Fate], shown: &[Shown], hide: &str) -> String {
    // An item the reader sees a line of stays whole.
    let seen: Vec<usize> = fates
        .iter()
        .zip(shown)
        .filter_map(|(fate, shown)| match (fate, shown) {
            (Fate::Item(item), Shown::Visible) => Some(*item),
            _ => None,
        })
        .collect();
    let mut kept: Vec<String> = Vec::new();
    for ((line, fate), shown) in text.lines().zip(fates).zip(shown) {
        let left_out = match fate {
            Fate::Kept => false,
            Fate::Item(item) => !seen.contains(item),
            Fate::Noise => true,
        };
        match shown {
            Shown::Visible => kept.push(line.to_string()),
            Shown::Hidden if left_out || is_marker(line) => {}
            Shown::Hidden => kept.push(format!("{hide}{line}")),
            Shown::Dropped => {}
        }
    }
    // Leaving out an item can leave two blank lines in a row, or one at the
    // end: one is enough (a visible one always stays).
    let hidden_blank = |line: &str| line == hide;
    let mut out: Vec<String> = Vec::with_capacity(kept.len());
    for line in kept {
        if hidden_blank(&line)
            && out
                .last()
                .is_some_and(|l| hidden_blank(l) || l.trim().is_empty())
        {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| hidden_blank(l)) {
        out.pop();
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rustdoc(text: &str, part: Part) -> String {
        expand(text, &fates(text).unwrap(), &part, true).unwrap()
    }

    const MODULE: &str = "\
//! A module.

use std::sync::Mutex;
#[cfg(loom)]
use loom::sync::Arc;
#[cfg(not(loom))]
use std::sync::Arc;

// ANCHOR: new
/// Makes one.
pub fn new() -> Arc<Mutex<u8>> {
    Arc::new(Mutex::new(0))
}
// ANCHOR_END: new

// The model checker's stand-in.
/// Its doc.
#[derive(Debug)]
#[cfg(loom)]
struct Model {
    x: [u8; 2],
}

#[cfg(all(test, not(loom)))]
mod tests {
    #[test]
    fn it_works() {}
}
";

    #[test]
    fn tests_and_loom_code_leave_the_hidden_lines() {
        assert_eq!(
            rustdoc(MODULE, Part::Anchor("new".into())),
            "# //! A module.\n# \n# use std::sync::Mutex;\n# use std::sync::Arc;\n# \n\
             /// Makes one.\npub fn new() -> Arc<Mutex<u8>> {\n    Arc::new(Mutex::new(0))\n}"
        );
        assert_eq!(
            rustdoc(MODULE, Part::Lines(":0".into())),
            "# //! A module.\n# \n# use std::sync::Mutex;\n# use std::sync::Arc;\n# \n\
             # /// Makes one.\n# pub fn new() -> Arc<Mutex<u8>> {\n#     Arc::new(Mutex::new(0))\n# }"
        );
    }

    #[test]
    fn cfg_fields_leave_out_the_field_alone_and_test_fields_stay() {
        // Loom-only fields go, in the struct and in its literal, up to
        // their `,` (generics hold commas) or the struct's closing brace;
        // test-only fields stay, since a shown struct or statement may
        // need them in the reader's `cargo test`.
        let text = "\
struct Header {
    refs: usize,
    #[cfg(test)]
    count: std::sync::atomic::AtomicUsize,
    /// Loom's stand-in.
    #[cfg(loom)]
    map: std::collections::HashMap<u8, Vec<u8>>,
    #[cfg(loom)]
    f: fn(u8) -> u8
}

// ANCHOR: new
fn new() -> Header {
    Header {
        refs: 1,
        #[cfg(test)]
        count: Default::default(),
        #[cfg(loom)]
        map: Default::default(),
        #[cfg(loom)]
        f: |x| x,
    }
}
// ANCHOR_END: new

// ANCHOR: count
impl Header {
    fn count(&self) {
        #[cfg(test)]
        self.count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}
// ANCHOR_END: count
";
        assert_eq!(
            rustdoc(text, Part::Anchor("count".into())),
            "# struct Header {\n#     refs: usize,\n#     #[cfg(test)]\n\
             #     count: std::sync::atomic::AtomicUsize,\n# }\n# \n\
             # fn new() -> Header {\n#     Header {\n#         refs: 1,\n\
             #         #[cfg(test)]\n#         count: Default::default(),\n#     }\n# }\n# \n\
             impl Header {\n    fn count(&self) {\n        #[cfg(test)]\n        \
             self.count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);\n    }\n}"
        );
        // What is shown stays as it is; the hidden statement under
        // `cfg(test)` goes (it is a statement, not a field).
        assert_eq!(
            rustdoc(text, Part::Anchor("new".into())),
            "# struct Header {\n#     refs: usize,\n#     #[cfg(test)]\n\
             #     count: std::sync::atomic::AtomicUsize,\n# }\n# \n\
             fn new() -> Header {\n    Header {\n        refs: 1,\n        #[cfg(test)]\n        \
             count: Default::default(),\n        #[cfg(loom)]\n        map: Default::default(),\n        \
             #[cfg(loom)]\n        f: |x| x,\n    }\n}\n# \n\
             # impl Header {\n#     fn count(&self) {\n#     }\n# }"
        );
    }

    #[test]
    fn appendix_c_splits_a_module_into_its_program_and_what_it_leaves_out() {
        let (program, left_out) = split(MODULE, &fates(MODULE).unwrap());
        assert_eq!(
            program,
            "//! A module.\n\nuse std::sync::Mutex;\nuse std::sync::Arc;\n\n\
             /// Makes one.\npub fn new() -> Arc<Mutex<u8>> {\n    Arc::new(Mutex::new(0))\n}"
        );
        // The loom import, the loom stand-in with its comment and the tests:
        // a blank line between items that stand apart in the file.
        assert_eq!(
            left_out,
            "#[cfg(loom)]\nuse loom::sync::Arc;\n\n// The model checker's stand-in.\n\
             /// Its doc.\n#[derive(Debug)]\n#[cfg(loom)]\nstruct Model {\n    x: [u8; 2],\n}\n\n\
             #[cfg(all(test, not(loom)))]\nmod tests {\n    #[test]\n    fn it_works() {}\n}"
        );
        // Markers inside a left-out item go; a file without any has none.
        let text = "fn f() {}\n#[cfg(test)]\nmod tests {\n    // ANCHOR: t\n    fn t() {}\n    // ANCHOR_END: t\n}\n";
        assert_eq!(
            split(text, &fates(text).unwrap()),
            (
                "fn f() {}".to_string(),
                "#[cfg(test)]\nmod tests {\n    fn t() {}\n}".to_string()
            )
        );
        let plain = "// ANCHOR: a\nfn a() {}\n// ANCHOR_END: a\n";
        assert_eq!(
            split(plain, &fates(plain).unwrap()),
            ("fn a() {}".to_string(), String::new())
        );
    }

    #[test]
    fn visible_lines_are_mdbooks_even_under_cfg() {
        // A whole-file include shows everything: nothing is left out.
        let whole = expand(MODULE, &fates(MODULE).unwrap(), &Part::Whole, false).unwrap();
        assert_eq!(whole, MODULE.trim_end());
        // An anchor inside a test shows the test, and keeps it whole.
        let text = "fn f() {}\n#[cfg(test)]\nmod tests {\n    // ANCHOR: t\n    fn t() {}\n    // ANCHOR_END: t\n}\n";
        assert_eq!(
            rustdoc(text, Part::Anchor("t".into())),
            "# fn f() {}\n# #[cfg(test)]\n# mod tests {\n    fn t() {}\n# }"
        );
    }

    #[test]
    fn mdbooks_anchor_rules() {
        let text = "a\n// ANCHOR: x\nb\n// ANCHOR: y\nc\n// ANCHOR_END: y\n// ANCHOR_END: x\nd\n// ANCHOR: x\ne\n// ANCHOR_END: x\n";
        // rustdoc_include shows every section; other markers are dropped.
        assert_eq!(rustdoc(text, Part::Anchor("x".into())), "# a\nb\nc\n# d\ne");
        // include stops at the first end.
        assert_eq!(
            expand(
                text,
                &fates(text).unwrap(),
                &Part::Anchor("x".into()),
                false
            )
            .unwrap(),
            "b\nc"
        );
        assert_eq!(
            rustdoc(text, Part::Lines("2:3".into())),
            "# a\n// ANCHOR: x\nb\n# c\n# d\n# e"
        );
        assert_eq!(line_range("3"), (2, Some(3)));
        assert_eq!(line_range("3:"), (2, None));
        assert_eq!(line_range(":0"), (0, Some(0)));
        let missing = expand(text, &fates(text).unwrap(), &Part::Anchor("z".into()), true);
        assert!(missing.unwrap_err().to_string().contains("ANCHOR: z"));
    }

    #[test]
    fn left_out_code_must_stand_on_its_own_lines() {
        let error = fates("fn f() {} #[cfg(test)] fn g() {}\n").unwrap_err();
        assert_eq!(error.line(), Some(1), "{error}");
        assert!(error.message().contains("an item under"), "{error}");
        let error = fates("fn f() {}\n#[cfg(not(loom))] fn g() {}\n").unwrap_err();
        assert_eq!(error.line(), Some(2), "{error}");
        assert!(error.message().contains("attribute must stand"), "{error}");
        // A comment after the item is its own.
        assert_eq!(
            fates("#[cfg(test)]\nfn g() {} // why\nfn h() {}\n").unwrap(),
            [Fate::Item(0), Fate::Item(0), Fate::Kept]
        );
    }

    #[test]
    fn which_cfgs_a_reader_never_builds() {
        let text = "\
#[cfg(any(test, loom))]
fn a() {}
#[cfg(not(test))]
fn b() {}
#[cfg(all(unix, loom))]
fn c() {}
#[cfg(any(unix, loom))]
fn d() {}
#[cfg_attr(loom, allow(dead_code))]
fn e() {}
#[cfg(feature = \"x\")]
fn f() {}
";
        let kept: Vec<&str> = text
            .lines()
            .zip(fates(text).unwrap())
            .filter(|(_, fate)| *fate == Fate::Kept)
            .map(|(line, _)| line)
            .collect();
        assert_eq!(
            kept,
            [
                "fn b() {}",
                "#[cfg(any(unix, loom))]",
                "fn d() {}",
                "fn e() {}",
                "#[cfg(feature = \"x\")]",
                "fn f() {}"
            ]
        );
    }
}
