//! The ```rust blocks of a chapter, as the programs readers get.
//!
//! For each block this reproduces what mdBook 0.5.4's HTML renderer does to
//! it: a block without `fn main` is wrapped in a hidden one (like rustdoc),
//! and the hidden-line markers are removed (`# x` gives `x`, `##x` gives
//! `#x`). The result is the program that the eye button reveals and the
//! copy button copies, and it is what the book's tests compile. Blocks are
//! found with mdBook's own Markdown parser.

use crate::markdown::parser;
use crate::{Error, Result};
use mdbook_markdown::pulldown_cmark::{CodeBlockKind, Event, Tag, TagEnd};

/// How a block is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Compiled and run; it must exit successfully.
    Run,
    /// Compiled only (`no_run`): it waits for input or runs forever.
    NoRun,
    /// Compiled and run; it must panic (exit unsuccessfully).
    ShouldPanic,
    /// Must fail to compile, with each listed error code if any.
    CompileFail(Vec<String>),
}

/// One ```rust block as written (after includes are expanded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RustBlock {
    /// The byte offset of its opening fence in the text.
    pub offset: usize,
    /// The words of its info string (`rust`, `compile_fail`, `E0596`, …).
    pub info: Vec<String>,
    /// Its lines, hidden ones included, with their `# ` markers.
    pub body: String,
}

/// The program a reader gets from a block, and how it is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub mode: Mode,
    /// The whole program, hidden lines included, markers removed.
    pub program: String,
}

/// Every ```rust block of `text`, in order.
///
/// Fails, at the fence's line, on a fence without a language (readers and
/// tools cannot tell whether it is Rust) and on a Rust attribute in a
/// block whose language is not `rust`.
pub fn rust_blocks(text: &str) -> Result<Vec<RustBlock>> {
    let mut blocks = Vec::new();
    let mut current: Option<RustBlock> = None;
    for (event, range) in parser(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let info: Vec<String> = info
                    .split([',', ' ', '\t'])
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned)
                    .collect();
                if is_rust(&info).map_err(|e| Error::at(text, range.start, e))? {
                    current = Some(RustBlock {
                        offset: range.start,
                        info,
                        body: String::new(),
                    });
                }
            }
            Event::Text(code) => {
                if let Some(block) = &mut current {
                    block.body.push_str(&code);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(current.take()),
            _ => {}
        }
    }
    Ok(blocks)
}

/// The explicit ids of the text's headings (`## Title {#id}`), in order,
/// each with its byte offset; `None` for a heading without one.
///
/// Every heading needs one: ids generated from Japanese and Chinese titles
/// would differ, and a reader switching language lands on the same
/// section only if both editions use the same id.
pub fn heading_ids(text: &str) -> Vec<(usize, Option<String>)> {
    parser(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Heading { id, .. }) => {
                Some((range.start, id.map(|id| id.to_string())))
            }
            _ => None,
        })
        .collect()
}

/// The lines of a block that the reader sees before pressing the eye
/// button: not hidden (`# x`, a lone `#`) and not blank.
pub fn visible_lines(body: &str) -> usize {
    body.lines()
        .filter(|line| {
            let rest = line.trim_start();
            !(rest.is_empty() || rest == "#" || rest.starts_with("# "))
        })
        .count()
}

/// Attributes that rustdoc or mdBook give a Rust block and that this book
/// allows. `ignore` is missing on purpose: every block is tested.
const ALLOWED: &[&str] = &[
    "rust",
    "no_run",
    "should_panic",
    "compile_fail",
    "edition2024",
    "noplayground",
    "mdbook-runnable",
    "editable",
];

/// The info string of Rust shown as text: code that is not a program of
/// its own (appendix C's tests, and the `mod.rs` files that only declare
/// modules).
pub const RUST_TEXT: &str = "rs";

/// mdBook takes the first word of the info string as the language: only a
/// block that starts with `rust` is shown, hidden-line-folded and run as
/// Rust. A Rust attribute anywhere else is a mistake.
fn is_rust(tokens: &[String]) -> Result<bool> {
    let Some(first) = tokens.first() else {
        return Err("a code block without a language: write ```rust, ```text, …".into());
    };
    if first == "rust" {
        return Ok(true);
    }
    // ```rs is Rust shown as text: highlight.js colours it as Rust (`rs` is
    // its alias of `rust`), while mdBook hides no lines of it and gives it
    // no playground, and the book's tests do not compile it as a program
    // (tests that need the listings crate's dev-dependencies, modules that
    // only declare modules). It takes no Rust attributes either. Only the
    // plug-in writes it, for appendix C: an author's Markdown may not (see
    // the preprocessor's `check`).
    if first == RUST_TEXT && tokens.len() > 1 {
        return Err(Error::new(format!(
            "```{}: a ```{RUST_TEXT} block is Rust shown as text, which takes no attributes",
            tokens.join(",")
        )));
    }
    if tokens
        .iter()
        .any(|t| ALLOWED.contains(&t.as_str()) || t == "ignore")
    {
        return Err(Error::new(format!(
            "```{} looks like a Rust block: start its info string with `rust`",
            tokens.join(",")
        )));
    }
    Ok(false)
}

/// The program a reader gets from a block, and how to check it.
///
/// Fails on `ignore` (every block is tested), on an edition other than 2024,
/// and on attributes that neither rustdoc nor mdBook know.
pub fn program(block: &RustBlock) -> Result<Program> {
    let (tokens, body) = (&block.info, &block.body);
    let error = |message: String| Err(Error::new(message));
    let is_code =
        |t: &str| t.len() == 5 && t.starts_with('E') && t[1..].bytes().all(|b| b.is_ascii_digit());
    let mut mode = Mode::Run;
    let mut codes = Vec::new();
    for token in tokens {
        match token.as_str() {
            "ignore" => return error("`ignore` is not allowed: every block is tested".into()),
            "no_run" => mode = Mode::NoRun,
            "should_panic" => mode = Mode::ShouldPanic,
            "compile_fail" => mode = Mode::CompileFail(Vec::new()),
            t if is_code(t) => codes.push(t.to_owned()),
            t if t.starts_with("edition") && t != "edition2024" => {
                return error(format!("`{t}`: every block is edition 2024"));
            }
            t if ALLOWED.contains(&t) => {}
            t => return error(format!("unknown code block attribute `{t}`")),
        }
    }
    match &mut mode {
        Mode::CompileFail(expected) => *expected = codes,
        _ if !codes.is_empty() => return error("error codes go with `compile_fail`".into()),
        _ => {}
    }
    let is_playground = !tokens.iter().any(|t| t == "noplayground");
    let source = match is_playground.then(|| wrap_rust_main(body)).flatten() {
        Some(wrapped) => wrapped,
        None => body.to_owned(),
    };
    Ok(Program {
        mode,
        program: unhide(&source),
    })
}

/// mdBook's `wrap_rust_main`: a block without `fn main` goes inside a
/// hidden one, after its leading inner attributes and blank lines.
fn wrap_rust_main(text: &str) -> Option<String> {
    if text.contains("fn main") || text.contains("quick_main!") {
        return None;
    }
    let mut split = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.starts_with("#![") || line.trim().is_empty() {
            split += line.len();
        } else {
            break;
        }
    }
    let (attrs, code) = text.split_at(split);
    let newline = if code.is_empty() || code.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    Some(format!(
        "# #![allow(unused)]\n{attrs}# fn main() {{\n{code}{newline}# }}"
    ))
}

/// The program with mdBook's hidden-line markers removed: `# x` and a lone
/// `#` are hidden lines (kept, marker dropped), `##x` is the line `#x`.
fn unhide(text: &str) -> String {
    let mut program = String::with_capacity(text.len());
    for line in text.lines() {
        let rest = line.trim_start();
        let indent = &line[..line.len() - rest.len()];
        match rest.strip_prefix('#') {
            Some(after) if after.starts_with('#') => {
                program.push_str(indent);
                program.push_str(after);
            }
            Some(after) if after.is_empty() || after.starts_with(' ') => {
                program.push_str(indent);
                program.push_str(after.strip_prefix(' ').unwrap_or(after));
            }
            _ => program.push_str(line),
        }
        program.push('\n');
    }
    program
}

#[cfg(test)]
mod tests {
    use super::*;

    fn programs(md: &str) -> Vec<Program> {
        rust_blocks(md)
            .unwrap()
            .iter()
            .map(|b| program(b).unwrap())
            .collect()
    }

    #[test]
    fn finds_rust_blocks_with_their_place_and_mode() {
        let md = "# T\n\n```rust\nfn main() {}\n```\n\n```text\nout\n```\n\n- item\n\n  ```rust,compile_fail,E0596\n  fn main() { x }\n  ```\n";
        let blocks = rust_blocks(md).unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].offset, md.find("```rust").unwrap());
        let p = programs(md);
        assert_eq!(
            (&p[0].mode, p[0].program.as_str()),
            (&Mode::Run, "fn main() {}\n")
        );
        assert_eq!(p[1].mode, Mode::CompileFail(vec!["E0596".into()]));
        assert_eq!(p[1].program, "fn main() { x }\n");
    }

    #[test]
    fn hidden_lines_are_part_of_the_program() {
        let md = "```rust\n# use std::fmt;\n    # let indented = 1;\n#\n##[derive(Debug)]\n#[derive(Clone)]\nfn main() {}\n```\n";
        assert_eq!(
            programs(md)[0].program,
            "use std::fmt;\n    let indented = 1;\n\n#[derive(Debug)]\n#[derive(Clone)]\nfn main() {}\n"
        );
        assert_eq!(visible_lines(&rust_blocks(md).unwrap()[0].body), 3);
        assert_eq!(visible_lines("# a\n#\n\n  # b\n"), 0);
    }

    #[test]
    fn a_fragment_is_wrapped_in_main_like_mdbook_does() {
        let md = "```rust\n#![allow(dead_code)]\n\nlet x = 1;\n```\n";
        assert_eq!(
            programs(md)[0].program,
            "#![allow(unused)]\n#![allow(dead_code)]\n\nfn main() {\nlet x = 1;\n}\n"
        );
        let md = "```rust,noplayground\nlet x = 1;\n```\n";
        assert_eq!(programs(md)[0].program, "let x = 1;\n");
    }

    #[test]
    fn forbidden_and_unknown_attributes_are_errors() {
        for (info, message) in [
            ("rust,ignore", "not allowed"),
            ("rust,edition2021", "edition 2024"),
            ("rust,no-run", "unknown code block attribute `no-run`"),
            ("no_run", "start its info string with `rust`"),
            ("no_run,rust", "start its info string with `rust`"),
            ("", "without a language"),
            ("rust,E0001", "go with `compile_fail`"),
        ] {
            let md = format!("text\n\n```{info}\nfn main() {{}}\n```\n");
            let err = match rust_blocks(&md) {
                // The fence's line.
                Err(e) => {
                    assert_eq!(e.line(), Some(3), "{info}");
                    e.message().to_string()
                }
                Ok(blocks) => program(&blocks[0]).unwrap_err().to_string(),
            };
            assert!(err.contains(message), "{info}: {err}");
        }
    }

    #[test]
    fn headings_and_their_ids() {
        let md = "# Title {#title}\n\n```rust\n# hidden\nfn main() {}\n```\n\n## Part\n";
        assert_eq!(
            heading_ids(md),
            [
                (0, Some("title".into())),
                (md.find("## Part").unwrap(), None)
            ]
        );
    }

    #[test]
    fn other_languages_are_left_alone() {
        let md = "```toml\n[dependencies]\n```\n\n```console\n$ cargo test\n```\n";
        assert!(rust_blocks(md).unwrap().is_empty());
    }

    #[test]
    fn rs_is_rust_shown_as_text_not_a_program() {
        let md = "```rs\n#[test]\nfn t() { helper() }\n```\n";
        assert!(rust_blocks(md).unwrap().is_empty());
        let err = rust_blocks("```rs,no_run\nfn t() {}\n```\n").unwrap_err();
        assert!(err.message().contains("takes no attributes"), "{err}");
    }
}
