//! Chapter 7: how many threads the timers cost. The first reactor
//! (`pitfalls::first_reactor`) puts every timer on a thread of its own, asleep
//! until the deadline, even after the reactor is gone; the reactor of
//! chapter 7 serves all its timers from its one thread.
//!
//! Alone in its test binary, so that the threads of the process are this
//! test's own and the harness's. Linux only: it counts them in `/proc`.
#![cfg(target_os = "linux")]

use std::task::Waker;
use std::thread;
use std::time::{Duration, Instant};

use listings::pitfalls::first_reactor;
use listings::reactor::Reactor;

/// The threads of this process, as Linux lists them.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

/// Waits until the process has `want` threads, failing after 20 s.
fn until_threads(want: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while threads() != want {
        assert!(
            Instant::now() < deadline,
            "{} threads, not {want}",
            threads()
        );
        thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn the_first_reactor_sleeps_a_thread_per_timer_the_reactor_one_for_all() {
    let minute = Duration::from_secs(60);

    let before = threads();
    let first = first_reactor::Reactor::new();
    for id in 0..50 {
        first.register(id, minute, Waker::noop().clone());
    }
    // The reactor thread spawns them as it hears of the timers.
    until_threads(before + 1 + 50);
    drop(first);
    // The reactor thread is gone; the timer threads sleep on.
    until_threads(before + 50);

    let before = threads();
    let reactor = Reactor::new();
    for _ in 0..50 {
        reactor.register(minute, Waker::noop().clone());
    }
    assert_eq!(threads(), before + 1, "one thread for 50 timers");
    drop(reactor);
    until_threads(before);
}
