//! Chapter 1: the socket read again, on the real [`std::future::Future`].
//!
//! Two things change from [`super::simple_future`]. The future receives a
//! [`Context`], whose [`Waker`](std::task::Waker) knows which task to wake,
//! instead of a bare `fn()`. And it receives itself as `Pin<&mut Self>`,
//! which promises that the future will not move again once polled.

use std::future::Future;
use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::simple_future::when_readable;

// ANCHOR: socket_read
/// Reads whatever data is available on a non-blocking socket.
#[derive(Debug)]
pub struct SocketRead<'a> {
    socket: &'a UnixStream,
}

impl<'a> SocketRead<'a> {
    /// A read from `socket`, which must be in non-blocking mode.
    pub fn new(socket: &'a UnixStream) -> Self {
        SocketRead { socket }
    }
}

impl Future for SocketRead<'_> {
    type Output = io::Result<Vec<u8>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut buf = [0; 1024];
        // `SocketRead` holds only a reference, so it is `Unpin` and the pin
        // gives us a plain `&mut Self` back.
        let this = self.get_mut();
        match this.socket.read(&mut buf) {
            Ok(n) => Poll::Ready(Ok(buf[..n].to_vec())),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                // The waker names this very task; clone it for the thread.
                let waker = cx.waker().clone();
                match when_readable(this.socket, move || waker.wake()) {
                    Ok(()) => Poll::Pending,
                    Err(e) => Poll::Ready(Err(e)),
                }
            }
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}
// ANCHOR_END: socket_read

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::pin::pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Wake, Waker};
    use std::thread;
    use std::time::{Duration, Instant};

    /// Counts its wake-ups, so a test can see that this waker was used.
    struct CountingWaker(AtomicUsize);

    impl Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn pending_read_wakes_the_waker_it_was_given() {
        let (reader, mut writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&counter));
        let mut cx = Context::from_waker(&waker);
        let mut read = pin!(SocketRead::new(&reader));

        assert!(read.as_mut().poll(&mut cx).is_pending());
        writer.write_all(b"hi").unwrap();

        let deadline = Instant::now() + Duration::from_secs(10);
        while counter.0.load(Ordering::SeqCst) == 0 {
            assert!(Instant::now() < deadline, "the waker was never woken");
            thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        match read.poll(&mut cx) {
            Poll::Ready(Ok(data)) => assert_eq!(data, b"hi"),
            other => panic!("expected the data, got {other:?}"),
        }
    }

    #[test]
    fn block_on_reads_data_sent_from_another_thread() {
        let (reader, mut writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        let sender = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            writer.write_all(b"from afar").unwrap();
        });
        let data = futures::executor::block_on(SocketRead::new(&reader)).unwrap();
        assert_eq!(data, b"from afar");
        sender.join().unwrap();
    }
}
