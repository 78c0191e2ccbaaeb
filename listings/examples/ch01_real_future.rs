//! Chapter 1: the socket read on the real `Future` trait, run by the
//! `futures` crate's executor.

use std::io::{self, Write};
use std::os::unix::net::UnixStream;
use std::thread;
use std::time::Duration;

use futures::executor::block_on;
use listings::real_future::SocketRead;

// ANCHOR: main
fn main() -> io::Result<()> {
    let (reader, mut writer) = UnixStream::pair()?;
    reader.set_nonblocking(true)?;

    let sender = thread::spawn(move || -> io::Result<()> {
        thread::sleep(Duration::from_millis(50));
        writer.write_all(b"hello, Future")
    });

    // Any executor can run it: the future only needs the waker it is given.
    let data = block_on(SocketRead::new(&reader))?;
    println!("read {:?}", String::from_utf8_lossy(&data));
    sender.join().unwrap()
}
// ANCHOR_END: main
