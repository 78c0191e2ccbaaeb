//! The binary's command line, as mdBook uses it: `supports <renderer>`
//! answers with its exit status, no argument reads `[context, book]` as
//! JSON on stdin and writes the book on stdout, `render` is the renderer,
//! and anything else is a mistake.

use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::{Book, BookItem, Chapter};
use mdbook_preprocessor::config::Config;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test.
const BIN: &str = env!("CARGO_BIN_EXE_mdbook-asyncbook");

/// The fixture book: the preprocessor reads its `data/` and `listings/`.
fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture")
}

/// Runs the binary with `args`, writing `stdin` to it.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn it_supports_the_html_book_its_link_check_and_its_own_renderer() {
    for renderer in ["html", "linkcheck2", "pagefind"] {
        let output = run(&["supports", renderer], b"");
        assert_eq!(output.status.code(), Some(0), "{renderer}");
        assert!(output.stdout.is_empty() && output.stderr.is_empty());
    }
}

#[test]
fn it_does_not_support_other_renderers() {
    // mdBook reads exit status 1 as "no": the book is built for that
    // renderer without the plug-in.
    for args in [
        &["supports", "epub"][..],
        &["supports", "markdown"],
        &["supports"],
    ] {
        let output = run(args, b"");
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(output.stdout.is_empty() && output.stderr.is_empty());
    }
}

#[test]
fn an_unknown_command_is_an_error() {
    let output = run(&["build"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert_eq!(
        stderr(&output),
        "mdbook-asyncbook: unknown command `build`\n"
    );
}

#[test]
fn input_that_is_not_a_context_and_a_book_is_an_error() {
    let output = run(&[], b"{}");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let message = stderr(&output);
    assert!(message.starts_with("mdbook-asyncbook: "), "{message}");
}

/// `[context, book]` in, the book out, through serde on both sides as
/// mdBook does: a page the plug-in has no work for comes back as it went,
/// and a chapter comes back framed and captioned.
#[test]
fn a_book_goes_through_as_json_and_parses_back() {
    let root = fixture();
    let mut config = Config::default();
    config.book.src = PathBuf::from("src");
    let ctx = PreprocessorContext::new(root, config, "html".into());
    let index = Chapter::new(
        "Index",
        "# Index {#index}\n\nNo code.\n".into(),
        "index.md",
        vec![],
    );
    let chapter = Chapter::new(
        "第1章",
        "# 第1章 {#ch01}\n\n```rust\n{{#rustdoc_include ../../listings/src/clock.rs:now}}\n```\n"
            .into(),
        "ja/ch01-x.md",
        vec![],
    );
    let mut book = Book::new();
    book.push_item(index.clone());
    book.push_item(BookItem::Separator);
    book.push_item(chapter.clone());
    let input = serde_json::to_vec(&(&ctx, &book)).unwrap();

    let output = run(&[], &input);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
    let out: Book = serde_json::from_slice(&output.stdout).unwrap();

    let items: Vec<&BookItem> = out.iter().collect();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0], &BookItem::Chapter(index));
    assert_eq!(items[1], &BookItem::Separator);
    let BookItem::Chapter(framed) = items[2] else {
        panic!("{:?}", items[2]);
    };
    assert_eq!(framed.name, chapter.name);
    assert_eq!(framed.path, chapter.path);
    assert_eq!(
        framed.content,
        "# 第1章 {#ch01}\n\n\
         <p class=\"listing-source\">ソース：<a href=\"appendix-listings.html#listing-src-clock-rs\">\
         <code>listings/src/clock.rs</code></a></p>\n\n\
         ```rust\n\
         # // The book's `listings` crate: the modules this program uses, whole.\n\
         # #[allow(dead_code, unused_imports)]\n\
         # mod listings {\n\
         # pub mod clock {\n\
         # //! A clock that only counts.\n\
         # \n\
         /// The current tick.\n\
         pub fn now() -> u64 {\n\
         \x20   42\n\
         }\n\
         # }\n\
         # }\n\
         ```\n"
    );
}
