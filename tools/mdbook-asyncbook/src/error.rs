//! The plug-in's one error type: a message, and where it was found when
//! that is known. Every message that names a place is written here, as
//! compilers write them: `src/ja/ch01-timer.md:11: message` (a file and a
//! line), `data/glossary.toml: message` (a file), or the message alone.
//!
//! What reads a text without knowing its file (a chapter's blocks, its
//! `{{#bench}}` directives, a module's items) gives the line
//! ([`Error::at`]); whoever knows the file names it
//! ([`Error::with_file`]). An error that already names a file, met while
//! working on another (a listings module, while framing a chapter's
//! block), becomes the message of an error there: `src/ja/ch01-timer.md:37:
//! listings/src/timer.rs: unclosed string`.

use crate::markdown::line_of;
use std::fmt;

/// Errors end the build with a message; there is nothing to recover.
pub type Result<T> = std::result::Result<T, Error>;

/// A message, and the file and line it is about if they are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// As the reader finds it: from the repository root
    /// (`src/ja/ch01-timer.md`, `listings/src/timer.rs`), or an absolute
    /// path for a file of the built book.
    file: Option<String>,
    /// 1-based, in `file` (or, until the file is named, in the text read).
    line: Option<usize>,
    message: String,
}

impl Error {
    /// An error with no place of its own (or one its message names).
    pub fn new(message: impl fmt::Display) -> Error {
        Error {
            file: None,
            line: None,
            message: message.to_string(),
        }
    }

    /// An error at the line of `text` that holds byte `offset`, for the
    /// caller, who knows which file `text` is, to name it
    /// ([`Error::with_file`]).
    pub fn at(text: &str, offset: usize, message: impl fmt::Display) -> Error {
        Error {
            line: Some(line_of(text, offset)),
            ..Error::new(message)
        }
    }

    /// An error in `file`, at no line in particular.
    pub fn in_file(file: impl fmt::Display, message: impl fmt::Display) -> Error {
        Error::new(message).with_file(file)
    }

    /// An error at `line` (1-based) of `file`.
    pub fn located(file: impl fmt::Display, line: usize, message: impl fmt::Display) -> Error {
        Error {
            file: Some(file.to_string()),
            line: Some(line),
            message: message.to_string(),
        }
    }

    /// The error, in `file`: the file its line (if any) is a line of. An
    /// error that names a file already is what went wrong in `file`, and
    /// becomes the message (`file: other.rs:3: message`).
    pub fn with_file(self, file: impl fmt::Display) -> Error {
        let file = file.to_string();
        match &self.file {
            None => Error {
                file: Some(file),
                ..self
            },
            // Already located in this very file: nothing to add.
            Some(own) if *own == file => self,
            Some(_) => Error {
                line: None,
                message: self.to_string(),
                file: Some(file),
            },
        }
    }

    /// The file it names, if any.
    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    /// The line it names, if any.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// What went wrong, without the place.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = &self.message;
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line}: {message}"),
            (Some(file), None) => write!(f, "{file}: {message}"),
            (None, Some(line)) => write!(f, "line {line}: {message}"),
            (None, None) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::new(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::new(message)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::new(e)
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Error {
        Error::new(e)
    }
}

/// What mdBook's crates fail with (`anyhow`'s error, which they re-export):
/// the message and its causes, `: `-separated.
impl From<mdbook_preprocessor::errors::Error> for Error {
    fn from(e: mdbook_preprocessor::errors::Error) -> Error {
        Error::new(format!("{e:#}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_written_before_the_message_as_compilers_write_it() {
        let text = "one\ntwo {{#x}}\n";
        let at = Error::at(text, text.find("{{").unwrap(), "unknown");
        assert_eq!(
            (at.file(), at.line(), at.message()),
            (None, Some(2), "unknown")
        );
        assert_eq!(at.to_string(), "line 2: unknown");
        assert_eq!(
            at.with_file("src/ja/ch01.md").to_string(),
            "src/ja/ch01.md:2: unknown"
        );
        assert_eq!(
            Error::in_file("data/glossary.toml", "missing field `id`").to_string(),
            "data/glossary.toml: missing field `id`"
        );
        assert_eq!(
            Error::located("src/zh/ch02.md", 7, "too long").to_string(),
            "src/zh/ch02.md:7: too long"
        );
        assert_eq!(
            Error::from("no build folder").to_string(),
            "no build folder"
        );
    }

    #[test]
    fn an_error_in_one_file_met_in_another_is_that_files_message() {
        let module = Error::in_file("listings/src/timer.rs", "unclosed string");
        let page = "# T\n\n```rust\n{{#include x.rs}}\n```\n";
        let framed = Error::at(page, page.find("```rust").unwrap(), module.clone());
        assert_eq!(
            framed.with_file("src/ja/ch01.md").to_string(),
            "src/ja/ch01.md:3: listings/src/timer.rs: unclosed string"
        );
        // Named again without a line: the place it had stays in the message.
        let lined = Error::located("listings/src/timer.rs", 4, "an item");
        let again = lined.clone().with_file("src/ja/ch01.md");
        assert_eq!(
            (again.file(), again.line(), again.message()),
            (
                Some("src/ja/ch01.md"),
                None,
                "listings/src/timer.rs:4: an item"
            )
        );
        assert_eq!(
            module.clone().with_file("src/ja/ch01.md").to_string(),
            "src/ja/ch01.md: listings/src/timer.rs: unclosed string"
        );
        // Named again in the file it is already in: said once.
        assert_eq!(
            module.with_file("listings/src/timer.rs").to_string(),
            "listings/src/timer.rs: unclosed string"
        );
        assert_eq!(
            lined.with_file("listings/src/timer.rs").to_string(),
            "listings/src/timer.rs:4: an item"
        );
    }

    #[test]
    fn mdbooks_errors_keep_their_causes() {
        let e = mdbook_preprocessor::errors::Error::msg("bad json")
            .context("Unable to parse the input");
        assert_eq!(
            Error::from(e).to_string(),
            "Unable to parse the input: bad json"
        );
    }
}
