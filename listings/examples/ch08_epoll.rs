//! Chapter 8: level-triggered, edge-triggered and oneshot epoll entries
//! side by side. Data sits unread in a socket; how many of three waits in
//! a row report it, under each mode? Then more data comes; and the oneshot
//! entry is re-armed with `modify`.

use std::io::{self, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use listings::epoll::{Interest, Mode, Poller};

/// The token of the socket in each epoll instance.
const TOKEN: u64 = 1;

/// How many of three waits in a row report the socket readable. None of
/// them sleeps (timeout zero): the data is already there, or it is not
/// reported.
fn reported(poller: &Poller) -> io::Result<usize> {
    let mut events = Vec::new();
    let mut reports = 0;
    for _ in 0..3 {
        poller.wait(&mut events, Some(Duration::ZERO))?;
        reports += events
            .iter()
            .filter(|e| e.token == TOKEN && e.readable)
            .count();
    }
    Ok(reports)
}

// ANCHOR: main
fn main() -> io::Result<()> {
    println!("Unread data in a socket: how many of 3 waits report it?");
    for mode in [Mode::Level, Mode::Edge, Mode::Oneshot] {
        let (socket, mut peer) = UnixStream::pair()?;
        let poller = Poller::new()?;
        poller.add(&socket, TOKEN, Interest::READABLE, mode)?;

        peer.write_all(b"data")?;
        let mut line = format!(
            "{:<8} after \"data\": {}",
            format!("{mode:?}:"),
            reported(&poller)?
        );
        // Still unread; now more comes.
        peer.write_all(b"more")?;
        line += &format!(", after \"more\": {}", reported(&poller)?);
        if mode == Mode::Oneshot {
            poller.modify(&socket, TOKEN, Interest::READABLE, mode)?;
            line += &format!(", after re-arming: {}", reported(&poller)?);
        }
        println!("{line}");
    }
    Ok(())
}
// ANCHOR_END: main
