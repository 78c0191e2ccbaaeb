//! How a measure is shown: the unit it reads best in, three significant
//! digits, ratios. The plug-in's `{{#bench …}}` and the charts both show
//! numbers this way, so a chart and the sentence beside it agree.
//!
//! The results file keeps each measure in the unit it was measured in. A
//! time steps up from ns to µs, ms and s while it is 1000 or more, so
//! 59800 ns shows as `59.8 µs`. Numbers show three significant digits and
//! their unit, without thousands separators (a chart adds its edition's,
//! see `bench-report`): `12.3 ns`, `1.52 ms`, `250 µs`, `5.40 MiB`,
//! `1230 MiB/s`; counts show as whole numbers without a unit. Ratios show
//! two decimals below 10 and one above: `0.83×`, `1.45×`, `12.5×`. A
//! value's confidence interval shows in the value's unit with the value's
//! decimals and grouped thousands: `12.3–12.7 ns`.

use crate::results::{Measure, Unit};

/// The time units a value steps through, each 1000 of the one before.
const TIME_UNITS: [&str; 4] = ["ns", "µs", "ms", "s"];

/// How a value of `unit` is shown: `(divisor, symbol)`, the value divided
/// by the divisor being the number shown. A time steps up to the next
/// unit while the number, rounded to three significant digits, is 1000 or
/// more (999.6 ns rounds to 1000 and shows as `1.00 µs`); other units stay.
pub fn display_unit(value: f64, unit: Unit) -> (f64, &'static str) {
    let Some(mut step) = TIME_UNITS.iter().position(|s| *s == unit.symbol()) else {
        return (1.0, unit.symbol());
    };
    let mut divisor = 1.0;
    while step + 1 < TIME_UNITS.len() && rounded(value.abs() / divisor, 3) >= 1000.0 {
        divisor *= 1000.0;
        step += 1;
    }
    (divisor, TIME_UNITS[step])
}

/// `value` with three significant digits and the unit it reads best in
/// (`12.3 ns`, `59.8 µs`, `1230 MiB/s`); a count as a whole number, alone.
pub fn format_value(value: f64, unit: Unit) -> String {
    let (number, symbol) = value_parts(value, unit);
    match symbol {
        Some(symbol) => format!("{number} {symbol}"),
        None => number,
    }
}

/// [`format_value`]'s number and unit apart (`None` for a count), for a
/// reader that writes them its own way.
pub fn value_parts(value: f64, unit: Unit) -> (String, Option<&'static str>) {
    match unit {
        Unit::Count if value.fract() == 0.0 => (format!("{}", value as i64), None),
        Unit::Count => (significant(value, 3), None),
        _ => {
            let (divisor, symbol) = display_unit(value, unit);
            (significant(value / divisor, 3), Some(symbol))
        }
    }
}

/// `number` (as [`significant`] writes it: digits, an optional sign and
/// decimals) with `separator` between each three digits of its whole
/// part, as both editions' prose writes numbers: `100,000`, `12,300.5`.
pub fn group_thousands(number: &str, separator: &str) -> String {
    let (sign, unsigned) = match number.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", number),
    };
    let (whole, fraction) = match unsigned.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (unsigned, None),
    };
    let mut out = String::from(sign);
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push_str(separator);
        }
        out.push(digit);
    }
    if let Some(fraction) = fraction {
        out.push('.');
        out.push_str(fraction);
    }
    out
}

/// The confidence interval `(lower, upper)` of `value` as `value` is
/// shown ([`format_value`]): in the same unit, each bound with as many
/// decimals as the value's number, thousands grouped with `separator`
/// (`12.3–12.7 ns` for 12.5 ns, `405–421 ns` for 413 ns). So a reader
/// compares the bounds with the value digit for digit.
pub fn format_interval(
    value: f64,
    (lower, upper): (f64, f64),
    unit: Unit,
    separator: &str,
) -> String {
    let (number, symbol) = value_parts(value, unit);
    let decimals = number.split_once('.').map_or(0, |(_, f)| f.len());
    let divisor = match symbol {
        Some(_) => display_unit(value, unit).0,
        None => 1.0,
    };
    let bound = |b: f64| group_thousands(&format!("{:.decimals$}", b / divisor), separator);
    let range = format!("{}–{}", bound(lower), bound(upper));
    match symbol {
        Some(symbol) => format!("{range} {symbol}"),
        None => range,
    }
}

/// `value` rounded to `digits` significant digits, written out in full
/// (no exponent, no thousands separators, trailing zeros kept: `5.40`).
pub fn significant(value: f64, digits: usize) -> String {
    if value == 0.0 {
        return "0".into();
    }
    // `{:.2e}` rounds correctly, including the carry of 9.996 → 1.00e1.
    let scientific = format!("{:.*e}", digits - 1, value);
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i64 = exponent.parse().expect("a number");
    let sign = if mantissa.starts_with('-') { "-" } else { "" };
    let figures: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // The decimal point goes after this many figures.
    let point = exponent + 1;
    let body = if point <= 0 {
        format!("0.{}{figures}", "0".repeat((-point) as usize))
    } else if point as usize >= figures.len() {
        format!("{figures}{}", "0".repeat(point as usize - figures.len()))
    } else {
        let (whole, fraction) = figures.split_at(point as usize);
        format!("{whole}.{fraction}")
    };
    format!("{sign}{body}")
}

/// `value` rounded to `digits` significant digits (itself if it is not
/// finite).
pub fn rounded(value: f64, digits: usize) -> f64 {
    format!("{:.*e}", digits - 1, value)
        .parse()
        .unwrap_or(value)
}

/// How many times `a` is `b`: two decimals below 10 (`0.83×`), one above
/// (`12.5×`). The two must have the same unit.
pub fn format_ratio(a: &Measure, b: &Measure) -> std::result::Result<String, String> {
    if a.unit != b.unit {
        return Err(format!(
            "`{}` is in {} and `{}` in {}: a ratio needs one unit",
            a.id,
            a.unit.symbol(),
            b.id,
            b.unit.symbol()
        ));
    }
    if b.value == 0.0 {
        return Err(format!("`{}` is 0: no ratio", b.id));
    }
    let ratio = a.value / b.value;
    let two = format!("{ratio:.2}");
    // 9.996 rounds to "10.00", which is already above 10.
    if two.parse::<f64>().is_ok_and(|r| r.abs() < 10.0) {
        Ok(format!("{two}×"))
    } else {
        Ok(format!("{ratio:.1}×"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::measure;

    #[test]
    fn values_show_three_significant_digits_in_the_unit_they_read_best_in() {
        use Unit::*;
        for (value, unit, shown) in [
            (12.345, Nanoseconds, "12.3 ns"),
            (1.5249, Milliseconds, "1.52 ms"),
            (250.0, Microseconds, "250 µs"),
            (5.4, Mebibytes, "5.40 MiB"),
            (1234.5, MebibytesPerSecond, "1230 MiB/s"),
            (59_800.0, Nanoseconds, "59.8 µs"),
            (123_456.0, Nanoseconds, "123 µs"),
            (1_161_400.0, Microseconds, "1.16 s"),
            (2450.0, Microseconds, "2.45 ms"),
            (12_345_678.0, Milliseconds, "12300 s"),
            (0.012_34, Milliseconds, "0.0123 ms"),
            (9.996, Nanoseconds, "10.0 ns"),
            (999.4, Microseconds, "999 µs"),
            // Rounded to 1000, it steps up.
            (999.6, Microseconds, "1.00 ms"),
            (0.0, Milliseconds, "0 ms"),
            (3.0, Count, "3"),
            (10_000.0, Count, "10000"),
            (0.5, Count, "0.500"),
        ] {
            assert_eq!(format_value(value, unit), shown, "{value}");
        }
        assert_eq!(
            value_parts(59_800.0, Nanoseconds),
            ("59.8".to_string(), Some("µs"))
        );
        assert_eq!(value_parts(3.0, Count), ("3".to_string(), None));
    }

    #[test]
    fn ratios_show_two_decimals_below_ten_and_one_above() {
        let ns = |id: &str, value| measure(id, value, Unit::Nanoseconds);
        let ratio = |a, b| format_ratio(&ns("a", a), &ns("b", b)).unwrap();
        assert_eq!(ratio(10.0, 12.0), "0.83×");
        assert_eq!(ratio(14.5, 10.0), "1.45×");
        assert_eq!(ratio(125.0, 10.0), "12.5×");
        assert_eq!(ratio(9.996, 1.0), "10.0×");
        assert_eq!(ratio(1234.0, 1.0), "1234.0×");
        let error = format_ratio(&ns("a", 1.0), &measure("b", 1.0, Unit::Milliseconds));
        assert_eq!(
            error.unwrap_err(),
            "`a` is in ns and `b` in ms: a ratio needs one unit"
        );
        assert_eq!(
            format_ratio(&ns("a", 1.0), &ns("b", 0.0)).unwrap_err(),
            "`b` is 0: no ratio"
        );
    }

    #[test]
    fn intervals_show_in_the_values_unit_with_its_decimals() {
        use Unit::*;
        for (value, bounds, unit, shown) in [
            (12.5, (12.31, 12.72), Nanoseconds, "12.3–12.7 ns"),
            (413.18, (405.2, 420.9), Nanoseconds, "405–421 ns"),
            // In the unit the value steps up to, bounds with its decimals.
            (1692.8, (1650.2, 1730.9), Nanoseconds, "1.65–1.73 µs"),
            (999.4, (990.0, 1003.0), Nanoseconds, "990–1,003 ns"),
            (
                12_345_678.0,
                (12_200_000.0, 12_500_000.0),
                Milliseconds,
                "12,200–12,500 s",
            ),
            (5.4, (5.0, 5.85), Mebibytes, "5.00–5.85 MiB"),
            (3.0, (2.0, 4000.0), Count, "2–4,000"),
        ] {
            assert_eq!(format_interval(value, bounds, unit, ","), shown, "{value}");
        }
    }

    #[test]
    fn thousands_are_grouped() {
        for (number, grouped) in [
            ("100000", "100,000"),
            ("1230", "1,230"),
            ("999", "999"),
            ("12300.5", "12,300.5"),
            ("0.0123", "0.0123"),
            ("-1500", "-1,500"),
            ("0", "0"),
        ] {
            assert_eq!(group_thousands(number, ","), grouped);
        }
        assert_eq!(group_thousands("1234567", " "), "1 234 567");
    }

    #[test]
    fn significant_digits_are_written_out_in_full() {
        assert_eq!(significant(123_456.0, 3), "123000");
        assert_eq!(significant(0.000_123_4, 3), "0.000123");
        assert_eq!(significant(-5.4, 3), "-5.40");
        assert_eq!(rounded(123.456_789, 5), 123.46);
        assert!(rounded(f64::INFINITY, 5).is_infinite());
    }
}
