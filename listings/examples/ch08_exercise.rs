//! Chapter 8 exercise: `read_exact` over a socket pair. The other end
//! writes in pieces, with pauses; the reads wait in the reactor until the
//! buffer is full, or fail when the stream ends too soon.

use std::io::{self, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use listings::async_fd::Async;
use listings::epoll_reactor::Reactor;
use listings::exercises::ch08::read_exact;

// ANCHOR: main
fn main() -> io::Result<()> {
    let reactor = Arc::new(Reactor::new()?);
    let (ours, mut theirs) = UnixStream::pair()?;
    let ours = Async::new(&reactor, ours)?;
    let writer = thread::spawn(move || -> io::Result<()> {
        for piece in ["hel", "lo, ", "world", "bye"] {
            thread::sleep(Duration::from_millis(20));
            theirs.write_all(piece.as_bytes())?;
        }
        Ok(()) // `theirs` is dropped: the end of the stream
    });
    reactor.block_on(async {
        for size in [12, 8] {
            let mut buf = vec![0; size];
            match read_exact(&ours, &mut buf).await {
                Ok(()) => println!("{size} bytes: {:?}", String::from_utf8_lossy(&buf)),
                Err(e) => println!("{size} bytes: {:?} ({e})", e.kind()),
            }
        }
    })?;
    writer.join().unwrap()
}
// ANCHOR_END: main
