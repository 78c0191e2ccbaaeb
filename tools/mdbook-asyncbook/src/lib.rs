//! The book's own tooling, as a library.
//!
//! - As an mdBook plug-in (`main.rs`): the preprocessor ([`preprocess`])
//!   writes each code block's hidden frame ([`frame`]), fills the appendices
//!   from `data/` ([`appendix`], [`listing_files`]) and captions code
//!   fragments ([`captions`]); the renderer ([`render`]) gives each edition
//!   its language, moves hidden code lines out of the pages ([`hidden`]),
//!   writes one print page per edition ([`print`]) and builds the Pagefind
//!   index. The preprocessor also
//!   writes chapter 10's measurements in place of `{{#bench …}}`
//!   ([`bench`](mod@bench)), from `data/bench/results.toml`, which
//!   `tools/bench-report` writes from a benchmark run, with its charts.
//! - For the book's tests (`tools/booktest`): [`program`] turns a block into
//!   the program a reader gets, [`directives`] and [`markdown`] read
//!   chapters the way mdBook does.
//!
//! Every error is an [`Error`] ([`error`]), which names the file and line
//! it is about when they are known.
//!
//! CONTRIBUTING.md says how chapters use it; ARCHITECTURE.md how it works.

pub mod appendix;
pub mod bench;
pub mod captions;
pub mod data;
pub mod directives;
pub mod edition;
pub mod error;
pub mod expand;
pub mod frame;
pub mod hidden;
pub mod listing_files;
pub mod markdown;
pub mod preprocess;
pub mod print;
pub mod program;
pub mod render;

pub use error::{Error, Result};
