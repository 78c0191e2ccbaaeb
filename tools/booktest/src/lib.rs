//! The machinery behind `cargo test` for the book's code blocks.
//!
//! - [`expand`] expands mdBook includes exactly as mdBook does, but fails on
//!   a missing file or anchor instead of rendering nothing.
//! - [`blocks`] finds the ```rust blocks of a chapter and builds the program
//!   a reader gets from each (hidden lines included).
//!
//! The build script compiles both files directly (`#[path]`) to generate one
//! test per block; this library exists so that they are unit-tested too.

pub mod blocks;
pub mod expand;
