//! Every listing file is reachable from the book, and every code fragment
//! names (and links) the listing file it shows.

mod common;

use mdbook_asyncbook::captions::{LISTINGS_HTML, LISTINGS_PAGE, includes};
use mdbook_asyncbook::edition::Edition;
use mdbook_asyncbook::markdown::{fences, line_of};

/// Every file of the listings crate that the book shows: code, programs
/// that fail to compile (with their errors) and recorded output.
fn listing_files() -> Vec<String> {
    [
        "listings/src",
        "listings/examples",
        "listings/compile_fail",
        "listings/output",
    ]
    .into_iter()
    .flat_map(common::files_under)
    .collect()
}

#[test]
fn every_listing_file_is_reachable_from_both_editions() {
    let files = listing_files();
    assert!(files.len() > 40, "{files:?}");
    for edition in Edition::ALL {
        let dir = format!("src/{}", edition.dir());
        let included: Vec<String> = common::chapters(edition)
            .iter()
            .flat_map(|(_, text)| includes(text, &dir))
            .map(|i| i.file)
            .collect();
        let missing: Vec<&String> = files.iter().filter(|f| !included.contains(f)).collect();
        assert!(
            missing.is_empty(),
            "not included anywhere in {dir}: {missing:?}"
        );
    }
}

#[test]
fn every_rust_listing_has_a_section_in_the_listings_appendix() {
    // Captions link fragments to these anchors.
    for edition in Edition::ALL {
        let page = common::chapters(edition)
            .into_iter()
            .find(|(name, _)| name == LISTINGS_PAGE)
            .map(|(_, text)| text)
            .expect("a listings appendix");
        let ids: Vec<String> = mdbook_asyncbook::markdown::headings(&page)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        for file in ["listings/src", "listings/examples", "listings/compile_fail"]
            .into_iter()
            .flat_map(common::files_under)
        {
            if file.ends_with(".rs") {
                let anchor = mdbook_asyncbook::edition::listing_anchor(&file);
                assert!(
                    ids.contains(&anchor),
                    "src/{}/appendix-listings.md has no {{#{anchor}}} for {file}",
                    edition.dir()
                );
            }
        }
    }
}

#[test]
fn every_rust_block_shows_lines_of_a_listing_file() {
    // So that the preprocessor captions it with a link to the whole file:
    // code lives in listings/, never only in a chapter.
    let mut bare = Vec::new();
    for edition in Edition::ALL {
        let dir = format!("src/{}", edition.dir());
        for (file, text) in common::chapters(edition) {
            if file == LISTINGS_PAGE {
                continue;
            }
            for fence in fences(&text).into_iter().filter(|f| f.language() == "rust") {
                let shown = includes(&text[fence.range.clone()], &dir)
                    .into_iter()
                    .any(|i| i.visible && i.file.starts_with("listings/"));
                if !shown {
                    bare.push(format!(
                        "{dir}/{file}:{}",
                        line_of(&text, fence.range.start)
                    ));
                }
            }
        }
    }
    assert!(
        bare.is_empty(),
        "rust blocks that show no listing file: {bare:?}"
    );
}

#[test]
fn every_caption_links_to_a_section_of_the_listings_appendix() {
    // The link check sees the captions too, but only as HTML it does not
    // follow into anchors; this checks each anchor a caption links to.
    let target = format!("{LISTINGS_HTML}#");
    let mut links = 0;
    for edition in Edition::ALL {
        let chapters = common::chapters(edition);
        let page = &chapters
            .iter()
            .find(|(name, _)| name == LISTINGS_PAGE)
            .expect("a listings appendix")
            .1;
        let ids: Vec<String> = mdbook_asyncbook::markdown::headings(page)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        for (file, text) in &chapters {
            let captioned =
                mdbook_asyncbook::captions::add(text, &format!("{}/{file}", edition.dir()));
            for (at, _) in captioned.match_indices(&target) {
                let anchor: String = captioned[at + target.len()..]
                    .chars()
                    .take_while(|&c| c != '"')
                    .collect();
                assert!(
                    ids.contains(&anchor),
                    "{}/{file}: a caption links to #{anchor}, which {LISTINGS_PAGE} lacks",
                    edition.dir()
                );
                links += 1;
            }
        }
    }
    assert!(
        links > 20,
        "only {links} caption links: are captions written?"
    );
}

#[test]
fn listing_anchors_are_unique() {
    let mut seen = std::collections::HashMap::new();
    for file in listing_files() {
        let anchor = mdbook_asyncbook::edition::listing_anchor(&file);
        if let Some(other) = seen.insert(anchor.clone(), file.clone()) {
            panic!("{other} and {file} share the anchor #{anchor}");
        }
    }
}
