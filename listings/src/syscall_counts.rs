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
}

/// The timeout (seconds, nanoseconds) of this thread's last `epoll_wait`,
/// `None` for no limit.
pub fn last_epoll_timeout() -> Option<(i64, i64)> {
    LAST_EPOLL_TIMEOUT.get()
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
    rustix::time::timerfd_settime(fd, flags, new_value)
}
