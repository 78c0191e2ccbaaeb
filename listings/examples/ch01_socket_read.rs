//! Chapter 1: a `SimpleFuture` that reads from a socket, polled by the
//! global-flag `block_on`. Every poll and wake-up is printed.

use std::io::{self, Write};
use std::os::unix::net::UnixStream;
use std::sync::mpsc::{self, Sender};
use std::thread;

use listings::simple_future::{Poll, SimpleFuture, SocketRead, block_on, wake};

// ANCHOR: traced
/// Wraps a future to print the result of each poll. On the first
/// `Pending` it tells the writer thread to go ahead, so the output is the
/// same on every run.
struct Traced<F> {
    inner: F,
    polls: u32,
    first_pending: Option<Sender<()>>,
}

impl<F: SimpleFuture<Output = io::Result<Vec<u8>>>> SimpleFuture for Traced<F> {
    type Output = F::Output;

    fn poll(&mut self, _wake: fn()) -> Poll<Self::Output> {
        self.polls += 1;
        let result = self.inner.poll(traced_wake);
        match &result {
            Poll::Pending => println!("poll {}: Pending", self.polls),
            Poll::Ready(Ok(data)) => {
                println!(
                    "poll {}: Ready({:?})",
                    self.polls,
                    String::from_utf8_lossy(data)
                )
            }
            Poll::Ready(Err(e)) => println!("poll {}: error {e}", self.polls),
        }
        if let (Poll::Pending, Some(go)) = (&result, self.first_pending.take()) {
            go.send(()).unwrap();
        }
        result
    }
}

/// The callback the socket future receives: print, then really wake. A
/// `fn()` cannot capture the `wake` that `Traced::poll` was given, so this
/// calls chapter 1's `wake` by name: it only works under that `block_on`.
fn traced_wake() {
    println!("wake() called");
    wake();
}
// ANCHOR_END: traced

// ANCHOR: main
fn main() -> io::Result<()> {
    let (reader, mut writer) = UnixStream::pair()?;
    reader.set_nonblocking(true)?;

    let (go, wait_for_go) = mpsc::channel();
    let sender = thread::spawn(move || -> io::Result<()> {
        wait_for_go.recv().unwrap(); // until the reader has been pending once
        println!("writer: sending \"hello\"");
        writer.write_all(b"hello")
    });

    let read = Traced {
        inner: SocketRead::new(&reader),
        polls: 0,
        first_pending: Some(go),
    };
    let data = block_on(read)?;
    println!("main: got {} bytes", data.len());
    sender.join().unwrap()
}
// ANCHOR_END: main
