//! The renderer, which mdBook runs after the HTML renderer (outputs run in
//! alphabetical order, and this one is `output.pagefind`).
//!
//! mdBook has one `book.language` for every page, so it writes
//! `<html lang="ja">` on the Chinese pages too. Here each page under `zh/`
//! gets `lang="zh-CN"`, so browsers pick Chinese glyph forms and Pagefind
//! builds a separate Chinese index (it indexes each page by its `lang`).
//! The chapter text (`<main>`) is marked as the part to index, hidden code
//! lines are left out of it, and Pagefind is run over the HTML output.
//!
//! Before that, it moves hidden code lines out of the pages ([`hidden`]),
//! checking each block against the program the tests compile, writes one
//! print page per edition ([`print`]), copies mermaid.js into the book, and
//! writes [`PROGRAMS`] for the browser tests.

use crate::edition::Edition;
use crate::hidden::{self, Chunks};
use crate::preprocess::source_path;
use crate::print;
use crate::program::{program, rust_blocks};
use crate::{Error, Result};
use mdbook_renderer::RenderContext;
use mdbook_renderer::book::Chapter;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::Command;

/// Runs the renderer over mdBook's protocol.
pub fn run(input: impl Read) -> Result<()> {
    let context = RenderContext::from_json(input)?;
    // Our own output folder is empty; the HTML renderer's is beside it.
    let html = context
        .destination
        .parent()
        .ok_or("no build folder")?
        .join("html");
    if !html.join("index.html").is_file() {
        return Err(format!(
            "{} has no HTML book: is `output.html` configured?",
            html.display()
        )
        .into());
    }
    let chapters: Vec<&Chapter> = context.book.chapters().collect();
    let mut chunks = Chunks::default();
    let mut programs = BTreeMap::new();
    for chapter in &chapters {
        let Some(path) = source_path(chapter) else {
            continue;
        };
        let page = html.join(Path::new(&path).with_extension("html"));
        let text = read(&page)?;
        let done =
            hidden::externalise(&text, &mut chunks).map_err(|e| e.with_file(page.display()))?;
        check_programs(&path, &chapter.content, &done.programs)?;
        let mut out = done.html;
        if let Some(edition) = Edition::of_path(&path) {
            // A page mdBook wrote differently (another version, another
            // theme) would otherwise go unmarked, and unsearched, silently.
            out = mark_page(&out, edition).ok_or_else(|| {
                Error::in_file(
                    page.display(),
                    "no `<html lang=…>` or `<main>` to mark; has mdBook's page layout changed?",
                )
            })?;
            out = print::print_link(&out, edition).ok_or_else(|| {
                Error::in_file(
                    page.display(),
                    "no print button; has mdBook's page layout changed?",
                )
            })?;
        }
        if out != text {
            std::fs::write(&page, &out).map_err(|e| Error::in_file(page.display(), e))?;
        }
        programs.insert(path, done.programs);
    }
    chunks.write(&html)?;
    copy_mermaid(&context.root, &html)?;
    let names: Vec<print::ChapterName> = chapters
        .iter()
        .filter_map(|c| {
            source_path(c).map(|path| print::ChapterName {
                path,
                name: c.name.clone(),
            })
        })
        .collect();
    let print = html.join("print.html");
    if print.is_file() {
        for (name, page) in
            print::editions(&read(&print)?, &names).map_err(|e| e.with_file(print.display()))?
        {
            let file = html.join(name);
            std::fs::write(&file, page).map_err(|e| Error::in_file(file.display(), e))?;
        }
    }
    // For the browser tests: what the copy button must give for each block.
    std::fs::create_dir_all(&context.destination)?;
    let file = context.destination.join(PROGRAMS);
    std::fs::write(&file, serde_json::to_string_pretty(&programs)?)
        .map_err(|e| Error::in_file(file.display(), e))?;
    index(&html)
}

/// Where theme/diagrams.js loads mermaid.js from, under the HTML book.
pub const MERMAID: &str = "vendor/mermaid.min.js";

/// Copies mdbook-mermaid's copy of mermaid.js, which tools/book-tools
/// writes to `theme/vendor/`, into the built book: theme/diagrams.js loads
/// it on pages with diagrams only, so it is not one of mdBook's
/// `additional-js` (which every page loads).
fn copy_mermaid(root: &Path, html: &Path) -> Result<()> {
    let from = root.join("theme").join(MERMAID);
    let to = html.join(MERMAID);
    std::fs::create_dir_all(to.parent().expect("a file in a folder"))?;
    std::fs::copy(&from, &to)
        .map_err(|e| Error::in_file(from.display(), format!("{e}; tools/book-tools writes it")))?;
    Ok(())
}

/// The file, in this renderer's own output folder, that lists each chapter
/// page's Rust blocks as whole programs (what the copy button gives), by
/// the chapter's source path. It is not part of the HTML book.
pub const PROGRAMS: &str = "programs.json";

fn read(page: &Path) -> Result<String> {
    std::fs::read_to_string(page).map_err(|e| Error::in_file(page.display(), e))
}

/// The programs a chapter page's Rust blocks stood for, before their hidden
/// lines were moved out, must be the programs the book's tests compile:
/// those [`program`] makes of the chapter's Markdown (as preprocessed for
/// this renderer, as for the HTML one). mdBook drops the last line's
/// newline in the page; nothing else may differ.
fn check_programs(path: &str, markdown: &str, from_page: &[String]) -> Result<()> {
    let blocks = rust_blocks(markdown).map_err(|e| e.with_file(path))?;
    if blocks.len() != from_page.len() {
        return Err(Error::in_file(
            path,
            format!(
                "{} Rust blocks in the Markdown, {} on the page",
                blocks.len(),
                from_page.len()
            ),
        ));
    }
    for (index, (block, shown)) in blocks.iter().zip(from_page).enumerate() {
        let tested = program(block).map_err(|e| e.with_file(path))?.program;
        if tested.trim_end_matches('\n') != shown.trim_end_matches('\n') {
            return Err(Error::in_file(
                path,
                format!(
                    "Rust block {} on the page is not the program the tests compile",
                    index + 1
                ),
            ));
        }
    }
    Ok(())
}

/// One page of an edition, with its language and the part Pagefind indexes
/// (`data-pagefind-body` rather than Pagefind's `--root-selector main`, which
/// would index the landing and print pages too, and change the titles
/// Pagefind gives the pages); `None` if the page has no `<html lang="…">` or
/// no `<main>` to mark.
pub fn mark_page(html: &str, edition: Edition) -> Option<String> {
    let out = print::set_lang(html, edition.lang()).ok()?;
    let out = if out.contains("<main data-pagefind-body>") {
        out
    } else if out.contains("<main>") {
        out.replacen("<main>", "<main data-pagefind-body>", 1)
    } else {
        return None;
    };
    Some(out)
}

/// Builds the search index into `<html>/pagefind/`. Hidden code lines are
/// not in the pages (their `span.boring` is an empty placeholder), and are
/// kept out of the index should one ever hold text.
fn index(html: &Path) -> Result<()> {
    let status = Command::new("pagefind")
        .arg("--site")
        .arg(html)
        .args(["--exclude-selectors", "span.boring"])
        .arg("--quiet")
        .status()
        .map_err(|e| format!("cannot run pagefind ({e}); tools/book-tools installs it"))?;
    if !status.success() {
        return Err(format!("pagefind failed: {status}").into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<!DOCTYPE HTML>\n<html lang=\"ja\" class=\"light\" dir=\"ltr\">\n<body><main>\n<pre><code><span class=\"boring\">use x;\n</span>fn f() {}</code></pre>\n</main></body></html>\n";

    #[test]
    fn chinese_pages_get_their_language_and_an_index_body() {
        let marked = mark_page(PAGE, Edition::Zh).unwrap();
        assert_eq!(
            marked,
            "<!DOCTYPE HTML>\n<html lang=\"zh-CN\" class=\"light\" dir=\"ltr\">\n<body><main data-pagefind-body>\n<pre><code><span class=\"boring\">use x;\n</span>fn f() {}</code></pre>\n</main></body></html>\n"
        );
    }

    #[test]
    fn marking_twice_changes_nothing_more() {
        let once = mark_page(PAGE, Edition::Ja).unwrap();
        assert!(once.starts_with("<!DOCTYPE HTML>\n<html lang=\"ja\" class"));
        assert_eq!(
            mark_page(&once, Edition::Ja)
                .unwrap()
                .matches("data-pagefind-body")
                .count(),
            1
        );
    }

    #[test]
    fn a_page_without_lang_or_main_cannot_be_marked() {
        assert_eq!(
            mark_page("<html><body><main></main></body></html>", Edition::Ja),
            None
        );
        assert_eq!(
            mark_page(&PAGE.replace("<main>", "<div>"), Edition::Zh),
            None
        );
    }
}
