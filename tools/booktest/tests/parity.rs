//! The editions side by side: the same chapter files, listed in the same
//! order, embedding the same listings, with the same number of diagrams and
//! text blocks (outputs). The headings and the Rust blocks are compared in
//! the blocks test binary, whose `parity::<chapter>` tests (written by
//! build.rs) compare each block's program, mode and order: not here too.

mod common;

use mdbook_asyncbook::edition::Edition;
use mdbook_asyncbook::markdown::fences;

#[test]
fn both_editions_have_the_same_chapter_files() {
    let names = |e| {
        common::chapters(e)
            .into_iter()
            .map(|(name, _)| name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names(Edition::Ja), names(Edition::Zh));
}

#[test]
fn the_table_of_contents_lists_both_editions_in_the_same_order() {
    let summary = std::fs::read_to_string(common::root().join("src/SUMMARY.md")).unwrap();
    let listed = |e: Edition| {
        let prefix = format!("]({}/", e.dir());
        summary
            .lines()
            .filter_map(|l| {
                l.split_once(&prefix)
                    .map(|(_, rest)| rest.trim_end_matches(')').to_string())
            })
            .collect::<Vec<_>>()
    };
    let ja = listed(Edition::Ja);
    assert_eq!(ja, listed(Edition::Zh));
    let files: Vec<String> = common::chapters(Edition::Ja)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let mut sorted = ja.clone();
    sorted.sort();
    assert_eq!(sorted, files, "every chapter file is in SUMMARY.md, once");
}

/// What a chapter embeds: each block's language and the files it includes
/// (with their anchors or ranges), in order.
fn embedded(text: &str) -> Vec<(String, Vec<String>)> {
    fences(text)
        .into_iter()
        .map(|f| {
            let block = &text[f.range.clone()];
            let directives: Vec<String> = block
                .lines()
                .filter(|l| l.contains("{{#include") || l.contains("{{#rustdoc_include"))
                .map(str::trim)
                .map(String::from)
                .collect();
            (f.language().to_string(), directives)
        })
        .collect()
}

#[test]
fn each_chapter_embeds_the_same_listings_in_both_editions() {
    let zh = common::chapters(Edition::Zh);
    let mut differences = Vec::new();
    for (file, ja_text) in common::chapters(Edition::Ja) {
        let Some((_, zh_text)) = zh.iter().find(|(name, _)| *name == file) else {
            continue;
        };
        let (ja, zh) = (embedded(&ja_text), embedded(zh_text));
        let count = |blocks: &[(String, Vec<String>)], lang: &str| {
            blocks.iter().filter(|(l, _)| l == lang).count()
        };
        for lang in ["mermaid", "text"] {
            if count(&ja, lang) != count(&zh, lang) {
                differences.push(format!(
                    "{file}: {} ```{lang} blocks in ja, {} in zh",
                    count(&ja, lang),
                    count(&zh, lang)
                ));
            }
        }
        let included = |blocks: &[(String, Vec<String>)]| {
            blocks
                .iter()
                .flat_map(|(_, d)| d.clone())
                .collect::<Vec<_>>()
        };
        if included(&ja) != included(&zh) {
            differences.push(format!(
                "{file}: the include directives differ\n  ja: {:?}\n  zh: {:?}",
                included(&ja),
                included(&zh)
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
