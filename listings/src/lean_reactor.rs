//! Chapter 11, the I/O step: a reactor for one thread.
//!
//! Chapter 8's reactor serves any thread: one lock around a map from
//! tokens to wakers, and every wait re-arms its descriptor (oneshot: an
//! `epoll_ctl` call each time a read would block). Chapter 11's runtime
//! waits, reads and writes on one thread only, which allows less:
//!
//! - a descriptor is registered once, edge-triggered, for reading; for
//!   writing too the first time a write would block (one `epoll_ctl`, and
//!   only then: a socket may be reported writable again whenever its send
//!   buffer gains room — on Linux a Unix socket each time its peer reads,
//!   a TCP socket once its buffer has been full — and reports of that
//!   nobody waits for would wake the thread for nothing);
//!   it is never re-armed;
//! - its state — whether it may be read or written, and who waits — is its
//!   own, reached by its number in a [`Slab`]: no lock, no hash;
//! - a read or write that would block clears its flag and leaves the
//!   waker; a report sets the flag and wakes. Waiting costs no system call.
//!
//! Edge-triggered means that epoll reports a descriptor when it *becomes*
//! ready, not while it is. That is enough here because a flag, once set,
//! stays set until a call returns `WouldBlock`: the data that arrived is
//! read until there is none before the task waits for the next report.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};
use rustix::net::SocketFlags;
use rustix::time::{
    Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec, timerfd_create,
};

// The tests count the timer's settings (see `syscall_counts`).
#[cfg(test)]
use super::syscall_counts::timerfd_settime;
#[cfg(not(test))]
use rustix::time::timerfd_settime;

use super::epoll::{Event, Interest, Mode, Poller};
use super::notifier::Notifier;
use super::slab::Slab;

// ANCHOR: reactor
/// A reactor for the runtime's thread: epoll, the eventfd that other
/// threads wake it with, a timer, and the registered descriptors. Not
/// `Send`.
#[derive(Debug)]
pub struct Reactor {
    poller: Poller,
    notifier: Arc<Notifier>,
    /// A timer the kernel keeps to the nanosecond, registered like any
    /// descriptor. epoll's own timeout counts whole milliseconds (rustix
    /// rounds it up), so a sleep until the next deadline alone would end
    /// up to a millisecond late; the timer reports at the deadline.
    timer: OwnedFd,
    /// When the timer goes off, if it is set: a sleep until a later
    /// deadline need not set it again (it goes off early, the loop finds
    /// no timer due and sleeps again).
    timer_set_for: Cell<Option<Instant>>,
    sources: RefCell<Slab<Rc<Source>>>,
    /// Reused by every wait: the reports, then the wakers to call.
    events: RefCell<Vec<Event>>,
    to_wake: RefCell<Vec<Waker>>,
}

/// One registered descriptor's state.
struct Source {
    /// May be read (or accepted from): set by a report, cleared by a call
    /// that would block. True at first: the first call finds out.
    readable: Cell<bool>,
    /// May be written: likewise.
    writable: Cell<bool>,
    /// The task waiting to read, and the one waiting to write.
    reader: Cell<Option<Waker>>,
    writer: Cell<Option<Waker>>,
    /// Whether epoll reports it writable: since the first write that
    /// would have blocked.
    watched_for_room: Cell<bool>,
}

/// The eventfd's token and the timer's; a descriptor's token is its
/// number in the slab.
const NOTIFY: u64 = u64::MAX;
const TIMER: u64 = u64::MAX - 1;

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("readable", &self.readable.get())
            .field("writable", &self.writable.get())
            .finish_non_exhaustive()
    }
}
// ANCHOR_END: reactor

// ANCHOR: register
impl Reactor {
    /// A reactor with its own epoll instance, eventfd and timer.
    pub fn new() -> io::Result<Self> {
        let poller = Poller::new()?;
        let notifier = Arc::new(Notifier::new()?);
        poller.add(&*notifier, NOTIFY, Interest::READABLE, Mode::Level)?;
        let timer = timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )?;
        poller.add(&timer, TIMER, Interest::READABLE, Mode::Level)?;
        Ok(Reactor {
            poller,
            notifier,
            timer,
            timer_set_for: Cell::new(None),
            sources: RefCell::default(),
            events: RefCell::default(),
            to_wake: RefCell::default(),
        })
    }

    /// The eventfd that wakes this reactor's thread from other threads.
    pub fn notifier(&self) -> &Arc<Notifier> {
        &self.notifier
    }

    /// Registers `fd` for reading, once and for all; returns its number
    /// and its state.
    fn register(&self, fd: BorrowedFd<'_>) -> io::Result<(usize, Rc<Source>)> {
        let mut sources = self.sources.borrow_mut();
        let key = sources.next_key();
        self.poller
            .add(fd, key as u64, Interest::READABLE, Mode::Edge)?;
        let source = Rc::new(Source {
            readable: Cell::new(true),
            writable: Cell::new(true),
            reader: Cell::new(None),
            writer: Cell::new(None),
            watched_for_room: Cell::new(false),
        });
        sources.insert(Rc::clone(&source));
        Ok((key, source))
    }

    /// From now on, epoll also reports `fd`, number `key`, writable. If it
    /// is writable already, the next wait reports it.
    fn watch_for_room(&self, fd: BorrowedFd<'_>, key: usize) -> io::Result<()> {
        let both = Interest {
            readable: true,
            writable: true,
        };
        self.poller.modify(fd, key as u64, both, Mode::Edge)
    }

    /// Forgets `fd`, number `key`: no report for it can come any more.
    fn deregister(&self, fd: BorrowedFd<'_>, key: usize) -> io::Result<()> {
        let deleted = self.poller.delete(fd);
        // Its number is free from now on. No report for it is pending:
        // reports are handled within `wait_unless`, and no task runs
        // there, so no `Async` is dropped between a report and its
        // handling.
        let source = self.sources.borrow_mut().remove(key);
        // Its wakers dropped after the borrow: a waker's drop runs its
        // executor's code.
        drop(source);
        deleted
    }
}
// ANCHOR_END: register

// ANCHOR: wait
impl Reactor {
    /// Waits for reports, a notify, or `timeout` (`None`: no limit), and
    /// wakes the tasks waiting on what was reported. As in chapter 8,
    /// once the notifier says this thread sleeps, `has_work` looks at the
    /// work other threads add once more, and if there is some, the wait
    /// only looks (timeout zero).
    pub fn wait_unless(
        &self,
        timeout: Option<Duration>,
        has_work: impl FnOnce() -> bool,
    ) -> io::Result<()> {
        let sleeps = timeout != Some(Duration::ZERO) && self.notifier.may_sleep(has_work);
        let timeout = if sleeps {
            timeout
        } else {
            Some(Duration::ZERO)
        };
        if let Some(after) = timeout.filter(|after| !after.is_zero()) {
            // epoll's timeout stays, rounded up: a backstop the timer
            // always beats.
            if let Err(e) = self.set_timer(after) {
                self.notifier.woke(false);
                return Err(e);
            }
        }
        let mut events = self.events.borrow_mut();
        let waited = self.poller.wait(&mut events, timeout);
        let reported = events.iter().any(|event| event.token == NOTIFY);
        self.notifier.woke(reported);
        waited?;
        if events.iter().any(|event| event.token == TIMER) {
            // Gone off: read, so that it stops reporting (a read that
            // would block means there was nothing left to read).
            match rustix::io::read(&self.timer, &mut [0; 8]) {
                Ok(_) | Err(rustix::io::Errno::AGAIN) => {}
                Err(e) => return Err(e.into()),
            }
            self.timer_set_for.set(None);
        }
        let mut to_wake = self.to_wake.borrow_mut();
        let sources = self.sources.borrow();
        let ours = |event: &&Event| event.token != NOTIFY && event.token != TIMER;
        for event in events.iter().filter(ours) {
            let Some(source) = sources.get(event.token as usize) else {
                continue;
            };
            if event.readable {
                source.readable.set(true);
                to_wake.extend(source.reader.take());
            }
            if event.writable {
                source.writable.set(true);
                to_wake.extend(source.writer.take());
            }
        }
        drop((sources, events));
        // Outside every borrow: a waker runs its executor's code. (The
        // buffer stays borrowed, and its allocation kept.)
        for waker in to_wake.drain(..) {
            waker.wake();
        }
        Ok(())
    }

    /// Makes the timer go off `after` from now, unless it goes off by
    /// then already.
    fn set_timer(&self, after: Duration) -> io::Result<()> {
        let at = Instant::now() + after;
        if self.timer_set_for.get().is_some_and(|set| set <= at) {
            return Ok(());
        }
        let value = Timespec {
            tv_sec: after.as_secs() as i64,
            tv_nsec: i64::from(after.subsec_nanos()),
        };
        let once = Itimerspec {
            it_interval: Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: value,
        };
        timerfd_settime(&self.timer, TimerfdTimerFlags::empty(), &once)?;
        self.timer_set_for.set(Some(at));
        Ok(())
    }
}
// ANCHOR_END: wait

// ANCHOR: async
/// A non-blocking descriptor registered with a [`Reactor`]: its reads and
/// writes wait in the reactor instead of blocking the thread.
///
/// One reader and one writer at a time: the descriptor has one waker slot
/// per direction. Reads (or accepts) may run beside a write, each task
/// waiting on its own slot, but two tasks reading at once share the read
/// slot, and the later one's waker replaces the earlier's, which is
/// dropped unwoken: the earlier task is not woken by the next report, and
/// waits until something else wakes it — perhaps for ever. The same goes
/// for two writers, as with chapter 8's `Async`. Nothing unsafe follows,
/// only a task that waits too long: share an `Async` between tasks only
/// so that one reads and one writes.
#[derive(Debug)]
pub struct Async<T: AsFd> {
    io: T,
    key: usize,
    source: Rc<Source>,
    reactor: Rc<Reactor>,
    /// Whether `io` was blocking: it is made so again on drop.
    was_blocking: bool,
}

/// Which way a task waits.
#[derive(Clone, Copy)]
enum Direction {
    Read,
    Write,
}

impl<T: AsFd> Async<T> {
    /// Makes `io` non-blocking (if it is not) and registers it.
    pub fn new(reactor: &Rc<Reactor>, io: T) -> io::Result<Self> {
        let flags = fcntl_getfl(&io)?;
        let was_blocking = !flags.contains(OFlags::NONBLOCK);
        if was_blocking {
            fcntl_setfl(&io, flags | OFlags::NONBLOCK)?;
        }
        match reactor.register(io.as_fd()) {
            Ok((key, source)) => Ok(Async {
                io,
                key,
                source,
                reactor: Rc::clone(reactor),
                was_blocking,
            }),
            Err(e) => {
                if was_blocking {
                    let _ = fcntl_setfl(&io, flags);
                }
                Err(e)
            }
        }
    }

    /// The descriptor's value.
    pub fn get_ref(&self) -> &T {
        &self.io
    }

    /// Runs `op` while the descriptor may be ready in `direction`; once it
    /// would block, waits for the next report.
    fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut op: impl FnMut(&T) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        let (ready, waiter) = match direction {
            Direction::Read => (&self.source.readable, &self.source.reader),
            Direction::Write => (&self.source.writable, &self.source.writer),
        };
        while ready.get() {
            match op(&self.io) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => ready.set(false),
                // A signal interrupted the call: try again.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                done => return Poll::Ready(done),
            }
        }
        // Not ready: leave the waker (unless it is the one there) until
        // the next report. No system call, but for the first write that
        // would block.
        if matches!(direction, Direction::Write)
            && !self.source.watched_for_room.replace(true)
            && let Err(e) = self.reactor.watch_for_room(self.io.as_fd(), self.key)
        {
            self.source.watched_for_room.set(false);
            return Poll::Ready(Err(e));
        }
        let old = waiter.take();
        let kept = match old {
            Some(old) if old.will_wake(cx.waker()) => old,
            _ => cx.waker().clone(),
        };
        waiter.set(Some(kept));
        Poll::Pending
    }
}

impl<T: AsFd> Drop for Async<T> {
    fn drop(&mut self) {
        // Before `io` closes its descriptor (fields drop after this).
        let _ = self.reactor.deregister(self.io.as_fd(), self.key);
        if self.was_blocking
            && let Ok(flags) = fcntl_getfl(&self.io)
        {
            let _ = fcntl_setfl(&self.io, flags - OFlags::NONBLOCK);
        }
    }
}
// ANCHOR_END: async

// ANCHOR: read_write
impl<T: AsFd> Async<T>
where
    for<'a> &'a T: Read,
{
    /// Reads into `buf`, waiting while there is nothing to read.
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_io(cx, Direction::Read, |mut io| io.read(buf))).await
    }
}

impl<T: AsFd> Async<T>
where
    for<'a> &'a T: Write,
{
    /// Writes from `buf`, waiting while there is no room.
    pub async fn write(&self, buf: &[u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_io(cx, Direction::Write, |mut io| io.write(buf))).await
    }

    /// Writes all of `buf`.
    pub async fn write_all(&self, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            match self.write(buf).await? {
                0 => return Err(io::ErrorKind::WriteZero.into()),
                n => buf = &buf[n..],
            }
        }
        Ok(())
    }
}
// ANCHOR_END: read_write

// ANCHOR: tcp
impl Async<TcpListener> {
    /// A listener on `addr`, registered.
    pub fn bind(reactor: &Rc<Reactor>, addr: SocketAddr) -> io::Result<Self> {
        Async::new(reactor, TcpListener::bind(addr)?)
    }

    /// Accepts a connection, waiting while there is none. One system call
    /// (`accept4`) gives a descriptor that is non-blocking and closed on
    /// `exec` already, with the peer's address.
    pub async fn accept(&self) -> io::Result<(Async<TcpStream>, SocketAddr)> {
        let flags = SocketFlags::NONBLOCK | SocketFlags::CLOEXEC;
        let (fd, peer) = poll_fn(|cx| {
            self.poll_io(cx, Direction::Read, |listener| {
                Ok(rustix::net::acceptfrom_with(listener, flags)?)
            })
        })
        .await?;
        let peer = peer
            .and_then(|peer| SocketAddr::try_from(peer).ok())
            .ok_or_else(|| io::Error::other("accept gave no IP address"))?;
        // Non-blocking already: registered without asking.
        let (key, source) = self.reactor.register(fd.as_fd())?;
        let stream = Async {
            io: TcpStream::from(fd),
            key,
            source,
            reactor: Rc::clone(&self.reactor),
            was_blocking: false,
        };
        Ok((stream, peer))
    }
}
// ANCHOR_END: tcp

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::lean_runtime::Runtime;
    use crate::syscall_counts::Counts;
    use crate::test_executors::with_patience;
    use crate::test_wakers::TestWaker;
    use std::future::Future;
    use std::os::unix::net::UnixStream;
    use std::pin::Pin;
    use std::thread;

    fn runtime() -> Runtime {
        Runtime::new().unwrap()
    }

    #[test]
    fn a_hundred_messages_make_one_wait_each_and_no_eventfd_write() {
        with_patience(|| {
            let rt = runtime();
            let (ours, mut theirs) = UnixStream::pair().unwrap();
            let ours = Async::new(rt.handle().reactor(), ours).unwrap();
            let peer = thread::spawn(move || {
                for i in 0..100u8 {
                    theirs.write_all(&[i]).unwrap();
                    let mut answer = [0];
                    theirs.read_exact(&mut answer).unwrap();
                    assert_eq!(answer, [i]);
                }
            });
            let before = Counts::now();
            rt.block_on(async {
                let mut buf = [0; 1];
                for i in 0..100u8 {
                    assert_eq!(ours.read(&mut buf).await.unwrap(), 1);
                    assert_eq!(buf, [i]);
                    ours.write_all(&buf).await.unwrap();
                }
            })
            .unwrap();
            let counts = Counts::since(before);
            peer.join().unwrap();
            assert_eq!(counts.eventfd_writes, 0, "{counts:?}");
            assert!(counts.epoll_waits <= 100 + 2, "{counts:?}");
        });
    }

    #[test]
    fn bytes_that_arrive_in_one_report_are_all_read_before_the_next_wait() {
        with_patience(|| {
            // Edge-triggered: one report for 192 KiB. A reader that waited
            // after its first 1 KiB would never hear of the rest.
            let rt = runtime();
            let (ours, mut theirs) = UnixStream::pair().unwrap();
            let ours = Async::new(rt.handle().reactor(), ours).unwrap();
            let sent: Vec<u8> = (0..192 * 1024).map(|i| (i % 251) as u8).collect();
            let expected = sent.clone();
            let writer = thread::spawn(move || {
                theirs.write_all(&sent).unwrap();
                // End of stream: the reader stops at 0.
            });
            let received = rt
                .block_on(async {
                    let mut received = Vec::new();
                    let mut buf = [0; 1024];
                    loop {
                        match ours.read(&mut buf).await.unwrap() {
                            0 => break received,
                            n => received.extend_from_slice(&buf[..n]),
                        }
                    }
                })
                .unwrap();
            writer.join().unwrap();
            assert_eq!(received, expected);
        });
    }

    #[test]
    fn a_writer_waits_for_room_and_finishes_when_the_peer_reads() {
        with_patience(|| {
            let rt = runtime();
            let (ours, theirs) = UnixStream::pair().unwrap();
            let ours = Async::new(rt.handle().reactor(), ours).unwrap();
            // More than a socket buffer holds: the write must wait.
            let sent: Vec<u8> = (0..4 * 1024 * 1024).map(|i| (i % 253) as u8).collect();
            let expected = sent.clone();
            let reader = thread::spawn(move || {
                let mut theirs = theirs;
                let mut received = Vec::new();
                theirs.read_to_end(&mut received).unwrap();
                received
            });
            rt.block_on(ours.write_all(&sent)).unwrap().unwrap();
            drop(ours);
            assert_eq!(reader.join().unwrap(), expected);
        });
    }

    #[test]
    fn accept_gives_a_non_blocking_close_on_exec_stream_and_the_peers_address() {
        with_patience(|| {
            let rt = runtime();
            let listener =
                Async::bind(rt.handle().reactor(), "127.0.0.1:0".parse().unwrap()).unwrap();
            let addr = listener.get_ref().local_addr().unwrap();
            let client = thread::spawn(move || {
                let mut stream = TcpStream::connect(addr).unwrap();
                stream.write_all(b"hello").unwrap();
                stream.local_addr().unwrap()
            });
            let (stream, peer, text) = rt
                .block_on(async {
                    let (stream, peer) = listener.accept().await.unwrap();
                    let mut text = vec![0; 5];
                    let mut len = 0;
                    while len < 5 {
                        len += stream.read(&mut text[len..]).await.unwrap();
                    }
                    (stream, peer, text)
                })
                .unwrap();
            assert_eq!(peer, client.join().unwrap());
            assert_eq!(text, b"hello");
            let status = fcntl_getfl(stream.get_ref()).unwrap();
            assert!(status.contains(OFlags::NONBLOCK));
            let fd_flags = rustix::io::fcntl_getfd(stream.get_ref()).unwrap();
            assert!(fd_flags.contains(rustix::io::FdFlags::CLOEXEC));
        });
    }

    #[test]
    fn of_two_readers_at_once_only_the_later_is_woken_by_a_report() {
        let (reactor, ours, mut theirs) = async_pair();
        let (earlier, later) = (TestWaker::new(), TestWaker::new());
        let (mut first_buf, mut second_buf) = ([0; 1], [0; 1]);
        let mut first = std::pin::pin!(ours.read(&mut first_buf));
        let mut second = std::pin::pin!(ours.read(&mut second_buf));
        let poll = |read: Pin<&mut _>, waker: &TestWaker| {
            Future::poll(read, &mut Context::from_waker(&waker.waker()))
        };
        assert!(poll(first.as_mut(), &earlier).is_pending());
        assert!(poll(second.as_mut(), &later).is_pending());
        // One slot: the earlier waker was dropped, unwoken.
        assert_eq!((earlier.live(), later.live()), (0, 1));
        theirs.write_all(b"x").unwrap();
        reactor.wait_unless(Some(Duration::ZERO), || false).unwrap();
        assert_eq!((earlier.wakes(), later.wakes()), (0, 1));
        assert!(matches!(poll(second.as_mut(), &later), Poll::Ready(Ok(1))));
    }

    #[test]
    fn a_sleep_is_ended_by_the_timer_not_by_epolls_rounded_timeout() {
        // 1.5 ms: epoll alone would wait 2 ms (rustix rounds up). The timer
        // goes off at 1.5 ms, and its report is what ends the wait: it is
        // read, and the reactor forgets it was set. Never early.
        let reactor = Reactor::new().unwrap();
        let after = Duration::from_micros(1500);
        let (start, before) = (Instant::now(), Counts::now());
        reactor.wait_unless(Some(after), || false).unwrap();
        assert!(start.elapsed() >= after, "woke after {:?}", start.elapsed());
        assert_eq!(Counts::since(before).timer_sets, 1, "the timer was set");
        assert_eq!(
            reactor.timer_set_for.get(),
            None,
            "the timer's report was handled"
        );
        // Read: it reports nothing more.
        reactor.wait_unless(Some(Duration::ZERO), || false).unwrap();
        assert!(reactor.events.borrow().is_empty());
    }

    #[test]
    fn the_timer_is_set_only_for_a_deadline_earlier_than_it_goes_off() {
        let reactor = Reactor::new().unwrap();
        let before = Counts::now();
        let sets = || Counts::since(before).timer_sets;
        reactor.set_timer(Duration::from_secs(10)).unwrap();
        // Later: it goes off first anyway, and the loop sleeps again then.
        reactor.set_timer(Duration::from_secs(20)).unwrap();
        assert_eq!(sets(), 1);
        // Earlier: set again.
        reactor.set_timer(Duration::from_secs(5)).unwrap();
        assert_eq!(sets(), 2);
        let left = rustix::time::timerfd_gettime(&reactor.timer)
            .unwrap()
            .it_value;
        let left = Duration::new(left.tv_sec as u64, left.tv_nsec as u32);
        assert!(left <= Duration::from_secs(5), "{left:?} left");
        assert!(
            left > Duration::from_secs(4),
            "{left:?} left (a second to spare)"
        );
    }

    #[test]
    fn a_wait_ended_by_a_notify_leaves_the_timer_as_it_was_set() {
        // The eventfd's report is not the timer's: the timer still goes off
        // at its deadline, so a later deadline needs no new setting.
        let reactor = Reactor::new().unwrap();
        let before = Counts::now();
        reactor.set_timer(Duration::from_secs(10)).unwrap();
        let set_for = reactor.timer_set_for.get();
        assert!(set_for.is_some());
        // A notify once the reactor has said it sleeps: the eventfd is
        // written, and the wait returns at once for it.
        reactor
            .wait_unless(Some(Duration::from_secs(20)), || {
                reactor.notifier().notify();
                false
            })
            .unwrap();
        assert_eq!(Counts::since(before).eventfd_writes, 1);
        assert_eq!(reactor.timer_set_for.get(), set_for);
        assert_eq!(Counts::since(before).timer_sets, 1, "set once only");
    }

    #[test]
    fn debug_shows_whether_a_source_may_be_read_and_written() {
        let (_reactor, ours, _theirs) = async_pair();
        assert_eq!(
            format!("{:?}", ours.source),
            "Source { readable: true, writable: true, .. }"
        );
        // A read finds nothing: not readable until the next report.
        let mut buf = [0; 1];
        let read = std::pin::pin!(ours.read(&mut buf));
        let waker = TestWaker::new().waker();
        let polled = read.poll(&mut Context::from_waker(&waker));
        assert!(polled.is_pending());
        assert_eq!(
            format!("{:?}", ours.source),
            "Source { readable: false, writable: true, .. }"
        );
    }

    #[test]
    fn an_interrupted_call_is_tried_again_not_returned() {
        // A non-blocking read or write never sleeps, so no signal can
        // interrupt a real one at a moment a test chooses; the operation
        // stands in for it here. (`epoll_wait`'s `EINTR` is real in
        // tests/echo.rs, `ch11::signals_interrupting_epoll_wait_lose_nothing`.)
        let (_reactor, ours, _theirs) = async_pair();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        for direction in [Direction::Read, Direction::Write] {
            let mut calls = 0;
            let poll = ours.poll_io(&mut cx, direction, |_| {
                calls += 1;
                match calls {
                    1 | 2 => Err(io::ErrorKind::Interrupted.into()),
                    _ => Ok(7),
                }
            });
            assert!(matches!(poll, Poll::Ready(Ok(7))));
            assert_eq!(calls, 3);
        }
        assert_eq!(task.wakes(), 0);
    }

    #[test]
    fn an_error_that_is_neither_would_block_nor_interrupted_is_returned_at_once() {
        let (_reactor, ours, _theirs) = async_pair();
        let waker = TestWaker::new().waker();
        let mut cx = Context::from_waker(&waker);
        for direction in [Direction::Read, Direction::Write] {
            let mut calls = 0;
            let poll = ours.poll_io(&mut cx, direction, |_| {
                calls += 1;
                match calls {
                    1 => Err(io::ErrorKind::ConnectionReset.into()),
                    _ => Ok(7),
                }
            });
            let Poll::Ready(Err(e)) = poll else {
                panic!("not the error but {poll:?}");
            };
            assert_eq!((e.kind(), calls), (io::ErrorKind::ConnectionReset, 1));
        }
    }

    #[test]
    fn waiting_again_from_the_same_task_keeps_its_waker_without_a_clone() {
        let (_reactor, ours, _theirs) = async_pair();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        for _ in 0..3 {
            let poll = ours.poll_io(&mut cx, Direction::Read, |_| {
                Err::<(), _>(io::ErrorKind::WouldBlock.into())
            });
            assert!(poll.is_pending());
        }
        // One clone, kept: `will_wake` says the stored one would do.
        assert_eq!((task.clones(), task.live()), (1, 2));
    }

    /// A new reactor, and a connected pair of Unix sockets: ours
    /// registered with it as an `Async`, theirs plain, for the test to
    /// write to or read from.
    fn async_pair() -> (Rc<Reactor>, Async<UnixStream>, UnixStream) {
        let reactor = Rc::new(Reactor::new().unwrap());
        let (ours, theirs) = UnixStream::pair().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        (reactor, ours, theirs)
    }

    /// What `reactor` holds registered: its slab's entries, and its epoll
    /// instance's interest list (the eventfd and the timer included).
    fn registered(reactor: &Reactor) -> (usize, usize) {
        let sources = reactor.sources.borrow().len();
        (sources, reactor.poller.interest_count())
    }

    #[test]
    fn a_dropped_async_leaves_the_slab_and_the_interest_list_whether_made_or_accepted() {
        with_patience(|| {
            let rt = runtime();
            let reactor = rt.handle().reactor();
            assert_eq!(
                registered(reactor),
                (0, 2),
                "the eventfd and the timer only"
            );
            let (ours, _theirs) = UnixStream::pair().unwrap();
            let made = Async::new(reactor, ours).unwrap();
            assert_eq!(registered(reactor), (1, 3));
            drop(made);
            assert_eq!(registered(reactor), (0, 2));
            let listener = Async::bind(reactor, "127.0.0.1:0".parse().unwrap()).unwrap();
            let addr = listener.get_ref().local_addr().unwrap();
            let client = TcpStream::connect(addr).unwrap();
            let (accepted, _) = rt.block_on(listener.accept()).unwrap().unwrap();
            assert_eq!(registered(reactor), (2, 4));
            drop(accepted);
            assert_eq!(registered(reactor), (1, 3), "the listener only");
            drop((listener, client));
            assert_eq!(registered(reactor), (0, 2));
            // A hundred more, one after the other: the same number each time.
            for _ in 0..100 {
                let (ours, _theirs) = UnixStream::pair().unwrap();
                assert_eq!(Async::new(reactor, ours).unwrap().key, 0);
            }
            assert_eq!(registered(reactor), (0, 2));
        });
    }

    #[test]
    fn dropping_it_frees_its_number_and_makes_the_descriptor_blocking_again() {
        let rt = runtime();
        let reactor = rt.handle().reactor();
        let (first, _peer) = UnixStream::pair().unwrap();
        let kept = first.try_clone().unwrap();
        let registered = Async::new(reactor, first).unwrap();
        assert_eq!((registered.key, reactor.sources.borrow().len()), (0, 1));
        assert!(fcntl_getfl(&kept).unwrap().contains(OFlags::NONBLOCK));
        drop(registered);
        assert_eq!(reactor.sources.borrow().len(), 0);
        // The copy keeps the open file alive, so epoll would still watch
        // it had the drop not deleted it from the interest list.
        assert_eq!(
            reactor.poller.interest_count(),
            2,
            "the eventfd and the timer only"
        );
        assert!(!fcntl_getfl(&kept).unwrap().contains(OFlags::NONBLOCK));
        // Its number goes to the next one.
        let (second, _peer2) = UnixStream::pair().unwrap();
        assert_eq!(Async::new(reactor, second).unwrap().key, 0);
    }
}
