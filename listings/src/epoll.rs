//! Chapter 8: `epoll`, the blocking primitive made real.
//!
//! Chapter 1 waited for a socket with a thread per wait; chapter 7 waited
//! for deadlines with one thread over a heap. For file descriptors Linux
//! offers one call that waits for many: an epoll instance holds an
//! *interest list* (file descriptor + what to wait for + a token of ours),
//! and `epoll_wait` sleeps until one of them is ready, then reports the
//! tokens. This module is a thin, owned wrapper over the three calls,
//! through rustix (no hand-written FFI): the epoll instance is an
//! [`OwnedFd`], closed when the [`Poller`] is dropped.

use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::time::Duration;

use rustix::event::{Timespec, epoll};

// The tests count the calls (see `syscall_counts`).
#[cfg(test)]
use crate::syscall_counts::epoll_wait;
#[cfg(not(test))]
use rustix::event::epoll::wait as epoll_wait;

// ANCHOR: types
/// An epoll instance.
#[derive(Debug)]
pub struct Poller {
    epoll: OwnedFd,
}

/// What a waiter waits for on one file descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interest {
    /// Data to read, a connection to accept, or the peer's end of stream.
    pub readable: bool,
    /// Room to write.
    pub writable: bool,
}

/// How often a ready file descriptor is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// By every `wait` for as long as it is ready.
    Level,
    /// By one `wait` each time it *becomes* ready (new data arrives).
    Edge,
    /// By one `wait`, then never again until re-armed with
    /// [`Poller::modify`]. Arming checks the current state: a descriptor
    /// that is already ready is reported by the next `wait`.
    Oneshot,
}

/// One readiness report of [`Poller::wait`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// The token given when the descriptor was added.
    pub token: u64,
    /// Ready to read (or at end of stream, or in error: a read will not
    /// block either way).
    pub readable: bool,
    /// Ready to write (or in error: a write will not block).
    pub writable: bool,
}
// ANCHOR_END: types

/// Test-only: how many descriptors the interest list holds (a `tfd:` line
/// each in the instance's `/proc/self/fdinfo`, as tests/echo.rs counts
/// them for the whole process).
#[cfg(all(test, not(loom)))]
impl Poller {
    pub(crate) fn interest_count(&self) -> usize {
        use std::os::fd::AsRawFd;
        let path = format!("/proc/self/fdinfo/{}", self.epoll.as_raw_fd());
        let info = std::fs::read_to_string(path).unwrap();
        info.lines().filter(|line| line.starts_with("tfd:")).count()
    }
}

// ANCHOR: poller
impl Poller {
    /// A new epoll instance, closed on `exec` and when dropped.
    pub fn new() -> io::Result<Self> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)?;
        Ok(Poller { epoll })
    }

    /// Adds `fd` to the interest list under `token` (`epoll_ctl(ADD)`).
    pub fn add(&self, fd: impl AsFd, token: u64, interest: Interest, mode: Mode) -> io::Result<()> {
        let data = epoll::EventData::new_u64(token);
        epoll::add(&self.epoll, fd, data, flags(interest, mode))?;
        Ok(())
    }

    /// Replaces what `fd` is waited for (`epoll_ctl(MOD)`); with
    /// [`Mode::Oneshot`], this re-arms it.
    pub fn modify(
        &self,
        fd: impl AsFd,
        token: u64,
        interest: Interest,
        mode: Mode,
    ) -> io::Result<()> {
        let data = epoll::EventData::new_u64(token);
        epoll::modify(&self.epoll, fd, data, flags(interest, mode))?;
        Ok(())
    }

    /// Removes `fd` from the interest list (`epoll_ctl(DEL)`). Do it
    /// before closing `fd`: epoll watches the open file, not the number,
    /// and a duplicate of the descriptor would keep it reporting.
    pub fn delete(&self, fd: impl AsFd) -> io::Result<()> {
        epoll::delete(&self.epoll, fd)?;
        Ok(())
    }

    /// Waits until a descriptor is ready or `timeout` passes (`None`:
    /// no limit), and replaces `events` with the reports. rustix rounds
    /// the timeout *up* to whole milliseconds, so the wait is never
    /// shorter than asked. A signal handler interrupting the wait
    /// (`EINTR`) is not an error: it returns with no reports, and the
    /// caller works out its timeout again.
    pub fn wait(&self, events: &mut Vec<Event>, timeout: Option<Duration>) -> io::Result<()> {
        events.clear();
        // At most a day. A timeout longer than an `int` of milliseconds
        // (24.8 days) makes rustix call `epoll_pwait2` (Linux 5.11),
        // which older kernels and some sandboxes refuse; a day stays well
        // inside. Callers loop, so a capped wait only costs one more turn.
        let timeout = timeout.map(|d| {
            let d = d.min(Duration::from_secs(24 * 60 * 60));
            Timespec {
                tv_sec: d.as_secs() as i64,
                tv_nsec: i64::from(d.subsec_nanos()),
            }
        });
        // Up to 64 reports per wait, in a buffer on the stack that the
        // kernel fills; rustix hands back the filled part.
        let mut buffer = [const { MaybeUninit::<epoll::Event>::uninit() }; 64];
        let reports = match epoll_wait(&self.epoll, &mut buffer, timeout.as_ref()) {
            Ok((reports, _unused)) => reports,
            Err(rustix::io::Errno::INTR) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        events.extend(reports.iter().map(|report| {
            let flags = report.flags;
            let broken = epoll::EventFlags::ERR | epoll::EventFlags::HUP;
            Event {
                token: report.data.u64(),
                readable: flags
                    .intersects(epoll::EventFlags::IN | epoll::EventFlags::RDHUP | broken),
                writable: flags.intersects(epoll::EventFlags::OUT | broken),
            }
        }));
        Ok(())
    }
}

/// The epoll flags for an interest. `ERR` and `HUP` need no asking: epoll
/// always reports them (while the entry is armed).
fn flags(interest: Interest, mode: Mode) -> epoll::EventFlags {
    let mut flags = epoll::EventFlags::empty();
    if interest.readable {
        // `RDHUP`: the peer shut down its writing side; a read returns 0.
        flags |= epoll::EventFlags::IN | epoll::EventFlags::RDHUP;
    }
    if interest.writable {
        flags |= epoll::EventFlags::OUT;
    }
    match mode {
        Mode::Level => flags,
        Mode::Edge => flags | epoll::EventFlags::ET,
        Mode::Oneshot => flags | epoll::EventFlags::ONESHOT,
    }
}
// ANCHOR_END: poller

impl Interest {
    /// Waiting for nothing: a oneshot entry added with it reports neither
    /// data nor room. (epoll still reports an error or a hang-up on it,
    /// once; the reactor finds no waker for that report and ignores it.)
    pub const NONE: Interest = Interest {
        readable: false,
        writable: false,
    };
    /// Waiting to read.
    pub const READABLE: Interest = Interest {
        readable: true,
        writable: false,
    };
    /// Waiting to write.
    pub const WRITABLE: Interest = Interest {
        readable: false,
        writable: true,
    };
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    const NOW: Option<Duration> = Some(Duration::ZERO);

    fn pair() -> (UnixStream, UnixStream) {
        let (reader, writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        (reader, writer)
    }

    /// How many `wait`s in a row report the reader, out of three, with the
    /// data left unread.
    fn reports_in_three_waits(poller: &Poller) -> usize {
        let mut events = Vec::new();
        (0..3)
            .filter(|_| {
                poller.wait(&mut events, NOW).unwrap();
                events.iter().any(|e| e.token == 7 && e.readable)
            })
            .count()
    }

    #[test]
    fn a_wait_reports_the_token_of_the_ready_descriptor() {
        let poller = Poller::new().unwrap();
        let (a, _a_peer) = pair();
        let (b, mut b_peer) = pair();
        poller.add(&a, 1, Interest::READABLE, Mode::Level).unwrap();
        poller.add(&b, 2, Interest::READABLE, Mode::Level).unwrap();
        b_peer.write_all(b"x").unwrap();
        let mut events = Vec::new();
        poller
            .wait(&mut events, Some(Duration::from_secs(20)))
            .unwrap();
        assert_eq!(
            events,
            [Event {
                token: 2,
                readable: true,
                writable: false
            }]
        );
    }

    #[test]
    fn a_wait_with_nothing_ready_times_out_empty_and_never_early() {
        let poller = Poller::new().unwrap();
        let (a, _peer) = pair();
        poller.add(&a, 1, Interest::READABLE, Mode::Level).unwrap();
        let mut events = vec![];
        let asked = Duration::from_micros(1500);
        let start = std::time::Instant::now();
        poller.wait(&mut events, Some(asked)).unwrap();
        assert!(events.is_empty());
        assert!(start.elapsed() >= asked, "woke after {:?}", start.elapsed());
    }

    #[test]
    fn level_triggered_reports_unread_data_again_and_again() {
        let poller = Poller::new().unwrap();
        let (reader, mut writer) = pair();
        poller
            .add(&reader, 7, Interest::READABLE, Mode::Level)
            .unwrap();
        writer.write_all(b"data").unwrap();
        assert_eq!(reports_in_three_waits(&poller), 3);
    }

    #[test]
    fn edge_triggered_reports_once_per_arrival() {
        let poller = Poller::new().unwrap();
        let (reader, mut writer) = pair();
        poller
            .add(&reader, 7, Interest::READABLE, Mode::Edge)
            .unwrap();
        writer.write_all(b"data").unwrap();
        assert_eq!(reports_in_three_waits(&poller), 1);
        // New data is a new edge, even though the old data is still there.
        writer.write_all(b"more").unwrap();
        assert_eq!(reports_in_three_waits(&poller), 1);
    }

    #[test]
    fn oneshot_reports_once_until_rearmed_and_rearming_sees_old_data() {
        let poller = Poller::new().unwrap();
        let (reader, mut writer) = pair();
        poller
            .add(&reader, 7, Interest::READABLE, Mode::Oneshot)
            .unwrap();
        writer.write_all(b"data").unwrap();
        assert_eq!(reports_in_three_waits(&poller), 1);
        // Even new data is not reported while the entry is disarmed...
        writer.write_all(b"more").unwrap();
        assert_eq!(reports_in_three_waits(&poller), 0);
        // ...and re-arming reports what is already there, with no new edge.
        poller
            .modify(&reader, 7, Interest::READABLE, Mode::Oneshot)
            .unwrap();
        assert_eq!(reports_in_three_waits(&poller), 1);
    }

    #[test]
    fn a_closed_peer_makes_the_reader_readable_and_the_read_returns_zero() {
        let poller = Poller::new().unwrap();
        let (mut reader, writer) = pair();
        poller
            .add(&reader, 7, Interest::READABLE, Mode::Oneshot)
            .unwrap();
        drop(writer);
        assert_eq!(reports_in_three_waits(&poller), 1);
        assert_eq!(reader.read(&mut [0; 8]).unwrap(), 0);
    }

    #[test]
    fn a_disarmed_entry_reports_nothing_and_deleted_entries_are_gone() {
        let poller = Poller::new().unwrap();
        let (reader, mut writer) = pair();
        poller
            .add(&reader, 7, Interest::NONE, Mode::Oneshot)
            .unwrap();
        writer.write_all(b"data").unwrap();
        assert_eq!(reports_in_three_waits(&poller), 0);
        poller
            .modify(&reader, 7, Interest::READABLE, Mode::Level)
            .unwrap();
        assert_eq!(reports_in_three_waits(&poller), 3);
        poller.delete(&reader).unwrap();
        assert_eq!(reports_in_three_waits(&poller), 0);
        // Deleting twice is an error (`ENOENT`), not a silent no-op.
        assert!(poller.delete(&reader).is_err());
    }

    #[test]
    fn a_socket_with_room_to_write_is_reported_writable_and_only_that() {
        let poller = Poller::new().unwrap();
        let (a, _peer) = pair();
        poller.add(&a, 3, Interest::WRITABLE, Mode::Level).unwrap();
        let mut events = Vec::new();
        poller.wait(&mut events, NOW).unwrap();
        assert_eq!(
            events,
            [Event {
                token: 3,
                readable: false,
                writable: true
            }]
        );
    }

    #[test]
    fn a_timeout_is_passed_to_epoll_wait_as_asked_and_capped_at_a_day() {
        use crate::syscall_counts::last_epoll_timeout;
        // Something ready, so that no wait lasts.
        let poller = Poller::new().unwrap();
        let (a, mut peer) = pair();
        poller.add(&a, 1, Interest::READABLE, Mode::Level).unwrap();
        peer.write_all(b"x").unwrap();
        let mut events = Vec::new();
        let day = 24 * 60 * 60;
        for (asked, passed) in [
            (None, None),
            (Some(Duration::from_millis(1500)), Some((1, 500_000_000))),
            (Some(Duration::from_secs(day)), Some((day as i64, 0))),
            (Some(Duration::from_secs(day + 1)), Some((day as i64, 0))),
            (Some(Duration::MAX), Some((day as i64, 0))),
        ] {
            poller.wait(&mut events, asked).unwrap();
            assert_eq!(events.len(), 1);
            assert_eq!(last_epoll_timeout(), passed, "asked {asked:?}");
        }
    }

    #[test]
    fn a_hang_up_is_reported_once_even_to_an_entry_waiting_for_nothing() {
        let poller = Poller::new().unwrap();
        let (reader, writer) = pair();
        poller
            .add(&reader, 7, Interest::NONE, Mode::Oneshot)
            .unwrap();
        drop(writer);
        // epoll adds errors and hang-ups to every entry; oneshot still
        // disarms it after one report.
        assert_eq!(reports_in_three_waits(&poller), 1);
        poller
            .modify(&reader, 7, Interest::READABLE, Mode::Oneshot)
            .unwrap();
        assert_eq!(reports_in_three_waits(&poller), 1);
    }
}
