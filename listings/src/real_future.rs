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

use super::simple_future::{Watcher, when_readable};

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

impl Future for SocketRead<'_> {
    type Output = io::Result<Vec<u8>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut buf = [0; 1024];
        // `SocketRead` holds only a reference and an `Option<Watcher>`, so
        // it is `Unpin` and the pin gives us a plain `&mut Self` back.
        let this = self.get_mut();
        match this.socket.read(&mut buf) {
            Ok(n) => {
                this.watcher = None;
                Poll::Ready(Ok(buf[..n].to_vec()))
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                // The waker names the task polling *now*; the new watcher
                // replaces the previous one, which may hold an older waker.
                let waker = cx.waker().clone();
                match when_readable(this.socket, move || waker.wake()) {
                    Ok(watcher) => {
                        this.watcher = Some(watcher);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_wakers::{TestWaker, eventually};
    use std::io::Write;
    use std::pin::pin;
    use std::thread;
    use std::time::Duration;

    fn nonblocking_pair() -> (UnixStream, UnixStream) {
        let (reader, writer) = UnixStream::pair().unwrap();
        reader.set_nonblocking(true).unwrap();
        (reader, writer)
    }

    #[test]
    fn pending_read_wakes_the_waker_it_was_given() {
        let (reader, mut writer) = nonblocking_pair();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut read = pin!(SocketRead::new(&reader));

        assert!(read.as_mut().poll(&mut cx).is_pending());
        writer.write_all(b"hi").unwrap();

        eventually("the waker is woken", || task.wakes() == 1);
        match read.poll(&mut cx) {
            Poll::Ready(Ok(data)) => assert_eq!(data, b"hi"),
            other => panic!("expected the data, got {other:?}"),
        }
    }

    #[test]
    fn polling_again_leaves_one_watcher_with_the_newest_waker() {
        let (reader, mut writer) = nonblocking_pair();
        let (old_task, new_task) = (TestWaker::new(), TestWaker::new());
        let mut read = pin!(SocketRead::new(&reader));
        let old_waker = old_task.waker();
        assert!(
            read.as_mut()
                .poll(&mut Context::from_waker(&old_waker))
                .is_pending()
        );
        drop(old_waker);
        let new_waker = new_task.waker();
        assert!(
            read.as_mut()
                .poll(&mut Context::from_waker(&new_waker))
                .is_pending()
        );

        // The first watcher was stopped and let go of the old waker.
        eventually("the first watcher ends", || old_task.live() == 0);
        writer.write_all(b"data").unwrap();
        eventually("the new task is woken", || new_task.wakes() == 1);
        assert_eq!(old_task.wakes(), 0);
    }

    #[test]
    fn dropping_a_pending_read_stops_its_watcher() {
        let (reader, _writer) = nonblocking_pair();
        let task = TestWaker::new();
        {
            let waker = task.waker();
            let mut read = pin!(SocketRead::new(&reader));
            assert!(
                read.as_mut()
                    .poll(&mut Context::from_waker(&waker))
                    .is_pending()
            );
            assert_eq!(task.live(), 2, "ours and the watcher's");
        }
        // No data ever comes, yet the thread ends and drops its waker.
        eventually("the watcher ends", || task.live() == 0);
        assert_eq!(task.wakes(), 0);
    }

    #[test]
    fn block_on_reads_data_sent_from_another_thread() {
        let (reader, mut writer) = nonblocking_pair();
        let sender = thread::spawn(move || {
            thread::sleep(Duration::from_millis(20));
            writer.write_all(b"from afar").unwrap();
        });
        let data = futures::executor::block_on(SocketRead::new(&reader)).unwrap();
        assert_eq!(data, b"from afar");
        sender.join().unwrap();
    }
}
