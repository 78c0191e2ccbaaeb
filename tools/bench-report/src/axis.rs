//! A chart's value axis: linear from 0, in the unit its largest value
//! reads best in, or log10 when the bars are far apart.

use bench_results::{Unit, display_unit, significant};

/// The value axis runs from here (0) to [`PLOT_END`], in SVG user units;
/// bar labels end just before it.
pub const PLOT_START: f64 = 180.0;
/// The axis' end, leaving room for the value written after the longest
/// bar.
pub const PLOT_END: f64 = 610.0;
/// Above this ratio of the largest bar to the smallest, the axis is
/// logarithmic: on a linear one the small bars would be slivers.
pub const LOG_SCALE_RATIO: f64 = 20.0;

/// The grid's step and how many steps reach past `max`: 1, 2 or 5 times
/// a power of ten, at most five steps.
fn scale(max: f64) -> (f64, u32) {
    if max.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return (1.0, 1);
    }
    let rough = max / 5.0;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|step| *step >= rough * (1.0 - 1e-9))
        .unwrap_or(10.0 * power);
    let steps = ((max / step) - 1e-9).ceil().max(1.0) as u32;
    (step, steps)
}

/// A grid value with as many decimals as its step needs.
fn tick(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    format!("{value:.decimals$}")
}

/// A chart's value axis.
#[derive(Debug, PartialEq)]
pub enum Axis {
    /// From 0 to `step × steps` in the display unit `symbol`, which is the
    /// measured unit divided by `divisor`.
    Linear {
        /// What a measured value is divided by to be in `symbol`.
        divisor: f64,
        /// The unit the axis is in.
        symbol: &'static str,
        /// The grid's step, in `symbol`.
        step: f64,
        /// How many steps the axis is long.
        steps: u32,
    },
    /// From 10^`low` to 10^`high` of the measured unit, a tick at each
    /// power of ten.
    Log {
        /// The power of ten at the axis' start.
        low: i32,
        /// The power of ten at its end.
        high: i32,
    },
}

impl Axis {
    /// Linear, in the unit the largest value reads best in, unless the
    /// largest value is more than [`LOG_SCALE_RATIO`] times the smallest
    /// (a value of 0 counts as the smallest of all): then log10, from the
    /// power of ten below the smallest positive value to the one at or
    /// above the largest.
    pub fn of(values: &[f64], unit: Unit) -> Axis {
        let max = values.iter().copied().fold(0.0, f64::max);
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let min_positive = values
            .iter()
            .copied()
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        if max > 0.0 && max > LOG_SCALE_RATIO * min && min_positive.is_finite() {
            // The nudges keep an exact power of ten from becoming the
            // next one through rounding.
            let low = ((min_positive.log10() - 1e-9).ceil() - 1.0) as i32;
            let high = ((max.log10() - 1e-9).ceil() as i32).max(low + 1);
            return Axis::Log { low, high };
        }
        let (divisor, symbol) = display_unit(max, unit);
        let (step, steps) = scale(max / divisor);
        Axis::Linear {
            divisor,
            symbol,
            step,
            steps,
        }
    }

    /// Where a value is drawn.
    pub fn x(&self, value: f64) -> f64 {
        let fraction = match *self {
            Axis::Linear {
                divisor,
                step,
                steps,
                ..
            } => value / divisor / (step * f64::from(steps)),
            Axis::Log { .. } if value <= 0.0 => 0.0,
            Axis::Log { low, high } => {
                ((value.log10() - f64::from(low)) / f64::from(high - low)).max(0.0)
            }
        };
        PLOT_START + (PLOT_END - PLOT_START) * fraction
    }

    /// The grid lines: where, and the number written under each; on a log
    /// axis with its unit, which changes along it (`100 ns`, `1 µs`).
    pub fn ticks(&self, unit: Unit) -> Vec<Tick> {
        match *self {
            Axis::Linear {
                divisor,
                step,
                steps,
                ..
            } => (0..=steps)
                .map(|i| {
                    let value = step * f64::from(i);
                    Tick {
                        x: self.x(value * divisor),
                        number: tick(value, step),
                        symbol: None,
                    }
                })
                .collect(),
            Axis::Log { low, high } => (low..=high)
                .map(|power| {
                    let value = 10f64.powi(power);
                    let (divisor, symbol) = display_unit(value, unit);
                    let number = significant(value / divisor, 3);
                    let number = if number.contains('.') {
                        number.trim_end_matches('0').trim_end_matches('.')
                    } else {
                        &number
                    };
                    Tick {
                        x: self.x(value),
                        number: number.to_string(),
                        symbol: Some(symbol),
                    }
                })
                .collect(),
        }
    }
}

/// A grid line of an axis.
#[derive(Debug, PartialEq)]
pub struct Tick {
    /// Where it is drawn.
    pub x: f64,
    /// Its value, as [`significant`] writes it (no thousands separator).
    pub number: String,
    /// Its unit, on a log axis.
    pub symbol: Option<&'static str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_ends_on_a_round_step() {
        assert_eq!(scale(61.27), (20.0, 4));
        assert_eq!(scale(100.0), (20.0, 5));
        assert_eq!(scale(0.37), (0.1, 4));
        assert_eq!(scale(2450.0), (500.0, 5));
        assert_eq!(scale(0.0), (1.0, 1));
        assert_eq!(tick(0.30000000000000004, 0.1), "0.3");
        assert_eq!(tick(1500.0, 500.0), "1500");
    }

    #[test]
    fn a_linear_axis_is_in_the_unit_its_largest_value_reads_best_in() {
        // 2450 µs and 1100 µs: an axis in ms, 0 to 2.5 in steps of 0.5.
        let axis = Axis::of(&[2450.0, 1100.0], Unit::Microseconds);
        assert_eq!(
            axis,
            Axis::Linear {
                divisor: 1000.0,
                symbol: "ms",
                step: 0.5,
                steps: 5
            }
        );
        let ticks: Vec<String> = axis
            .ticks(Unit::Microseconds)
            .into_iter()
            .map(|t| t.number)
            .collect();
        assert_eq!(ticks, ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5"]);
        // The longest bar ends at 2.45 of 2.5.
        let end = axis.x(2450.0);
        assert!((end - (PLOT_START + 0.98 * (PLOT_END - PLOT_START))).abs() < 1e-9);
    }

    #[test]
    fn bars_more_than_twenty_times_apart_are_on_a_log_axis() {
        use Unit::*;
        // From the power of ten below 850 ns to the one above 59.8 µs.
        let axis = Axis::of(&[59_800.0, 45_000.0, 850.0], Nanoseconds);
        assert_eq!(axis, Axis::Log { low: 2, high: 5 });
        let ticks: Vec<(String, Option<&str>)> = axis
            .ticks(Nanoseconds)
            .into_iter()
            .map(|t| (t.number, t.symbol))
            .collect();
        assert_eq!(
            ticks,
            [
                ("100".to_string(), Some("ns")),
                ("1".to_string(), Some("µs")),
                ("10".to_string(), Some("µs")),
                ("100".to_string(), Some("µs"))
            ]
        );
        // 430 units for three decades.
        assert_eq!(axis.x(100.0), PLOT_START);
        assert_eq!(axis.x(100_000.0), PLOT_END);
        assert!((axis.x(1000.0) - (PLOT_START + 430.0 / 3.0)).abs() < 1e-9);
        // An exact power of ten is above the axis' start, and a 0 at it.
        assert_eq!(
            Axis::of(&[100.0, 5000.0], Nanoseconds),
            Axis::Log { low: 1, high: 4 }
        );
        assert_eq!(axis.x(0.0), PLOT_START);
        assert_eq!(
            Axis::of(&[0.0, 2.0], Mebibytes),
            Axis::Log { low: 0, high: 1 }
        );
        // Twenty times apart, or less, stays linear.
        assert!(matches!(
            Axis::of(&[1.0, 20.0], Nanoseconds),
            Axis::Linear { .. }
        ));
        // Ticks below 1 keep their decimals.
        let ticks: Vec<String> = Axis::Log { low: -2, high: 0 }
            .ticks(Mebibytes)
            .into_iter()
            .map(|t| t.number)
            .collect();
        assert_eq!(ticks, ["0.01", "0.1", "1"]);
    }
}
