//! The ```rust blocks of an expanded chapter, as the programs readers get.
//!
//! For each block this reproduces what mdBook 0.5.4's HTML renderer does to
//! it: a block without `fn main` is wrapped in a hidden one (like rustdoc),
//! and the hidden-line markers are removed (`# x` gives `x`, `##x` gives
//! `#x`). The result is the program that the eye button reveals and the
//! copy button should copy, and it is what the tests compile.
//!
//! This file is also compiled into the build script with `#[path]`; it uses
//! `std` and `pulldown-cmark` only.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

use super::expand::{Error, Expanded};

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

/// One ```rust block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The chapter line of the opening fence.
    pub line: usize,
    pub mode: Mode,
    /// The whole program, hidden lines included, markers removed.
    pub program: String,
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

/// Finds every ```rust block of `chapter`.
///
/// Fails, naming the line, on a fence without a language (readers and
/// tools cannot tell whether it is Rust), on `ignore`, on an edition other
/// than 2024 and on attributes that neither rustdoc nor mdBook know.
pub fn rust_blocks(chapter: &Expanded) -> Result<Vec<Block>, Error> {
    let text = &chapter.text;
    let mut blocks = Vec::new();
    let mut current: Option<(usize, Vec<String>, String)> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                let line = chapter.source_lines[text[..range.start].matches('\n').count()];
                let tokens: Vec<String> = info
                    .split([',', ' ', '\t'])
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned)
                    .collect();
                if is_rust(&tokens, line)? {
                    current = Some((line, tokens, String::new()));
                }
            }
            Event::Text(code) => {
                if let Some((_, _, body)) = &mut current {
                    body.push_str(&code);
                }
            }
            Event::End(Tag::CodeBlock(_)) => {
                if let Some((line, tokens, body)) = current.take() {
                    blocks.push(block(line, &tokens, &body)?);
                }
            }
            _ => {}
        }
    }
    Ok(blocks)
}

/// The explicit ids of the chapter's headings (`## Title {#id}`), in order.
///
/// Every heading must have one: ids generated from Japanese and Chinese
/// titles would differ, and a reader switching language lands on the same
/// section only if both editions use the same id.
pub fn heading_ids(chapter: &Expanded) -> Result<Vec<String>, Error> {
    let text = &chapter.text;
    let mut ids = Vec::new();
    let parser = Parser::new_ext(text, Options::ENABLE_HEADING_ATTRIBUTES);
    for (event, range) in parser.into_offset_iter() {
        if let Event::Start(Tag::Heading(_, id, _)) = event {
            let line = chapter.source_lines[text[..range.start].matches('\n').count()];
            let Some(id) = id else {
                let message = "a heading without an id: end it with {#some-id}".into();
                return Err(Error { line, message });
            };
            ids.push(id.to_owned());
        }
    }
    Ok(ids)
}

/// mdBook takes the first word of the info string as the language: only a
/// block that starts with `rust` is shown, hidden-line-folded and run as
/// Rust. A Rust attribute anywhere else is a mistake.
fn is_rust(tokens: &[String], line: usize) -> Result<bool, Error> {
    let error = |message: String| Err(Error { line, message });
    let Some(first) = tokens.first() else {
        return error("a code block without a language: write ```rust, ```text, …".into());
    };
    if first == "rust" {
        return Ok(true);
    }
    if tokens
        .iter()
        .any(|t| ALLOWED.contains(&t.as_str()) || t == "ignore")
    {
        return error(format!(
            "```{} looks like a Rust block: start its info string with `rust`",
            tokens.join(",")
        ));
    }
    Ok(false)
}

fn block(line: usize, tokens: &[String], body: &str) -> Result<Block, Error> {
    let error = |message: String| Err(Error { line, message });
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
    Ok(Block {
        line,
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

    fn chapter(text: &str) -> Expanded {
        let lines = text.matches('\n').count() + 1;
        Expanded {
            text: text.to_owned(),
            source_lines: (1..=lines).collect(),
            files_read: Vec::new(),
        }
    }

    #[test]
    fn finds_rust_blocks_with_their_line_and_mode() {
        let md = "# T\n\n```rust\nfn main() {}\n```\n\n```text\nout\n```\n\n- item\n\n  ```rust,compile_fail,E0596\n  fn main() { x }\n  ```\n";
        let blocks = rust_blocks(&chapter(md)).unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!((blocks[0].line, &blocks[0].mode), (3, &Mode::Run));
        assert_eq!(blocks[0].program, "fn main() {}\n");
        assert_eq!(blocks[1].line, 13);
        assert_eq!(blocks[1].mode, Mode::CompileFail(vec!["E0596".into()]));
        assert_eq!(blocks[1].program, "fn main() { x }\n");
    }

    #[test]
    fn hidden_lines_are_part_of_the_program() {
        let md = "```rust\n# use std::fmt;\n    # let indented = 1;\n#\n##[derive(Debug)]\n#[derive(Clone)]\nfn main() {}\n```\n";
        let blocks = rust_blocks(&chapter(md)).unwrap();
        assert_eq!(
            blocks[0].program,
            "use std::fmt;\n    let indented = 1;\n\n#[derive(Debug)]\n#[derive(Clone)]\nfn main() {}\n"
        );
    }

    #[test]
    fn a_fragment_is_wrapped_in_main_like_mdbook_does() {
        let md = "```rust\n#![allow(dead_code)]\n\nlet x = 1;\n```\n";
        let blocks = rust_blocks(&chapter(md)).unwrap();
        assert_eq!(
            blocks[0].program,
            "#![allow(unused)]\n#![allow(dead_code)]\n\nfn main() {\nlet x = 1;\n}\n"
        );
        let md = "```rust,noplayground\nlet x = 1;\n```\n";
        assert_eq!(
            rust_blocks(&chapter(md)).unwrap()[0].program,
            "let x = 1;\n"
        );
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
            let err = rust_blocks(&chapter(&md)).unwrap_err();
            assert_eq!(err.line, 3, "{info}");
            assert!(err.message.contains(message), "{info}: {}", err.message);
        }
    }

    #[test]
    fn headings_need_ids() {
        let md = "# Title {#title}\n\n```rust\n# hidden\nfn main() {}\n```\n\n## Part {#part}\n";
        assert_eq!(heading_ids(&chapter(md)).unwrap(), ["title", "part"]);
        let err = heading_ids(&chapter("# A {#a}\n\n## B\n")).unwrap_err();
        assert_eq!(err.line, 3);
    }

    #[test]
    fn other_languages_are_left_alone() {
        let md = "```toml\n[dependencies]\n```\n\n```console\n$ cargo test\n```\n";
        assert!(rust_blocks(&chapter(md)).unwrap().is_empty());
    }
}
