//! The glossary and pitfalls appendices, rendered from `data/` into the
//! `{{#glossary}}` and `{{#pitfalls}}` directives of each edition's page.

use crate::Result;
use crate::data::{Glossary, Pitfalls, Shows};
use crate::edition::{Edition, listing_anchor};
use crate::markdown::{headings, prose};

/// A chapter of one edition, as the preprocessor sees it.
#[derive(Debug)]
pub struct Chapter {
    /// The path under `src/`, e.g. `ja/ch02-wakers-and-timer.md`.
    pub path: String,
    /// Its title in the table of contents.
    pub name: String,
    pub content: String,
}

impl Chapter {
    /// The file name, which is what links between pages of one edition use.
    fn file(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    fn is_appendix(&self) -> bool {
        self.file().starts_with("appendix-")
    }
}

/// A table cell's text: one line, no bare `|`.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// The glossary of one edition as a Markdown table. `chapters` are the
/// edition's chapters in reading order; a term's "first used" column links to
/// the first chapter whose prose uses one of its accepted spellings.
pub fn glossary(glossary: &Glossary, edition: Edition, chapters: &[Chapter]) -> String {
    let words = edition.words();
    let prose: Vec<(&Chapter, String)> = chapters
        .iter()
        .filter(|c| !c.is_appendix())
        .map(|c| {
            (
                c,
                prose(&c.content)
                    .into_iter()
                    .map(|(_, t)| t)
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        })
        .collect();
    let mut out = format!(
        "| {} | {} | {} | {} |\n| --- | --- | --- | --- |\n",
        words.term, words.english, words.meaning, words.first_used
    );
    for term in &glossary.term {
        let text = term.text(edition);
        let name = match &text.code {
            // A pair of names ("Ready / Pending") is two pieces of code.
            Some(code) => {
                let code: Vec<String> = code.split(" / ").map(|c| format!("`{c}`")).collect();
                format!("{} ({})", text.term, code.join(" / "))
            }
            None => text.term.clone(),
        };
        let accepted = text.accepted();
        let first = prose
            .iter()
            .find(|(_, p)| accepted.iter().any(|a| p.contains(a)))
            .map_or_else(
                || words.not_yet.to_string(),
                |(c, _)| format!("[{}]({})", cell(&c.name), c.file()),
            );
        out.push_str(&format!(
            "| <span id=\"term-{}\"></span>**{}** | {} | {} | {} |\n",
            term.id,
            cell(&name),
            cell(&term.en),
            cell(&text.definition),
            first
        ));
    }
    out
}

/// The pitfalls of one edition: a section per bug with its symptom, its
/// fix, a link to the section that shows it and the tests that show it.
pub fn pitfalls(pitfalls: &Pitfalls, edition: Edition, chapters: &[Chapter]) -> Result<String> {
    let words = edition.words();
    let mut out = String::new();
    for pitfall in &pitfalls.pitfall {
        let text = pitfall.text(edition);
        let file = format!("{}.md", pitfall.chapter);
        let chapter = chapters.iter().find(|c| c.file() == file).ok_or_else(|| {
            format!(
                "pitfall `{}`: no chapter {}/{file}",
                pitfall.id,
                edition.dir()
            )
        })?;
        let (_, heading) = headings(&chapter.content)
            .into_iter()
            .find(|(id, _)| *id == pitfall.section)
            .ok_or_else(|| {
                format!(
                    "pitfall `{}`: {} has no heading {{#{}}}",
                    pitfall.id, chapter.path, pitfall.section
                )
            })?;
        out.push_str(&format!(
            "## {} {{#pitfall-{}}}\n\n",
            text.title.trim(),
            pitfall.id
        ));
        out.push_str(&format!("**{}**{}\n\n", words.symptom, text.symptom.trim()));
        out.push_str(&format!("**{}**{}\n\n", words.fix, text.fix.trim()));
        out.push_str(&format!(
            "- {}[{} · {}]({file}#{})\n",
            words.section, chapter.name, heading, pitfall.section
        ));
        for test in &pitfall.tests {
            let label = match test.shows {
                Shows::Bug => words.shows_bug,
                Shows::Fix => words.checks_fix,
            };
            out.push_str(&format!(
                "- {label}`{}` ([`{}`](appendix-listings.md#{}))<br>{}`{}`\n",
                test.name,
                test.file,
                listing_anchor(&test.file),
                words.run_with,
                test.command()
            ));
        }
        for program in &pitfall.compile_fail {
            out.push_str(&format!(
                "- {}[`{program}`](appendix-listings.md#{})\n",
                words.compile_error,
                listing_anchor(program)
            ));
        }
        out.push('\n');
    }
    Ok(out)
}
