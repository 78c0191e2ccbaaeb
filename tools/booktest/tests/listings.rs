//! Every listing file is reachable from the book, and every code fragment
//! names (and links) the listing file it shows.

mod common;

use mdbook_asyncbook::captions::{LISTINGS_HTML, LISTINGS_PAGE, includes};
use mdbook_asyncbook::directives::directives;
use mdbook_asyncbook::edition::Edition;
use mdbook_asyncbook::listing_files;
use mdbook_asyncbook::markdown::{fences, line_of};

/// Every file of the listings crate that the book shows: code, programs
/// that fail to compile (with their errors) and recorded output.
fn listing_files() -> Vec<String> {
    [
        "listings/src",
        "listings/examples",
        "listings/compile_fail",
        "listings/tests",
        "listings/output",
    ]
    .into_iter()
    .flat_map(common::files_under)
    .collect()
}

/// The files a chapter shows: those it includes, and those appendix C's
/// `{{#listings GROUP}}` directives write out.
fn shown_by(text: &str, dir: &str) -> Vec<String> {
    let mut shown: Vec<String> = includes(text, dir).into_iter().map(|i| i.file).collect();
    for directive in directives(text) {
        if directive.name == listing_files::DIRECTIVE {
            let files = listing_files::files(&common::root(), directive.args).unwrap();
            shown.extend(files.into_iter().map(|(file, _)| file));
        }
    }
    shown
}

#[test]
fn every_listing_file_is_reachable_from_both_editions() {
    let files = listing_files();
    assert!(files.len() > 40, "{files:?}");
    for edition in Edition::ALL {
        let dir = format!("src/{}", edition.dir());
        let shown: Vec<String> = common::chapters(edition)
            .iter()
            .flat_map(|(_, text)| shown_by(text, &dir))
            .collect();
        let missing: Vec<&String> = files.iter().filter(|f| !shown.contains(f)).collect();
        assert!(
            missing.is_empty(),
            "not shown anywhere in {dir}: {missing:?}"
        );
    }
}

#[test]
fn every_file_of_appendix_c_is_described_in_both_editions_and_nothing_else_is() {
    let root = common::root();
    let data = mdbook_asyncbook::data::listings(&root).unwrap();
    let mut undescribed = Vec::new();
    for group in listing_files::GROUPS {
        for (file, _) in listing_files::files(&root, group).unwrap() {
            match data.file.iter().find(|f| f.path == file) {
                None => undescribed.push(format!("{file}: no entry")),
                Some(entry) => {
                    for edition in Edition::ALL {
                        let text = entry.text(edition).trim();
                        if text.is_empty() || text.contains("TODO") {
                            undescribed.push(format!("{file}: no {} text", edition.dir()));
                        }
                    }
                }
            }
        }
    }
    assert!(
        undescribed.is_empty(),
        "data/listings.toml lacks descriptions: {undescribed:?}"
    );
    let stale = listing_files::stale_entries(&root, &data).unwrap();
    assert!(
        stale.is_empty(),
        "data/listings.toml describes files appendix C does not show: {stale:?}"
    );
}

#[test]
fn appendix_c_shows_every_group_in_both_editions() {
    for edition in Edition::ALL {
        let page = appendix_c(edition);
        let groups: Vec<&str> = directives(&page)
            .into_iter()
            .filter(|d| d.name == listing_files::DIRECTIVE)
            .map(|d| d.args)
            .collect();
        assert_eq!(
            groups,
            listing_files::GROUPS,
            "src/{}/{LISTINGS_PAGE}",
            edition.dir()
        );
    }
}

/// An edition's appendix C as written.
fn appendix_c(edition: Edition) -> String {
    common::chapters(edition)
        .into_iter()
        .find(|(name, _)| name == LISTINGS_PAGE)
        .map(|(_, text)| text)
        .expect("a listings appendix")
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
        // The appendix's own headings, and the sections its directives write.
        let page = appendix_c(edition);
        let mut ids: Vec<String> = mdbook_asyncbook::markdown::headings(&page)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        ids.extend(
            shown_by(&page, &format!("src/{}", edition.dir()))
                .iter()
                .map(|file| mdbook_asyncbook::edition::listing_anchor(file)),
        );
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
