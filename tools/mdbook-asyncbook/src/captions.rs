//! Captions that name where a code fragment comes from.
//!
//! A ```rust block is usually a few visible lines of a file in `listings/`
//! plus hidden lines that make it a complete program. Before each such block
//! the preprocessor writes a caption linking every file whose lines the block
//! shows to that file's section in the listings appendix, where the whole
//! file is. It reads the block's `{{#include}}` / `{{#rustdoc_include}}`
//! directives, so it runs before mdBook's `links` preprocessor expands them.

use crate::directives::{Include, directives};
use crate::edition::{Edition, listing_anchor};
use crate::markdown::{escape_html, fences};

/// The page that shows every listing file whole; it needs no captions.
pub const LISTINGS_PAGE: &str = "appendix-listings.md";
/// That page as the HTML book links to it (captions are raw HTML, which
/// mdBook does not rewrite from `.md`).
pub const LISTINGS_HTML: &str = "appendix-listings.html";

/// An include directive in a block: the file (from the repository root) and
/// whether the reader sees any of its lines.
#[derive(Debug, PartialEq, Eq)]
pub struct Included {
    pub file: String,
    pub visible: bool,
}

/// The include directives in `text`, with paths resolved against the folder
/// of the chapter (`chapter_dir`, from the repository root, e.g. `src/ja`).
pub fn includes(text: &str, chapter_dir: &str) -> Vec<Included> {
    directives(text)
        .iter()
        .filter_map(Include::of)
        .map(|include| Included {
            file: include.file_from_root(chapter_dir),
            visible: include.is_visible(),
        })
        .collect()
}

/// The chapter with a caption before every ```rust block that shows lines
/// of a file in `listings/`. `path` is the chapter's path under `src/`.
pub fn add(content: &str, path: &str) -> String {
    let Some(edition) = Edition::of_path(path) else {
        return content.to_string();
    };
    if path.ends_with(LISTINGS_PAGE) {
        return content.to_string();
    }
    let chapter_dir = match path.rsplit_once('/') {
        Some((dir, _)) => format!("src/{dir}"),
        None => "src".to_string(),
    };
    let words = edition.words();
    let mut out = String::with_capacity(content.len() + 1024);
    let mut copied = 0;
    for fence in fences(content) {
        if fence.language() != "rust" {
            continue;
        }
        let mut shown: Vec<String> = Vec::new();
        for include in includes(&content[fence.range.clone()], &chapter_dir) {
            if include.visible
                && include.file.starts_with("listings/")
                && !shown.contains(&include.file)
            {
                shown.push(include.file);
            }
        }
        if shown.is_empty() {
            continue;
        }
        // The caption goes on its own lines before the fence, inside the
        // same list item or quote. The fence line may open the item itself
        // (`2. ```rust`): then the caption takes the marker, and the fence
        // moves to the item's continuation indent.
        let line_start = content[..fence.range.start]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let prefix = &content[line_start..fence.range.start];
        let container = continuation(prefix);
        let links: Vec<String> = shown
            .iter()
            .map(|file| {
                format!(
                    "<a href=\"{}#{}\"><code>{}</code></a>",
                    LISTINGS_HTML,
                    listing_anchor(file),
                    escape_html(file)
                )
            })
            .collect();
        out.push_str(&content[copied..line_start]);
        out.push_str(&format!(
            "{prefix}<p class=\"listing-source\">{}{}</p>\n{}\n{container}",
            words.source,
            links.join(words.separator),
            container.trim_end()
        ));
        copied = fence.range.start;
    }
    out.push_str(&content[copied..]);
    out
}

/// What continues a block inside the containers that `prefix` (the text
/// before a fence on its line) opens: quote markers stay, list markers
/// become spaces. `"> 2. "` → `">    "`.
fn continuation(prefix: &str) -> String {
    prefix
        .chars()
        .map(|c| match c {
            '>' | ' ' | '\t' => c,
            _ => ' ',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_resolved_and_hidden_ones_recognised() {
        let block = "```rust\n{{#rustdoc_include ../../listings/examples/ch02_timer.rs::0}}\n# mod listings {\n{{#rustdoc_include ../../listings/src/timer.rs:poll}}\n\\{{#include ../../listings/src/escaped.rs}}\n{{#include ../../listings/src/lib.rs}}\n```\n";
        assert_eq!(
            includes(block, "src/ja"),
            [
                Included {
                    file: "listings/examples/ch02_timer.rs".into(),
                    visible: false
                },
                Included {
                    file: "listings/src/timer.rs".into(),
                    visible: true
                },
                Included {
                    file: "listings/src/lib.rs".into(),
                    visible: true
                },
            ]
        );
    }

    #[test]
    fn a_caption_names_each_visible_file_once() {
        let chapter = "Text.\n\n```rust\n{{#rustdoc_include ../../listings/examples/ch02_timer.rs::0}}\n{{#rustdoc_include ../../listings/src/timer.rs:poll}}\n{{#rustdoc_include ../../listings/src/timer.rs:complete}}\n```\n\n```text\n{{#include ../../listings/output/ch02_timer.txt}}\n```\n";
        let captioned = add(chapter, "zh/ch02-wakers-and-timer.md");
        assert_eq!(
            captioned,
            chapter.replace(
                "```rust",
                "<p class=\"listing-source\">源文件：<a href=\"appendix-listings.html#listing-src-timer-rs\"><code>listings/src/timer.rs</code></a></p>\n\n```rust"
            )
        );
    }

    #[test]
    fn captions_keep_the_indentation_of_the_block() {
        let chapter = "1. Step:\n\n   ```rust\n   {{#include ../../listings/src/a.rs}}\n   {{#include ../../listings/src/b.rs}}\n   ```\n";
        let captioned = add(chapter, "ja/ch01-x.md");
        assert!(captioned.contains("\n   <p class=\"listing-source\">ソース：<a href=\"appendix-listings.html#listing-src-a-rs\"><code>listings/src/a.rs</code></a>、<a href=\"appendix-listings.html#listing-src-b-rs\"><code>listings/src/b.rs</code></a></p>\n\n   ```rust"), "{captioned}");
    }

    #[test]
    fn captions_stay_in_the_list_item_or_quote_the_fence_opens() {
        let item = "1. One.\n2. ```rust\n   {{#include ../../listings/src/a.rs}}\n   ```\n";
        let captioned = add(item, "ja/ch01-x.md");
        assert_eq!(
            captioned,
            "1. One.\n2. <p class=\"listing-source\">ソース：<a href=\"appendix-listings.html#listing-src-a-rs\"><code>listings/src/a.rs</code></a></p>\n\n   ```rust\n   {{#include ../../listings/src/a.rs}}\n   ```\n"
        );
        let quote = "> ```rust\n> {{#include ../../listings/src/a.rs}}\n> ```\n";
        let captioned = add(quote, "ja/ch01-x.md");
        assert!(
            captioned.starts_with("> <p class=\"listing-source\">ソース：<a href=\"appendix-listings.html#listing-src-a-rs\"><code>listings/src/a.rs</code></a></p>\n>\n> ```rust\n"),
            "{captioned}"
        );
        // Both still parse as one list / one quote holding a paragraph and the block.
        for (text, container) in [
            (add(item, "ja/ch01-x.md"), "List"),
            (add(quote, "ja/ch01-x.md"), "BlockQuote"),
        ] {
            let starts = mdbook_markdown::pulldown_cmark::Parser::new(&text)
                .filter(|e| matches!(e, mdbook_markdown::pulldown_cmark::Event::Start(t) if format!("{t:?}").starts_with(container)))
                .count();
            assert_eq!(starts, 1, "{text}");
        }
    }

    #[test]
    fn file_names_are_escaped_in_the_caption() {
        let chapter = "```rust\n{{#include ../../listings/src/a&b.rs}}\n```\n";
        assert!(add(chapter, "zh/ch01-x.md").contains("<code>listings/src/a&amp;b.rs</code>"));
    }

    #[test]
    fn the_listings_page_has_one_name_in_markdown_and_html() {
        assert_eq!(LISTINGS_PAGE.replace(".md", ".html"), LISTINGS_HTML);
    }

    #[test]
    fn pages_outside_the_editions_and_the_listings_page_are_left_alone() {
        let chapter = "```rust\n{{#include ../listings/src/a.rs}}\n```\n";
        assert_eq!(add(chapter, "index.md"), chapter);
        assert_eq!(add(chapter, "ja/appendix-listings.md"), chapter);
    }
}
