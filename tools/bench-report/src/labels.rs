//! The charts' texts in each edition's language, read from
//! [`LABELS`]: titles, axis labels, legend, units, and how the edition
//! writes a number. The numbers themselves come from the one results file;
//! only the words differ between the editions.

use bench_results::{Result, group_thousands};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The labels file, from the repository root.
pub const LABELS: &str = "data/bench/labels.toml";

/// An edition of the book, as its charts' folder (`src/charts/ja/`) and
/// the chapters' links (`../charts/ja/spawn.svg`) name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lang {
    /// The Japanese edition.
    Ja,
    /// The Simplified Chinese edition.
    Zh,
}

impl Lang {
    /// Every edition, in the order the book lists them.
    pub const ALL: [Lang; 2] = [Lang::Ja, Lang::Zh];

    /// The edition's folder under `src/` and `src/charts/`.
    pub fn dir(self) -> &'static str {
        match self {
            Lang::Ja => "ja",
            Lang::Zh => "zh",
        }
    }
}

/// One text in both editions. Both fields are required, so a text that
/// one edition lacks fails to read, naming the key.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    /// Japanese.
    pub ja: String,
    /// Simplified Chinese.
    pub zh: String,
}

impl Text {
    /// The text in `lang`.
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Ja => &self.ja,
            Lang::Zh => &self.zh,
        }
    }
}

/// The contents of [`LABELS`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Labels {
    /// How each edition writes a chart.
    pub format: Format,
    /// The texts every chart may use.
    pub text: Common,
    /// The unit symbols, by the symbol the results use.
    pub unit: BTreeMap<String, Text>,
    /// The texts of chapter 11's steps charts
    /// ([`steps`](crate::steps)).
    pub steps: StepsText,
    /// Each chart's own texts, by chart name.
    pub chart: BTreeMap<String, ChartText>,
}

/// How an edition writes a chart.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Format {
    /// The SVG root's `xml:lang` and `lang`: the language the text is in,
    /// which picks the glyphs a reader's fonts show for it.
    pub lang: Text,
    /// The `font-family` list: fonts that have the edition's glyphs first.
    pub font: Text,
    /// What separates the thousands of a number (`100,000`).
    pub thousands: Text,
    /// The axis label: `{quantity}`, `{unit}` and `{better}` in the
    /// edition's punctuation.
    pub axis: Text,
}

/// The texts every chart may use.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Common {
    /// The legend's name for the book's code.
    pub book: Text,
    /// The legend's name for the libraries.
    pub library: Text,
    /// The legend's name for the error bars: criterion's 95 % confidence
    /// interval of each value.
    pub interval: Text,
    /// In place of the unit on a log axis, whose ticks each say theirs.
    pub log_scale: Text,
    /// Which way a chart is read, when smaller is better.
    pub lower_is_better: Text,
    /// The same, when larger is better.
    pub higher_is_better: Text,
    /// A cluster's heading: `{n}` connections.
    pub connections: Text,
}

/// The texts of chapter 11's steps charts: the name of each bar, what
/// each step's change and the reference line say, and the legend.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepsText {
    /// The first bar: the runtime the steps start from, chapter
    /// `{chapter}`'s (10; 9 in the timers group).
    pub start: Text,
    /// The first step's bar: tasks in one allocation.
    pub tasks: Text,
    /// The second step's: wakes on the runtime's thread to a local queue.
    pub local_queue: Text,
    /// The third step's, the last bar: no timer work while no timer waits.
    pub timers: Text,
    /// What a step changed: `{delta}` (signed, with its unit) and
    /// `{percent}` (signed, of the value before the step).
    pub change: Text,
    /// The reference line: `{name}`, the best library's, and its `{value}`.
    pub reference: Text,
    /// The legend's name for a floating bar that is a decrease.
    pub decrease: Text,
    /// The same for an increase.
    pub increase: Text,
}

/// A chart's own texts.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChartText {
    /// The title: what is measured.
    pub title: Text,
    /// What the value axis shows, without its unit.
    pub quantity: Text,
}

impl Labels {
    /// Reads [`LABELS`] under the repository `root`.
    pub fn load(root: &Path) -> Result<Labels> {
        let text =
            std::fs::read_to_string(root.join(LABELS)).map_err(|e| format!("{LABELS}: {e}"))?;
        Labels::parse(&text).map_err(|e| format!("{LABELS}: {e}").into())
    }

    /// Parses the labels file's text.
    pub fn parse(text: &str) -> Result<Labels> {
        Ok(toml::from_str(text)?)
    }

    /// The texts of chart `name`.
    pub fn chart(&self, name: &str) -> Result<&ChartText> {
        self.chart
            .get(name)
            .ok_or_else(|| format!("{LABELS}: no [chart.{name}]").into())
    }

    /// How `lang` writes the unit `symbol`.
    pub fn unit(&self, symbol: &str, lang: Lang) -> Result<&str> {
        self.unit
            .get(symbol)
            .map(|text| text.get(lang))
            .ok_or_else(|| format!("{LABELS}: no unit \"{symbol}\"").into())
    }

    /// `number` (as [`bench_results::significant`] writes it: digits, an
    /// optional sign and decimals) with `lang`'s thousands separator
    /// between each three digits of its whole part, as the edition's prose
    /// writes numbers: `100,000`, `1,230`, `12.3`.
    pub fn number(&self, number: &str, lang: Lang) -> String {
        group_thousands(number, self.format.thousands.get(lang))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::root;

    #[test]
    fn numbers_take_the_editions_thousands_separator() {
        let labels = Labels::load(&root()).unwrap();
        for lang in Lang::ALL {
            let number = |n| labels.number(n, lang);
            assert_eq!(number("100000"), "100,000");
            assert_eq!(number("1230"), "1,230");
            assert_eq!(number("1000"), "1,000");
            assert_eq!(number("999"), "999");
            assert_eq!(number("12300.5"), "12,300.5");
            assert_eq!(number("0.0123"), "0.0123");
            assert_eq!(number("-1500"), "-1,500");
            assert_eq!(number("0"), "0");
        }
    }

    #[test]
    fn a_text_missing_in_one_edition_is_an_error_naming_it() {
        let text = std::fs::read_to_string(root().join(LABELS)).unwrap();
        let cut = text.replacen("log_scale.zh", "log_scale.en", 1);
        assert_ne!(cut, text, "the labels write `log_scale.zh`");
        let error = Labels::parse(&cut).unwrap_err().to_string();
        assert!(
            error.contains("unknown field `en`") || error.contains("missing field `zh`"),
            "{error}"
        );
        assert!(error.contains("log_scale"), "{error}");
    }
}
