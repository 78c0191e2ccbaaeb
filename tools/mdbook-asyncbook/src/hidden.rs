//! Hidden code lines, written once per book instead of once per block.
//!
//! Every ```rust block of the book is a whole program: the preprocessor
//! writes the `mod listings { … }` frame into it as hidden lines, which
//! mdBook's HTML renderer wraps one by one in `<span class="boring">`. Left
//! there, the same modules would be repeated in every block of every page
//! (a chapter page carried megabytes of them), and highlight.js would colour
//! them all on load. So after the HTML renderer, each run of hidden lines in
//! a Rust block is cut into chunks, one per module of the frame, and
//! replaced by one empty placeholder that names its chunks:
//!
//! ```html
//! <span class="boring" data-hidden="3f2a… 91c0…"></span>
//! ```
//!
//! A long block (a whole listing file, in appendix C; of any language) also
//! has its visible text moved out, loaded when the reader scrolls near it
//! ([`LONG_BLOCK`]): `<span data-lazy="…">` holding as many line breaks as
//! the text, so that the page keeps its layout while it loads.
//!
//! Each distinct chunk is written once, as a script at
//! `hidden/<id>.js` (a script, not a data file, so that it also loads
//! from a book opened as files, where `fetch` is refused). `theme/hidden-code.js`
//! loads a block's chunks when the reader reaches for it (hovers, focuses,
//! presses the eye, copy or run button) and puts them back in place.
//!
//! Nothing is lost: [`externalise`] gives, for every Rust block, the program
//! its text stood for before (what the copy button copied and what the
//! tests compile), and checks that the placeholders and chunks give exactly
//! that text back.

use crate::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// The folder of the chunk scripts, under the HTML book's root.
pub const FOLDER: &str = "hidden";

/// The distinct chunks of hidden code of a whole book, by id.
#[derive(Debug, Default)]
pub struct Chunks {
    by_id: BTreeMap<String, String>,
}

impl Chunks {
    /// Stores `text` and returns its id (its hash, so that the same module
    /// hidden in many blocks is stored once). Fails on a hash collision.
    fn add(&mut self, text: &str) -> Result<String> {
        let id = format!("{:016x}", fnv1a(text.as_bytes()));
        match self.by_id.get(&id) {
            Some(known) if known != text => {
                Err(format!("two chunks of hidden code share the id {id}").into())
            }
            Some(_) => Ok(id),
            None => {
                self.by_id.insert(id.clone(), text.to_owned());
                Ok(id)
            }
        }
    }

    /// The text of chunk `id`.
    pub fn get(&self, id: &str) -> Option<&str> {
        self.by_id.get(id).map(String::as_str)
    }

    /// The texts of chunks `ids`, joined: what the page's script puts back
    /// in place of a placeholder.
    fn text_of(&self, ids: &[String]) -> Result<String> {
        ids.iter()
            .map(|id| self.get(id).ok_or_else(|| format!("no chunk {id}").into()))
            .collect()
    }

    /// How many distinct chunks there are.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Writes every chunk as `<html>/hidden/<id>.js`, a script that hands
    /// its text to `asyncbookHidden(id, text)` (theme/hidden-code.js).
    pub fn write(&self, html: &Path) -> Result<()> {
        let folder = html.join(FOLDER);
        std::fs::create_dir_all(&folder).map_err(|e| Error::in_file(folder.display(), e))?;
        for (id, text) in &self.by_id {
            let file = folder.join(format!("{id}.js"));
            let script = format!(
                "asyncbookHidden({}, {});\n",
                serde_json::to_string(id)?,
                serde_json::to_string(text)?
            );
            std::fs::write(&file, script).map_err(|e| Error::in_file(file.display(), e))?;
        }
        Ok(())
    }
}

/// 64-bit FNV-1a: stable across builds and platforms (std's hasher is not
/// promised to be), so a chunk keeps its file name and browsers their cache.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// A page with its Rust blocks' hidden lines moved into `chunks`.
#[derive(Debug)]
pub struct Externalised {
    /// The page, with a placeholder for each run of hidden lines.
    pub html: String,
    /// For each Rust block of the page, in order, the whole program its
    /// text stood for: visible and hidden lines, as the copy button gives it.
    pub programs: Vec<String>,
}

const CODE_OPEN: &str = "<code class=\"language-";
const CODE_CLOSE: &str = "</code>";
const BORING_OPEN: &str = "<span class=\"boring\"";
const SPAN_CLOSE: &str = "</span>";

/// Moves the hidden lines of every Rust block of `html` into `chunks`, and
/// the text of every long code block (of any language).
///
/// mdBook 0.5.4 writes a Rust block as `<code class="language-rust …">`
/// holding text and one `<span class="boring">` per hidden line, itself
/// holding only text. Anything else inside a Rust block is an error: the
/// page layout has changed and the transformation would not be safe. A
/// block of another language holds text only (highlighting happens in the
/// browser); one that holds markup is left as it is.
pub fn externalise(html: &str, chunks: &mut Chunks) -> Result<Externalised> {
    let mut out = String::with_capacity(html.len() / 2);
    let mut programs = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find(CODE_OPEN) {
        let language_at = start + CODE_OPEN.len();
        let language_len = rest[language_at..]
            .find([' ', '"'])
            .ok_or("an unclosed <code> tag")?;
        let is_rust = &rest[language_at..language_at + language_len] == "rust";
        let open_end = start + rest[start..].find('>').ok_or("an unclosed <code> tag")? + 1;
        let close = open_end
            + rest[open_end..]
                .find(CODE_CLOSE)
                .ok_or("a code block without </code>")?;
        out.push_str(&rest[..open_end]);
        let inner = &rest[open_end..close];
        if is_rust {
            let (inner, program) = externalise_block(inner, chunks)?;
            out.push_str(&inner);
            programs.push(program);
        } else if inner.len() > LONG_BLOCK && !inner.contains('<') {
            out.push_str(&lazy(inner, chunks)?.1);
        } else {
            out.push_str(inner);
        }
        rest = &rest[close..];
    }
    out.push_str(rest);
    Ok(Externalised {
        html: out,
        programs,
    })
}

/// The chunk and the placeholder of a long block's visible text (escaped
/// HTML). The placeholder holds as many line breaks as the text, so that
/// the block keeps its height while the text loads.
fn lazy(html: &str, chunks: &mut Chunks) -> Result<(String, String)> {
    let text = unescape(html)?;
    let lines = "\n".repeat(text.matches('\n').count());
    let id = chunks.add(&text)?;
    let placeholder = format!("<span data-lazy=\"{id}\">{lines}</span>");
    Ok((id, placeholder))
}

/// A block's text, in order: visible text as the page had it (escaped), and
/// runs of hidden lines (unescaped).
enum Segment<'a> {
    Visible(&'a str),
    Hidden(String),
}

/// One block's inner HTML, with its runs of hidden lines replaced (and, in
/// a long block, its visible text too); and its program text.
fn externalise_block(inner: &str, chunks: &mut Chunks) -> Result<(String, String)> {
    let segments = segments(inner)?;
    let visible: usize = segments
        .iter()
        .map(|s| match s {
            Segment::Visible(text) => text.len(),
            Segment::Hidden(_) => 0,
        })
        .sum();
    let lazy = visible > LONG_BLOCK;
    let mut out = String::with_capacity(inner.len());
    let mut program = String::with_capacity(inner.len());
    for segment in &segments {
        match segment {
            Segment::Hidden(run) => {
                let ids = split_at_modules(run)
                    .into_iter()
                    .map(|chunk| chunks.add(chunk))
                    .collect::<Result<Vec<_>>>()?;
                out.push_str(&format!(
                    "<span class=\"boring\" data-hidden=\"{}\"></span>",
                    ids.join(" ")
                ));
                // The program as a reader's browser will put it back
                // together, from the chunks themselves: the renderer
                // compares it with the program the tests compile.
                program.push_str(&chunks.text_of(&ids)?);
            }
            Segment::Visible(html) if lazy => {
                let (id, placeholder) = self::lazy(html, chunks)?;
                program.push_str(&chunks.text_of(&[id])?);
                out.push_str(&placeholder);
            }
            Segment::Visible(html) => {
                out.push_str(html);
                program.push_str(&unescape(html)?);
            }
        }
    }
    Ok((out, program))
}

/// A block longer than this (bytes of visible text; a whole listing file in
/// appendix C) has its visible text loaded too, when the reader scrolls to
/// it: such a page would otherwise weigh half a megabyte of code. No
/// chapter block comes near it.
pub const LONG_BLOCK: usize = 4096;

/// The segments of a block's inner HTML.
fn segments(inner: &str) -> Result<Vec<Segment<'_>>> {
    let mut segments = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        if rest.starts_with(BORING_OPEN) {
            let text_start = rest.find('>').ok_or("an unclosed <span> tag")? + 1;
            let text_end = text_start
                + rest[text_start..]
                    .find(SPAN_CLOSE)
                    .ok_or("a hidden line without </span>")?;
            let text = &rest[text_start..text_end];
            if text.contains('<') {
                return Err("a hidden line holds markup: has mdBook's page layout changed?".into());
            }
            let text = unescape(text)?;
            match segments.last_mut() {
                Some(Segment::Hidden(run)) => run.push_str(&text),
                _ => segments.push(Segment::Hidden(text)),
            }
            rest = &rest[text_end + SPAN_CLOSE.len()..];
        } else {
            let end = rest.find(BORING_OPEN).unwrap_or(rest.len());
            let visible = &rest[..end];
            if visible.contains('<') {
                return Err("a Rust block holds markup other than hidden lines: \
                            has mdBook's page layout changed?"
                    .into());
            }
            segments.push(Segment::Visible(visible));
            rest = &rest[end..];
        }
    }
    Ok(segments)
}

/// Cuts a run of hidden lines before each line that opens a module
/// (`pub mod timer {`, `mod listings {`), so that a module hidden in many
/// blocks becomes the same chunk in each (the last module of a run also
/// carries the closing braces and whatever follows, so it is shared less
/// often). The pieces join back to `run`.
fn split_at_modules(run: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    for line in run.split_inclusive('\n') {
        if at > start && opens_module(line) {
            pieces.push(&run[start..at]);
            start = at;
        }
        at += line.len();
    }
    pieces.push(&run[start..]);
    pieces
}

fn opens_module(line: &str) -> bool {
    let line = line.trim();
    let Some(rest) = line.strip_prefix("pub mod ").or(line.strip_prefix("mod ")) else {
        return false;
    };
    rest.strip_suffix(" {").is_some_and(|name| {
        !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The text of HTML text content, as mdBook's serializer escapes it. An
/// entity it would not write is an error rather than a guess.
pub fn unescape(html: &str) -> Result<String> {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let end = rest[amp..].find(';').ok_or_else(|| {
            format!(
                "a bare `&` in code: {}",
                &rest[amp..rest.len().min(amp + 20)]
            )
        })?;
        let entity = &rest[amp + 1..amp + end];
        let c = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" | "#39" => '\'',
            "nbsp" => '\u{a0}',
            _ => entity
                .strip_prefix("#x")
                .map(|hex| u32::from_str_radix(hex, 16))
                .or_else(|| entity.strip_prefix('#').map(str::parse))
                .and_then(|n| n.ok())
                .and_then(char::from_u32)
                .ok_or_else(|| format!("an unknown entity `&{entity};` in code"))?,
        };
        out.push(c);
        rest = &rest[amp + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Removes the hidden lines of every Rust block (placeholders and lines
/// alike), for pages that show only what a reader reads: the print pages.
pub fn drop_hidden(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find(BORING_OPEN) {
        out.push_str(&rest[..start]);
        match rest[start..].find(SPAN_CLOSE) {
            Some(end) => rest = &rest[start + end + SPAN_CLOSE.len()..],
            None => {
                rest = &rest[start..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hidden(line: &str) -> String {
        format!("<span class=\"boring\">{line}</span>")
    }

    #[test]
    fn runs_of_hidden_lines_become_placeholders_and_the_program_stays_whole() {
        let inner = [
            hidden("mod listings {\n"),
            hidden("pub mod timer {\n"),
            hidden("fn a() -&gt; u8 { 1 }\n"),
            hidden("}\n"),
            "fn main() {\n    let x = a() &amp; 1;\n}\n".to_owned(),
            hidden("// after\n"),
        ]
        .concat();
        let page = format!(
            "<p>x</p><pre><code class=\"language-rust edition2024\">{inner}</code></pre><code>inline</code>"
        );
        let mut chunks = Chunks::default();
        let done = externalise(&page, &mut chunks).unwrap();
        assert_eq!(
            done.programs,
            [
                "mod listings {\npub mod timer {\nfn a() -> u8 { 1 }\n}\nfn main() {\n    let x = a() & 1;\n}\n// after\n"
            ]
        );
        // Two runs: the frame (cut before `pub mod timer {`) and the last line.
        assert_eq!(chunks.len(), 3);
        let ids: Vec<&str> = done
            .html
            .match_indices("data-hidden=\"")
            .map(|(i, m)| {
                let from = i + m.len();
                &done.html[from..from + done.html[from..].find('"').unwrap()]
            })
            .collect();
        assert_eq!(ids.len(), 2);
        let first: Vec<&str> = ids[0]
            .split(' ')
            .map(|id| chunks.get(id).unwrap())
            .collect();
        assert_eq!(
            first,
            [
                "mod listings {\n",
                "pub mod timer {\nfn a() -> u8 { 1 }\n}\n"
            ]
        );
        assert_eq!(chunks.get(ids[1]), Some("// after\n"));
        assert!(
            done.html
                .contains("fn main() {\n    let x = a() &amp; 1;\n}\n<span")
        );
        assert!(done.html.starts_with("<p>x</p><pre><code class=\"language-rust edition2024\"><span class=\"boring\" data-hidden="));
        assert!(done.html.ends_with("</code></pre><code>inline</code>"));
    }

    #[test]
    fn a_run_cut_in_many_pieces_joins_back_whole() {
        let run = "mod listings {\npub mod a {\nfn a() {}\n}\npub mod b {\nfn b() {}\n}\npub mod c {\n}\n}\n";
        let pieces = split_at_modules(run);
        assert_eq!(pieces.len(), 4);
        assert_eq!(pieces.concat(), run);
        let inner: String = run.lines().map(|l| hidden(&format!("{l}\n"))).collect();
        let mut chunks = Chunks::default();
        let page = format!("<code class=\"language-rust\">{inner}fn main() {{}}</code>");
        let done = externalise(&page, &mut chunks).unwrap();
        assert_eq!(done.programs, [format!("{run}fn main() {{}}")]);
        assert_eq!(chunks.len(), 4);
    }

    #[test]
    fn the_same_module_in_two_blocks_is_one_chunk() {
        let block = |visible: &str| {
            format!(
                "<code class=\"language-rust\">{}{}{visible}</code>",
                hidden("mod listings {\n"),
                hidden("pub mod timer {\n}\n")
            )
        };
        let mut chunks = Chunks::default();
        let page = format!("{}{}", block("fn main() {}\n"), block("fn main() { }\n"));
        let done = externalise(&page, &mut chunks).unwrap();
        assert_eq!(done.programs.len(), 2);
        assert_eq!(chunks.len(), 2);
    }

    #[test]
    fn a_long_block_loads_its_visible_text_too_keeping_its_height() {
        let line = "let x = 1 &lt; 2;\n";
        let visible = line.repeat(LONG_BLOCK / line.len() + 1);
        let page = format!(
            "<code class=\"language-rust\">{}{visible}</code>",
            hidden("use x;\n")
        );
        let mut chunks = Chunks::default();
        let done = externalise(&page, &mut chunks).unwrap();
        let text = unescape(&visible).unwrap();
        assert_eq!(done.programs, [format!("use x;\n{text}")]);
        let id = format!("{:016x}", fnv1a(text.as_bytes()));
        assert_eq!(chunks.get(&id), Some(text.as_str()));
        let lines = "\n".repeat(text.lines().count());
        assert!(
            done.html
                .ends_with(&format!("<span data-lazy=\"{id}\">{lines}</span></code>"))
        );
        // A short one keeps its visible text in the page.
        let short = format!("<code class=\"language-rust\">{line}</code>");
        assert_eq!(externalise(&short, &mut chunks).unwrap().html, short);
        // A long block of another language (appendix C's tests, shown as
        // `rs`) too, and it is no program.
        let other = format!("<code class=\"language-rs\">{visible}</code>");
        let done = externalise(&other, &mut chunks).unwrap();
        assert!(done.programs.is_empty());
        assert!(done.html.starts_with(&format!(
            "<code class=\"language-rs\"><span data-lazy=\"{id}\">"
        )));
        let text_block = format!("<code class=\"language-text\">{line}</code>");
        assert_eq!(
            externalise(&text_block, &mut chunks).unwrap().html,
            text_block
        );
    }

    #[test]
    fn markup_inside_a_block_or_an_unknown_entity_is_an_error() {
        let mut chunks = Chunks::default();
        for page in [
            "<code class=\"language-rust\"><b>x</b></code>",
            "<code class=\"language-rust",
            "<code class=\"language-rust\"><span class=\"boring\"><i>x</i></span></code>",
            "<code class=\"language-rust\">&copy;</code>",
            "<code class=\"language-rust\">no end",
        ] {
            assert!(externalise(page, &mut chunks).is_err(), "{page}");
        }
    }

    #[test]
    fn entities_unescape_as_the_serializer_wrote_them() {
        assert_eq!(
            unescape("a &lt;b&gt; &amp;&amp; &quot;c&quot; &#39;d&#x27; &nbsp;").unwrap(),
            "a <b> && \"c\" 'd' \u{a0}"
        );
    }

    #[test]
    fn modules_open_on_their_own_line() {
        assert!(opens_module("pub mod timer {\n"));
        assert!(opens_module("  mod listings {"));
        assert!(!opens_module("pub mod timer;"));
        assert!(!opens_module("// pub mod x {"));
        assert!(!opens_module("pub mod {"));
    }

    #[test]
    fn print_pages_lose_every_hidden_line() {
        let page = format!(
            "<code class=\"language-rust\">{}fn main() {{}}\n{}</code>",
            hidden("use x;\n"),
            "<span class=\"boring\" data-hidden=\"ab\"></span>"
        );
        assert_eq!(
            drop_hidden(&page),
            "<code class=\"language-rust\">fn main() {}\n</code>"
        );
    }

    #[test]
    fn chunk_scripts_hand_their_text_to_the_page() {
        let mut chunks = Chunks::default();
        let id = chunks.add("let s = \"</script>\";\n").unwrap();
        let others: Vec<String> = (0..5)
            .map(|i| chunks.add(&format!("fn f{i}() {{}}\n")).unwrap())
            .collect();
        let dir = std::env::temp_dir().join(format!("asyncbook-hidden-{}", std::process::id()));
        chunks.write(&dir).unwrap();
        let read =
            |id: &str| std::fs::read_to_string(dir.join(FOLDER).join(format!("{id}.js"))).unwrap();
        let script = read(&id);
        let files = std::fs::read_dir(dir.join(FOLDER)).unwrap().count();
        let all: Vec<String> = others.iter().map(|id| read(id)).collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            script,
            format!("asyncbookHidden(\"{id}\", \"let s = \\\"</script>\\\";\\n\");\n")
        );
        assert_eq!(files, 6, "one script per chunk");
        for (i, (id, script)) in others.iter().zip(&all).enumerate() {
            assert_eq!(
                script,
                &format!("asyncbookHidden(\"{id}\", \"fn f{i}() {{}}\\n\");\n")
            );
        }
    }
}
