//! Chapter 1: a simplified `Future` trait, before `Pin` and `Context`.
//!
//! [`SimpleFuture::poll`] takes a plain function pointer as its wake-up
//! callback. That is enough to show the contract of polling: a future either
//! finishes now or promises that `wake` will be called. It is also enough to
//! see the weakness of a bare `fn()`: it carries no data, so the one who
//! polls cannot tell which future became ready.

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread;

use rustix::event::{PollFd, PollFlags, poll};
use rustix::io::Errno;

// ANCHOR: poll
/// The result of polling a future once.
#[derive(Debug, PartialEq, Eq)]
pub enum Poll<T> {
    /// The value is ready.
    Ready(T),
    /// Not ready yet; `wake` will be called when polling again can help.
    Pending,
}
// ANCHOR_END: poll

// ANCHOR: simple_future
/// A computation that may finish later, polled by whoever wants its value.
pub trait SimpleFuture {
    /// The value the future produces.
    type Output;

    /// Makes as much progress as possible without blocking.
    ///
    /// Returns `Poll::Pending` only after arranging for `wake` to be called
    /// once polling again can make progress.
    fn poll(&mut self, wake: fn()) -> Poll<Self::Output>;
}
// ANCHOR_END: simple_future

// ANCHOR: when_readable
/// A thread waiting for a socket to become readable. Dropping it tells the
/// thread to stop: the thread ends shortly after, without calling back,
/// unless the socket became readable just before the drop (then the thread
/// may still call back, once: an extra wake-up, which does no harm).
#[derive(Debug)]
pub struct Watcher {
    /// One end of a socket pair; the thread also waits on the other end.
    /// Dropping this end hangs that one up, which wakes the thread.
    _stop: UnixStream,
}

/// Calls `on_readable` once `socket` has data to read or its peer hung up.
/// Dropping the returned [`Watcher`] stops the wait; a call already on its
/// way may still come, once (see [`Watcher`]).
///
/// One thread per wait is the simplest way to really wait for the operating
/// system. Chapter 8 replaces it with one `epoll` for every socket.
pub fn when_readable(
    socket: &UnixStream,
    on_readable: impl FnOnce() + Send + 'static,
) -> io::Result<Watcher> {
    // The thread owns a second handle to the same socket, so the caller
    // keeps theirs and the thread never outlives the descriptor it polls.
    let socket = socket.try_clone()?;
    let (stop, stopped) = UnixStream::pair()?;
    thread::spawn(move || {
        let mut fds = [
            PollFd::new(&socket, PollFlags::IN),
            PollFd::new(&stopped, PollFlags::IN),
        ];
        // `poll` returns when the socket is readable, hung up or in error,
        // or when the `Watcher` is dropped.
        while let Err(Errno::INTR) = poll(&mut fds, None) {}
        if !fds[1].revents().is_empty() {
            return; // nobody is waiting any more
        }
        // The `Watcher` may be dropped from here on: then this one call
        // comes after nobody waits, an extra wake-up.
        // Readable, hung up or in error: in every case the reader must look
        // again, so always call back. A lost call would leave it pending.
        on_readable();
    });
    Ok(Watcher { _stop: stop })
}
// ANCHOR_END: when_readable

// ANCHOR: socket_read
/// Reads whatever data is available on a non-blocking socket.
#[derive(Debug)]
pub struct SocketRead<'a> {
    socket: &'a UnixStream,
    /// The thread waiting for the socket since the last `Pending`, if any.
    watcher: Option<Watcher>,
}

impl<'a> SocketRead<'a> {
    /// A read from `socket`, which must be in non-blocking mode.
    pub fn new(socket: &'a UnixStream) -> Self {
        SocketRead {
            socket,
            watcher: None,
        }
    }
}

impl SimpleFuture for SocketRead<'_> {
    type Output = io::Result<Vec<u8>>;

    fn poll(&mut self, wake: fn()) -> Poll<Self::Output> {
        let mut buf = [0; 1024];
        match self.socket.read(&mut buf) {
            // Data was there (or the peer closed the socket: `n == 0`).
            Ok(n) => {
                self.watcher = None; // a thread still waiting stops soon
                Poll::Ready(Ok(buf[..n].to_vec()))
            }
            // "Would block" means "not ready": first arrange to be woken,
            // then report `Pending`. The new watcher replaces the previous
            // one, whose thread stops shortly after: only one keeps waiting.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                match when_readable(self.socket, wake) {
                    Ok(watcher) => {
                        self.watcher = Some(watcher);
                        Poll::Pending
                    }
                    Err(e) => Poll::Ready(Err(e)),
                }
            }
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}
// ANCHOR_END: socket_read

// ANCHOR: block_on
/// Set by [`wake`] and cleared by [`block_on`]. There is one flag for the
/// whole program because a `fn()` carries no data: it cannot say which
/// future is ready, only that one is.
static WOKEN: Mutex<bool> = Mutex::new(false);
static WOKEN_CHANGED: Condvar = Condvar::new();
/// With one flag, two `block_on` running at once could take each other's
/// wake-ups. This lock lets only one run at a time (so a future must not
/// call `block_on` itself: locking a `Mutex` again on the thread that holds
/// it deadlocks or panics).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The wake-up callback that [`block_on`] gives to the future.
pub fn wake() {
    *WOKEN.lock().unwrap_or_else(PoisonError::into_inner) = true;
    WOKEN_CHANGED.notify_one();
}

/// Polls `future` until it is ready, sleeping while it is pending.
pub fn block_on<F: SimpleFuture>(mut future: F) -> F::Output {
    let _only_one = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Poll::Ready(value) = future.poll(wake) {
            return value;
        }
        // A wake that came before we got here left the flag set, so it is
        // not lost: we only sleep while the flag is still clear.
        let mut woken = WOKEN.lock().unwrap_or_else(PoisonError::into_inner);
        while !*woken {
            woken = WOKEN_CHANGED
                .wait(woken)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *woken = false;
    }
}
// ANCHOR_END: block_on

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn noop() {}

    /// Unwraps the I/O result so that tests can compare with `assert_eq!`.
    fn bytes(poll: Poll<io::Result<Vec<u8>>>) -> Poll<Vec<u8>> {
        match poll {
            Poll::Ready(result) => Poll::Ready(result.unwrap()),
            Poll::Pending => Poll::Pending,
        }
    }

    #[test]
    fn data_already_there_is_ready_at_once() {
        let (reader, mut writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        writer.write_all(b"ping").unwrap();
        let mut read = SocketRead::new(&reader);
        assert_eq!(bytes(read.poll(noop)), Poll::Ready(b"ping".to_vec()));
    }

    #[test]
    fn empty_socket_is_pending_then_wakes_when_data_arrives() {
        static WAKES: AtomicUsize = AtomicUsize::new(0);
        static WOKEN: Mutex<bool> = Mutex::new(false);
        static CHANGED: Condvar = Condvar::new();
        fn count_wake() {
            WAKES.fetch_add(1, Ordering::SeqCst);
            *WOKEN.lock().unwrap() = true;
            CHANGED.notify_all();
        }

        let (reader, mut writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        let mut read = SocketRead::new(&reader);
        assert_eq!(bytes(read.poll(count_wake)), Poll::Pending);
        assert_eq!(WAKES.load(Ordering::SeqCst), 0, "nothing to read yet");

        writer.write_all(b"pong").unwrap();
        let woken = WOKEN.lock().unwrap();
        let (_woken, timeout) = CHANGED
            .wait_timeout_while(woken, std::time::Duration::from_secs(10), |woken| !*woken)
            .unwrap();
        assert!(!timeout.timed_out(), "never woken");
        assert_eq!(WAKES.load(Ordering::SeqCst), 1);
        assert_eq!(bytes(read.poll(noop)), Poll::Ready(b"pong".to_vec()));
    }

    #[test]
    fn block_on_returns_the_data_sent_later() {
        let (reader, mut writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        let sender = thread::spawn(move || {
            thread::sleep(std::time::Duration::from_millis(20));
            writer.write_all(b"late").unwrap();
        });
        assert_eq!(block_on(SocketRead::new(&reader)).unwrap(), b"late");
        sender.join().unwrap();
    }

    #[test]
    fn a_closed_peer_reads_as_zero_bytes() {
        let (reader, writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        drop(writer);
        assert_eq!(block_on(SocketRead::new(&reader)).unwrap(), b"");
    }
}
