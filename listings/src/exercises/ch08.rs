//! Chapter 8 exercise: `read_exact` on top of `Async::read`. A read
//! returns what is there, perhaps less than asked; this future reads until
//! the buffer is full, waiting in the reactor in between, and fails with
//! `UnexpectedEof` if the stream ends first.

use std::io::{self, Read};
use std::os::fd::AsFd;

use super::super::async_fd::Async;

// ANCHOR: read_exact
/// Exercise: fills `buf` from `io`, however many reads it takes. Fails
/// with [`io::ErrorKind::UnexpectedEof`] if the stream ends before `buf`
/// is full (what was read is then in the start of `buf`).
pub async fn read_exact<T: AsFd>(io: &Async<T>, buf: &mut [u8]) -> io::Result<()>
where
    for<'a> &'a T: Read,
{
    let mut filled = 0;
    while filled < buf.len() {
        match io.read(&mut buf[filled..]).await? {
            0 => {
                let message = format!("the stream ended after {filled} of {} bytes", buf.len());
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, message));
            }
            n => filled += n,
        }
    }
    Ok(())
}
// ANCHOR_END: read_exact

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::epoll_reactor::Reactor;
    use crate::test_executors::PATIENCE;
    use crate::test_wakers::TestWaker;
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    use std::pin::pin;
    use std::sync::{Arc, mpsc};
    use std::task::{Context, Poll};
    use std::thread;
    use std::time::Duration;

    fn reactor() -> Arc<Reactor> {
        Arc::new(Reactor::new().unwrap())
    }

    #[test]
    fn data_arriving_in_pieces_fills_the_buffer() {
        let reactor = reactor();
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        let (polled, next_piece) = mpsc::channel::<()>();
        let writer = thread::spawn(move || {
            for piece in [&b"hel"[..], b"lo, w", b"orld"] {
                // Each piece only once the read waits for it.
                next_piece.recv_timeout(PATIENCE).unwrap();
                theirs.write_all(piece).unwrap();
            }
            theirs
        });
        let mut buf = [0; 12];
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut pendings = 0;
        let result = {
            let mut read = pin!(read_exact(&ours, &mut buf));
            loop {
                match read.as_mut().poll(&mut cx) {
                    Poll::Ready(result) => break result,
                    Poll::Pending => {
                        pendings += 1;
                        polled.send(()).unwrap();
                        let wakes = task.wakes();
                        while task.wakes() == wakes {
                            reactor.wait(Some(PATIENCE)).unwrap();
                        }
                    }
                }
            }
        };
        result.unwrap();
        // Pending once before each of the three pieces.
        assert_eq!(pendings, 3);
        assert_eq!(&buf, b"hello, world");
        drop(writer.join().unwrap());
    }

    #[test]
    fn a_stream_that_ends_early_is_an_unexpected_eof() {
        let reactor = reactor();
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        let writer = thread::spawn(move || {
            theirs.write_all(b"bye").unwrap();
            thread::sleep(Duration::from_millis(10));
            // Dropped: the end of the stream.
        });
        let mut buf = [0; 8];
        let error = reactor
            .block_on(read_exact(&ours, &mut buf))
            .unwrap()
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(error.to_string(), "the stream ended after 3 of 8 bytes");
        assert_eq!(&buf[..3], b"bye");
        writer.join().unwrap();
    }

    #[test]
    fn data_already_there_is_read_without_waiting_and_the_rest_stays() {
        let reactor = reactor();
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        theirs.write_all(b"abcdef").unwrap();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        // Polled once each: ready at once, no waiting.
        let mut poll_once = |buf: &mut [u8]| {
            matches!(
                pin!(read_exact(&ours, buf)).poll(&mut cx),
                Poll::Ready(Ok(()))
            )
        };
        let mut buf = [0; 4];
        assert!(poll_once(&mut buf));
        assert_eq!(&buf, b"abcd");
        // The two bytes past the buffer are still in the socket.
        let mut rest = [0; 2];
        assert!(poll_once(&mut rest));
        assert_eq!(&rest, b"ef");
        // An empty buffer is full already, even with nothing to read.
        assert!(poll_once(&mut []));
        assert_eq!(task.wakes(), 0);
    }

    #[test]
    fn a_spurious_wake_up_only_costs_another_wait() {
        let reactor = reactor();
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        let ours = Async::new(&reactor, ours).unwrap();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut buf = [0; 2];
        {
            let mut read = pin!(read_exact(&ours, &mut buf));
            assert!(read.as_mut().poll(&mut cx).is_pending());
            // Woken with nothing to read: pending again, waiting again.
            reactor.report_everything_spuriously();
            assert_eq!(task.wakes(), 1);
            assert!(read.as_mut().poll(&mut cx).is_pending());
            theirs.write_all(b"ok").unwrap();
            reactor.wait(Some(PATIENCE)).unwrap();
            assert_eq!(task.wakes(), 2);
            assert!(matches!(read.as_mut().poll(&mut cx), Poll::Ready(Ok(()))));
        }
        assert_eq!(&buf, b"ok");
    }
}
