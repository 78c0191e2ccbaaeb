//! The preprocessor: reads mdBook's `[context, book]` JSON, fills the
//! appendix directives, captions code fragments, and writes the book back.

use crate::appendix::{self, Chapter};
use crate::edition::Edition;
use crate::{Result, captions, data};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;

/// Replaced by the glossary table of the page's edition.
pub const GLOSSARY: &str = "{{#glossary}}";
/// Replaced by the pitfalls of the page's edition.
pub const PITFALLS: &str = "{{#pitfalls}}";

/// Runs the preprocessor over mdBook's protocol.
pub fn run(input: impl Read, mut output: impl Write) -> Result<()> {
    let (context, mut book): (Value, Value) = serde_json::from_reader(input)?;
    let root = context["root"]
        .as_str()
        .ok_or("no `root` in mdBook's context")?;
    process(Path::new(root), &mut book)?;
    serde_json::to_writer(&mut output, &book)?;
    output.flush()?;
    Ok(())
}

/// Calls `f` on every chapter object of the book (the inside of
/// `{"Chapter": {...}}`), in reading order, a parent before its children.
fn for_each_chapter(items: &mut Value, f: &mut impl FnMut(&mut Value) -> Result<()>) -> Result<()> {
    // mdBook 0.5 sends `items` and every chapter's `sub_items` as arrays;
    // anything else is a protocol we do not know, and doing nothing would
    // leave the appendices silently empty.
    let items = items
        .as_array_mut()
        .ok_or("mdBook sent a book without an `items` / `sub_items` array")?;
    for item in items {
        if let Some(chapter) = item.get_mut("Chapter") {
            f(chapter)?;
            let sub_items = chapter
                .get_mut("sub_items")
                .ok_or("mdBook sent a chapter without `sub_items`")?;
            for_each_chapter(sub_items, f)?;
        }
    }
    Ok(())
}

/// Applies the plug-in to a book (the JSON `Book` object).
pub fn process(root: &Path, book: &mut Value) -> Result<()> {
    let glossary = data::glossary(root)?;
    let pitfalls = data::pitfalls(root)?;
    // What the appendices need to know of each edition: every chapter's
    // title and text, as written (before any expansion).
    let mut by_edition: Vec<(Edition, Vec<Chapter>)> =
        Edition::ALL.iter().map(|&e| (e, Vec::new())).collect();
    let items = book
        .get_mut("items")
        .ok_or("mdBook sent a book without `items`")?;
    for_each_chapter(items, &mut |chapter| {
        let Some(path) = chapter["path"].as_str() else {
            return Ok(());
        };
        if let Some(edition) = Edition::of_path(path) {
            let list = &mut by_edition
                .iter_mut()
                .find(|(e, _)| *e == edition)
                .expect("every edition")
                .1;
            list.push(Chapter {
                path: path.to_string(),
                name: chapter["name"].as_str().unwrap_or_default().to_string(),
                content: chapter["content"].as_str().unwrap_or_default().to_string(),
            });
        }
        Ok(())
    })?;

    for_each_chapter(items, &mut |chapter| {
        let Some(path) = chapter["path"].as_str().map(str::to_string) else {
            return Ok(());
        };
        let Some(edition) = Edition::of_path(&path) else {
            let content = chapter["content"].as_str().unwrap_or_default();
            if content.contains(GLOSSARY) || content.contains(PITFALLS) {
                return Err(format!(
                    "{path}: the appendices can only be written in an edition (ja/, zh/)"
                )
                .into());
            }
            return Ok(());
        };
        let edition_chapters = &by_edition
            .iter()
            .find(|(e, _)| *e == edition)
            .expect("every edition")
            .1;
        let mut content = chapter["content"].as_str().unwrap_or_default().to_string();
        if content.contains(GLOSSARY) {
            content = content.replace(
                GLOSSARY,
                &appendix::glossary(&glossary, edition, edition_chapters),
            );
        }
        if content.contains(PITFALLS) {
            content = content.replace(
                PITFALLS,
                &appendix::pitfalls(&pitfalls, edition, edition_chapters)?,
            );
        }
        chapter["content"] = Value::String(captions::add(&content, &path));
        Ok(())
    })
}
