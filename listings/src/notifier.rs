//! Chapter 8: an `eventfd`, so that a wake from another thread interrupts
//! `epoll_wait`.
//!
//! A thread asleep in `epoll_wait` hears only of the descriptors in its
//! interest list. A `wake` from another thread (a timer thread, a library's
//! worker) must therefore make one of them ready: an eventfd is a counter
//! in the kernel, readable while it is not zero. Writing 1 to it wakes the
//! waiting thread; reading it resets it to zero.
//!
//! A thousand wakes between two waits need one write, not a thousand: the
//! [`Notifier`] writes only when its `notified` flag goes from false to
//! true, and the waiting side clears the flag after each wait, *after*
//! having read the counter (the tests show what the other order loses).

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
/// Wakes a thread from `epoll_wait`, from any thread, at most one write
/// per wait however many times it is called.
#[derive(Debug)]
pub struct Notifier {
    event: EventFd,
    /// True from the first `notify` after a wait until the waiting side
    /// calls `reset`: while it is, a write is already on its way.
    notified: AtomicBool,
}

impl Notifier {
    /// A notifier with a fresh eventfd, not notified.
    pub fn new() -> io::Result<Self> {
        Ok(Notifier {
            event: EventFd::new()?,
            notified: AtomicBool::new(false),
        })
    }

    /// Makes the eventfd readable, unless an earlier call since the last
    /// `reset` did. Never blocks, never allocates.
    pub fn notify(&self) {
        // `AcqRel`: what the caller did before (queue a task) is published
        // with the flag, whether or not this call writes.
        if !self.notified.swap(true, Ordering::AcqRel) {
            self.event.signal();
        }
    }

    /// Called by the waiting side after a wait that reported the eventfd:
    /// reads the counter back to zero, so that it stops being readable.
    pub fn drain(&self) {
        self.event.drain();
    }

    /// Called by the waiting side after each wait, after `drain`: the next
    /// `notify` writes again. Whatever was notified before this call, the
    /// caller looks at next (its queue of tasks) before waiting again.
    pub fn reset(&self) {
        // A read-modify-write, not a plain store: it reads the flag as the
        // last `notify` left it, so what every `notify` since the last
        // reset published (even one that skipped its write) is visible to
        // the caller from here on.
        self.notified.swap(false, Ordering::AcqRel);
    }
}

impl AsFd for Notifier {
    /// The eventfd, to add to an epoll interest list.
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.event.as_fd()
    }
}
// ANCHOR_END: notifier

#[cfg(not(loom))]
mod eventfd {
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

    use rustix::event::{EventfdFlags, eventfd};

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
            let _ = rustix::io::write(&self.0, &1u64.to_ne_bytes());
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
    fn a_thousand_notifies_between_two_waits_write_once() {
        let notifier = Notifier::new().unwrap();
        for _ in 0..1000 {
            notifier.notify();
        }
        assert_eq!(pending_writes(&notifier), 1);
        notifier.drain();
        notifier.reset();
        assert_eq!(pending_writes(&notifier), 0);
        notifier.notify();
        notifier.notify();
        assert_eq!(pending_writes(&notifier), 1);
    }

    #[test]
    fn a_notify_from_another_thread_ends_an_endless_wait() {
        let poller = Poller::new().unwrap();
        let notifier = Arc::new(Notifier::new().unwrap());
        poller
            .add(&*notifier, 0, Interest::READABLE, Mode::Level)
            .unwrap();
        let remote = Arc::clone(&notifier);
        let waker = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            remote.notify();
        });
        let mut events = Vec::new();
        // No timeout: only the notify can end this wait.
        poller.wait(&mut events, None).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].token, 0);
        notifier.drain();
        notifier.reset();
        waker.join().unwrap();
        // Drained: the next wait sees nothing.
        poller.wait(&mut events, Some(Duration::ZERO)).unwrap();
        assert!(events.is_empty());
    }

    #[test]
    fn resetting_before_draining_loses_the_next_wakes() {
        // The wrong order, step by step: the first notify wrote, the
        // waiting side resets, a second notify writes again, and only
        // then does the drain eat both writes...
        let notifier = Notifier::new().unwrap();
        notifier.notify();
        notifier.reset();
        notifier.notify();
        notifier.drain();
        // ...leaving the flag set with nothing to read: every later notify
        // skips its write, and a thread waiting for the eventfd sleeps on.
        notifier.notify();
        assert_eq!(pending_writes(&notifier), 0);
        // The right order (drain, then reset) leaves the flag down.
        notifier.reset();
        notifier.notify();
        assert_eq!(pending_writes(&notifier), 1);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The waiting side of a runtime, against a thread that queues tasks
    //! and notifies: the model checker tries every interleaving, and a
    //! lost wake-up shows as a deadlock (the waiting side asleep for ever).

    use super::*;
    use loom::sync::{Arc, Mutex};
    use std::collections::VecDeque;

    /// Queues three tasks from another thread while the waiting side takes
    /// them, waiting on the eventfd whenever the queue looks empty. With
    /// `drain_first`, it drains then resets after each wait, as the
    /// reactor does; otherwise it resets then drains.
    fn runtime_against_wakes(drain_first: bool) {
        loom::model(move || {
            let notifier = Arc::new(Notifier::new().unwrap());
            let queue = Arc::new(Mutex::new(VecDeque::new()));
            let waker = {
                let (notifier, queue) = (Arc::clone(&notifier), Arc::clone(&queue));
                loom::thread::spawn(move || {
                    for task in 0..3 {
                        queue.lock().unwrap().push_back(task);
                        notifier.notify();
                    }
                })
            };
            let mut done = 0;
            while done < 3 {
                let next = queue.lock().unwrap().pop_front();
                if next.is_some() {
                    done += 1;
                    continue;
                }
                notifier.event.wait_readable();
                if drain_first {
                    notifier.drain();
                    notifier.reset();
                } else {
                    notifier.reset();
                    notifier.drain();
                }
            }
            waker.join().unwrap();
        });
    }

    #[test]
    fn loom_a_wake_racing_the_wait_is_never_lost() {
        runtime_against_wakes(true);
    }

    #[test]
    #[should_panic(expected = "deadlock")]
    fn loom_resetting_before_draining_loses_a_wake() {
        runtime_against_wakes(false);
    }
}
