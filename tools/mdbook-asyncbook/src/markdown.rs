//! What the tools need to know about a chapter's Markdown, found with
//! mdBook's own parser: where each fenced code block is, what its prose
//! says, and which headings it has.

use mdbook_markdown::pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};
use mdbook_markdown::{MarkdownOptions, new_cmark_parser};
use std::ops::Range;

/// The parser mdBook 0.5.4 renders chapters with, with its default options
/// (the book's `book.toml` changes none), so that we see the blocks and
/// text it sees.
pub(crate) fn parser(text: &str) -> Parser<'_> {
    new_cmark_parser(text, &MarkdownOptions::default())
}

/// A fenced code block: its info string and the byte range of the whole
/// block, fences included.
#[derive(Debug, PartialEq, Eq)]
pub struct Fence {
    pub info: String,
    pub range: Range<usize>,
}

impl Fence {
    /// The block's language: the first word of its info string.
    pub fn language(&self) -> &str {
        self.info.split([',', ' ', '\t']).next().unwrap_or("")
    }
}

/// Every fenced code block, in order.
pub fn fences(text: &str) -> Vec<Fence> {
    parser(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => Some(Fence {
                info: info.to_string(),
                range,
            }),
            _ => None,
        })
        .collect()
}

/// The prose of a chapter: each run of text outside code (blocks, inline
/// code and HTML), with the 1-based line it starts on.
pub fn prose(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code_block = false;
    // Where each line ends, found once: `line_of` for every run of text
    // would read the chapter from its start each time.
    let newlines: Vec<usize> = text.match_indices('\n').map(|(at, _)| at).collect();
    for (event, range) in parser(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Text(t) if !in_code_block => {
                let line = newlines.partition_point(|&at| at < range.start) + 1;
                out.push((line, t.to_string()))
            }
            _ => {}
        }
    }
    out
}

/// A paragraph or a list item's own text (not its nested paragraphs or
/// lists), with the 1-based line it starts on; inline code counts as text.
#[derive(Debug, PartialEq, Eq)]
pub struct TextUnit {
    pub line: usize,
    pub text: String,
}

/// The paragraphs and list items of a chapter's prose, outside code blocks
/// and tables, in order of their end.
pub fn text_units(text: &str) -> Vec<TextUnit> {
    let newlines: Vec<usize> = text.match_indices('\n').map(|(at, _)| at).collect();
    let line = |at: usize| newlines.partition_point(|&n| n < at) + 1;
    let mut open: Vec<TextUnit> = Vec::new();
    let mut out = Vec::new();
    // Inside a table, or a code block (which may stand in a list item).
    let mut outside = 0usize;
    for (event, range) in parser(text).into_offset_iter() {
        match event {
            Event::Start(Tag::Table(_) | Tag::CodeBlock(_)) => outside += 1,
            Event::End(TagEnd::Table | TagEnd::CodeBlock) => outside -= 1,
            Event::Start(Tag::Paragraph | Tag::Item) if outside == 0 => open.push(TextUnit {
                line: line(range.start),
                text: String::new(),
            }),
            Event::End(TagEnd::Paragraph | TagEnd::Item) if outside == 0 => {
                out.extend(open.pop());
            }
            Event::Text(t) | Event::Code(t) if outside == 0 => {
                if let Some(unit) = open.last_mut() {
                    unit.text.push_str(&t);
                }
            }
            _ => {}
        }
    }
    out
}

/// Where a chapter's code is: each code block (fenced or indented, fences
/// included) as `(range, true)`, each inline code span (backticks
/// included) as `(range, false)`, in order.
pub fn code_ranges(text: &str) -> Vec<(Range<usize>, bool)> {
    parser(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(_)) => Some((range, true)),
            Event::Code(_) => Some((range, false)),
            _ => None,
        })
        .collect()
}

/// The inline code spans of a chapter (not code blocks), without backticks.
pub fn inline_code(text: &str) -> Vec<String> {
    parser(text)
        .filter_map(|event| match event {
            Event::Code(code) => Some(code.to_string()),
            _ => None,
        })
        .collect()
}

/// The headings with an explicit id: `(id, text)`, the text as written in
/// the Markdown source (escapes and code spans kept), so that it can be
/// pasted into a link and render as it does in the heading.
pub fn headings(text: &str) -> Vec<(String, String)> {
    parser(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Heading { id: Some(id), .. }) => {
                Some((id.to_string(), heading_source(&text[range])))
            }
            _ => None,
        })
        .collect()
}

/// `## Some \<b\> `code` {#id}` → `Some \<b\> `code``.
fn heading_source(heading: &str) -> String {
    let line = heading.lines().next().unwrap_or_default().trim();
    let line = line.trim_start_matches('#').trim();
    // The attribute block is the last `{...}` of the line.
    let line = match line.rfind('{') {
        Some(open) if line.ends_with('}') => line[..open].trim_end(),
        _ => line,
    };
    // A closing sequence of `#`s, if any, preceded by a space.
    let without_closing = line.trim_end_matches('#');
    if without_closing.len() < line.len() && without_closing.ends_with(' ') {
        without_closing.trim_end().to_string()
    } else {
        line.to_string()
    }
}

/// `text` escaped for use inside HTML text or a double-quoted attribute.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Plain text (a chapter title, say) escaped so that Markdown shows it as
/// it is, also as the text of a link. (`|` is left to table cells.)
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '~' | '!' | '&'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_and_list_items_are_units_tables_and_code_are_not() {
        let md = "Intro `code` here.\n\n- one\n- two\n  - nested\n\n| a | b |\n| - | - |\n| long cell | x |\n\n```rust\nfn main() {}\n```\n\n- loose\n\n  second paragraph\n\n  ```rust\n  fn in_item() {}\n  ```\n";
        let units: Vec<(usize, String)> = text_units(md)
            .into_iter()
            .map(|u| (u.line, u.text))
            .collect();
        assert_eq!(
            units,
            [
                (1, "Intro code here.".to_string()),
                (3, "one".to_string()),
                (5, "nested".to_string()),
                (4, "two".to_string()),
                (15, "loose".to_string()),
                (17, "second paragraph".to_string()),
                (15, String::new()),
            ]
        );
    }

    const CHAPTER: &str = "# Title {#top}\n\nSome `code` and prose.\n\n```rust,no_run\nfn main() {}\n```\n\n## Second `part` {#second}\n\n<p>html</p>\n";

    #[test]
    fn finds_fences_with_their_language_and_extent() {
        let found = fences(CHAPTER);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].language(), "rust");
        assert_eq!(
            &CHAPTER[found[0].range.clone()],
            "```rust,no_run\nfn main() {}\n```"
        );
    }

    #[test]
    fn prose_leaves_out_code_and_html() {
        let text: Vec<String> = prose(CHAPTER).into_iter().map(|(_, t)| t).collect();
        assert_eq!(text, ["Title", "Some ", " and prose.", "Second "]);
        assert_eq!(prose(CHAPTER)[1].0, 3);
    }

    #[test]
    fn code_ranges_cover_blocks_and_spans() {
        let found: Vec<(&str, bool)> = code_ranges(CHAPTER)
            .into_iter()
            .map(|(range, block)| (&CHAPTER[range], block))
            .collect();
        assert_eq!(
            found,
            [
                ("`code`", false),
                ("```rust,no_run\nfn main() {}\n```", true),
                ("`part`", false)
            ]
        );
        let indented = "Text.\n\n    code {{x}}\n\nMore.\n";
        let (range, block) = code_ranges(indented).remove(0);
        assert!(block && indented[range].contains("{{x}}"));
    }

    #[test]
    fn headings_keep_their_ids_and_code() {
        assert_eq!(
            headings(CHAPTER),
            [
                ("top".into(), "Title".into()),
                ("second".into(), "Second `part`".into())
            ]
        );
    }

    #[test]
    fn heading_text_keeps_escapes_and_code_spans_as_written() {
        let chapter =
            "## `Pin\\<T\\>` and \\<T\\> \\*not em\\* ``a`b`` {#pin}\n\n### Closed ### {#closed}\n";
        assert_eq!(
            headings(chapter),
            [
                (
                    "pin".into(),
                    "`Pin\\<T\\>` and \\<T\\> \\*not em\\* ``a`b``".into()
                ),
                ("closed".into(), "Closed".into())
            ]
        );
    }

    #[test]
    fn escaping() {
        assert_eq!(escape_html("a&b<i>\"x\""), "a&amp;b&lt;i&gt;&quot;x&quot;");
        assert_eq!(escape_markdown("第 1 章 [*x*]"), "第 1 章 \\[\\*x\\*\\]");
    }
}
