//! The renderer, which mdBook runs after the HTML renderer (outputs run in
//! alphabetical order, and this one is `output.pagefind`).
//!
//! mdBook has one `book.language` for every page, so it writes
//! `<html lang="ja">` on the Chinese pages too. Here each page under `zh/`
//! gets `lang="zh-CN"`, so browsers pick Chinese glyph forms and Pagefind
//! builds a separate Chinese index (it indexes each page by its `lang`).
//! The chapter text (`<main>`) is marked as the part to index, hidden code
//! lines are left out of it, and Pagefind is run over the HTML output.

use crate::Result;
use crate::edition::Edition;
use mdbook_renderer::RenderContext;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the renderer over mdBook's protocol.
pub fn run(input: impl Read) -> Result<()> {
    let context = RenderContext::from_json(input).map_err(|e| format!("{e:#}"))?;
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
    for edition in Edition::ALL {
        for page in html_files(&html.join(edition.dir()))? {
            let text =
                std::fs::read_to_string(&page).map_err(|e| format!("{}: {e}", page.display()))?;
            // A page mdBook wrote differently (another version, another
            // theme) would otherwise go unmarked, and unsearched, silently.
            let marked = mark_page(&text, edition).ok_or_else(|| {
                format!(
                    "{}: no `<html lang=…>` or `<main>` to mark; has mdBook's page layout changed?",
                    page.display()
                )
            })?;
            if marked != text {
                std::fs::write(&page, marked).map_err(|e| format!("{}: {e}", page.display()))?;
            }
        }
    }
    index(&html)
}

/// The `.html` files under `dir`, recursively.
fn html_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            out.extend(html_files(&path)?);
        } else if path.extension().is_some_and(|e| e == "html") {
            out.push(path);
        }
    }
    Ok(out)
}

/// One page of an edition, with its language, the part Pagefind indexes,
/// and hidden code lines kept out of the index; `None` if the page has no
/// `<html lang="…">` or no `<main>` to mark.
pub fn mark_page(html: &str, edition: Edition) -> Option<String> {
    const ATTRIBUTE: &str = "<html lang=\"";
    let value = html.find(ATTRIBUTE)? + ATTRIBUTE.len();
    let len = html[value..].find('"')?;
    let out = format!(
        "{}{}{}",
        &html[..value],
        edition.lang(),
        &html[value + len..]
    );
    let out = if out.contains("<main data-pagefind-body>") {
        out
    } else if out.contains("<main>") {
        out.replacen("<main>", "<main data-pagefind-body>", 1)
    } else {
        return None;
    };
    Some(out.replace(
        "<span class=\"boring\">",
        "<span class=\"boring\" data-pagefind-ignore>",
    ))
}

/// Builds the search index into `<html>/pagefind/`.
fn index(html: &Path) -> Result<()> {
    let status = Command::new("pagefind")
        .arg("--site")
        .arg(html)
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
            "<!DOCTYPE HTML>\n<html lang=\"zh-CN\" class=\"light\" dir=\"ltr\">\n<body><main data-pagefind-body>\n<pre><code><span class=\"boring\" data-pagefind-ignore>use x;\n</span>fn f() {}</code></pre>\n</main></body></html>\n"
        );
    }

    #[test]
    fn marking_twice_changes_nothing_more() {
        let once = mark_page(PAGE, Edition::Ja).unwrap();
        assert!(once.starts_with("<!DOCTYPE HTML>\n<html lang=\"ja\" class"));
        assert_eq!(
            mark_page(&once, Edition::Ja)
                .unwrap()
                .matches("data-pagefind-ignore")
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
