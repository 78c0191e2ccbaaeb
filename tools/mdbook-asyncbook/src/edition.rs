//! The two editions, and the few words the plug-in writes into pages.

/// One language edition of the book; its chapters live in `src/<dir>/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edition {
    Ja,
    Zh,
}

impl Edition {
    pub const ALL: [Edition; 2] = [Edition::Ja, Edition::Zh];

    /// The folder under `src/` (and under the built book).
    pub fn dir(self) -> &'static str {
        match self {
            Edition::Ja => "ja",
            Edition::Zh => "zh",
        }
    }

    /// The value of the pages' `lang` attribute: it picks the regional glyph
    /// forms, and Pagefind builds one index per language from it.
    pub fn lang(self) -> &'static str {
        match self {
            Edition::Ja => "ja",
            Edition::Zh => "zh-CN",
        }
    }

    /// The edition a book-relative path (`ja/ch01-future-trait.md`) belongs to.
    pub fn of_path(path: &str) -> Option<Edition> {
        Edition::ALL.into_iter().find(|e| {
            path.strip_prefix(e.dir())
                .is_some_and(|rest| rest.starts_with('/'))
        })
    }

    /// Interface words for what the plug-in generates.
    pub fn words(self) -> &'static Words {
        match self {
            Edition::Ja => &JA,
            Edition::Zh => &ZH,
        }
    }
}

/// Words in one language; see `JA` and `ZH`.
#[derive(Debug)]
pub struct Words {
    pub source: &'static str,
    pub separator: &'static str,
    pub term: &'static str,
    pub english: &'static str,
    pub meaning: &'static str,
    pub first_used: &'static str,
    pub not_yet: &'static str,
    /// The colon after a bold label (outside the bold, or CommonMark would
    /// not close it before a letter).
    pub colon: &'static str,
    /// Parentheses around the Rust name beside a term.
    pub parens: (&'static str, &'static str),
    pub symptom: &'static str,
    pub fix: &'static str,
    pub section: &'static str,
    pub shows_bug: &'static str,
    pub checks_fix: &'static str,
    pub run_with: &'static str,
    pub compile_error: &'static str,
    /// Before a module's tests, which appendix C shows after its program.
    pub left_out_tests: &'static str,
    /// The same, when the module also has loom models or loom-only code.
    pub left_out_loom: &'static str,
    /// The edition's own title (the book's title names both editions).
    pub book_title: &'static str,
    /// The link from the bilingual print page to the edition's own.
    pub print_edition: &'static str,
}

const JA: Words = Words {
    source: "ソース：",
    separator: "、",
    term: "用語",
    english: "英語",
    meaning: "意味",
    first_used: "初出",
    not_yet: "（これからの章）",
    colon: "：",
    parens: (" (", ")"),
    symptom: "症状",
    fix: "直し方",
    section: "本文：",
    shows_bug: "バグを起こすテスト：",
    checks_fix: "直し方を確かめるテスト：",
    run_with: "実行：",
    compile_error: "コンパイルエラーを確かめるプログラム：",
    left_out_tests: "このファイルのテストです。上のプログラムには入れていません。\
                     `listings` クレートの中にあり、`cargo test -p listings` で実行します。",
    left_out_loom: "このファイルのテストと、loom のモデル、loom を使うときだけの `use` です。\
                    上のプログラムには入れていません。`listings` クレートの中にあり、\
                    テストは `cargo test -p listings`、loom のモデルは \
                    `RUSTFLAGS=\"--cfg loom\" cargo test -p listings --release --lib loom` \
                    で実行します。",
    book_title: "手を動かして学ぶ Rust async",
    print_edition: "日本語版を印刷する",
};

const ZH: Words = Words {
    source: "源文件：",
    separator: "、",
    term: "术语",
    english: "英文",
    meaning: "含义",
    first_used: "首次出现",
    not_yet: "（后续章节）",
    colon: "：",
    parens: ("（", "）"),
    symptom: "表现",
    fix: "修正",
    section: "正文：",
    shows_bug: "重现错误的测试：",
    checks_fix: "验证修正的测试：",
    run_with: "运行：",
    compile_error: "检查编译错误的程序：",
    left_out_tests: "以下是这个文件的测试，上面的程序没有包含它们。它们留在 `listings` crate 中，\
                     用 `cargo test -p listings` 运行。",
    left_out_loom: "以下是这个文件的测试、loom 模型和只在使用 loom 时才生效的 `use`，\
                    上面的程序没有包含它们。它们留在 `listings` crate 中：测试用 \
                    `cargo test -p listings` 运行，loom 模型用 \
                    `RUSTFLAGS=\"--cfg loom\" cargo test -p listings --release --lib loom` 运行。",
    book_title: "动手实现 Rust 异步",
    print_edition: "打印中文版",
};

/// The anchor of a listing file's section in the listings appendix:
/// `listings/src/pitfalls/split_lock_timer.rs` → `listing-src-pitfalls-split-lock-timer-rs`.
pub fn listing_anchor(path: &str) -> String {
    let rest = path.strip_prefix("listings/").unwrap_or(path);
    let slug: String = rest
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("listing-{slug}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_belong_to_their_edition() {
        assert_eq!(
            Edition::of_path("ja/ch01-future-trait.md"),
            Some(Edition::Ja)
        );
        assert_eq!(
            Edition::of_path("zh/appendix-glossary.md"),
            Some(Edition::Zh)
        );
        assert_eq!(Edition::of_path("index.md"), None);
        assert_eq!(Edition::of_path("jan/x.md"), None);
    }

    #[test]
    fn listing_anchors_are_made_of_the_path() {
        assert_eq!(
            listing_anchor("listings/src/pitfalls/split_lock_timer.rs"),
            "listing-src-pitfalls-split-lock-timer-rs"
        );
        assert_eq!(
            listing_anchor("listings/compile_fail/pin_forbids_swap.rs"),
            "listing-compile-fail-pin-forbids-swap-rs"
        );
    }
}
