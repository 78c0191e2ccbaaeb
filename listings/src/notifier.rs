//! Chapter 8: an `eventfd`, so that a wake from another thread interrupts
//! `epoll_wait`.
//!
//! A thread asleep in `epoll_wait` hears only of the descriptors in its
//! interest list. A `wake` from another thread (a timer thread, a library's
//! worker) must therefore make one of them ready: an eventfd is a counter
//! in the kernel, readable while it is not zero. Writing 1 to it wakes the
//! waiting thread; reading it resets it to zero.
//!
//! A write is needed only while the waiting thread sleeps. The
//! [`Notifier`] keeps an `awake` flag, as tokio's and async-io's reactors
//! do: set when the wait returns, cleared just before the next one. While
//! it is set, `notify` is one atomic swap and no system call, whether it
//! comes from another thread or from the waiting thread itself (a task
//! waking another). Clearing it is followed by one more look at the work,
//! so that a wake that found the flag still set is not slept through.

use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::Ordering;

#[cfg(loom)]
use loom::sync::atomic::AtomicBool;
#[cfg(not(loom))]
use std::sync::atomic::AtomicBool;

#[cfg(not(loom))]
use self::eventfd::EventFd;
// The model checker cannot run system calls: under `--cfg loom` the
// counter is a loom mutex, and waiting on it is a loom condition variable.
#[cfg(loom)]
pub(crate) use self::loom_eventfd::EventFd;

// ANCHOR: notifier
/// Wakes a thread from `epoll_wait`, from any thread; writes only while
/// that thread sleeps, and then once however many times it is called.
#[derive(Debug)]
pub struct Notifier {
    event: EventFd,
    /// True while no write is needed: the waiting thread is awake (it
    /// looks at its work before it sleeps again), or the write that wakes
    /// it is on its way. Cleared by that thread just before it sleeps.
    awake: AtomicBool,
}

impl Notifier {
    /// A notifier with a fresh eventfd. The thread that will wait on it is
    /// running now: awake.
    pub fn new() -> io::Result<Self> {
        Ok(Notifier {
            event: EventFd::new()?,
            awake: AtomicBool::new(true),
        })
    }

    /// Makes sure the waiting thread sees what the caller did before (say,
    /// queue a task): writes the eventfd if that thread sleeps, and
    /// nothing if it is awake. Never blocks, never allocates.
    pub fn notify(&self) {
        // `AcqRel`: what the caller did before is published with the flag,
        // whether or not this call writes; the waiting thread's swaps
        // below read it.
        if !self.awake.swap(true, Ordering::AcqRel) {
            self.event.signal();
        }
    }

    /// Called by the waiting thread just before it sleeps: from here on a
    /// `notify` writes. Then `has_work` looks at its work once more (a
    /// `notify` that came before the flag went down did not write);
    /// returns whether the thread may sleep.
    pub fn may_sleep(&self, has_work: impl FnOnce() -> bool) -> bool {
        // A read-modify-write, not a plain store: a `notify` that skipped
        // its write came before this swap, and reading the value it left
        // (`Acquire`) makes what it published visible to `has_work`.
        self.awake.swap(false, Ordering::AcqRel);
        !has_work()
    }

    /// Called by the waiting thread as soon as its wait returns: notifies
    /// are free again. If the wait reported the eventfd, reads it back to
    /// zero, so that it stops being readable.
    pub fn woke(&self, reported: bool) {
        // What the waking `notify` published is visible already (the
        // eventfd's write and read order it), so `Relaxed` is enough. But
        // a swap, not a store: a `notify` that skipped its write just
        // before stays in the chain of read-modify-writes that the swap in
        // `may_sleep` reads, and so synchronizes with it; a plain store
        // would cut that chain.
        self.awake.swap(true, Ordering::Relaxed);
        if reported {
            self.event.drain();
        }
    }
}

impl AsFd for Notifier {
    /// The eventfd, to add to an epoll interest list.
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.event.as_fd()
    }
}
// ANCHOR_END: notifier

#[cfg(test)]
impl Notifier {
    /// Whether the waiting thread has said it sleeps (or is about to).
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn is_asleep(&self) -> bool {
        !self.awake.load(Ordering::Acquire)
    }

    /// `epoll_wait` on the eventfd alone, under the model checker.
    #[cfg(loom)]
    pub(crate) fn wait_readable(&self) {
        self.event.wait_readable();
    }
}

#[cfg(not(loom))]
mod eventfd {
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

    use rustix::event::{EventfdFlags, eventfd};
    #[cfg(not(test))]
    use rustix::io::write;
    // The tests count the writes (see `syscall_counts`).
    #[cfg(test)]
    use crate::syscall_counts::write;

    // ANCHOR: eventfd
    /// An eventfd in non-blocking mode: its counter, and its descriptor.
    #[derive(Debug)]
    pub struct EventFd(OwnedFd);

    impl EventFd {
        pub fn new() -> io::Result<Self> {
            let fd = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?;
            Ok(EventFd(fd))
        }

        /// Adds 1 to the counter: the descriptor is readable.
        pub fn signal(&self) {
            // Fails only if the counter would pass `u64::MAX - 1`, which
            // a counter that is read back to zero after every wait never
            // nears; a failed write would still leave it readable.
            let _ = write(&self.0, &1u64.to_ne_bytes());
        }

        /// Reads the counter back to zero (`EAGAIN` if it already was).
        pub fn drain(&self) {
            let mut count = [0u8; 8];
            let _ = rustix::io::read(&self.0, &mut count);
        }
    }
    // ANCHOR_END: eventfd

    impl AsFd for EventFd {
        fn as_fd(&self) -> BorrowedFd<'_> {
            self.0.as_fd()
        }
    }
}

/// A stand-in for the eventfd that loom can explore: the counter under a
/// loom mutex, and a wait for it to be non-zero, as `epoll_wait` would.
#[cfg(loom)]
mod loom_eventfd {
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd};

    use loom::sync::{Condvar, Mutex};

    #[derive(Debug)]
    pub(crate) struct EventFd {
        count: Mutex<u64>,
        readable: Condvar,
    }

    impl EventFd {
        pub fn new() -> io::Result<Self> {
            Ok(EventFd {
                count: Mutex::new(0),
                readable: Condvar::new(),
            })
        }

        pub fn signal(&self) {
            *self.count.lock().unwrap() += 1;
            self.readable.notify_all();
        }

        pub fn drain(&self) {
            *self.count.lock().unwrap() = 0;
        }

        /// `epoll_wait` on this eventfd alone, with no timeout.
        #[cfg(test)]
        pub fn wait_readable(&self) {
            let mut count = self.count.lock().unwrap();
            while *count == 0 {
                count = self.readable.wait(count).unwrap();
            }
        }
    }

    impl AsFd for EventFd {
        fn as_fd(&self) -> BorrowedFd<'_> {
            unreachable!("the loom model never adds the eventfd to epoll")
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::epoll::{Interest, Mode, Poller};
    use std::sync::Arc;
    use std::thread;
    use std::time::Duration;

    /// Reads the eventfd's counter without changing it: the number of
    /// writes since the last drain.
    fn pending_writes(notifier: &Notifier) -> u64 {
        let mut count = [0u8; 8];
        match rustix::io::read(notifier, &mut count) {
            Ok(_) => {
                let n = u64::from_ne_bytes(count);
                // Put it back.
                rustix::io::write(notifier, &count).unwrap();
                n
            }
            Err(rustix::io::Errno::AGAIN) => 0,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn notifies_while_awake_write_nothing_and_while_asleep_write_once() {
        let notifier = Notifier::new().unwrap();
        // Awake from the start: nothing to write.
        for _ in 0..1000 {
            notifier.notify();
        }
        assert_eq!(pending_writes(&notifier), 0);
        // About to sleep: the first notify writes, the rest do not.
        assert!(notifier.may_sleep(|| false));
        for _ in 0..1000 {
            notifier.notify();
        }
        assert_eq!(pending_writes(&notifier), 1);
        // Awake again, and the counter read back.
        notifier.woke(true);
        assert_eq!(pending_writes(&notifier), 0);
        notifier.notify();
        assert_eq!(pending_writes(&notifier), 0);
    }

    #[test]
    fn the_last_look_before_sleeping_sees_a_wake_that_did_not_write() {
        let notifier = Notifier::new().unwrap();
        let queue = std::sync::Mutex::new(Vec::new());
        // Another thread queues work while the waiting thread is awake:
        // no write...
        queue.lock().unwrap().push(1);
        notifier.notify();
        assert_eq!(pending_writes(&notifier), 0);
        // ...so the waiting thread must not sleep: its last look sees it.
        assert!(!notifier.may_sleep(|| !queue.lock().unwrap().is_empty()));
    }

    #[test]
    fn a_notify_from_another_thread_ends_an_endless_wait() {
        let poller = Poller::new().unwrap();
        let notifier = Arc::new(Notifier::new().unwrap());
        poller
            .add(&*notifier, 0, Interest::READABLE, Mode::Level)
            .unwrap();
        let remote = Arc::clone(&notifier);
        assert!(notifier.may_sleep(|| false));
        let waker = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            remote.notify();
        });
        let mut events = Vec::new();
        // No timeout: only the notify can end this wait.
        poller.wait(&mut events, None).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].token, 0);
        notifier.woke(true);
        waker.join().unwrap();
        // Drained: the next wait sees nothing.
        poller.wait(&mut events, Some(Duration::ZERO)).unwrap();
        assert!(events.is_empty());
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The waiting side of a runtime, against a thread that adds work and
    //! notifies: the model checker tries every interleaving (and every
    //! value a relaxed load may read), and a lost wake-up shows as a
    //! deadlock (the waiting side asleep for ever). The waiting side calls
    //! the notifier's own `may_sleep` and `woke`, as `Reactor::wait` does.

    use super::*;
    use loom::sync::atomic::AtomicUsize;
    // std's `Arc`: a loom one dropped while the deadlock panic unwinds
    // would panic again, and abort.
    use std::sync::Arc;

    /// How many items the other thread adds.
    const ITEMS: usize = 2;

    /// Adds `ITEMS` items of work from another thread while the waiting
    /// side takes them, sleeping on the eventfd whenever it finds none.
    /// The work is a counter accessed with `Relaxed`: only the notifier's
    /// swaps order it, so weakening them loses a wake. With `look_first`,
    /// the waiting side takes its last look *before* clearing the flag.
    fn waiting_side_against_wakes(look_first: bool) {
        loom::model(move || {
            let notifier = Arc::new(Notifier::new().unwrap());
            let added = Arc::new(AtomicUsize::new(0));
            let other = {
                let (notifier, added) = (Arc::clone(&notifier), Arc::clone(&added));
                loom::thread::spawn(move || {
                    for _ in 0..ITEMS {
                        added.fetch_add(1, Ordering::Relaxed);
                        notifier.notify();
                    }
                })
            };
            let mut done = 0;
            while done < ITEMS {
                let seen = added.load(Ordering::Relaxed);
                if seen > done {
                    done = seen;
                    continue;
                }
                let sleeps = if look_first {
                    let has_work = added.load(Ordering::Relaxed) > done;
                    notifier.may_sleep(|| has_work)
                } else {
                    notifier.may_sleep(|| added.load(Ordering::Relaxed) > done)
                };
                if sleeps {
                    notifier.event.wait_readable();
                }
                notifier.woke(sleeps);
            }
            other.join().unwrap();
        });
    }

    #[test]
    fn loom_a_wake_racing_the_sleep_is_never_lost() {
        waiting_side_against_wakes(false);
    }

    #[test]
    #[should_panic(expected = "deadlock")]
    fn loom_a_last_look_before_clearing_the_flag_loses_a_wake() {
        waiting_side_against_wakes(true);
    }
}
