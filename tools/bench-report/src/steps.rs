//! Chapter 11's steps charts: what each step of the chapter's rebuild of
//! the runtime bought, one chart per group, as a waterfall.
//!
//! Chapter 11 starts from chapter 10's runtime (`book-ch10`; in the timers
//! group, which does not measure it, chapter 9's, `book-ch09`, whose
//! timers chapter 10 kept) and takes
//! three steps, each on top of the ones before, each measured in the same
//! run: tasks in one allocation (`book-ch11-step1`), a local queue for
//! wakes on the runtime's thread (`book-ch11-step2`), and no timer work
//! while no timer waits (`book-ch11`, every step). A steps chart draws
//! those four in that order, top to bottom: the first and the last bar
//! whole, from 0, with their values; the two between float from the value
//! before their step to the value after it, with the change written past
//! them (`−312 ns（−45 %）`); the last bar's text adds its own step's
//! change after its value. Thin dashed lines carry each bar's end down to
//! the next bar, so the last step's change is the gap between that line
//! and the last bar's end. A dashed line marks the best library of the
//! group (the lowest value of the implementations that are not the
//! book's), labelled with its name and value. Criterion's values carry
//! their 95 % confidence interval as an error bar at the value, as in
//! the other charts.
//!
//! One chart per group rather than one with a panel per group: the groups
//! are in different units and sizes (ns per task, per hand-off, per round
//! of 100 wakes; ms of timers' overhead), so panels would share nothing
//! but the step names, and the chapter shows each group's chart beside
//! the paragraph about that group.
//!
//! A run made before chapter 11 (the committed one, until it is measured
//! again) has none of these implementations: a chart is drawn only when
//! the run has all four of its group ([`StepsChart::missing`]), and the
//! report says which are missing otherwise.

use crate::axis::{Axis, PLOT_START};
use crate::labels::{Labels, Lang};
use crate::svg::{
    BOOK_COLOUR, GRID, LABEL_END, LIBRARY_COLOUR, MARGIN, MUTED, TEXT, TEXT_SIZE, TITLE_SIZE, TOP,
    TOP_WITHOUT_LEGEND, WIDTH, coordinate, error_bar, escape, fill, text_width, words_of,
};
use bench_results::ids::{Impl, impl_ids};
use bench_results::{Result, Results, Unit, value_parts};
use std::fmt::Write as _;

/// The implementations a steps chart of an executor group draws, in its
/// order: the start, chapter 10's runtime, then each step.
pub const STEPS: [&str; 4] = impl_ids([
    Impl::BookCh10,
    Impl::BookCh11Step1,
    Impl::BookCh11Step2,
    Impl::BookCh11,
]);
/// The same for the timers group, which measures no `book-ch10`: its
/// start is chapter 9's runtime (`book-ch09`, `Runtime::new()`), whose
/// timers chapter 10 left as they were.
pub const TIMER_STEPS: [&str; 4] = impl_ids([
    Impl::BookCh09,
    Impl::BookCh11Step1,
    Impl::BookCh11Step2,
    Impl::BookCh11,
]);

/// A floating bar whose step lowered the value: Okabe–Ito bluish green.
pub const DECREASE_COLOUR: &str = "#009e73";
/// One whose step raised it: Okabe–Ito reddish purple.
pub const INCREASE_COLOUR: &str = "#cc79a7";

/// A row: a bar and the two lines of its name (the step, the
/// implementation).
const ROW: f64 = 40.0;
const BAR: f64 = 18.0;
/// The bar's top, from its row's.
const BAR_TOP: f64 = 11.0;
/// The reference line's label sits in a line of its own above the rows.
const REFERENCE_LINE: f64 = 20.0;
/// The size of an implementation's id under its step's name.
const ID_SIZE: f64 = 10.0;
/// The axis reaches this far past the largest value, so the change
/// written past the longest bar fits in the chart.
const HEADROOM: f64 = 1.3;
/// A white outline behind a text that a line may cross (the reference
/// line): the text stays legible over it.
const HALO: &str =
    r##" stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke""##;

/// A steps chart of one group, drawn into
/// `src/charts/<edition>/<name>.svg`.
#[derive(Debug)]
pub struct StepsChart {
    /// The file name, without `.svg`, and the key of its texts in
    /// `data/bench/labels.toml`: `steps-<group>`.
    pub name: &'static str,
    /// The group's measures, `<prefix><impl>`.
    pub prefix: &'static str,
    /// Their unit, as measured.
    pub unit: Unit,
    /// The bars, in order: the start, then each step.
    pub steps: [&'static str; 4],
    /// The chapter whose runtime the first bar is, for its name.
    pub start_chapter: u32,
}

/// Every steps chart: the groups in which chapter 11 measures its steps.
/// Smaller is better in each.
pub const STEPS_CHARTS: [StepsChart; 4] = [
    StepsChart {
        name: "steps-spawn",
        prefix: "spawn/100000/",
        unit: Unit::Nanoseconds,
        steps: STEPS,
        start_chapter: 10,
    },
    StepsChart {
        name: "steps-ping_pong",
        prefix: "ping_pong/10000/",
        unit: Unit::Nanoseconds,
        steps: STEPS,
        start_chapter: 10,
    },
    StepsChart {
        name: "steps-wake_many",
        prefix: "wake_many/100/",
        unit: Unit::Nanoseconds,
        steps: STEPS,
        start_chapter: 10,
    },
    StepsChart {
        name: "steps-timers-overhead",
        prefix: "timers/overhead/",
        unit: Unit::Milliseconds,
        steps: TIMER_STEPS,
        start_chapter: 9,
    },
];

/// One bar of a steps chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// One of [`StepsChart::steps`].
    pub implementation: &'static str,
    /// As measured.
    pub value: f64,
    /// Its 95 % confidence interval, for criterion's measures.
    pub interval: Option<(f64, f64)>,
}

/// The best library of a group: the reference line.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// Its implementation.
    pub name: String,
    /// Its value.
    pub value: f64,
}

/// What a steps chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Steps {
    /// One per [`StepsChart::steps`], in its order.
    pub steps: Vec<Step>,
    /// The lowest value of the group's other implementations that are not
    /// the book's (ties: the first by name), if it has any.
    pub reference: Option<Reference>,
}

impl StepsChart {
    /// The implementations of [`StepsChart::steps`] the results lack:
    /// the chart is drawn only when none is missing.
    pub fn missing(&self, results: &Results) -> Vec<&'static str> {
        self.steps
            .iter()
            .copied()
            .filter(|i| results.get(&format!("{}{i}", self.prefix)).is_none())
            .collect()
    }

    /// The bars and the reference line, or `None` if an implementation of
    /// [`StepsChart::steps`] is missing. A measure of the group in another unit than
    /// the chart's is an error.
    pub fn steps(&self, results: &Results) -> Result<Option<Steps>> {
        let mut steps = Vec::new();
        let mut reference: Option<Reference> = None;
        for measure in &results.measure {
            let Some(implementation) = measure
                .id
                .strip_prefix(self.prefix)
                .filter(|rest| !rest.contains('/'))
            else {
                continue;
            };
            let is_step = self.steps.contains(&implementation);
            if !is_step && implementation.starts_with("book-") {
                continue;
            }
            if measure.unit != self.unit {
                return Err(format!(
                    "chart {}: `{}` is in {}, the chart in {}",
                    self.name,
                    measure.id,
                    measure.unit.symbol(),
                    self.unit.symbol()
                )
                .into());
            }
            if is_step {
                continue;
            }
            // Measures are sorted by id: a tie keeps the first name.
            if reference.as_ref().is_none_or(|r| measure.value < r.value) {
                reference = Some(Reference {
                    name: implementation.to_string(),
                    value: measure.value,
                });
            }
        }
        for implementation in self.steps {
            let Some(measure) = results.get(&format!("{}{implementation}", self.prefix)) else {
                return Ok(None);
            };
            steps.push(Step {
                implementation,
                value: measure.value,
                interval: measure.interval(),
            });
        }
        Ok(Some(Steps { steps, reference }))
    }
}

/// The name of each bar of `chart` in `lang`, in order.
fn step_names(chart: &StepsChart, labels: &Labels, lang: Lang) -> [String; 4] {
    let s = &labels.steps;
    let chapter = chart.start_chapter.to_string();
    [
        fill(s.start.get(lang), &[("chapter", &chapter)]),
        s.tasks.get(lang).to_string(),
        s.local_queue.get(lang).to_string(),
        s.timers.get(lang).to_string(),
    ]
}

/// The change from `before` to `after`, in `unit`, as `lang` writes it:
/// `−312 ns（−45 %）`. The difference has three significant digits in the
/// unit it reads best in; the percentage (of `before`) none below 10, two
/// significant digits below. A true minus sign, and `+` for a rise.
pub fn change_text(
    before: f64,
    after: f64,
    unit: Unit,
    labels: &Labels,
    lang: Lang,
) -> Result<String> {
    let delta = after - before;
    let sign = if delta < 0.0 { "\u{2212}" } else { "+" };
    let (number, symbol) = value_parts(delta.abs(), unit);
    let number = labels.number(&number, lang);
    let delta_text = match symbol {
        Some(symbol) => format!("{sign}{number} {}", labels.unit(symbol, lang)?),
        None => format!("{sign}{number}"),
    };
    let percent = if before == 0.0 {
        0.0
    } else {
        (delta / before * 100.0).abs()
    };
    let percent_text = if percent >= 10.0 {
        format!("{percent:.0}")
    } else {
        bench_results::significant(percent, 2)
    };
    Ok(fill(
        labels.steps.change.get(lang),
        &[
            ("delta", &delta_text),
            (
                "percent",
                &format!("{sign}{}", labels.number(&percent_text, lang)),
            ),
        ],
    ))
}

/// `chart`'s SVG in `lang`, or `None` if the results lack one of its
/// [`steps`](StepsChart::steps). Title, legend (the floating bars' colours,
/// the error bars if any), the reference line's label above the rows, a
/// light grid with its values under it, one row per step with its name
/// and implementation on the left, and under the axis what it shows.
pub fn render(
    chart: &StepsChart,
    results: &Results,
    labels: &Labels,
    lang: Lang,
) -> Result<Option<String>> {
    let Some(Steps { steps, reference }) = chart.steps(results)? else {
        return Ok(None);
    };
    let unit = chart.unit;
    let max = steps
        .iter()
        .flat_map(|s| std::iter::once(s.value).chain(s.interval.map(|(_, up)| up)))
        .chain(reference.as_ref().map(|r| r.value))
        .fold(0.0, f64::max);
    // Linear from 0 always: a waterfall's bars are differences, which a
    // log axis would not show as lengths.
    let axis = Axis::of(&[max * HEADROOM], unit);
    let words = words_of(chart.name, false, &axis, labels, lang)?;
    let number = |n: &str| labels.number(n, lang);
    let value_text = |value: f64| -> Result<String> {
        let (n, symbol) = value_parts(value, unit);
        Ok(match symbol {
            Some(symbol) => format!("{} {}", number(&n), labels.unit(symbol, lang)?),
            None => number(&n),
        })
    };
    let has_intervals = steps.iter().any(|s| s.interval.is_some());
    let floating = &steps[1..steps.len() - 1];
    let falls = |pair: &[Step]| pair[1].value < pair[0].value;
    let any_decrease = steps[..steps.len() - 1].windows(2).any(falls);
    let any_increase = steps[..steps.len() - 1].windows(2).any(|p| !falls(p));
    debug_assert_eq!(floating.len(), 2);

    // The legend: the floating bars' colours, the error bars.
    let mut entries: Vec<(Option<&str>, &str)> = Vec::new();
    if any_decrease {
        entries.push((Some(DECREASE_COLOUR), labels.steps.decrease.get(lang)));
    }
    if any_increase {
        entries.push((Some(INCREASE_COLOUR), labels.steps.increase.get(lang)));
    }
    if has_intervals {
        entries.push((None, labels.text.interval.get(lang)));
    }
    let mut head = String::new();
    let mut x = MARGIN;
    for (colour, name) in &entries {
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
    let top = if entries.is_empty() {
        TOP_WITHOUT_LEGEND
    } else {
        TOP
    };
    let rows_top = if reference.is_some() {
        top + REFERENCE_LINE
    } else {
        top
    };

    let names = step_names(chart, labels, lang);
    let mut body = String::new();
    let mut y = rows_top;
    let last = steps.len() - 1;
    for (i, step) in steps.iter().enumerate() {
        let bar_y = y + BAR_TOP;
        let middle = bar_y + BAR / 2.0;
        let baseline = coordinate(middle + 4.5);
        writeln!(
            body,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            coordinate(LABEL_END),
            coordinate(y + 16.0),
            escape(&names[i])
        )?;
        writeln!(
            body,
            r#"<text x="{}" y="{}" text-anchor="end" font-size="{}" fill="{MUTED}">{}</text>"#,
            coordinate(LABEL_END),
            coordinate(y + 30.0),
            coordinate(ID_SIZE),
            escape(step.implementation)
        )?;
        let whole = i == 0 || i == last;
        let (from, to, colour) = if whole {
            (PLOT_START, axis.x(step.value), BOOK_COLOUR)
        } else {
            let before = axis.x(steps[i - 1].value);
            let after = axis.x(step.value);
            let colour = if step.value < steps[i - 1].value {
                DECREASE_COLOUR
            } else {
                INCREASE_COLOUR
            };
            (before.min(after), before.max(after), colour)
        };
        // A bar too short to see is still drawn, one unit wide.
        let to = to.max(from + 1.0);
        writeln!(
            body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{colour}"/>"#,
            coordinate(from),
            coordinate(bar_y),
            coordinate(to - from),
            coordinate(BAR)
        )?;
        // The last bar is whole, but its own step's part of it is marked:
        // from the value before the step to its own, in the step's colour,
        // faint and outlined (over the bar's end if the step added).
        if i == last {
            let before = axis.x(steps[i - 1].value);
            let after = axis.x(step.value);
            let colour = if step.value < steps[i - 1].value {
                DECREASE_COLOUR
            } else {
                INCREASE_COLOUR
            };
            writeln!(
                body,
                r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{colour}" fill-opacity="0.3" stroke="{colour}" stroke-width="1"/>"#,
                coordinate(before.min(after)),
                coordinate(bar_y + 0.5),
                coordinate((after - before).abs()),
                coordinate(BAR - 1.0)
            )?;
        }
        let mut text_x = to.max(if i == last {
            axis.x(steps[i - 1].value)
        } else {
            to
        });
        if let Some((lower, upper)) = step.interval {
            let (low, up) = (axis.x(lower), axis.x(upper));
            writeln!(body, "{}", error_bar(low, up, middle))?;
            text_x = text_x.max(up);
        }
        let text_x = coordinate(text_x + 6.0);
        if i == 0 {
            writeln!(
                body,
                r#"<text x="{text_x}" y="{baseline}"{HALO}>{}</text>"#,
                escape(&value_text(step.value)?)
            )?;
        } else {
            let change = change_text(steps[i - 1].value, step.value, unit, labels, lang)?;
            if whole {
                writeln!(
                    body,
                    r#"<text x="{text_x}" y="{baseline}"{HALO}>{}<tspan dx="8" fill="{MUTED}">{}</tspan></text>"#,
                    escape(&value_text(step.value)?),
                    escape(&change)
                )?;
            } else {
                writeln!(
                    body,
                    r#"<text x="{text_x}" y="{baseline}"{HALO}>{}</text>"#,
                    escape(&change)
                )?;
            }
        }
        // The connector: this bar's value carried down to the next bar.
        if i < last {
            let x = coordinate(axis.x(step.value));
            writeln!(
                body,
                r#"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="{MUTED}" stroke-width="1" stroke-dasharray="2 2"/>"#,
                coordinate(bar_y + BAR),
                coordinate(bar_y + ROW)
            )?;
        }
        y += ROW;
    }
    let plot_bottom = y + 4.0;
    let height = plot_bottom + 44.0;

    // The reference line, over the rows, with its label above them: on
    // its right, or on its left if the label would leave the chart.
    let mut reference_svg = String::new();
    if let Some(reference) = &reference {
        let x = axis.x(reference.value);
        let text = fill(
            labels.steps.reference.get(lang),
            &[
                ("name", &reference.name),
                ("value", &value_text(reference.value)?),
            ],
        );
        let (text_x, anchor) = if x + 4.0 + text_width(&text, TEXT_SIZE) <= WIDTH - MARGIN {
            (x + 4.0, "start")
        } else {
            (x - 4.0, "end")
        };
        writeln!(
            reference_svg,
            r#"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="{LIBRARY_COLOUR}" stroke-width="1.5" stroke-dasharray="6 4"/>
<text x="{}" y="{}" text-anchor="{anchor}" fill="{LIBRARY_COLOUR}">{}</text>"#,
            coordinate(top + 2.0),
            coordinate(plot_bottom),
            coordinate(text_x),
            coordinate(top + 12.0),
            escape(&text),
            x = coordinate(x),
        )?;
    }

    let mut grid = String::new();
    let mut ticks = String::new();
    for tick in axis.ticks(unit) {
        let x = coordinate(tick.x);
        let text = match tick.symbol {
            Some(symbol) => format!("{} {}", number(&tick.number), labels.unit(symbol, lang)?),
            None => number(&tick.number),
        };
        writeln!(
            grid,
            r#"<line x1="{x}" y1="{}" x2="{x}" y2="{}"/>"#,
            coordinate(rows_top - 4.0),
            coordinate(plot_bottom)
        )?;
        writeln!(
            ticks,
            r#"<text x="{x}" y="{}">{}</text>"#,
            coordinate(plot_bottom + 16.0),
            escape(&text)
        )?;
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
{reference_svg}{body}<line x1="{axis_x}" y1="{axis_top}" x2="{axis_x}" y2="{bottom}" stroke="{TEXT}" stroke-width="1"/>
</svg>
"##,
        m = coordinate(MARGIN),
        text_size = coordinate(TEXT_SIZE),
        title_size = coordinate(TITLE_SIZE),
        axis_x = coordinate(PLOT_START),
        axis_label_y = coordinate(plot_bottom + 34.0),
        axis_label = escape(&words.axis),
        axis_top = coordinate(rows_top - 4.0),
        bottom = coordinate(plot_bottom),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axis::PLOT_END;
    use crate::svg::tests::assert_well_formed;
    use crate::test_support::{machine, measure, results, root, steps_results};

    fn chart(name: &str) -> &'static StepsChart {
        STEPS_CHARTS.iter().find(|c| c.name == name).unwrap()
    }

    fn draw(name: &str, results: &Results, lang: Lang) -> String {
        let labels = Labels::load(&root()).unwrap();
        let svg = render(chart(name), results, &labels, lang)
            .unwrap()
            .expect("drawn");
        assert_well_formed(&svg);
        svg
    }

    /// The bars: `(x, width, fill)` of every rect of a bar's height.
    fn bars(svg: &str) -> Vec<(String, String, String)> {
        let attr = |line: &str, name: &str| {
            let start = line.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            line[start..].split('"').next().unwrap().to_string()
        };
        svg.lines()
            .filter(|l| l.starts_with("<rect ") && l.contains(r#" height="18""#))
            .map(|l| (attr(l, "x"), attr(l, "width"), attr(l, "fill")))
            .collect()
    }

    /// The text of every `<text>`, a `<tspan>`'s after its parent's, `|`
    /// between.
    fn texts(svg: &str) -> Vec<String> {
        svg.lines()
            .filter(|l| l.starts_with("<text"))
            .map(|l| {
                let inner = l.split_once('>').unwrap().1;
                let inner = inner.strip_suffix("</text>").unwrap();
                match inner.split_once("<tspan") {
                    Some((before, tspan)) => {
                        let tspan = tspan.split_once('>').unwrap().1;
                        format!("{before}|{}", tspan.strip_suffix("</tspan>").unwrap())
                    }
                    None => inner.to_string(),
                }
            })
            .collect()
    }

    /// Where `value` (ns) is drawn on the spawn chart's axis: its largest
    /// value, 705 ns (book-ch10's upper bound), with room for the text
    /// past it (× 1.3, 916.5), gives an axis of 0 to 1,000 ns.
    fn spawn_x(value: f64) -> f64 {
        PLOT_START + (PLOT_END - PLOT_START) * value / 1000.0
    }

    #[test]
    fn a_steps_chart_has_one_bar_per_step_the_steps_floating_from_the_value_before() {
        let svg = draw("steps-spawn", &steps_results(), Lang::Ja);
        let bars = bars(&svg);
        assert_eq!(bars.len(), 4, "{svg}");
        let c = |x: f64| coordinate(x);
        // book-ch10, whole: from 0 to 690 ns.
        assert_eq!(
            bars[0],
            (
                c(PLOT_START),
                c(spawn_x(690.0) - PLOT_START),
                BOOK_COLOUR.into()
            )
        );
        assert_eq!((bars[0].0.as_str(), bars[0].1.as_str()), ("180", "296.7"));
        // Step 1: from 690 down to 378, a decrease.
        assert_eq!(
            bars[1],
            (
                c(spawn_x(378.0)),
                c(spawn_x(690.0) - spawn_x(378.0)),
                DECREASE_COLOUR.into()
            )
        );
        assert_eq!((bars[1].0.as_str(), bars[1].1.as_str()), ("342.5", "134.2"));
        // Step 2: from 378 down to 301.
        assert_eq!(
            bars[2],
            (
                c(spawn_x(301.0)),
                c(spawn_x(378.0) - spawn_x(301.0)),
                DECREASE_COLOUR.into()
            )
        );
        // book-ch11, whole: from 0 to 296 ns.
        assert_eq!(
            bars[3],
            (
                c(PLOT_START),
                c(spawn_x(296.0) - PLOT_START),
                BOOK_COLOUR.into()
            )
        );
        // A floating bar starts where the bar above ends: the dashed
        // connectors carry each value down.
        for value in [690.0, 378.0, 301.0] {
            let x = c(spawn_x(value));
            assert!(
                svg.contains(&format!(r#"<line x1="{x}" y1="#))
                    && svg.contains(&format!(r#"x2="{x}" "#)),
                "a connector at {value} ns: {svg}"
            );
        }
        assert_eq!(svg.matches(r#"stroke-dasharray="2 2""#).count(), 3);
        // Each criterion value has its error bar; the legend has the
        // interval's sign too.
        assert_eq!(svg.matches("<path ").count(), 4 + 1);
        assert!(
            svg.contains(&format!(r#"<path d="M{} "#, c(spawn_x(370.0)))),
            "step 1's interval at its value: {svg}"
        );
    }

    #[test]
    fn the_bars_are_named_by_step_and_labelled_with_their_change_in_both_editions() {
        let ja = draw("steps-spawn", &steps_results(), Lang::Ja);
        let texts_ja = texts(&ja);
        for text in [
            "spawn：第11章の手順ごとの変化",
            "第10章のランタイム",
            "＋タスクを1回の確保で",
            "＋ローカルキュー",
            "＋タイマーは必要時のみ",
            "book-ch10",
            "book-ch11-step1",
            "book-ch11-step2",
            "book-ch11",
            // The first bar's value; each step's change.
            "690 ns",
            "\u{2212}312 ns（\u{2212}45 %）",
            "\u{2212}77.0 ns（\u{2212}20 %）",
            // The last bar: its value, then its step's change.
            "296 ns|\u{2212}5.00 ns（\u{2212}1.7 %）",
            "その手順で減った分",
            "95 %信頼区間",
            "タスク1つあたりの時間（ns）、小さいほど良い",
        ] {
            assert!(
                texts_ja.iter().any(|t| t == text),
                "{text} in {texts_ja:#?}"
            );
        }
        assert!(!texts_ja.iter().any(|t| t == "その手順で増えた分"));
        let zh = draw("steps-spawn", &steps_results(), Lang::Zh);
        let texts_zh = texts(&zh);
        for text in [
            "spawn：第 11 章每一步带来的变化",
            "第 10 章的运行时",
            "+ 任务只分配一次",
            "+ 本地队列",
            "+ 计时器按需处理",
            "\u{2212}312 ns（\u{2212}45%）",
            "\u{2212}77.0 ns（\u{2212}20%）",
            "296 ns|\u{2212}5.00 ns（\u{2212}1.7%）",
            "这一步减少的部分",
            "每个任务的耗时（ns），越小越好",
        ] {
            assert!(
                texts_zh.iter().any(|t| t == text),
                "{text} in {texts_zh:#?}"
            );
        }
        // The same bars in both.
        assert_eq!(bars(&ja), bars(&zh));
        assert_eq!(draw("steps-spawn", &steps_results(), Lang::Ja), ja);
    }

    #[test]
    fn a_dashed_line_marks_the_best_library_named_in_both_editions() {
        let x = coordinate(spawn_x(85.0));
        for (lang, label) in [
            (Lang::Ja, "最良のクレート：tokio（85.0 ns）"),
            (Lang::Zh, "最好的库：tokio（85.0 ns）"),
        ] {
            let svg = draw("steps-spawn", &steps_results(), lang);
            let line = format!(r#"<line x1="{x}" y1="66" x2="{x}" "#);
            assert!(svg.contains(&line), "{line} in {svg}");
            assert_eq!(svg.matches(r#"stroke-dasharray="6 4""#).count(), 1);
            // Its label on its right, above the rows.
            let text = format!(
                r##"<text x="{}" y="76" text-anchor="start" fill="{LIBRARY_COLOUR}">{label}</text>"##,
                coordinate(spawn_x(85.0) + 4.0)
            );
            assert!(svg.contains(&text), "{text} in {svg}");
        }
        // The lowest of the libraries, not of the book's (book-ch03 and
        // the steps are not candidates); in ms for the timers.
        let labels = Labels::load(&root()).unwrap();
        let steps = chart("steps-timers-overhead")
            .steps(&steps_results())
            .unwrap()
            .unwrap();
        assert_eq!(
            steps.reference,
            Some(Reference {
                name: "tokio".into(),
                value: 2.2
            })
        );
        let svg = render(
            chart("steps-timers-overhead"),
            &steps_results(),
            &labels,
            Lang::Zh,
        )
        .unwrap()
        .unwrap();
        assert!(
            texts(&svg)
                .iter()
                .any(|t| t == "最好的库：tokio（2.20 ms）")
        );
        // Without a library measured, no line.
        let alone = Results::new(
            machine(),
            steps_results()
                .measure
                .into_iter()
                .filter(|m| m.id.contains("/book-"))
                .collect(),
        )
        .unwrap();
        let svg = draw("steps-spawn", &alone, Lang::Ja);
        assert!(!svg.contains("stroke-dasharray=\"6 4\""));
        assert_eq!(bars(&svg).len(), 4);
    }

    #[test]
    fn a_step_that_costs_is_drawn_rightwards_in_its_own_colour() {
        let svg = draw("steps-wake_many", &steps_results(), Lang::Ja);
        let bars = bars(&svg);
        // wake_many: 2,400 → 2,450 → 900 → 880 ns; up to 2,510 × 1.3
        // (3.26 µs) on an axis in µs, 0 to 4.
        let x = |ns: f64| PLOT_START + (PLOT_END - PLOT_START) * ns / 4000.0;
        assert_eq!(
            bars[1],
            (
                coordinate(x(2400.0)),
                coordinate(x(2450.0) - x(2400.0)),
                INCREASE_COLOUR.into()
            )
        );
        assert_eq!(bars[2].2, DECREASE_COLOUR);
        let shown = texts(&svg);
        for text in [
            "2.40 µs",
            "+50.0 ns（+2.1 %）",
            "\u{2212}1.55 µs（\u{2212}63 %）",
            "880 ns|\u{2212}20.0 ns（\u{2212}2.2 %）",
            "その手順で減った分",
            "その手順で増えた分",
        ] {
            assert!(shown.iter().any(|t| t == text), "{text} in {shown:#?}");
        }
    }

    #[test]
    fn the_timers_steps_start_from_chapter_9s_runtime_without_error_bars() {
        let svg = draw("steps-timers-overhead", &steps_results(), Lang::Ja);
        let shown = texts(&svg);
        for text in [
            "タイマーの余分な時間：第11章の手順ごとの変化",
            "第9章のランタイム",
            "book-ch09",
            "12.5 ms",
            "\u{2212}0.500 ms（\u{2212}4.0 %）",
            "3.10 ms|\u{2212}8.70 ms（\u{2212}74 %）",
            "余分な時間（ms）、小さいほど良い",
        ] {
            assert!(shown.iter().any(|t| t == text), "{text} in {shown:#?}");
        }
        assert_eq!(bars(&svg).len(), 4);
        // The last bar marks its own step's part, from 11.8 ms down to
        // 3.10 ms, on an axis of 0 to 20 ms (12.5 × 1.3 = 16.25).
        let x = |ms: f64| PLOT_START + (PLOT_END - PLOT_START) * ms / 20.0;
        let part = svg
            .lines()
            .find(|l| l.contains("fill-opacity"))
            .expect("the last step's part");
        let number = |name: &str| -> f64 {
            let start = part.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            part[start..].split('"').next().unwrap().parse().unwrap()
        };
        assert!((number("x") - x(3.1)).abs() <= 0.05 + 1e-9, "{part}");
        assert!(
            (number("width") - (x(11.8) - x(3.1))).abs() <= 0.05 + 1e-9,
            "{part}"
        );
        assert_eq!(number("height"), BAR - 1.0);
        assert_eq!(
            number("y"),
            TOP + REFERENCE_LINE + 3.0 * ROW + BAR_TOP + 0.5,
            "in the last row"
        );
        assert!(part.contains(&format!(r#"fill="{DECREASE_COLOUR}""#)));
        assert_eq!(svg.matches("fill-opacity").count(), 1);
        assert_eq!(svg.matches("<path ").count(), 0);
        assert!(!shown.iter().any(|t| t == "95 %信頼区間"));
    }

    #[test]
    fn no_steps_chart_without_every_step_of_its_group() {
        let labels = Labels::load(&root()).unwrap();
        // A run from before chapter 11: no chart, each step named missing.
        for chart in &STEPS_CHARTS {
            for lang in Lang::ALL {
                assert_eq!(render(chart, &results(), &labels, lang).unwrap(), None);
            }
            assert_eq!(chart.missing(&results()), chart.steps);
            assert!(chart.missing(&steps_results()).is_empty());
        }
        // One step missing is enough.
        let without_step2 = Results::new(
            machine(),
            steps_results()
                .measure
                .into_iter()
                .filter(|m| m.id != "ping_pong/10000/book-ch11-step2")
                .collect(),
        )
        .unwrap();
        let ping_pong = chart("steps-ping_pong");
        assert_eq!(ping_pong.missing(&without_step2), ["book-ch11-step2"]);
        assert_eq!(
            render(ping_pong, &without_step2, &labels, Lang::Ja).unwrap(),
            None
        );
        assert!(
            render(chart("steps-spawn"), &without_step2, &labels, Lang::Ja)
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn a_measure_of_the_group_in_another_unit_is_an_error() {
        let mut measures = steps_results().measure;
        measures.push(measure("spawn/100000/smol", 1.0, Unit::Milliseconds));
        let wrong = Results::new(machine(), measures).unwrap();
        let error = chart("steps-spawn").steps(&wrong).unwrap_err().to_string();
        assert_eq!(
            error,
            "chart steps-spawn: `spawn/100000/smol` is in ms, the chart in ns"
        );
    }

    #[test]
    fn every_steps_title_axis_label_and_step_name_fits() {
        let labels = Labels::load(&root()).unwrap();
        for chart in &STEPS_CHARTS {
            for lang in Lang::ALL {
                let axis = Axis::of(&[1.0], chart.unit);
                let words = words_of(chart.name, false, &axis, &labels, lang).unwrap();
                assert!(text_width(&words.title, TITLE_SIZE) <= WIDTH - 2.0 * MARGIN);
                assert!(text_width(&words.axis, TEXT_SIZE) <= WIDTH - MARGIN - PLOT_START);
                for name in step_names(chart, &labels, lang) {
                    assert!(
                        text_width(&name, TEXT_SIZE) <= LABEL_END - MARGIN,
                        "{name} ({lang:?})"
                    );
                }
            }
        }
        // Every change and value text of the fixture ends inside the chart
        // (the axis leaves room past the longest bar).
        for name in STEPS_CHARTS.map(|c| c.name) {
            for lang in Lang::ALL {
                let svg = draw(name, &steps_results(), lang);
                for line in svg.lines().filter(|l| l.starts_with("<text x=")) {
                    if line.contains("text-anchor") {
                        continue;
                    }
                    let x: f64 = line[9..].split('"').next().unwrap().parse().unwrap();
                    let text = texts(line).concat();
                    let end = x + text_width(&text, TEXT_SIZE);
                    assert!(end <= WIDTH, "{name} ({lang:?}): {line} ends at {end}");
                }
            }
        }
    }

    #[test]
    fn changes_are_signed_with_a_true_minus_and_rounded() {
        let labels = Labels::load(&root()).unwrap();
        let change = |a, b, unit| change_text(a, b, unit, &labels, Lang::Ja).unwrap();
        assert_eq!(
            change(690.0, 378.0, Unit::Nanoseconds),
            "\u{2212}312 ns（\u{2212}45 %）"
        );
        assert_eq!(change(100.0, 100.0, Unit::Nanoseconds), "+0 ns（+0 %）");
        assert_eq!(
            change(1000.0, 3500.0, Unit::Nanoseconds),
            "+2.50 µs（+250 %）"
        );
        assert_eq!(
            change(15_000.0, 1_500.0, Unit::Microseconds),
            "\u{2212}13.5 ms（\u{2212}90 %）"
        );
        assert_eq!(
            Labels::load(&root()).unwrap().number("1234", Lang::Zh),
            "1,234"
        );
    }
}
