//! Chapter 8: a reactor on epoll.
//!
//! The reactor keeps, for every registered file descriptor, a token and
//! the wakers of the tasks waiting to read from it or to write to it. A
//! future that gets `WouldBlock` leaves its waker here and arms the
//! descriptor; a readiness report for the token wakes exactly those
//! wakers. There is no reactor thread: whoever has nothing better to do
//! calls [`Reactor::wait`] (one thread at a time), which sleeps in
//! `epoll_wait` — here
//! [`Reactor::block_on`], in chapter 9 the runtime's loop. A wake from
//! another thread reaches that sleeper through the [`Notifier`]'s eventfd,
//! which is in the same interest list.
//!
//! Entries are *oneshot*: a report disarms the descriptor until a waiter
//! arms it again. Each arming is one more `epoll_ctl`, but in return a
//! descriptor nobody waits for is not reported again and again
//! (level-triggered would report it on every wait), and arming checks the
//! descriptor's current state, so readiness that came before the waker was
//! stored is not lost (edge-triggered would have reported it already, to
//! nobody). The one rule: the waker is stored and the descriptor armed in
//! one critical section with respect to `wait`'s lookup of the waker; with
//! both under the `sources` lock, a report that `wait` takes meanwhile
//! waits for the lock and finds the waker (see the tests).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::os::fd::BorrowedFd;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use super::epoll::{Event, Interest, Mode, Poller};
use super::notifier::Notifier;

// ANCHOR: reactor
/// An epoll reactor: wakes the task waiting on a descriptor when it
/// becomes ready. Share it with `Arc`: any thread may register and wait
/// for a descriptor, but only one at a time calls [`Reactor::wait`].
#[derive(Debug)]
pub struct Reactor {
    poller: Poller,
    notifier: Arc<Notifier>,
    sources: Mutex<Sources>,
    /// The reports of the last wait, and the wakers they woke; held by the
    /// one thread in `wait`, and reused from wait to wait.
    events: Mutex<(Vec<Event>, Vec<Waker>)>,
}

/// The registered descriptors, by token.
#[derive(Debug, Default)]
struct Sources {
    waiting: HashMap<u64, Waiters>,
    /// The next token to hand out. Tokens are never reused, so a late
    /// report for a descriptor that is gone finds no entry.
    next_token: u64,
}

/// Who waits on one descriptor.
#[derive(Debug, Default)]
struct Waiters {
    reader: Option<Waker>,
    writer: Option<Waker>,
}

/// Which way a task waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Until the descriptor is readable.
    Read,
    /// Until the descriptor is writable.
    Write,
}

/// The token of the notifier's eventfd.
const NOTIFY: u64 = 0;
// ANCHOR_END: reactor

// ANCHOR: register
impl Reactor {
    /// A reactor with its epoll instance and its eventfd.
    pub fn new() -> io::Result<Self> {
        let poller = Poller::new()?;
        let notifier = Arc::new(Notifier::new()?);
        // Level-triggered: a notify is reported until `wait` drains it.
        poller.add(&*notifier, NOTIFY, Interest::READABLE, Mode::Level)?;
        Ok(Reactor {
            poller,
            notifier,
            sources: Mutex::new(Sources {
                next_token: NOTIFY + 1,
                ..Sources::default()
            }),
            events: Mutex::new((Vec::new(), Vec::new())),
        })
    }

    /// The registered descriptors. A panic under this lock (a waker's
    /// `clone` may run foreign code) leaves them consistent, so a poisoned
    /// lock is taken as it is: `Async`'s destructor deregisters under it,
    /// and a panic there, during unwinding, would abort the process.
    fn sources(&self) -> MutexGuard<'_, Sources> {
        self.sources.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The notifier that interrupts a `wait` from any thread.
    pub fn notifier(&self) -> &Arc<Notifier> {
        &self.notifier
    }

    /// Adds `fd` to the interest list, disarmed; returns its token. The
    /// caller must call `deregister` before closing `fd`.
    pub fn register(&self, fd: BorrowedFd<'_>) -> io::Result<u64> {
        let token = {
            let mut sources = self.sources();
            let token = sources.next_token;
            sources.next_token += 1;
            sources.waiting.insert(token, Waiters::default());
            token
        };
        if let Err(e) = self.poller.add(fd, token, Interest::NONE, Mode::Oneshot) {
            self.sources().waiting.remove(&token);
            return Err(e);
        }
        Ok(token)
    }

    /// Removes `fd` from the interest list and lets go of its wakers.
    pub fn deregister(&self, fd: BorrowedFd<'_>, token: u64) -> io::Result<()> {
        let waiters = self.sources().waiting.remove(&token);
        // Dropped here, after unlocking: dropping a waker runs its
        // executor's code, which must not run under our lock.
        drop(waiters);
        self.poller.delete(fd)
    }
}
// ANCHOR_END: register

// ANCHOR: wait_for
impl Reactor {
    /// Leaves `waker` to be woken once `fd` (registered as `token`) is
    /// ready in `direction`, replacing the waker an earlier call left.
    /// Call it after the operation returned `WouldBlock`, then return
    /// `Pending`.
    pub fn wait_for(
        &self,
        fd: BorrowedFd<'_>,
        token: u64,
        direction: Direction,
        waker: &Waker,
    ) -> io::Result<()> {
        let mut sources = self.sources();
        let Some(waiters) = sources.waiting.get_mut(&token) else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "wait_for on a token that is not registered",
            ));
        };
        let slot = match direction {
            Direction::Read => &mut waiters.reader,
            Direction::Write => &mut waiters.writer,
        };
        let replaced = match slot {
            Some(old) if old.will_wake(waker) => None,
            _ => slot.replace(waker.clone()),
        };
        let interest = waiters.interest();
        // Stored and armed under one lock: a report that a thread in
        // `wait` takes from here on waits for this lock, then finds the
        // waker. (The order of the two steps matters only without the
        // lock, with a slot that `wait` reads as soon as the report comes.)
        let armed = self.poller.modify(fd, token, interest, Mode::Oneshot);
        drop(sources);
        drop(replaced);
        armed
    }
}

impl Waiters {
    /// What the stored wakers wait for.
    fn interest(&self) -> Interest {
        Interest {
            readable: self.reader.is_some(),
            writable: self.writer.is_some(),
        }
    }
}
// ANCHOR_END: wait_for

// ANCHOR: wait
impl Reactor {
    /// Sleeps in `epoll_wait` until a registered descriptor is ready, a
    /// notify comes, or `timeout` passes (`None`: no limit); then wakes
    /// the tasks waiting on what was reported. May return with nothing
    /// done (a signal, a late report): callers loop.
    ///
    /// Panics if another thread is in `wait`: the eventfd's one write is
    /// drained by whichever waiting thread gets to it first, so the other
    /// could sleep through a wake meant for it.
    pub fn wait(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.wait_unless(timeout, || false)
    }

    /// The same, for a caller with work that other threads add to (a run
    /// queue): once the notifier says this thread sleeps, `has_work`
    /// looks at that work once more, and if there is some, the wait only
    /// looks (timeout zero) instead of sleeping.
    pub fn wait_unless(
        &self,
        timeout: Option<Duration>,
        has_work: impl FnOnce() -> bool,
    ) -> io::Result<()> {
        let mut buffers = match self.events.try_lock() {
            Ok(buffers) => buffers,
            Err(TryLockError::WouldBlock) => panic!("two threads in Reactor::wait at once"),
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        };
        let (events, to_wake) = &mut *buffers;
        // A wait that only looks leaves the thread awake; one that may
        // sleep tells the notifier first, so that a notify from now on
        // writes the eventfd.
        let sleeps = timeout != Some(Duration::ZERO) && self.notifier.may_sleep(has_work);
        let timeout = if sleeps {
            timeout
        } else {
            Some(Duration::ZERO)
        };
        let waited = self.poller.wait(events, timeout);
        // Awake: from here on, wakes (ours below included) write nothing.
        let reported = events.iter().any(|event| event.token == NOTIFY);
        self.notifier.woke(reported);
        waited?;
        let mut sources = self.sources();
        for event in events.iter() {
            // A report for a token that is gone: its descriptor was
            // deregistered after `epoll_wait` collected the report (or
            // it is the eventfd's, already drained).
            let Some(waiters) = sources.waiting.get_mut(&event.token) else {
                continue;
            };
            if event.readable {
                to_wake.extend(waiters.reader.take());
            }
            if event.writable {
                to_wake.extend(waiters.writer.take());
            }
            // The report disarmed the entry. A waiter the report was not
            // for (a writer, when the descriptor became readable) still
            // needs it armed.
            let interest = waiters.interest();
            if interest != Interest::NONE {
                // The descriptor itself is not at hand, only its token;
                // the waiter re-arms it on its next `wait_for`. Wake it so
                // that it makes that call: one poll that finds
                // `WouldBlock` and one `epoll_ctl`.
                to_wake.extend(waiters.reader.take());
                to_wake.extend(waiters.writer.take());
            }
        }
        drop(sources);
        // Outside the `sources` lock: a waker runs its executor's code.
        // (The buffer stays ours, so a waker that calls `wait` panics as
        // two threads at once would; its allocation is kept for the next
        // wait.)
        for waker in to_wake.drain(..) {
            waker.wake();
        }
        Ok(())
    }
}
// ANCHOR_END: wait

// ANCHOR: block_on
impl Reactor {
    /// Runs `future` to completion on this thread. Between polls the
    /// thread sleeps in this reactor's `wait`, so it serves the future's
    /// I/O while it waits; a wake from any thread ends the sleep.
    /// Panics if another thread is waiting on this reactor meanwhile.
    pub fn block_on<F: Future>(&self, future: F) -> io::Result<F::Output> {
        let mut future = pin!(future);
        let signal = Arc::new(WakeSignal {
            woken: AtomicBool::new(false),
            notifier: Arc::clone(&self.notifier),
        });
        let waker = Waker::from(Arc::clone(&signal));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                return Ok(output);
            }
            // Sleep until a wake: from the reactor's own reports, or a
            // notify from another thread. The last look before sleeping
            // is at `woken`: a wake that found this thread awake did not
            // write the eventfd.
            while !signal.woken.swap(false, Ordering::Acquire) {
                self.wait_unless(None, || signal.woken.load(Ordering::Acquire))?;
            }
        }
    }
}

/// The waker of `block_on`'s future.
#[derive(Debug)]
struct WakeSignal {
    /// Set by every wake, cleared before the next poll.
    woken: AtomicBool,
    notifier: Arc<Notifier>,
}

impl Wake for WakeSignal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        // Interrupts the wait if the thread sleeps in it; nothing (no
        // system call) if it is awake. Never blocks, never allocates.
        self.notifier.notify();
    }
}
// ANCHOR_END: block_on

#[cfg(all(test, not(loom)))]
impl Reactor {
    /// How many descriptors are registered.
    pub(crate) fn registered(&self) -> usize {
        self.sources().waiting.len()
    }

    /// How many wakers wait for a report now, readers and writers.
    pub(crate) fn waiting_wakers(&self) -> usize {
        let sources = self.sources();
        let waiting = sources.waiting.values();
        waiting
            .map(|w| usize::from(w.reader.is_some()) + usize::from(w.writer.is_some()))
            .sum()
    }

    /// Wakes every waiting task as if all its descriptors were reported
    /// ready, when none is: spurious readiness, for the tests of code that
    /// must survive it. Returns how many wakers it woke.
    pub(crate) fn report_everything_spuriously(&self) -> usize {
        let to_wake: Vec<Waker> = {
            let mut sources = self.sources();
            sources
                .waiting
                .values_mut()
                .flat_map(|w| [w.reader.take(), w.writer.take()])
                .flatten()
                .collect()
        };
        let woken = to_wake.len();
        for waker in to_wake {
            waker.wake();
        }
        woken
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_wakers::TestWaker;
    use std::io::Write;
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;
    use std::panic::AssertUnwindSafe;
    use std::thread;

    const NOW: Option<Duration> = Some(Duration::ZERO);

    fn registered_pair(reactor: &Reactor) -> (UnixStream, UnixStream, u64) {
        let (reader, writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        let token = reactor.register(reader.as_fd()).unwrap();
        (reader, writer, token)
    }

    #[test]
    fn a_report_wakes_exactly_the_task_that_waits_on_it() {
        let reactor = Reactor::new().unwrap();
        let (a, mut a_peer, a_token) = registered_pair(&reactor);
        let (b, _b_peer, b_token) = registered_pair(&reactor);
        let (task_a, task_b) = (TestWaker::new(), TestWaker::new());
        reactor
            .wait_for(a.as_fd(), a_token, Direction::Read, &task_a.waker())
            .unwrap();
        reactor
            .wait_for(b.as_fd(), b_token, Direction::Read, &task_b.waker())
            .unwrap();
        a_peer.write_all(b"x").unwrap();
        reactor.wait(Some(Duration::from_secs(20))).unwrap();
        assert_eq!((task_a.wakes(), task_b.wakes()), (1, 0));
        // Oneshot: not reported again until someone waits again.
        reactor.wait(NOW).unwrap();
        assert_eq!(task_a.wakes(), 1);
    }

    #[test]
    fn waiting_again_replaces_the_waker() {
        let reactor = Reactor::new().unwrap();
        let (a, mut peer, token) = registered_pair(&reactor);
        let (old, new) = (TestWaker::new(), TestWaker::new());
        reactor
            .wait_for(a.as_fd(), token, Direction::Read, &old.waker())
            .unwrap();
        reactor
            .wait_for(a.as_fd(), token, Direction::Read, &new.waker())
            .unwrap();
        assert_eq!(old.live(), 0, "the old waker was let go");
        peer.write_all(b"x").unwrap();
        reactor.wait(Some(Duration::from_secs(20))).unwrap();
        assert_eq!((old.wakes(), new.wakes()), (0, 1));
    }

    #[test]
    fn waiting_again_from_the_same_task_keeps_its_waker_without_a_clone() {
        let reactor = Reactor::new().unwrap();
        let (a, mut peer, token) = registered_pair(&reactor);
        let task = TestWaker::new();
        let waker = task.waker();
        for _ in 0..3 {
            reactor
                .wait_for(a.as_fd(), token, Direction::Read, &waker)
                .unwrap();
        }
        // One clone, kept: `will_wake` says the stored one would do.
        assert_eq!(task.clones(), 1);
        assert_eq!(task.live(), 2);
        peer.write_all(b"x").unwrap();
        reactor.wait(Some(Duration::from_secs(20))).unwrap();
        assert_eq!(task.wakes(), 1);
    }

    #[test]
    fn a_wait_ended_by_a_notify_reads_the_eventfd_back_to_zero() {
        let reactor = Arc::new(Reactor::new().unwrap());
        let notifying = {
            let reactor = Arc::clone(&reactor);
            thread::spawn(move || {
                // Once the waiting thread has said it sleeps: a write.
                while !reactor.notifier().is_asleep() {
                    thread::yield_now();
                }
                reactor.notifier().notify();
            })
        };
        // Only the notify can end this wait (nothing is registered).
        reactor.wait(Some(crate::test_executors::PATIENCE)).unwrap();
        notifying.join().unwrap();
        // The eventfd's counter is zero again: not readable, so the next
        // `epoll_wait` does not return at once for it.
        let mut count = [0u8; 8];
        assert_eq!(
            rustix::io::read(reactor.notifier().as_fd(), &mut count),
            Err(rustix::io::Errno::AGAIN)
        );
    }

    #[test]
    fn deregistering_lets_go_of_the_wakers_and_stale_reports_are_ignored() {
        let reactor = Reactor::new().unwrap();
        let (a, mut peer, token) = registered_pair(&reactor);
        let task = TestWaker::new();
        reactor
            .wait_for(a.as_fd(), token, Direction::Read, &task.waker())
            .unwrap();
        peer.write_all(b"x").unwrap();
        reactor.deregister(a.as_fd(), token).unwrap();
        assert_eq!(task.live(), 0);
        reactor.wait(NOW).unwrap();
        assert_eq!(task.wakes(), 0);
    }

    #[test]
    fn a_reader_and_a_writer_on_one_descriptor_each_get_their_report() {
        let reactor = Reactor::new().unwrap();
        let (a, mut peer, token) = registered_pair(&reactor);
        // Fill the socket so that it is not writable.
        let mut filled = 0;
        while let Ok(n) = rustix::io::write(&a, &[0; 4096]) {
            filled += n;
        }
        let (reader, writer) = (TestWaker::new(), TestWaker::new());
        reactor
            .wait_for(a.as_fd(), token, Direction::Read, &reader.waker())
            .unwrap();
        reactor
            .wait_for(a.as_fd(), token, Direction::Write, &writer.waker())
            .unwrap();
        peer.write_all(b"x").unwrap();
        reactor.wait(Some(Duration::from_secs(20))).unwrap();
        assert_eq!(reader.wakes(), 1);
        // The writer was woken too, to arm the descriptor again for itself.
        assert_eq!(writer.wakes(), 1);
        // Now make room: its wait is reported as it should.
        reactor
            .wait_for(a.as_fd(), token, Direction::Write, &writer.waker())
            .unwrap();
        let mut sink = vec![0; filled];
        std::io::Read::read_exact(&mut peer, &mut sink).unwrap();
        reactor.wait(Some(Duration::from_secs(20))).unwrap();
        assert_eq!(writer.wakes(), 2);
    }

    #[test]
    fn arming_and_storing_in_two_critical_sections_loses_the_report() {
        // What a thread in `wait` can do between the two steps of a future
        // that arms outside the lock and stores the waker after, written
        // out step by step.
        let reactor = Reactor::new().unwrap();
        let (a, mut peer, token) = registered_pair(&reactor);
        peer.write_all(b"x").unwrap();
        let task = TestWaker::new();
        // 1. The future arms the descriptor...
        reactor
            .poller
            .modify(&a, token, Interest::READABLE, Mode::Oneshot)
            .unwrap();
        // 2. ...the waiting thread takes the report, finds no waker...
        reactor.wait(NOW).unwrap();
        // 3. ...and the waker is stored too late: nothing will wake it.
        reactor
            .sources
            .lock()
            .unwrap()
            .waiting
            .get_mut(&token)
            .unwrap()
            .reader = Some(task.waker());
        peer.write_all(b"more").unwrap();
        reactor.wait(Some(Duration::from_millis(50))).unwrap();
        assert_eq!(task.wakes(), 0, "the task sleeps for ever");
    }

    #[test]
    fn storing_and_arming_under_one_lock_catches_the_report() {
        // `wait_for` stores and arms under the `sources` lock: the report
        // of a descriptor that was ready all along finds the waker.
        let reactor = Reactor::new().unwrap();
        let (b, mut peer, token) = registered_pair(&reactor);
        peer.write_all(b"x").unwrap();
        let task = TestWaker::new();
        reactor
            .wait_for(b.as_fd(), token, Direction::Read, &task.waker())
            .unwrap();
        reactor.wait(NOW).unwrap();
        assert_eq!(task.wakes(), 1);
    }

    #[test]
    fn a_second_thread_waiting_at_once_is_refused() {
        let reactor = Arc::new(Reactor::new().unwrap());
        let first = {
            let reactor = Arc::clone(&reactor);
            thread::spawn(move || reactor.wait(None))
        };
        // Let the first thread get into `epoll_wait`: it holds the events
        // lock, and it has marked itself asleep. (Holding the lock is not
        // enough for the notify below: one that came before `may_sleep`
        // would find the thread awake, write nothing, and the wait with no
        // timeout would never end.)
        while reactor.events.try_lock().is_ok() || !reactor.notifier().is_asleep() {
            thread::yield_now();
        }
        let second = std::panic::catch_unwind(|| reactor.wait(Some(Duration::ZERO)));
        assert!(second.is_err());
        reactor.notifier().notify();
        first.join().unwrap().unwrap();
    }

    #[test]
    fn waiting_on_an_unregistered_token_is_an_error_not_a_panic() {
        let reactor = Reactor::new().unwrap();
        let (a, _peer, token) = registered_pair(&reactor);
        reactor.deregister(a.as_fd(), token).unwrap();
        let task = TestWaker::new();
        let err = reactor
            .wait_for(a.as_fd(), token, Direction::Read, &task.waker())
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        // The lock is not poisoned: the reactor works on.
        let (b, _b_peer, b_token) = registered_pair(&reactor);
        reactor.deregister(b.as_fd(), b_token).unwrap();
    }

    #[test]
    fn a_panic_under_the_sources_lock_does_not_make_deregistering_panic() {
        use std::task::{RawWaker, RawWakerVTable};
        // A waker whose `clone` panics: `wait_for` clones it under the
        // `sources` lock, which the panic poisons.
        fn panicking_clone(_: *const ()) -> RawWaker {
            panic!("a waker's clone panicked");
        }
        fn nothing(_: *const ()) {}
        static VTABLE: RawWakerVTable =
            RawWakerVTable::new(panicking_clone, nothing, nothing, nothing);
        // SAFETY: every function of the vtable ignores the data pointer
        // (null), so any use of the waker, from any thread, is sound.
        let waker = unsafe { Waker::from_raw(RawWaker::new(std::ptr::null(), &VTABLE)) };
        let reactor = Reactor::new().unwrap();
        let (a, _peer, token) = registered_pair(&reactor);
        let panicked = std::panic::catch_unwind(AssertUnwindSafe(|| {
            reactor.wait_for(a.as_fd(), token, Direction::Read, &waker)
        }));
        assert!(panicked.is_err());
        // What `Async::drop` does, during that unwinding in real code: a
        // panic here would abort the process.
        reactor.deregister(a.as_fd(), token).unwrap();
        assert_eq!(reactor.registered(), 0);
    }

    #[test]
    fn block_on_polls_again_once_for_many_wakes() {
        // The scene is described at `woken_a_thousand_times_then_once`.
        let reactor = Reactor::new().unwrap();
        let (future, polls) = crate::test_executors::woken_a_thousand_times_then_once();
        reactor.block_on(future).unwrap();
        assert_eq!(polls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn block_on_writes_no_eventfd_for_the_reports_it_takes_itself() {
        let reactor = Arc::new(Reactor::new().unwrap());
        let (echo, peer) = crate::test_executors::a_hundred_messages(&reactor);
        let before = crate::syscall_counts::Counts::now();
        reactor.block_on(echo).unwrap();
        let counts = crate::syscall_counts::Counts::since(before);
        peer.join().unwrap();
        // Each report wakes the future while this thread is awake: no
        // write, and one wait per message.
        assert_eq!(counts.eventfd_writes, 0, "{counts:?}");
        assert!(counts.epoll_waits <= 100, "{counts:?}");
    }

    #[test]
    fn block_on_runs_a_future_woken_from_another_thread() {
        let reactor = Reactor::new().unwrap();
        let (tx, rx) = futures::channel::oneshot::channel();
        let sender = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            tx.send(42).unwrap();
        });
        assert_eq!(reactor.block_on(rx).unwrap(), Ok(42));
        sender.join().unwrap();
    }
}
