//! One print page per edition.
//!
//! mdBook writes a single `print.html` holding every chapter of the book,
//! both editions one after the other: a reader could neither print nor save
//! one language, and the page carried every hidden line of every block.
//! From it, this writes `print-ja.html` and `print-zh.html` beside it (at
//! the book's root, so that the links mdBook already rewrote for the print
//! page stay right): each holds its edition's chapters only, its own
//! `<html lang>` and title, and no hidden lines. `print.html` itself becomes
//! a short page that leads to both. Each edition's print button leads to its
//! own print page ([`print_link`]). On paper nothing can be unfolded, so
//! the folded parts (`<details>`, the exercises' solutions) are open.

use crate::edition::Edition;
use crate::hidden;
use crate::markdown::escape_html;
use crate::{Error, Result};

/// mdBook 0.5.4's page break between two chapters of the print page.
const BREAK: &str = "<div style=\"break-before: page; page-break-before: always;\"></div>";

/// mdBook 0.5.4's script that opens the print dialog once the page loads.
const PRINT_ON_LOAD: &str = "window.setTimeout(window.print, 100);";

/// The file name of an edition's print page, at the book's root.
pub fn page_name(edition: Edition) -> String {
    format!("print-{}.html", edition.dir())
}

/// A chapter as the print page needs it.
#[derive(Debug, Clone)]
pub struct ChapterName {
    /// Its source path: `ja/ch01-future-trait.md`.
    pub path: String,
    /// Its title in `SUMMARY.md`, numbered: ``第1章 `Future` トレイト``.
    pub name: String,
}

/// The print pages of both editions and the page that leads to them, from
/// mdBook's `print.html` and the book's chapters in order (`index.md`,
/// `ja/ch00-introduction.md`, …; those mdBook put on the print page, one
/// per chapter).
pub fn editions(print: &str, chapters: &[ChapterName]) -> Result<Vec<(String, String)>> {
    let layout = || {
        Error::in_file(
            "print.html",
            "no <main>…</main>; has mdBook's page layout changed?",
        )
    };
    let open = print.find("<main>").ok_or_else(layout)? + "<main>".len();
    let close = print.rfind("</main>").ok_or_else(layout)?;
    let (head, body, tail) = (&print[..open], &print[open..close], &print[close..]);
    let parts: Vec<&str> = body.split(BREAK).collect();
    if parts.len() != chapters.len() {
        return Err(format!(
            "print.html has {} chapters, the book {}: has mdBook's print page changed?",
            parts.len(),
            chapters.len()
        )
        .into());
    }
    if !tail.contains(PRINT_ON_LOAD) {
        return Err(Error::in_file(
            "print.html",
            "no print-on-load script; has mdBook's print page changed?",
        ));
    }
    let mut pages = Vec::new();
    for edition in Edition::ALL {
        let own: Vec<String> = parts
            .iter()
            .zip(chapters)
            .filter(|(_, chapter)| Edition::of_path(&chapter.path) == Some(edition))
            .map(|(part, chapter)| numbered(part, &chapter.name))
            .collect();
        if own.is_empty() {
            return Err(format!("the book has no {} chapter", edition.dir()).into());
        }
        let page = format!(
            "{}{}{}",
            edition_head(head, edition)?,
            // Folded parts (the exercises' solutions) are printed open.
            hidden::drop_hidden(&own.join(BREAK)).replace("<details>", "<details open>"),
            // Wait for the diagrams to be drawn before the print dialog
            // opens (theme/print.js).
            tail.replace(PRINT_ON_LOAD, "window.asyncbookPrintWhenReady();")
        );
        pages.push((page_name(edition), page));
    }
    pages.push(("print.html".to_owned(), chooser(head, tail, parts[0])?));
    Ok(pages)
}

/// The page's head for one edition: its language, its title, and the
/// edition it prints (`data-asyncbook-print`, for the style sheet).
fn edition_head(head: &str, edition: Edition) -> Result<String> {
    let title = edition.words().book_title;
    let head = set_lang(head, edition.lang())?.replacen(
        "<html ",
        &format!("<html data-asyncbook-print=\"{}\" ", edition.dir()),
        1,
    );
    // The menu bar's title (shown on screen, not on paper).
    let head = match head.find(MENU_TITLE) {
        Some(at) => {
            let from = at + MENU_TITLE.len();
            let to = from
                + head[from..]
                    .find("</h1>")
                    .ok_or("print.html: an unclosed menu title")?;
            format!("{}{title}{}", &head[..from], &head[to..])
        }
        None => head,
    };
    let title_open = head.find("<title>").ok_or("print.html: no <title>")? + "<title>".len();
    let title_close = title_open
        + head[title_open..]
            .find("</title>")
            .ok_or("print.html: no </title>")?;
    Ok(format!(
        "{}{title}{}",
        &head[..title_open],
        &head[title_close..]
    ))
}

const MENU_TITLE: &str = "<h1 class=\"menu-title\">";

/// A chapter with its first heading numbered as `SUMMARY.md` numbers it
/// (the book turns mdBook's own numbering off and writes the number into
/// each title there: on paper, and in the PDF's outline, it belongs in the
/// heading). A chapter without an `<h1>` is left as it is.
fn numbered(part: &str, name: &str) -> String {
    const HEADER: &str = "<a class=\"header\" href=\"#";
    let Some(h1) = part.find("<h1 id=\"") else {
        return part.to_owned();
    };
    let Some(link) = part[h1..].find(HEADER).map(|i| h1 + i) else {
        return part.to_owned();
    };
    let Some(text) = part[link..].find("\">").map(|i| link + i + 2) else {
        return part.to_owned();
    };
    let Some(end) = part[text..].find("</a></h1>").map(|i| text + i) else {
        return part.to_owned();
    };
    format!("{}{}{}", &part[..text], inline_html(name), &part[end..])
}

/// A title's Markdown (text with `code` spans) as HTML.
fn inline_html(markdown: &str) -> String {
    let escaped = escape_html(markdown);
    let mut out = String::new();
    for (i, piece) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{piece}</code>"));
        } else {
            out.push_str(piece);
        }
    }
    out
}

/// `print.html` as a short page: the landing page's text and a link to each
/// edition's print page, without opening the print dialog.
fn chooser(head: &str, tail: &str, landing: &str) -> Result<String> {
    let links: String = Edition::ALL
        .iter()
        .map(|&e| {
            format!(
                "<li lang=\"{}\"><a href=\"{}\">{}</a></li>\n",
                e.lang(),
                page_name(e),
                e.words().print_edition
            )
        })
        .collect();
    let first_heading_end = landing
        .find("</h1>")
        .map(|i| i + "</h1>".len())
        .ok_or_else(|| Error::in_file("print.html", "the landing page has no <h1>"))?;
    Ok(format!(
        "{head}{}\n<ul class=\"asyncbook-print-editions\">\n{links}</ul>\n{}",
        &landing[..first_heading_end],
        tail.replace(PRINT_ON_LOAD, "")
    ))
}

/// `<html lang="…">` set to `lang`.
pub fn set_lang(html: &str, lang: &str) -> Result<String> {
    const ATTRIBUTE: &str = "<html lang=\"";
    let value = html.find(ATTRIBUTE).ok_or("no <html lang=…>")? + ATTRIBUTE.len();
    let len = html[value..].find('"').ok_or("no <html lang=…>")?;
    Ok(format!("{}{lang}{}", &html[..value], &html[value + len..]))
}

/// An edition page with its print button leading to that edition's print
/// page (mdBook writes `href="<path_to_root>print.html"` before the
/// button's title).
pub fn print_link(html: &str, edition: Edition) -> Option<String> {
    const LINK: &str = "print.html\" title=\"Print this book\"";
    html.contains(LINK).then(|| {
        html.replacen(
            LINK,
            &format!("{}\" title=\"Print this book\"", page_name(edition)),
            1,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn print_page(parts: &[&str]) -> String {
        format!(
            "<html lang=\"ja\" class=\"light\"><head><title>Both / 两者</title></head><body><h1 class=\"menu-title\">Both / 两者</h1><main>{}</main>\
             <script>window.addEventListener('load', function() {{ {PRINT_ON_LOAD} }});</script></body></html>",
            parts.join(BREAK)
        )
    }

    fn chapters() -> Vec<ChapterName> {
        [
            ("index.md", "Home"),
            ("ja/a.md", "第1章 `A` の章"),
            ("ja/b.md", "付録"),
            ("zh/a.md", "第 1 章 <甲>"),
        ]
        .map(|(path, name)| ChapterName {
            path: path.into(),
            name: name.into(),
        })
        .to_vec()
    }

    #[test]
    fn each_edition_gets_its_chapters_language_and_title_without_hidden_lines() {
        let print = print_page(&[
            "<h1>Home</h1><p>both</p>",
            "<h1 id=\"a\"><a class=\"header\" href=\"#a\"><code>A</code> の章</a></h1><code class=\"language-rust\"><span class=\"boring\" data-hidden=\"x\"></span>fn main() {}</code>",
            "<h2>二</h2><details><summary>答</summary>x</details>",
            "<h1 id=\"b\"><a class=\"header\" href=\"#b\">甲</a></h1>",
        ]);
        let pages = editions(&print, &chapters()).unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["print-ja.html", "print-zh.html", "print.html"]);
        let (ja, zh, chooser) = (&pages[0].1, &pages[1].1, &pages[2].1);
        assert!(ja.starts_with("<html data-asyncbook-print=\"ja\" lang=\"ja\" class=\"light\">"));
        assert!(ja.contains(&format!(
            "<main><h1 id=\"a\"><a class=\"header\" href=\"#a\">第1章 <code>A</code> の章</a></h1><code class=\"language-rust\">fn main() {{}}</code>{BREAK}<h2>二</h2><details open><summary>答</summary>x</details></main>"
        )));
        let title = Edition::Ja.words().book_title;
        assert!(ja.contains(&format!("<title>{title}</title>")));
        assert!(ja.contains(&format!("<h1 class=\"menu-title\">{title}</h1>")));
        assert!(ja.contains("asyncbookPrintWhenReady()") && !ja.contains(PRINT_ON_LOAD));
        assert!(zh.starts_with("<html data-asyncbook-print=\"zh\" lang=\"zh-CN\""));
        assert!(zh.contains(
            "<main><h1 id=\"b\"><a class=\"header\" href=\"#b\">第 1 章 &lt;甲&gt;</a></h1></main>"
        ));
        assert!(chooser.contains("<main><h1>Home</h1>\n<ul class=\"asyncbook-print-editions\">"));
        assert!(
            chooser.contains("href=\"print-ja.html\"")
                && chooser.contains("href=\"print-zh.html\"")
        );
        assert!(!chooser.contains("<p>both</p>") && !chooser.contains("window.print"));
    }

    #[test]
    fn a_print_page_that_does_not_match_the_book_is_an_error() {
        let print = print_page(&["<h1>Home</h1>", "<h1>一</h1>"]);
        let err = editions(&print, &chapters()).unwrap_err().to_string();
        assert!(err.contains("2 chapters, the book 4"), "{err}");
        assert!(editions("<html lang=\"ja\"><body></body></html>", &chapters()).is_err());
    }

    #[test]
    fn the_print_button_leads_to_the_edition_print_page() {
        let page =
            "<a href=\"../print.html\" title=\"Print this book\" aria-label=\"Print this book\">";
        assert_eq!(
            print_link(page, Edition::Zh).unwrap(),
            "<a href=\"../print-zh.html\" title=\"Print this book\" aria-label=\"Print this book\">"
        );
        assert_eq!(print_link("<a href=\"x.html\">", Edition::Ja), None);
    }
}
