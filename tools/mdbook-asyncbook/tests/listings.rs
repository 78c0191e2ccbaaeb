//! Every listing file is reachable from the book, and every code fragment
//! names (and links) the listing file it shows.

mod common;

use mdbook_asyncbook::captions::{LISTINGS_PAGE, includes};
use mdbook_asyncbook::edition::Edition;
use mdbook_asyncbook::markdown::{fences, line_of};

#[test]
fn every_listing_file_is_reachable_from_both_editions() {
    let files: Vec<String> = [
        "listings/src",
        "listings/examples",
        "listings/compile_fail",
        "listings/output",
    ]
    .into_iter()
    .flat_map(common::files_under)
    .collect();
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
