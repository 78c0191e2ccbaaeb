//! The book's own mdBook plug-in: see `main.rs` for its two roles, and the
//! README's contributor section for how authors use it.

pub mod appendix;
pub mod captions;
pub mod data;
pub mod edition;
pub mod markdown;
pub mod preprocess;
pub mod render;

/// Errors end the build with a message; there is nothing to recover.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;
