//! What the plug-in needs to know about a chapter's Markdown, found with
//! pulldown-cmark (the parser mdBook 0.5 renders with): where each fenced
//! code block is, what its prose says, and which headings it has.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::ops::Range;

fn parser(text: &str) -> Parser<'_> {
    // The options mdBook 0.5 turns on, so that we see the blocks it sees.
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES;
    Parser::new_ext(text, options)
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
    for (event, range) in parser(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Text(t) if !in_code_block => {
                out.push((line_of(text, range.start), t.to_string()))
            }
            _ => {}
        }
    }
    out
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

/// The headings with an explicit id: `(id, text)`, inline code kept in backticks.
pub fn headings(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Heading { id: Some(id), .. }) => {
                current = Some((id.to_string(), String::new()));
            }
            Event::Text(t) => {
                if let Some((_, heading)) = current.as_mut() {
                    heading.push_str(&t);
                }
            }
            // Kept as Markdown, so a link to the section can show it as code.
            Event::Code(t) => {
                if let Some((_, heading)) = current.as_mut() {
                    heading.push_str(&format!("`{t}`"));
                }
            }
            Event::End(TagEnd::Heading(_)) => out.extend(current.take()),
            _ => {}
        }
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
    fn headings_keep_their_ids_and_code() {
        assert_eq!(
            headings(CHAPTER),
            [
                ("top".into(), "Title".into()),
                ("second".into(), "Second `part`".into())
            ]
        );
    }
}
