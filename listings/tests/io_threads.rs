//! Chapter 8: how many threads 200 waiting socket reads cost. Chapter 1's
//! `SocketRead` puts a watcher thread on every wait; the epoll reactor of
//! chapter 8 waits for all of them in one `epoll_wait`, on the thread that
//! has nothing else to do, and starts no thread at all.
//!
//! Measured on the machine this was written on (Linux 6.18, x86-64, debug
//! and release builds alike): the 200 pending `SocketRead`s added 200
//! threads, 600 descriptors (each watcher's copy of its socket and the
//! socket pair that stops it), 1.9 MiB of resident memory (some 10 KiB a
//! thread, besides the kernel's own stack and bookkeeping for each) and
//! 1.3 GiB of address space (a 2 MiB stack and more per thread: reserved,
//! not touched, so not resident). The 200 pending `Async` reads added no
//! thread, no descriptor, and no resident memory that `VmRSS` in
//! `/proc/self/status` shows (it counts in pages).
//!
//! Alone in its test binary, so that the threads and the descriptors of
//! the process are this test's own and the harness's. Linux only: it counts
//! them in `/proc`. It opens 1000 descriptors at most (200 socket pairs,
//! and 600 for the watchers): too close to the usual soft limit of 1024 a
//! process, with the harness's and whatever the process inherited, so it
//! raises the soft limit first.
#![cfg(all(target_os = "linux", not(loom)))]

mod common;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures::future::join_all;

use common::{allow_descriptors, eventually, open_fds, threads};
use listings::async_fd::Async;
use listings::epoll_reactor::Reactor;
use listings::real_future::SocketRead;

const READS: usize = 200;

/// `READS` socket pairs: the ends to read, non-blocking, and their peers.
fn socket_pairs() -> (Vec<UnixStream>, Vec<UnixStream>) {
    (0..READS)
        .map(|_| {
            let (ours, theirs) = UnixStream::pair().unwrap();
            ours.set_nonblocking(true).unwrap();
            (ours, theirs)
        })
        .unzip()
}

#[test]
fn waiting_reads_cost_a_thread_each_with_watchers_and_none_with_epoll() {
    allow_descriptors(1000 + 100);
    let fds = open_fds();
    let mut cx = Context::from_waker(Waker::noop());

    // Chapter 1: a watcher thread per pending read.
    let (ours, mut theirs) = socket_pairs();
    let before = threads();
    let mut reads: Vec<SocketRead> = ours.iter().map(SocketRead::new).collect();
    for read in &mut reads {
        assert!(Pin::new(read).poll(&mut cx).is_pending());
    }
    // `thread::spawn` returns once the thread exists, and a watcher only
    // ends when its socket is readable or its read dropped.
    assert_eq!(threads(), before + READS);
    // Each watcher holds a copy of its socket and the socket pair that
    // stops it.
    assert_eq!(open_fds(), fds + 2 * READS + 3 * READS);
    for (read, peer) in reads.iter_mut().zip(&mut theirs) {
        peer.write_all(b"x").unwrap();
        // The data is there: the read takes it, and stops its watcher.
        match Pin::new(read).poll(&mut cx) {
            Poll::Ready(data) => assert_eq!(data.unwrap(), b"x"),
            Poll::Pending => panic!("the data is there"),
        }
    }
    drop(reads);
    eventually("the watcher threads end", || threads() == before);
    drop((ours, theirs));

    // Chapter 8: one epoll reactor for every read, no thread.
    let reactor = Arc::new(Reactor::new().unwrap());
    let (ours, mut theirs) = socket_pairs();
    let ours: Vec<Async<UnixStream>> = ours
        .into_iter()
        .map(|s| Async::new(&reactor, s).unwrap())
        .collect();
    let before = threads();
    let mut bufs = vec![[0u8; 1]; READS];
    let mut reads: Vec<_> = ours
        .iter()
        .zip(&mut bufs)
        .map(|(s, buf)| Box::pin(s.read(buf)))
        .collect();
    for read in &mut reads {
        assert!(read.as_mut().poll(&mut cx).is_pending());
    }
    assert_eq!(threads(), before, "no thread for {READS} waiting reads");
    // The sockets, the epoll instance and its eventfd: nothing per wait.
    assert_eq!(open_fds(), fds + 2 * READS + 2);
    for peer in &mut theirs {
        peer.write_all(b"x").unwrap();
    }
    let done = reactor.block_on(join_all(reads)).unwrap();
    assert!(done.into_iter().all(|n| n.unwrap() == 1));
    assert!(bufs.iter().all(|buf| buf == b"x"));
    assert_eq!(threads(), before);
    drop((ours, theirs, reactor));

    // Every descriptor opened here is closed again.
    assert_eq!(open_fds(), fds);
}
