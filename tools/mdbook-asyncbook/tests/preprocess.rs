//! The preprocessor over mdBook 0.5's JSON protocol, end to end.

mod common;

use serde_json::{Value, json};

fn chapter(path: &str, content: &str, sub_items: Value) -> Value {
    json!({ "Chapter": {
        "name": path, "content": content, "number": null,
        "sub_items": sub_items, "path": path, "source_path": path, "parent_names": []
    }})
}

fn run(book: Value) -> Result<Value, String> {
    let context = json!({
        "root": common::root(), "config": {}, "renderer": "html", "mdbook_version": "0.5.4"
    });
    let input = serde_json::to_vec(&json!([context, book])).unwrap();
    let mut output = Vec::new();
    mdbook_asyncbook::preprocess::run(&input[..], &mut output).map_err(|e| e.to_string())?;
    Ok(serde_json::from_slice(&output).unwrap())
}

#[test]
fn fills_the_appendices_and_captions_nested_chapters() {
    let book = json!({ "items": [
        chapter("ja/ch02-wakers-and-timer.md", "# T {#t}\n\n## L {#lost-wakeup}\n", json!([
            chapter("ja/sub.md", "```rust\n{{#include ../../listings/src/timer.rs}}\n```\n", json!([])),
        ])),
        "Separator",
        chapter("ja/appendix-glossary.md", "# A {#a}\n\n{{#glossary}}\n", json!([])),
    ]});
    let out = run(book).unwrap();
    let items = out["items"].as_array().unwrap();
    let sub = &items[0]["Chapter"]["sub_items"][0]["Chapter"]["content"];
    assert!(
        sub.as_str().unwrap().starts_with(
            "<p class=\"listing-source\">ソース：<a href=\"appendix-listings.html#listing-src-timer-rs\">"
        ),
        "{sub}"
    );
    assert_eq!(items[1], "Separator");
    let glossary = items[2]["Chapter"]["content"].as_str().unwrap();
    assert!(!glossary.contains("{{#glossary}}"), "{glossary}");
    assert!(
        glossary.contains("| 用語 | 英語 | 意味 | 初出 |"),
        "{glossary}"
    );
    assert!(
        glossary.contains("<span id=\"term-executor\"></span>"),
        "{glossary}"
    );
}

#[test]
fn an_unknown_protocol_is_an_error_not_an_empty_appendix() {
    let error = run(json!({ "sections": [] })).unwrap_err();
    assert!(error.contains("without `items`"), "{error}");
    let error = run(json!({ "items": [
        json!({ "Chapter": { "name": "x", "content": "", "path": "ja/x.md" } })
    ]}))
    .unwrap_err();
    assert!(error.contains("without `sub_items`"), "{error}");
}

#[test]
fn an_appendix_outside_an_edition_is_an_error() {
    let error =
        run(json!({ "items": [chapter("index.md", "{{#pitfalls}}", json!([]))] })).unwrap_err();
    assert!(error.contains("index.md"), "{error}");
}
