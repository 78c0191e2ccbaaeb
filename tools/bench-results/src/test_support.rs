//! Results to test with, for this crate's tests and those of the crates
//! that read or write the results file (`bench-report`, the book's
//! plug-in): one machine, one way to write a measure, one plausible run.
//! Hidden from the documentation, and used by no program: it is public
//! only so that the other crates' tests share it. (Not behind a cargo
//! feature: the plug-in's tests would then build this crate, and the
//! plug-in above it, once more than `tools/booktest`'s build script does.)

use crate::{MEASURE_COMMAND, Machine, Measure, Results, Unit};

/// A measure without an interval, as the hand-measured groups write them.
pub fn measure(id: &str, value: f64, unit: Unit) -> Measure {
    Measure {
        id: id.into(),
        value,
        unit,
        ci_lower: None,
        ci_upper: None,
    }
}

/// A measure with its 95 % confidence interval, as criterion's are.
pub fn measure_ci(id: &str, [lower, value, upper]: [f64; 3], unit: Unit) -> Measure {
    Measure {
        ci_lower: Some(lower),
        ci_upper: Some(upper),
        ..measure(id, value, unit)
    }
}

/// A machine with every field set, the loads included.
pub fn machine() -> Machine {
    Machine {
        cpu: "Example CPU @ 2.20GHz".into(),
        cores: 2,
        memory_gib: 7.8,
        kernel: "6.1.0-test".into(),
        rustc: "rustc 1.95.0 (59807616e 2026-04-14)".into(),
        date: "2026-05-01".into(),
        load_start: Some(0.12),
        load_end: Some(1.5),
        command: MEASURE_COMMAND.into(),
    }
}

/// A plausible run: some groups, a missing implementation or two;
/// criterion's measures with their intervals.
pub fn results() -> Results {
    use Unit::*;
    Results::new(
        machine(),
        vec![
            measure_ci("block_on/once/book-ch06", [59.5, 61.27, 63.0], Nanoseconds),
            measure_ci("block_on/once/book-ch10", [12.31, 12.5, 12.72], Nanoseconds),
            measure_ci("block_on/once/pollster", [17.2, 18.0, 18.9], Nanoseconds),
            measure_ci("block_on/once/futures", [24.1, 25.0, 26.3], Nanoseconds),
            measure_ci("spawn/100000/tokio", [80.2, 85.0, 91.5], Nanoseconds),
            measure_ci("spawn/100000/book-ch03", [398.0, 410.0, 425.0], Nanoseconds),
            measure("timers/early/book-ch07", 0.0, Count),
            measure("timers/p99/book-ch02", 2450.0, Microseconds),
            measure("timers/p99/tokio", 1100.0, Microseconds),
            measure("timers/param/count", 10000.0, Count),
            measure("echo/throughput-1/book-ch09", 95.5, MebibytesPerSecond),
            measure("echo/throughput-1/tokio", 120.0, MebibytesPerSecond),
            measure("echo/throughput-100/book-ch09", 1234.0, MebibytesPerSecond),
            measure("echo/throughput-100/async-io", 1100.0, MebibytesPerSecond),
            measure("echo/p99-100/tokio", 310.0, Microseconds),
        ],
    )
    .expect("distinct ids, finite values")
}
