//! The preprocessor: writes each code block's hidden frame, fills the
//! appendix directives and chapter 10's `{{#bench …}}` numbers, and
//! captions code fragments.
//!
//! It runs before mdBook's `links` preprocessor, so it sees the include
//! directives as the author wrote them. Includes of `listings/src` modules
//! in ```rust blocks it expands itself, last, as `links` would but without
//! the tests and loom-only code (see [`crate::expand`]); `links` expands the
//! rest. The book's tests run it as a library ([`AsyncBook`]) and then
//! mdBook's own `links`, so that they compile exactly what the HTML book
//! shows.

use crate::appendix::{self, Chapter};
use crate::bench::{self, Results};
use crate::directives::{BENCH, Directive, check_includes, directives};
use crate::edition::Edition;
use crate::frame::{Copies, Frames};
use crate::markdown::fences;
use crate::{Error, Result, captions, data, listing_files, program};
use mdbook_preprocessor::book::{Book, BookItem, Chapter as BookChapter};
use mdbook_preprocessor::{Preprocessor, PreprocessorContext};
use std::path::Path;

/// Replaced by the glossary table of the page's edition.
pub const GLOSSARY: &str = "glossary";
/// Replaced by the pitfalls of the page's edition.
pub const PITFALLS: &str = "pitfalls";

/// The directives mdBook's `links` preprocessor expands after this one.
const MDBOOK_DIRECTIVES: [&str; 4] = ["include", "rustdoc_include", "playground", "title"];
/// The directives this preprocessor expands.
const OWN_DIRECTIVES: [&str; 4] = [GLOSSARY, PITFALLS, listing_files::DIRECTIVE, BENCH];
/// Those that it replaces by an appendix.
const APPENDICES: [&str; 3] = [GLOSSARY, PITFALLS, listing_files::DIRECTIVE];

/// The book's preprocessor, as mdBook's `Preprocessor`.
#[derive(Debug, Default)]
pub struct AsyncBook;

impl AsyncBook {
    /// The name `book.toml` gives it (`[preprocessor.asyncbook]`).
    pub const NAME: &'static str = "asyncbook";
}

impl Preprocessor for AsyncBook {
    fn name(&self) -> &str {
        Self::NAME
    }

    /// mdBook's trait says what it returns: its `anyhow`-based error,
    /// which holds ours.
    fn run(
        &self,
        ctx: &PreprocessorContext,
        mut book: Book,
    ) -> mdbook_preprocessor::errors::Result<Book> {
        let src = ctx.root.join(&ctx.config.book.src);
        process(&ctx.root, &src, &mut book)?;
        Ok(book)
    }

    /// The frames, captions and appendices are for the HTML book, its link
    /// check, and our renderer (`pagefind`), which checks that each page's
    /// blocks are the programs the tests compile.
    fn supports_renderer(&self, renderer: &str) -> mdbook_preprocessor::errors::Result<bool> {
        Ok(matches!(renderer, "html" | "linkcheck2" | "pagefind"))
    }
}

/// Applies the plug-in to a book whose repository is `root` and whose
/// chapters are under `src`.
pub fn process(root: &Path, src: &Path, book: &mut Book) -> Result<()> {
    process_with(root, src, book, Copies::Pruned)
}

/// [`process`], with the blocks' programs made as `copies` says: the book's
/// tests also make the unpruned ones, to compare.
pub fn process_with(root: &Path, src: &Path, book: &mut Book, copies: Copies) -> Result<()> {
    let glossary = data::glossary(root)?;
    let pitfalls = data::pitfalls(root)?;
    let listings = data::listings(root)?;
    let frames = Frames::load_with(root, copies)?;
    let results = Results::load(root).map_err(Error::new)?;
    // What the appendices need to know of each edition: every chapter's
    // title and text, as written.
    let mut by_edition: Vec<(Edition, Vec<Chapter>)> =
        Edition::ALL.iter().map(|&e| (e, Vec::new())).collect();
    for chapter in book.chapters() {
        let Some(path) = source_path(chapter) else {
            continue;
        };
        if let Some(edition) = Edition::of_path(&path) {
            let list = &mut by_edition
                .iter_mut()
                .find(|(e, _)| *e == edition)
                .expect("every edition")
                .1;
            list.push(Chapter {
                path,
                name: chapter.name.clone(),
                content: chapter.content.clone(),
            });
        }
    }
    // The chapters' folder from the repository root (`src`).
    let src_from_root = src
        .strip_prefix(root)
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_else(|_| "src".into());

    let mut result = Ok(());
    book.for_each_mut(|item| {
        let BookItem::Chapter(chapter) = item else {
            return;
        };
        if result.is_err() {
            return;
        }
        let Some(path) = source_path(chapter) else {
            return;
        };
        let edition_chapters = Edition::of_path(&path).map(|edition| {
            let chapters = &by_edition
                .iter()
                .find(|(e, _)| *e == edition)
                .expect("every edition")
                .1;
            (edition, chapters.as_slice())
        });
        let dir = match path.rsplit_once('/') {
            Some((dir, _)) => format!("{src_from_root}/{dir}"),
            None => src_from_root.clone(),
        };
        let page = Page {
            root,
            path: &path,
            dir: &dir,
            frames: &frames,
            data: (&glossary, &pitfalls, &listings),
            results: results.as_ref(),
        };
        match page.process(&chapter.content, edition_chapters) {
            Ok(content) => chapter.content = content,
            Err(e) => result = Err(e),
        }
    });
    result
}

/// A chapter's source path under `src/`, with `/` separators
/// (`ja/ch01-future-trait.md`); `None` for a draft.
pub fn source_path(chapter: &BookChapter) -> Option<String> {
    chapter
        .path
        .as_ref()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
}

/// Every chapter of `book` but drafts, as `(source path, text)`, in
/// reading order: how the book's tests read a book.
pub fn chapter_texts(book: &Book) -> Vec<(String, String)> {
    book.chapters()
        .filter_map(|c| Some((source_path(c)?, c.content.clone())))
        .collect()
}

/// One page, and what processing it needs.
struct Page<'a> {
    root: &'a Path,
    /// Under `src/`: `ja/ch01-future-trait.md`.
    path: &'a str,
    /// Its folder from the repository root: `src/ja`.
    dir: &'a str,
    frames: &'a Frames,
    data: (&'a data::Glossary, &'a data::Pitfalls, &'a data::Listings),
    /// `data/bench/results.toml`, once it exists.
    results: Option<&'a Results>,
}

impl Page<'_> {
    fn process(&self, content: &str, edition: Option<(Edition, &[Chapter])>) -> Result<String> {
        // Errors name the page as the reader finds it: `src/ja/ch01-….md`.
        let file = format!("src/{}", self.path);
        self.check(content).map_err(|e| e.with_file(&file))?;
        // The measurements first: they change no line (a `{{#bench}}` is on
        // one line), so the line numbers below are still the author's.
        let content = &bench::expand(content, self.results).map_err(|e| e.with_file(&file))?;
        let at = |offset: usize, e: &dyn std::fmt::Display| {
            Error::at(content, offset, e).with_file(&file)
        };
        let framed = self.write_frames(content).map_err(|e| e.with_file(&file))?;
        // The appendix directives, each replaced by what it stands for. The
        // frames add lines to the blocks above a directive, and change no
        // other line: its error is at the place of the same directive in
        // `content`, the author's line.
        let is_appendix = |d: &Directive<'_>| APPENDICES.contains(&d.name);
        let mut written_at = directives(content)
            .into_iter()
            .filter(is_appendix)
            .map(|d| d.range.start);
        let mut out = String::with_capacity(framed.len());
        let mut copied = 0;
        for directive in directives(&framed).into_iter().filter(is_appendix) {
            let offset = written_at
                .next()
                .expect("the frames leave the appendix directives as they are");
            let Some((edition, chapters)) = edition else {
                return Err(at(
                    offset,
                    &"the appendices can only be written in an edition (ja/, zh/)",
                ));
            };
            let (glossary, pitfalls, listings) = self.data;
            let replacement = match directive.name {
                GLOSSARY => appendix::glossary(glossary, edition, chapters),
                PITFALLS => {
                    appendix::pitfalls(pitfalls, edition, chapters).map_err(|e| at(offset, &e))?
                }
                _ => listing_files::render(
                    self.root,
                    directive.args,
                    edition,
                    self.dir,
                    listings,
                    self.frames,
                )
                .map_err(|e| at(offset, &e))?,
            };
            out.push_str(&framed[copied..directive.range.start]);
            out.push_str(&replacement);
            copied = directive.range.end;
        }
        out.push_str(&framed[copied..]);
        // Captions read the includes a block shows, so they come before the
        // plug-in expands the listings modules' includes.
        let captioned = captions::add(&out, self.path);
        self.frames
            .expand_includes(&captioned, self.dir)
            .map_err(|e| e.with_file(&file))
    }

    /// What mdBook would let through and the book forbids, at its line of
    /// `content`: an include of a missing file or anchor (mdBook logs it
    /// and carries on, or shows nothing), a directive that neither mdBook
    /// nor the plug-in knows (it would stay on the page as written), and a
    /// ```rust block with `ignore` or another attribute the book's tests
    /// do not accept ([`program::program`]: every block is tested), and a
    /// ```rs block (Rust shown as text, for appendix C).
    fn check(&self, content: &str) -> Result<()> {
        if let Some(problem) = check_includes(content, &self.root.join(self.dir))
            .into_iter()
            .next()
        {
            return Err(problem);
        }
        for directive in directives(content) {
            if !MDBOOK_DIRECTIVES.contains(&directive.name)
                && !OWN_DIRECTIVES.contains(&directive.name)
            {
                return Err(Error::at(
                    content,
                    directive.range.start,
                    format!(
                        "unknown directive `{}`: mdBook's are {}; the plug-in's are {} \
                         (write `\\{{{{#…}}}}` to show one as text)",
                        &content[directive.range.clone()],
                        MDBOOK_DIRECTIVES.join(", "),
                        OWN_DIRECTIVES.join(", "),
                    ),
                ));
            }
        }
        for block in program::rust_blocks(content)? {
            program::program(&block).map_err(|e| Error::at(content, block.offset, e))?;
        }
        // ```rs is Rust that no test compiles: only appendix C's listing
        // files may show it, and the plug-in writes those blocks itself.
        if let Some(fence) = fences(content)
            .into_iter()
            .find(|fence| fence.language() == program::RUST_TEXT)
        {
            return Err(Error::at(
                content,
                fence.range.start,
                format!(
                    "a ```{} block is Rust that no test compiles, which only appendix C's \
                     listing files show: write ```rust (a tested program) or ```text",
                    program::RUST_TEXT
                ),
            ));
        }
        Ok(())
    }

    /// The content with every ```rust block's hidden frame written in; an
    /// error is at its block's line of `content`.
    fn write_frames(&self, content: &str) -> Result<String> {
        let mut out = String::with_capacity(content.len());
        let mut copied = 0;
        for fence in fences(content) {
            if fence.language() != "rust" {
                continue;
            }
            let block = &content[fence.range.clone()];
            // The lines between the fences (a block left open at the end of
            // the page has no closing fence).
            let Some(first_newline) = block.find('\n') else {
                continue;
            };
            let body_start = fence.range.start + first_newline + 1;
            let last_line = block.trim_end_matches('\n').rfind('\n').map(|i| i + 1);
            let closes = last_line.is_some_and(|i| {
                let line = block[i..].trim_start_matches([' ', '>']);
                line.starts_with("```") || line.starts_with("~~~")
            });
            let body_end = match (closes, last_line) {
                (true, Some(i)) => fence.range.start + i,
                _ => fence.range.end,
            };
            if body_end <= body_start {
                continue;
            }
            let body = &content[body_start..body_end];
            if let Some(framed) = self
                .frames
                .write(body, self.dir)
                .map_err(|e| Error::at(content, fence.range.start, e))?
            {
                out.push_str(&content[copied..body_start]);
                out.push_str(&framed);
                copied = body_end;
            }
        }
        out.push_str(&content[copied..]);
        Ok(out)
    }
}
