//! Chapter 2: what a dropped `TimerFuture` costs. Dropping it lets go of the
//! task's waker, but its thread sleeps on until the deadline: a thousand
//! dropped one-minute timeouts are a thousand sleeping threads for a
//! minute. (Chapter 7 replaces the thread per timer with one timer thread.)
//!
//! Alone in its test binary, so that the threads of the process are this
//! test's own and the harness's. Linux only: it counts them in `/proc`.
#![cfg(target_os = "linux")]

use std::thread;
use std::time::{Duration, Instant};

use listings::timer::TimerFuture;

/// The threads of this process, as Linux lists them.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

#[test]
fn a_dropped_timer_keeps_its_thread_until_the_deadline() {
    let before = threads();
    let start = Instant::now();
    let timers: Vec<TimerFuture> = (0..50)
        .map(|_| TimerFuture::new(Duration::from_secs(1)))
        .collect();
    drop(timers);
    // Dropped, yet every timer's thread is still there, asleep: none can
    // have ended before its deadline, a second after `start`. (On a
    // machine so slow, or under valgrind, that making 50 threads took
    // longer, some may have ended: then at most 50 are left.)
    let counted = threads();
    if start.elapsed() < Duration::from_secs(1) {
        assert_eq!(counted, before + 50);
    } else {
        assert!(counted <= before + 50, "{counted} threads");
    }
    // They go when their time is up.
    let deadline = Instant::now() + Duration::from_secs(30);
    while threads() > before {
        assert!(Instant::now() < deadline, "the timer threads never ended");
        thread::sleep(Duration::from_millis(10));
    }
}
