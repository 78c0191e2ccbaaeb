//! Test-only: the system calls that say whether a runtime wakes itself,
//! counted per thread. Under `cfg(test)` the eventfd's write,
//! `epoll_wait` and chapter 11's `timerfd_settime` go through these
//! wrappers; a test reads the counts of its
//! own thread before and after a scene, so that tests running at the same
//! time do not add to each other's counts.

use std::cell::Cell;
use std::os::fd::AsFd;

use rustix::buffer::Buffer;
use rustix::event::{Timespec, epoll};

thread_local! {
    static EVENTFD_WRITES: Cell<u64> = const { Cell::new(0) };
    static EPOLL_WAITS: Cell<u64> = const { Cell::new(0) };
    static TIMER_SETS: Cell<u64> = const { Cell::new(0) };
    static LAST_EPOLL_TIMEOUT: Cell<Option<(i64, i64)>> = const { Cell::new(None) };
    static LAST_TIMER_SETTING: Cell<Option<TimerSetting>> = const { Cell::new(None) };
}

/// A `timerfd_settime`'s new value: when it first goes off, from now
/// (seconds, nanoseconds), and then every how long (zero: once).
pub type TimerSetting = ((i64, i64), (i64, i64));

/// The timeout (seconds, nanoseconds) of this thread's last `epoll_wait`,
/// `None` for no limit.
pub fn last_epoll_timeout() -> Option<(i64, i64)> {
    LAST_EPOLL_TIMEOUT.get()
}

/// The new value of this thread's last `timerfd_settime`, if any.
pub fn last_timer_setting() -> Option<TimerSetting> {
    LAST_TIMER_SETTING.get()
}

/// What this thread has called so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Writes to an eventfd (`Notifier::notify` waking a sleeper).
    pub eventfd_writes: u64,
    /// Calls of `epoll_wait`, with any timeout.
    pub epoll_waits: u64,
    /// Calls of `timerfd_settime` (chapter 11's reactor setting its timer).
    pub timer_sets: u64,
}

impl Counts {
    /// This thread's counts now.
    pub fn now() -> Counts {
        Counts {
            eventfd_writes: EVENTFD_WRITES.get(),
            epoll_waits: EPOLL_WAITS.get(),
            timer_sets: TIMER_SETS.get(),
        }
    }

    /// What this thread called since `earlier`.
    pub fn since(earlier: Counts) -> Counts {
        let now = Counts::now();
        Counts {
            eventfd_writes: now.eventfd_writes - earlier.eventfd_writes,
            epoll_waits: now.epoll_waits - earlier.epoll_waits,
            timer_sets: now.timer_sets - earlier.timer_sets,
        }
    }
}

/// `rustix::io::write`, counted as an eventfd write (the eventfd is its
/// only caller).
pub fn write<Fd: AsFd>(fd: Fd, buf: &[u8]) -> rustix::io::Result<usize> {
    EVENTFD_WRITES.set(EVENTFD_WRITES.get() + 1);
    rustix::io::write(fd, buf)
}

/// `epoll::wait`, counted.
pub fn epoll_wait<EpollFd: AsFd, Buf: Buffer<epoll::Event>>(
    epoll: EpollFd,
    events: Buf,
    timeout: Option<&Timespec>,
) -> rustix::io::Result<Buf::Output> {
    EPOLL_WAITS.set(EPOLL_WAITS.get() + 1);
    LAST_EPOLL_TIMEOUT.set(timeout.map(|t| (t.tv_sec, t.tv_nsec)));
    epoll::wait(epoll, events, timeout)
}

/// `timerfd_settime`, counted.
pub fn timerfd_settime<Fd: AsFd>(
    fd: Fd,
    flags: rustix::time::TimerfdTimerFlags,
    new_value: &rustix::time::Itimerspec,
) -> rustix::io::Result<rustix::time::Itimerspec> {
    TIMER_SETS.set(TIMER_SETS.get() + 1);
    let (value, interval) = (&new_value.it_value, &new_value.it_interval);
    LAST_TIMER_SETTING.set(Some((
        (value.tv_sec, value.tv_nsec),
        (interval.tv_sec, interval.tv_nsec),
    )));
    rustix::time::timerfd_settime(fd, flags, new_value)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::lean_reactor::Reactor;

    #[test]
    fn the_lean_reactors_timer_is_set_to_the_waits_timeout_to_the_nanosecond() {
        // Chapter 11's reactor sets its timer for the whole timeout, the
        // part below the millisecond included (epoll's own timeout would
        // round that up), once, and as given: never shorter (the timer
        // would go off early, and an empty value disarms it). A fresh
        // reactor each time: its timer is not set yet.
        for (after, value) in [
            (Duration::from_micros(1500), (0, 1_500_000)),
            (Duration::from_nanos(999_999), (0, 999_999)),
            (Duration::new(10, 1), (10, 1)),
        ] {
            let reactor = Reactor::new().unwrap();
            let before = Counts::now();
            // A notify once the reactor has said it sleeps: the eventfd is
            // readable, and the wait returns at once.
            reactor
                .wait_unless(Some(after), || {
                    reactor.notifier().notify();
                    false
                })
                .unwrap();
            assert_eq!(Counts::since(before).timer_sets, 1, "waited {after:?}");
            assert_eq!(
                last_timer_setting(),
                Some((value, (0, 0))),
                "waited {after:?}: goes off once, after exactly that"
            );
        }
    }

    #[test]
    fn a_look_with_a_zero_timeout_leaves_the_lean_reactors_timer_alone() {
        // A busy loop looks at I/O with a zero timeout now and then. The
        // timer stays set for the sleep's deadline: setting it to zero
        // would disarm it while the reactor still counts on it, and the
        // next sleeps would end by epoll's rounded timeout instead.
        let reactor = Reactor::new().unwrap();
        let notify = || {
            reactor.notifier().notify();
            false
        };
        reactor
            .wait_unless(Some(Duration::from_secs(10)), notify)
            .unwrap();
        let before = Counts::now();
        for _ in 0..3 {
            reactor.wait_unless(Some(Duration::ZERO), || false).unwrap();
        }
        assert_eq!(Counts::since(before).timer_sets, 0);
        // And a sleep until an earlier deadline sets it again.
        reactor
            .wait_unless(Some(Duration::from_secs(5)), notify)
            .unwrap();
        assert_eq!(Counts::since(before).timer_sets, 1);
        assert_eq!(last_timer_setting(), Some(((5, 0), (0, 0))));
    }
}
