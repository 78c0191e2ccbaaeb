//! The glossary and pitfalls appendices, rendered from `data/` into the
//! `{{#glossary}}` and `{{#pitfalls}}` directives of each edition's page.

use crate::Result;
use crate::data::{Glossary, Pitfalls, Shows};
use crate::edition::{Edition, listing_anchor};
use crate::markdown::{escape_html, escape_markdown, headings, inline_code, prose};

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
/// the first chapter whose prose uses one of its accepted spellings (a term
/// written as code, like `` `Parker` ``, is looked for in inline code).
pub fn glossary(glossary: &Glossary, edition: Edition, chapters: &[Chapter]) -> String {
    let words = edition.words();
    let prose: Vec<(&Chapter, String)> = chapters
        .iter()
        .filter(|c| !c.is_appendix())
        .map(|c| {
            let mut text: Vec<String> = prose(&c.content).into_iter().map(|(_, t)| t).collect();
            text.extend(
                inline_code(&c.content)
                    .into_iter()
                    .map(|code| format!("`{code}`")),
            );
            (c, text.join("\n"))
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
                format!(
                    "{}{}{}{}",
                    text.term,
                    words.parens.0,
                    code.join(" / "),
                    words.parens.1
                )
            }
            None => text.term.clone(),
        };
        let accepted = text.accepted();
        let first = prose
            .iter()
            .find(|(_, p)| accepted.iter().any(|a| p.contains(a)))
            .map_or_else(
                || words.not_yet.to_string(),
                |(c, _)| format!("[{}]({})", cell(&escape_markdown(&c.name)), c.file()),
            );
        out.push_str(&format!(
            "| <span id=\"term-{}\"></span>**{}** | {} | {} | {} |\n",
            escape_html(&term.id),
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
        out.push_str(&format!(
            "**{}**{}{}\n\n",
            words.symptom,
            words.colon,
            text.symptom.trim()
        ));
        out.push_str(&format!(
            "**{}**{}{}\n\n",
            words.fix,
            words.colon,
            text.fix.trim()
        ));
        out.push_str(&format!(
            "- {}[{} · {}]({file}#{})\n",
            words.section,
            escape_markdown(&chapter.name),
            heading,
            pitfall.section
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

#[cfg(test)]
mod tests {
    use super::*;

    fn chapter(path: &str, name: &str, content: &str) -> Chapter {
        Chapter {
            path: path.into(),
            name: name.into(),
            content: content.into(),
        }
    }

    const GLOSSARY: &str = r#"
[[term]]
id = "executor"
en = "executor"
[term.ja]
term = "エグゼキューター"
definition = """タスクを | ポーリングする
  もの。"""
[term.zh]
term = "执行器"
definition = "轮询任务的部件。"

[[term]]
id = "parker"
en = "parker"
[term.ja]
term = "パーカー"
definition = "眠らせる部品。"
[term.zh]
term = "`Parker`"
definition = "挂起线程的工具。"

[[term]]
id = "ready-pending"
en = "ready / pending"
[term.ja]
term = "準備完了 / 保留中"
code = "Ready / Pending"
definition = "結果。"
[term.zh]
term = "就绪 / 未就绪"
code = "Ready / Pending"
definition = "结果。"
"#;

    #[test]
    fn the_glossary_links_each_term_to_the_first_chapter_whose_prose_uses_it() {
        let data: Glossary = toml::from_str(GLOSSARY).unwrap();
        let chapters = [
            chapter(
                "zh/ch01-a.md",
                "第 1 章 A",
                "```rust\n// 执行器 only in code\n```\n\n就绪了。\n",
            ),
            chapter(
                "zh/ch03-executor.md",
                "第 3 章 执行器",
                "# 执行器 {#executor}\n\n以后用 `Parker`。\n",
            ),
            chapter("zh/appendix-glossary.md", "附录 A", "执行器"),
        ];
        let table = glossary(&data, Edition::Zh, &chapters);
        assert_eq!(
            table,
            "| 术语 | 英文 | 含义 | 首次出现 |\n| --- | --- | --- | --- |\n\
             | <span id=\"term-executor\"></span>**执行器** | executor | 轮询任务的部件。 | [第 3 章 执行器](ch03-executor.md) |\n\
             | <span id=\"term-parker\"></span>**`Parker`** | parker | 挂起线程的工具。 | [第 3 章 执行器](ch03-executor.md) |\n\
             | <span id=\"term-ready-pending\"></span>**就绪 / 未就绪（`Ready` / `Pending`）** | ready / pending | 结果。 | [第 1 章 A](ch01-a.md) |\n"
        );
    }

    #[test]
    fn glossary_cells_stay_on_one_line_and_escape_bars() {
        let data: Glossary = toml::from_str(GLOSSARY).unwrap();
        let table = glossary(&data, Edition::Ja, &[]);
        assert!(
            table.contains("| タスクを \\| ポーリングする もの。 | （これからの章） |"),
            "{table}"
        );
    }

    #[test]
    fn a_pitfall_links_its_section_tests_and_programs() {
        let data: Pitfalls = toml::from_str(
            r#"
[[pitfall]]
id = "lost-wakeup"
chapter = "ch02-timer"
section = "lost-wakeup"
tests = [
    { file = "listings/src/pitfalls/split.rs", name = "loses_it", shows = "bug" },
    { file = "listings/src/timer.rs", name = "loom_keeps_it", shows = "fix", loom = true },
]
compile_fail = ["listings/compile_fail/no.rs"]
[pitfall.ja]
title = "起床の取りこぼし"
symptom = "止まる。"
fix = "1回のロックで。"
[pitfall.zh]
title = "唤醒丢失"
symptom = "卡住。"
fix = "一次加锁。"
"#,
        )
        .unwrap();
        let chapters = [chapter(
            "zh/ch02-timer.md",
            "第 2 章 [计时器]",
            "## 唤醒 `丢失` \\<T\\> {#lost-wakeup}\n",
        )];
        assert_eq!(
            pitfalls(&data, Edition::Zh, &chapters).unwrap(),
            "## 唤醒丢失 {#pitfall-lost-wakeup}\n\n\
             **表现**：卡住。\n\n\
             **修正**：一次加锁。\n\n\
             - 正文：[第 2 章 \\[计时器\\] · 唤醒 `丢失` \\<T\\>](ch02-timer.md#lost-wakeup)\n\
             - 重现错误的测试：`loses_it` ([`listings/src/pitfalls/split.rs`](appendix-listings.md#listing-src-pitfalls-split-rs))<br>运行：`cargo test -p listings loses_it`\n\
             - 验证修正的测试：`loom_keeps_it` ([`listings/src/timer.rs`](appendix-listings.md#listing-src-timer-rs))<br>运行：`RUSTFLAGS=\"--cfg loom\" cargo test -p listings --release --lib loom_keeps_it`\n\
             - 检查编译错误的程序：[`listings/compile_fail/no.rs`](appendix-listings.md#listing-compile-fail-no-rs)\n\n"
        );
        let missing = [chapter("zh/ch02-timer.md", "第 2 章", "## 别的 {#other}\n")];
        let error = pitfalls(&data, Edition::Zh, &missing)
            .unwrap_err()
            .to_string();
        assert!(error.contains("has no heading {#lost-wakeup}"), "{error}");
    }
}
