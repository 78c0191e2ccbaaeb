//! A chart drawn as SVG, in one edition's language.
//!
//! Written by hand rather than with `plotters`' SVG backend, which cannot
//! give this chart: its `<svg>` root takes only a size (no `xml:lang` or
//! `lang`, which tell a reader's fonts which glyphs the CJK text needs, and
//! no `<title>`); without a font back end it measures text by its UTF-8
//! bytes (a CJK character counts three), and with one (`ttf`, `ab_glyph`)
//! it needs font files, so the output would depend on the fonts of the
//! machine that draws it and could not be compared byte for byte; and its
//! mesh picks its own ticks and labels, where the book's axis
//! ([`Axis`]) is its own. What is left is a few
//! `<text>`, `<rect>`, `<line>` and `<path>` elements, written out below.

use crate::axis::{Axis, PLOT_START};
use crate::charts::{Chart, Colours, Row};
use crate::labels::{Labels, Lang};
use bench_results::{Result, Results, value_parts};
use std::fmt::Write as _;

// The drawing, in SVG user units (pixels at 100%).
/// The chart's width.
pub const WIDTH: f64 = 720.0;
/// Left and right of the title and the headings.
pub(crate) const MARGIN: f64 = 16.0;
/// Implementation labels end here (right-aligned), just before the axis.
pub(crate) const LABEL_END: f64 = PLOT_START - 8.0;
/// The first row starts below the title and the legend, or below the
/// title alone.
pub(crate) const TOP: f64 = 64.0;
pub(crate) const TOP_WITHOUT_LEGEND: f64 = 44.0;
const ROW: f64 = 24.0;
const BAR: f64 = 16.0;
const HEADING: f64 = 24.0;
/// The font sizes of the title and of everything else.
pub const TITLE_SIZE: f64 = 15.0;
/// The size of every text but the title.
pub const TEXT_SIZE: f64 = 12.0;
/// Okabe–Ito vermilion and blue: told apart with every common colour
/// vision deficiency, and dark enough against white.
pub const BOOK_COLOUR: &str = "#d55e00";
/// The libraries' colour.
pub const LIBRARY_COLOUR: &str = "#0072b2";
/// A grey for bars that are neither the book's nor a library's.
pub const NEUTRAL_COLOUR: &str = "#6e7781";
pub(crate) const TEXT: &str = "#1f2328";
pub(crate) const MUTED: &str = "#57606a";
pub(crate) const GRID: &str = "#d8dee4";

/// A coordinate with at most one decimal, without a trailing `.0`, so the
/// same chart is always the same text.
pub fn coordinate(x: f64) -> String {
    let text = format!("{x:.1}");
    match text.strip_suffix(".0") {
        Some(whole) => whole.to_string(),
        None => text,
    }
}

/// A generous guess of how wide `text` is drawn at font size `size`: a
/// wide (CJK, full-width) character one em, any other 0.6 em. An SVG's
/// text is measured only by the reader's fonts; this places the legend and
/// lets a test check that titles fit.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|c| if is_wide(c) { 1.0 } else { 0.6 })
        .sum::<f64>()
        * size
}

/// Whether `c` is drawn one em wide: CJK ideographs, kana, Hangul, and
/// full-width forms and punctuation.
fn is_wide(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{115f}'
        | '\u{2e80}'..='\u{a4cf}'
        | '\u{ac00}'..='\u{d7a3}'
        | '\u{f900}'..='\u{faff}'
        | '\u{fe30}'..='\u{fe4f}'
        | '\u{ff00}'..='\u{ff60}'
        | '\u{ffe0}'..='\u{ffe6}')
}

/// An error bar from `from` to `to` at height `y`: a line with a short
/// upright at each end, one `<path>` element.
pub(crate) fn error_bar(from: f64, to: f64, y: f64) -> String {
    let (a, b) = (coordinate(from), coordinate(to));
    let (top, bottom) = (coordinate(y - 4.0), coordinate(y + 4.0));
    format!(
        r#"<path d="M{a} {top}V{bottom}M{a} {y}H{b}M{b} {top}V{bottom}" stroke="{TEXT}" stroke-width="1.5" fill="none"/>"#,
        y = coordinate(y)
    )
}

/// Text for an SVG element or attribute.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// `template` with each `{key}` replaced by its value.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_string(), |text, (key, value)| {
            text.replace(&format!("{{{key}}}"), value)
        })
}

/// The texts a chart shows in one edition.
#[derive(Debug, PartialEq)]
pub struct Words {
    /// The title, also the SVG's `<title>`.
    pub title: String,
    /// Under the axis: what it shows, its unit, which way is better.
    pub axis: String,
}

/// The title and axis label of `chart` in `lang`, on `axis`.
pub fn words(chart: &Chart, axis: &Axis, labels: &Labels, lang: Lang) -> Result<Words> {
    words_of(chart.name, chart.higher_is_better, axis, labels, lang)
}

/// The title and axis label of the chart `name` (its texts in the labels'
/// `[chart.<name>]`), read as `higher_is_better` says, on `axis`.
pub fn words_of(
    name: &str,
    higher_is_better: bool,
    axis: &Axis,
    labels: &Labels,
    lang: Lang,
) -> Result<Words> {
    let own = labels.chart(name)?;
    let unit = match axis {
        Axis::Linear { symbol, .. } => labels.unit(symbol, lang)?,
        Axis::Log { .. } => labels.text.log_scale.get(lang),
    };
    let better = if higher_is_better {
        &labels.text.higher_is_better
    } else {
        &labels.text.lower_is_better
    };
    Ok(Words {
        title: own.title.get(lang).to_string(),
        axis: fill(
            labels.format.axis.get(lang),
            &[
                ("quantity", own.quantity.get(lang)),
                ("unit", unit),
                ("better", better.get(lang)),
            ],
        ),
    })
}

/// `chart`'s SVG in `lang`, or `None` if the results have none of its
/// measures: title, legend (the book's code, the libraries, unless the bars
/// are neutral; the error bars, if any), a light grid with its values under
/// it, the axis at its start, one bar per row with its label on its left,
/// its 95 % confidence interval as an error bar if it has one, and the
/// value with its unit past both, and under the axis what it shows.
pub fn render(
    chart: &Chart,
    results: &Results,
    labels: &Labels,
    lang: Lang,
) -> Result<Option<String>> {
    let rows = chart.rows(results)?;
    if rows.is_empty() {
        return Ok(None);
    }
    let bars: Vec<(f64, Option<(f64, f64)>)> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Bar {
                value, interval, ..
            } => Some((*value, *interval)),
            Row::Heading(_) => None,
        })
        .collect();
    let has_intervals = bars.iter().any(|(_, interval)| interval.is_some());
    // The axis reaches past every error bar too. Only the upper bounds:
    // a lower one far below its bar is clipped at the axis' start.
    let values: Vec<f64> = bars
        .iter()
        .flat_map(|&(value, interval)| std::iter::once(value).chain(interval.map(|(_, up)| up)))
        .collect();
    let axis = Axis::of(&values, chart.unit);
    let words = words(chart, &axis, labels, lang)?;
    let number = |n: &str| labels.number(n, lang);
    let value_text = |value: f64| -> Result<String> {
        let (n, symbol) = value_parts(value, chart.unit);
        Ok(match symbol {
            Some(symbol) => format!("{} {}", number(&n), labels.unit(symbol, lang)?),
            None => number(&n),
        })
    };
    let legend = chart.colours == Colours::BookAndLibrary || has_intervals;
    let top = if legend { TOP } else { TOP_WITHOUT_LEGEND };

    let mut body = String::new();
    let mut y = top;
    for row in &rows {
        match row {
            Row::Heading(connections) => {
                let heading = fill(
                    labels.text.connections.get(lang),
                    &[("n", &number(&connections.to_string()))],
                );
                writeln!(
                    body,
                    r#"<text x="{}" y="{}" font-weight="bold">{}</text>"#,
                    coordinate(MARGIN),
                    coordinate(y + 16.0),
                    escape(&heading)
                )?;
                y += HEADING;
            }
            Row::Bar {
                label,
                value,
                interval,
            } => {
                let colour = match chart.colours {
                    Colours::Neutral => NEUTRAL_COLOUR,
                    Colours::BookAndLibrary if label.starts_with("book-") => BOOK_COLOUR,
                    Colours::BookAndLibrary => LIBRARY_COLOUR,
                };
                let bar_y = y + (ROW - BAR) / 2.0;
                let baseline = coordinate(bar_y + 12.5);
                // A bar too short to see is still drawn, one unit wide.
                let end = axis.x(*value).max(PLOT_START + 1.0);
                writeln!(
                    body,
                    r#"<text x="{}" y="{baseline}" text-anchor="end">{}</text>"#,
                    coordinate(LABEL_END),
                    escape(label)
                )?;
                writeln!(
                    body,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{colour}"/>"#,
                    coordinate(PLOT_START),
                    coordinate(bar_y),
                    coordinate(end - PLOT_START),
                    coordinate(BAR)
                )?;
                let mut text_x = end;
                if let Some((lower, upper)) = *interval {
                    let (from, to) = (axis.x(lower), axis.x(upper));
                    writeln!(body, "{}", error_bar(from, to, bar_y + BAR / 2.0))?;
                    text_x = text_x.max(to);
                }
                writeln!(
                    body,
                    r#"<text x="{}" y="{baseline}">{}</text>"#,
                    coordinate(text_x + 6.0),
                    escape(&value_text(*value)?)
                )?;
                y += ROW;
            }
        }
    }
    let plot_bottom = y + 4.0;
    let height = plot_bottom + 44.0;

    let mut grid = String::new();
    let mut ticks = String::new();
    for tick in axis.ticks(chart.unit) {
        let x = coordinate(tick.x);
        let text = match tick.symbol {
            Some(symbol) => format!("{} {}", number(&tick.number), labels.unit(symbol, lang)?),
            None => number(&tick.number),
        };
        writeln!(
            grid,
            r#"<line x1="{x}" y1="{}" x2="{x}" y2="{}"/>"#,
            coordinate(top - 4.0),
            coordinate(plot_bottom)
        )?;
        writeln!(
            ticks,
            r#"<text x="{x}" y="{}">{}</text>"#,
            coordinate(plot_bottom + 16.0),
            escape(&text)
        )?;
    }

    // The legend: each entry a 10-unit sign and its name, one after the
    // other. The error bars' sign is a small error bar.
    let mut head = String::new();
    let mut entries: Vec<(Option<&str>, &str)> = Vec::new();
    if chart.colours == Colours::BookAndLibrary {
        entries.push((Some(BOOK_COLOUR), labels.text.book.get(lang)));
        entries.push((Some(LIBRARY_COLOUR), labels.text.library.get(lang)));
    }
    if has_intervals {
        entries.push((None, labels.text.interval.get(lang)));
    }
    let mut x = MARGIN;
    for (colour, name) in entries {
        let sign = match colour {
            Some(colour) => format!(
                r#"<rect x="{}" y="37" width="10" height="10" fill="{colour}"/>"#,
                coordinate(x)
            ),
            None => error_bar(x, x + 10.0, 42.0),
        };
        writeln!(
            head,
            r#"{sign}
<text x="{}" y="46">{}</text>"#,
            coordinate(x + 14.0),
            escape(name)
        )?;
        x += 14.0 + text_width(name, TEXT_SIZE) + 16.0;
    }

    let (w, h) = (coordinate(WIDTH), coordinate(height));
    let title = escape(&words.title);
    let language = escape(labels.format.lang.get(lang));
    let font = escape(labels.format.font.get(lang));
    Ok(Some(format!(
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" xml:lang="{language}" lang="{language}" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{font}" font-size="{text_size}" fill="{TEXT}">
<title>{title}</title>
<rect width="{w}" height="{h}" fill="#ffffff"/>
<text x="{m}" y="24" font-size="{title_size}" font-weight="bold">{title}</text>
{head}<g stroke="{GRID}" stroke-width="1">
{grid}</g>
<g fill="{MUTED}" text-anchor="middle">
{ticks}</g>
<text x="{axis_x}" y="{axis_label_y}" fill="{MUTED}">{axis_label}</text>
{body}<line x1="{axis_x}" y1="{axis_top}" x2="{axis_x}" y2="{bottom}" stroke="{TEXT}" stroke-width="1"/>
</svg>
"##,
        m = coordinate(MARGIN),
        text_size = coordinate(TEXT_SIZE),
        title_size = coordinate(TITLE_SIZE),
        axis_x = coordinate(PLOT_START),
        axis_label_y = coordinate(plot_bottom + 34.0),
        axis_label = escape(&words.axis),
        axis_top = coordinate(top - 4.0),
        bottom = coordinate(plot_bottom),
    )))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::axis::PLOT_END;
    use crate::charts::CHARTS;
    use crate::test_support::{machine, measure, results, root};
    use bench_results::Unit;
    use bench_results::test_support::measure_ci;

    /// The well-formedness an SVG 1.1 reader needs: one root, every
    /// element closed in order, attributes quoted, no stray `&` or `<`.
    pub fn assert_well_formed(svg: &str) {
        let body = svg
            .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .expect("an XML declaration");
        let mut open: Vec<&str> = Vec::new();
        let mut roots = 0;
        let mut rest = body;
        while let Some(start) = rest.find('<') {
            let text = &rest[..start];
            assert!(!text.contains('>'), "stray > in {text:?}");
            for (i, _) in text.match_indices('&') {
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;"]
                        .iter()
                        .any(|e| text[i..].starts_with(e)),
                    "stray & in {text:?}"
                );
            }
            let end = start + rest[start..].find('>').expect("a closed tag");
            let tag = &rest[start + 1..end];
            assert!(!tag.contains('<'), "< inside {tag:?}");
            assert_eq!(
                tag.matches('"').count() % 2,
                0,
                "unbalanced quotes in {tag:?}"
            );
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(open.pop(), Some(name), "closing {name}");
            } else {
                let name = tag.split([' ', '/']).next().unwrap();
                if open.is_empty() {
                    roots += 1;
                }
                if !tag.ends_with('/') {
                    open.push(name);
                }
            }
            rest = &rest[end + 1..];
        }
        assert!(open.is_empty(), "unclosed {open:?}");
        assert_eq!(roots, 1);
        assert!(rest.trim().is_empty());
    }

    /// The texts of a chart, in order.
    fn texts(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.starts_with("<text"))
            .map(|l| l.rsplit_once("\">").unwrap().1.trim_end_matches("</text>"))
            .collect()
    }

    /// The bar labels (right-aligned) of a chart, in order.
    fn labels_of(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.contains(r#"text-anchor="end""#))
            .map(|l| l.rsplit_once("\">").unwrap().1.trim_end_matches("</text>"))
            .collect()
    }

    /// The bars' fills, in order.
    fn fills(svg: &str) -> Vec<&str> {
        svg.lines()
            .filter(|l| l.starts_with("<rect x=\"180\""))
            .map(|l| l.split("fill=\"").nth(1).unwrap().trim_end_matches("\"/>"))
            .collect()
    }

    fn chart(name: &str) -> &'static Chart {
        CHARTS.iter().find(|c| c.name == name).unwrap()
    }

    fn draw(name: &str, results: &Results, lang: Lang) -> String {
        let labels = Labels::load(&root()).unwrap();
        let svg = render(chart(name), results, &labels, lang)
            .unwrap()
            .unwrap();
        assert_well_formed(&svg);
        svg
    }

    #[test]
    fn a_chart_is_drawn_in_its_editions_language_and_fonts() {
        let ja = draw("block_on-once", &results(), Lang::Ja);
        assert!(ja.contains(r#" xml:lang="ja" lang="ja" "#), "{ja}");
        assert!(ja.contains(r#"font-family="'Noto Sans CJK JP', "#), "{ja}");
        assert!(
            ja.contains("<title>block_on：ポーリングの中で一度自分を起こすフューチャー</title>")
        );
        let texts_ja = texts(&ja);
        for text in [
            "本書のコード",
            "クレート",
            "1回あたりの時間（ns）、小さいほど良い",
        ] {
            assert!(texts_ja.contains(&text), "{text} in {texts_ja:?}");
        }
        let zh = draw("block_on-once", &results(), Lang::Zh);
        assert!(zh.contains(r#" xml:lang="zh-CN" lang="zh-CN" "#), "{zh}");
        assert!(zh.contains(r#"font-family="'Noto Sans CJK SC', "#), "{zh}");
        let texts_zh = texts(&zh);
        for text in ["本书的代码", "库", "每次调用的耗时（ns），越小越好"] {
            assert!(texts_zh.contains(&text), "{text} in {texts_zh:?}");
        }
        // The library swatch follows the book's legend text, however long.
        assert!(ja.contains(r#"<rect x="118" y="37""#), "{ja}");
        assert!(zh.contains(r#"<rect x="106" y="37""#), "{zh}");
        // The same numbers, bars and order in both.
        assert_eq!(fills(&ja), fills(&zh));
        assert_eq!(labels_of(&ja), labels_of(&zh));
        assert_eq!(
            draw("block_on-once", &results(), Lang::Ja),
            ja,
            "deterministic"
        );
    }

    #[test]
    fn a_chart_draws_the_implementations_it_has_in_the_books_order() {
        let svg = draw("block_on-once", &results(), Lang::Ja);
        assert!(svg.contains(r#"viewBox="0 0 720 "#), "{svg}");
        assert_eq!(
            labels_of(&svg),
            ["book-ch06", "book-ch10", "pollster", "futures"]
        );
        for value in ["61.3 ns", "12.5 ns", "18.0 ns", "25.0 ns"] {
            assert!(svg.contains(&format!(">{value}</text>")), "{value}");
        }
        assert_eq!(
            fills(&svg),
            [BOOK_COLOUR, BOOK_COLOUR, LIBRARY_COLOUR, LIBRARY_COLOUR]
        );
        // The grid: 0 to 80 in steps of 20, past the longest bar (61.27).
        for tick in ["0", "20", "40", "60", "80"] {
            assert!(svg.contains(&format!(">{tick}</text>")), "{tick}");
        }
        assert!(!svg.contains(">100</text>"));
        // Four rows: the height follows the bars.
        assert!(svg.contains(r#"height="208""#), "{svg}");
    }

    #[test]
    fn numbers_are_grouped_as_the_editions_prose_groups_them() {
        let svg = draw("echo-throughput", &results(), Lang::Zh);
        let shown = texts(&svg);
        for text in [
            "1,230 MiB/s",
            "1,100 MiB/s",
            "95.5 MiB/s",
            "1,500",
            "1 个连接",
            "100 个连接",
        ] {
            assert!(shown.contains(&text), "{text} in {shown:?}");
        }
        let svg = draw("echo-throughput", &results(), Lang::Ja);
        let shown = texts(&svg);
        for text in [
            "1,230 MiB/s",
            "接続1個",
            "接続100個",
            "スループット（MiB/s）、大きいほど良い",
        ] {
            assert!(shown.contains(&text), "{text} in {shown:?}");
        }
        // A linear axis in ms: its unit is under it, its ticks plain.
        let svg = draw("timers-p99", &results(), Lang::Ja);
        let shown = texts(&svg);
        for text in [
            "0.0",
            "2.5",
            "2.45 ms",
            "1.10 ms",
            "遅れの99パーセンタイル（ms）、小さいほど良い",
        ] {
            assert!(shown.contains(&text), "{text} in {shown:?}");
        }
        let width = 0.98 * (PLOT_END - PLOT_START);
        assert!(
            svg.contains(&format!(r#"width="{}""#, coordinate(width))),
            "{svg}"
        );
    }

    #[test]
    fn bars_far_apart_are_drawn_on_a_log_axis_whose_ticks_say_their_unit() {
        use Unit::*;
        let spread = Results::new(
            machine(),
            vec![
                measure("block_on/thread/book-ch06", 59_800.0, Nanoseconds),
                measure("block_on/thread/book-ch10", 45_000.0, Nanoseconds),
                measure("block_on/thread/pollster", 850.0, Nanoseconds),
            ],
        )
        .unwrap();
        let svg = draw("block_on-thread", &spread, Lang::Zh);
        let shown = texts(&svg);
        for text in [
            "100 ns",
            "1 µs",
            "10 µs",
            "100 µs",
            "59.8 µs",
            "850 ns",
            "每次调用的耗时（对数刻度），越小越好",
        ] {
            assert!(shown.contains(&text), "{text} in {shown:?}");
        }
    }

    #[test]
    fn the_parts_chart_has_one_neutral_colour_and_no_legend() {
        use Unit::*;
        let parts = Results::new(
            machine(),
            vec![
                measure("parts/op/mutex", 20.0, Nanoseconds),
                measure("parts/op/condvar-notify", 30.0, Nanoseconds),
                measure("parts/op/clock", 25.0, Nanoseconds),
            ],
        )
        .unwrap();
        let svg = draw("parts", &parts, Lang::Ja);
        // In the order of PARTS, not alphabetical.
        assert_eq!(labels_of(&svg), ["condvar-notify", "mutex", "clock"]);
        assert_eq!(fills(&svg), [NEUTRAL_COLOUR; 3]);
        assert!(!svg.contains(">本書のコード</text>"));
        // Without the legend the rows start higher.
        assert!(svg.contains(r#"height="164""#), "{svg}");
    }

    #[test]
    fn each_criterion_value_has_an_error_bar_and_the_legend_names_them() {
        let ja = draw("block_on-once", &results(), Lang::Ja);
        // Four bars with an interval each: four error bars, and the
        // legend's sign.
        assert_eq!(ja.matches("<path ").count(), 4 + 1, "{ja}");
        // book-ch10's 12.31–12.72 ns across the middle of its bar (the
        // axis runs 0 to 80 ns over 430 units), its value past both.
        assert!(
            ja.contains(r#"<path d="M246.2 96V104M246.2 100H248.4M248.4 96V104" "#),
            "{ja}"
        );
        assert!(
            ja.contains(r#"<text x="254.4" y="104.5">12.5 ns</text>"#),
            "{ja}"
        );
        // The legend's third entry, after the libraries' ("クレート").
        assert!(
            ja.contains(r#"<path d="M196 38V46M196 42H206M206 38V46" "#),
            "{ja}"
        );
        assert!(texts(&ja).contains(&"95 %信頼区間"), "{ja}");
        let zh = draw("block_on-once", &results(), Lang::Zh);
        assert_eq!(zh.matches("<path ").count(), 4 + 1);
        assert!(texts(&zh).contains(&"95% 置信区间"), "{zh}");
        // Hand-measured values have no interval: no error bar, no entry.
        let timers = draw("timers-p99", &results(), Lang::Ja);
        assert_eq!(timers.matches("<path ").count(), 0);
        assert!(!texts(&timers).contains(&"95 %信頼区間"));
        // A neutral chart with intervals has a legend of that entry alone.
        let parts = Results::new(
            machine(),
            vec![
                measure_ci("parts/op/mutex", [19.0, 20.0, 22.0], Unit::Nanoseconds),
                measure_ci("parts/op/clock", [24.0, 25.0, 25.5], Unit::Nanoseconds),
            ],
        )
        .unwrap();
        let svg = draw("parts", &parts, Lang::Zh);
        assert_eq!(svg.matches("<path ").count(), 2 + 1);
        assert!(svg.contains(r#"<path d="M16 38V46M16 42H26M26 38V46" "#));
        assert!(!texts(&svg).contains(&"本书的代码"));
        // With the legend the rows start lower: two rows, 20 more than
        // without (164 for three rows, 140 for two).
        assert!(svg.contains(r#"height="160""#), "{svg}");
    }

    #[test]
    fn every_title_and_axis_label_fits_in_the_chart() {
        let labels = Labels::load(&root()).unwrap();
        let log = Axis::Log { low: 0, high: 1 };
        for chart in &CHARTS {
            for lang in Lang::ALL {
                let linear = Axis::of(&[1.0], chart.unit);
                for axis in [&linear, &log] {
                    let words = words(chart, axis, &labels, lang).unwrap();
                    let title = text_width(&words.title, TITLE_SIZE);
                    assert!(
                        title <= WIDTH - 2.0 * MARGIN,
                        "{} ({lang:?}): the title `{}` is {title} wide",
                        chart.name,
                        words.title
                    );
                    let axis_label = text_width(&words.axis, TEXT_SIZE);
                    assert!(
                        axis_label <= WIDTH - MARGIN - PLOT_START,
                        "{} ({lang:?}): the axis label `{}` is {axis_label} wide",
                        chart.name,
                        words.axis
                    );
                }
            }
        }
        assert_eq!(text_width("ab", 10.0), 12.0);
        assert_eq!(text_width("本书，", 10.0), 30.0);
    }

    #[test]
    fn text_is_escaped_and_templates_filled() {
        assert_eq!(escape(r#"a<b & "c">"#), "a&lt;b &amp; &quot;c&quot;&gt;");
        assert_eq!(fill("{n} 个连接", &[("n", "1,000")]), "1,000 个连接");
    }
}
