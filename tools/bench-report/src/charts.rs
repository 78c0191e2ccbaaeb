//! Chapter 10's charts: which measures each draws, in what order and
//! colours. Their words are in `data/bench/labels.toml`
//! ([`Labels`](crate::labels::Labels)), their drawing in [`svg`](crate::svg).

use crate::expected::{BLOCK_ON, ECHO, EXECUTORS, PARTS, TIMERS};
use bench_results::{Measure, Result, Results, Unit};

/// A chart of chapter 10, drawn into `src/charts/<edition>/<name>.svg`.
#[derive(Debug)]
pub struct Chart {
    /// The file name, without `.svg`, and the key of its texts in
    /// `data/bench/labels.toml`.
    pub name: &'static str,
    /// Which way the chart is read.
    pub higher_is_better: bool,
    /// Every bar's unit, as measured.
    pub unit: Unit,
    /// Which measures it draws.
    pub layout: Layout,
    /// The bars every cluster has, in the order drawn (one not listed is
    /// drawn after these, in alphabetical order).
    pub bars: &'static [&'static str],
    /// How its bars are coloured.
    pub colours: Colours,
}

/// Which measures a chart draws.
#[derive(Debug)]
pub enum Layout {
    /// One bar per implementation: the measures `<prefix><impl>`.
    Bars(&'static str),
    /// One cluster per connection count, one bar per implementation in
    /// each: the measures `<group>/<metric>-<connections>/<impl>`.
    Clusters {
        /// The measures' group: `echo`.
        group: &'static str,
        /// The metric drawn: `throughput`.
        metric: &'static str,
    },
}

/// How a chart colours its bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colours {
    /// The book's code (`book-…`) in one colour, the libraries in another,
    /// with a legend.
    BookAndLibrary,
    /// One neutral colour, no legend of colours: the bars are not
    /// implementations.
    Neutral,
}

/// Every chart of chapter 10.
pub const CHARTS: [Chart; 12] = [
    Chart {
        name: "block_on-ready",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("block_on/ready/"),
        bars: &BLOCK_ON,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "block_on-once",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("block_on/once/"),
        bars: &BLOCK_ON,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "block_on-thread",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("block_on/thread/"),
        bars: &BLOCK_ON,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "spawn",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("spawn/100000/"),
        bars: &EXECUTORS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "ping_pong",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("ping_pong/10000/"),
        bars: &EXECUTORS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "wake_many",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("wake_many/100/"),
        bars: &EXECUTORS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "parts",
        higher_is_better: false,
        unit: Unit::Nanoseconds,
        layout: Layout::Bars("parts/op/"),
        bars: &PARTS,
        colours: Colours::Neutral,
    },
    Chart {
        name: "timers-overhead",
        higher_is_better: false,
        unit: Unit::Milliseconds,
        layout: Layout::Bars("timers/overhead/"),
        bars: &TIMERS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "timers-p99",
        higher_is_better: false,
        unit: Unit::Microseconds,
        layout: Layout::Bars("timers/p99/"),
        bars: &TIMERS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "timers-memory",
        higher_is_better: false,
        unit: Unit::Mebibytes,
        layout: Layout::Bars("timers/memory/"),
        bars: &TIMERS,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "echo-throughput",
        higher_is_better: true,
        unit: Unit::MebibytesPerSecond,
        layout: Layout::Clusters {
            group: "echo",
            metric: "throughput",
        },
        bars: &ECHO,
        colours: Colours::BookAndLibrary,
    },
    Chart {
        name: "echo-p99",
        higher_is_better: false,
        unit: Unit::Microseconds,
        layout: Layout::Clusters {
            group: "echo",
            metric: "p99",
        },
        bars: &ECHO,
        colours: Colours::BookAndLibrary,
    },
];

/// A line of a chart.
#[derive(Debug, PartialEq)]
pub enum Row {
    /// A cluster's heading: its number of connections.
    Heading(u64),
    /// A bar: its implementation, and its value in the chart's unit.
    Bar {
        /// The implementation (or, in `parts`, the primitive).
        label: String,
        /// As measured.
        value: f64,
        /// Its 95 % confidence interval, `(lower, upper)`, for criterion's
        /// measures; drawn as an error bar.
        interval: Option<(f64, f64)>,
    },
}

impl Chart {
    /// The chart's lines: its bars in the chart's order, clusters each
    /// under their heading; empty if the results have none of its
    /// measures. A missing implementation is simply not drawn (a complete
    /// run has them all: [`check_complete`](crate::expected::check_complete)).
    pub fn rows(&self, results: &Results) -> Result<Vec<Row>> {
        let mut found: Vec<(u64, &str, &Measure)> = Vec::new();
        for measure in &results.measure {
            let cluster = match &self.layout {
                Layout::Bars(prefix) => measure
                    .id
                    .strip_prefix(prefix)
                    .filter(|rest| !rest.contains('/'))
                    .map(|rest| (0, rest)),
                Layout::Clusters { group, metric } => {
                    let mut parts = measure.id.splitn(3, '/');
                    match (parts.next(), parts.next(), parts.next()) {
                        (Some(g), Some(case), Some(implementation))
                            if g == *group && !implementation.contains('/') =>
                        {
                            case.strip_prefix(metric)
                                .and_then(|c| c.strip_prefix('-'))
                                .and_then(|c| c.parse::<u64>().ok())
                                .map(|c| (c, implementation))
                        }
                        _ => None,
                    }
                }
            };
            let Some((cluster, implementation)) = cluster else {
                continue;
            };
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
            found.push((cluster, implementation, measure));
        }
        found.sort_by_key(|&(cluster, implementation, _)| {
            let rank = self
                .bars
                .iter()
                .position(|i| *i == implementation)
                .unwrap_or(self.bars.len());
            (cluster, rank, implementation)
        });
        let mut rows = Vec::new();
        let mut last_cluster = None;
        for (cluster, implementation, measure) in found {
            if matches!(self.layout, Layout::Clusters { .. }) && last_cluster != Some(cluster) {
                rows.push(Row::Heading(cluster));
                last_cluster = Some(cluster);
            }
            rows.push(Row::Bar {
                label: implementation.to_string(),
                value: measure.value,
                interval: measure.interval(),
            });
        }
        Ok(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{machine, measure, results};

    fn chart(name: &str) -> &'static Chart {
        CHARTS.iter().find(|c| c.name == name).unwrap()
    }

    fn bars(rows: &[Row]) -> Vec<String> {
        rows.iter()
            .map(|row| match row {
                Row::Heading(n) => format!("[{n}]"),
                Row::Bar { label, value, .. } => format!("{label} {value}"),
            })
            .collect()
    }

    #[test]
    fn a_chart_has_the_implementations_measured_in_the_books_order() {
        let rows = chart("block_on-once").rows(&results()).unwrap();
        // book-ch10-parker, futures-lite: not measured, not drawn.
        assert_eq!(
            bars(&rows),
            [
                "book-ch06 61.27",
                "book-ch10 12.5",
                "pollster 18",
                "futures 25"
            ]
        );
        assert_eq!(chart("wake_many").rows(&results()).unwrap(), []);
        // A criterion measure's bar has its interval; a hand-measured one none.
        assert!(matches!(
            rows[1],
            Row::Bar {
                interval: Some((12.31, 12.72)),
                ..
            }
        ));
        let timers = chart("timers-p99").rows(&results()).unwrap();
        assert!(matches!(timers[0], Row::Bar { interval: None, .. }));
    }

    #[test]
    fn a_clustered_chart_has_a_heading_per_connection_count() {
        let rows = chart("echo-throughput").rows(&results()).unwrap();
        assert_eq!(
            bars(&rows),
            [
                "[1]",
                "book-ch09 95.5",
                "tokio 120",
                "[100]",
                "book-ch09 1234",
                "async-io 1100"
            ]
        );
    }

    #[test]
    fn a_measure_in_another_unit_than_its_charts_is_an_error() {
        let wrong = Results::new(
            machine(),
            vec![measure("spawn/100000/tokio", 1.0, Unit::Milliseconds)],
        )
        .unwrap();
        let error = chart("spawn").rows(&wrong).unwrap_err().to_string();
        assert_eq!(
            error,
            "chart spawn: `spawn/100000/tokio` is in ms, the chart in ns"
        );
    }
}
