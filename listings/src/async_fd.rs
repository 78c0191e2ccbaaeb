//! Chapter 8: async reads, writes and accepts on non-blocking descriptors.
//!
//! Chapter 1's `when_readable` made real, without a thread per wait
//! (the role of the imaginary `set_readable_callback` in many
//! introductions). [`Async`] owns an I/O
//! object (a `TcpStream`, a `TcpListener`, anything with a descriptor),
//! puts it in non-blocking mode and registers it with an epoll
//! [`Reactor`]. Every operation first simply *tries*: if the kernel has
//! data (or room, or a connection), it returns at once. Only on
//! `WouldBlock` does it leave its waker with the reactor and return
//! `Pending`; the next poll tries again. A wake-up that finds nothing to
//! do (another reader was faster, a spurious report) costs one more
//! `WouldBlock` and one more wait, nothing else.

use std::future::poll_fn;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsFd;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustix::fs::{OFlags, fcntl_getfl, fcntl_setfl};

use super::epoll_reactor::{Direction, Reactor};

// ANCHOR: async
/// An I/O object registered with a reactor, in non-blocking mode.
///
/// One task at a time may wait to read, and one to write: the reactor
/// keeps one waker per direction, and a second reader's waker replaces
/// the first's (as when a future moves to another task). Two tasks that
/// read the same stream at once need a lock around it.
/// Make one `Async` per open file: non-blocking mode belongs to the open
/// file, shared by its duplicates, and each `Async` restores it on drop.
#[derive(Debug)]
pub struct Async<T: AsFd> {
    io: T,
    reactor: Arc<Reactor>,
    token: u64,
    /// The descriptor was blocking when we got it: make it so again when
    /// we let go (it may be shared, like standard input).
    was_blocking: bool,
}

impl<T: AsFd> Async<T> {
    /// Puts `io` in non-blocking mode and registers it with `reactor`.
    pub fn new(reactor: &Arc<Reactor>, io: T) -> io::Result<Self> {
        let flags = fcntl_getfl(&io)?;
        let was_blocking = !flags.contains(OFlags::NONBLOCK);
        if was_blocking {
            fcntl_setfl(&io, flags | OFlags::NONBLOCK)?;
        }
        let token = match reactor.register(io.as_fd()) {
            Ok(token) => token,
            Err(e) => {
                if was_blocking {
                    let _ = fcntl_setfl(&io, flags);
                }
                return Err(e);
            }
        };
        Ok(Async {
            io,
            reactor: Arc::clone(reactor),
            token,
            was_blocking,
        })
    }

    /// The I/O object.
    pub fn get_ref(&self) -> &T {
        &self.io
    }

    /// Tries `op` until it does not return `WouldBlock`; in between,
    /// waits for the reactor to report the descriptor ready in
    /// `direction`.
    fn poll_io<R>(
        &self,
        cx: &mut Context<'_>,
        direction: Direction,
        mut op: impl FnMut(&T) -> io::Result<R>,
    ) -> Poll<io::Result<R>> {
        loop {
            match op(&self.io) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // A signal interrupted the call: try again.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                done => return Poll::Ready(done),
            }
            // Not ready: leave our waker, arm the descriptor, and wait.
            if let Err(e) =
                self.reactor
                    .wait_for(self.io.as_fd(), self.token, direction, cx.waker())
            {
                return Poll::Ready(Err(e));
            }
            return Poll::Pending;
        }
    }
}

impl<T: AsFd> Drop for Async<T> {
    fn drop(&mut self) {
        // Before `io` closes its descriptor (fields drop after this).
        let _ = self.reactor.deregister(self.io.as_fd(), self.token);
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
    /// Reads some bytes into `buf`, waiting until there are some; `Ok(0)`
    /// at the end of the stream.
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        poll_fn(|cx| self.poll_io(cx, Direction::Read, |mut io| io.read(buf))).await
    }
}

impl<T: AsFd> Async<T>
where
    for<'a> &'a T: Write,
{
    /// Writes some bytes of `buf`, waiting until there is room; returns
    /// how many.
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
    /// Binds a listener to `addr` (port 0: the system picks one).
    pub fn bind(reactor: &Arc<Reactor>, addr: SocketAddr) -> io::Result<Self> {
        Async::new(reactor, TcpListener::bind(addr)?)
    }

    /// Waits for a connection and accepts it, registered with the same
    /// reactor.
    pub async fn accept(&self) -> io::Result<(Async<TcpStream>, SocketAddr)> {
        let (stream, peer) =
            poll_fn(|cx| self.poll_io(cx, Direction::Read, |io| io.accept())).await?;
        Ok((Async::new(&self.reactor, stream)?, peer))
    }
}
// ANCHOR_END: tcp

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_executors::PATIENCE;
    use crate::test_wakers::TestWaker;
    use std::os::unix::net::UnixStream;
    use std::pin::pin;
    use std::thread;
    use std::time::Duration;

    fn reactor() -> Arc<Reactor> {
        Arc::new(Reactor::new().unwrap())
    }

    #[test]
    fn a_read_waits_for_data_without_blocking_the_thread() {
        let reactor = reactor();
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        // The data is written only once another future on the same thread
        // has run while the read waited: a read that blocked the thread
        // would see the writer give up and close its end (`Ok(0)`).
        let (ran, other_ran) = std::sync::mpsc::channel();
        let writer = thread::spawn(move || {
            other_ran.recv_timeout(PATIENCE).ok()?;
            theirs.write_all(b"hello").unwrap();
            Some(theirs)
        });
        let mut buf = [0; 16];
        let (n, ()) = reactor
            .block_on(futures::future::join(ours.read(&mut buf), async {
                ran.send(()).unwrap();
            }))
            .unwrap();
        assert_eq!(&buf[..n.unwrap()], b"hello");
        drop(writer.join().unwrap());
    }

    #[test]
    fn a_read_woken_for_data_someone_else_took_waits_again() {
        let reactor = reactor();
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let thief = ours.try_clone().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut buf = [0; 16];
        let mut read = pin!(ours.read(&mut buf));
        assert!(read.as_mut().poll(&mut cx).is_pending());
        theirs.write_all(b"x").unwrap();
        reactor.wait(Some(Duration::from_secs(20))).unwrap();
        assert_eq!(task.wakes(), 1);
        // Another reader of the same socket takes the data first: the wake
        // was right, yet the read finds nothing.
        (&thief).read_exact(&mut [0; 1]).unwrap();
        assert!(read.as_mut().poll(&mut cx).is_pending());
        theirs.write_all(b"y").unwrap();
        reactor.wait(Some(Duration::from_secs(20))).unwrap();
        assert_eq!(task.wakes(), 2);
        assert!(matches!(read.as_mut().poll(&mut cx), Poll::Ready(Ok(1))));
    }

    #[test]
    fn an_interrupted_call_is_tried_again_and_other_errors_are_returned() {
        let reactor = reactor();
        let (ours, _theirs) = UnixStream::pair().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        // Interrupted twice, then done: one poll, three calls, no wait.
        let mut calls = 0;
        let polled = ours.poll_io(&mut cx, Direction::Read, |_| {
            calls += 1;
            if calls < 3 {
                Err(io::ErrorKind::Interrupted.into())
            } else {
                Ok(calls)
            }
        });
        assert!(matches!(polled, Poll::Ready(Ok(3))));
        assert_eq!(reactor.waiting_wakers(), 0);
        // Another error: returned as it is, after one call.
        let mut calls = 0;
        let polled = ours.poll_io(&mut cx, Direction::Read, |_| -> io::Result<()> {
            calls += 1;
            Err(io::ErrorKind::ConnectionReset.into())
        });
        let Poll::Ready(Err(e)) = polled else {
            panic!("not an error");
        };
        assert_eq!((e.kind(), calls), (io::ErrorKind::ConnectionReset, 1));
        // Would block: the waker is left with the reactor.
        let polled = ours.poll_io(&mut cx, Direction::Read, |_| -> io::Result<()> {
            Err(io::ErrorKind::WouldBlock.into())
        });
        assert!(polled.is_pending());
        assert_eq!(reactor.waiting_wakers(), 1);
    }

    #[test]
    fn dropping_restores_blocking_mode_and_deregisters() {
        let reactor = reactor();
        let (ours, _theirs) = UnixStream::pair().unwrap();
        let copy = ours.try_clone().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        assert!(fcntl_getfl(&copy).unwrap().contains(OFlags::NONBLOCK));
        assert_eq!(Arc::strong_count(&reactor), 2);
        drop(ours);
        assert!(!fcntl_getfl(&copy).unwrap().contains(OFlags::NONBLOCK));
        assert_eq!(Arc::strong_count(&reactor), 1);
        assert_eq!(reactor.registered(), 0);
    }

    #[test]
    fn accept_then_echo_over_loopback() {
        let reactor = reactor();
        let listener = Async::bind(&reactor, "127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = listener.get_ref().local_addr().unwrap();
        let client = thread::spawn(move || {
            let mut stream = TcpStream::connect(addr).unwrap();
            stream.write_all(b"ping").unwrap();
            let mut reply = [0; 4];
            stream.read_exact(&mut reply).unwrap();
            reply
        });
        reactor
            .block_on(async {
                let (stream, _) = listener.accept().await?;
                let mut buf = [0; 4];
                let mut got = 0;
                while got < 4 {
                    got += stream.read(&mut buf[got..]).await?;
                }
                stream.write_all(&buf).await
            })
            .unwrap()
            .unwrap();
        assert_eq!(&client.join().unwrap(), b"ping");
    }
}
