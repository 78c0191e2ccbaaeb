//! Chapter 9: the echo server out of descriptors.
//!
//! When a process has as many descriptors open as its limit allows,
//! `accept` fails with `EMFILE` and leaves the connection queued: the
//! listener stays readable, and a server that retried at once would spin.
//! The server pauses instead, keeps serving the connections it has, and
//! takes the queued ones as descriptors free up.
//!
//! Alone in its test binary, with a single test: the limit (`setrlimit`)
//! is the whole process's, and lowering it would make any other test
//! running alongside fail to open a socket.
#![cfg(all(target_os = "linux", not(loom)))]

mod common;
mod echo_support;

use std::fs::{self, File};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::{eventually, fd_numbers, open_fds};
use echo_support::{CHUNK, Flavor, PATIENCE, TestServer, connect, echo_checked, pattern};
use listings::echo::Config;
use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// Clients connected before the limit is lowered.
const OLD: usize = 10;
/// Clients that connect after.
const NEW: usize = 10;
/// Descriptors left free above the highest one open, under the lowered
/// limit.
const ROOM: u64 = 3;

/// How many descriptors this process has open, and the highest number
/// among them (counting the one that reads `/proc/self/fd`, which is
/// closed again when this returns). Only those below the soft limit count
/// (`fd_numbers`): under valgrind, the ones above are valgrind's own, out
/// of the program's reach.
fn descriptors() -> (u64, u64) {
    let numbers = fd_numbers();
    (numbers.len() as u64 - 1, numbers.into_iter().max().unwrap())
}

/// Whether exactly `room` more descriptors can be opened now (they are
/// closed again).
fn exactly_fit(room: u64) -> bool {
    let opened: Vec<File> = (0..=room)
        .map_while(|_| File::open("/dev/null").ok())
        .collect();
    opened.len() as u64 == room
}

/// The soft limit of descriptors that the kernel enforces, as
/// `/proc/self/limits` says. Under valgrind it is not the one the program
/// set: valgrind keeps that one for itself and enforces it its own way, in
/// which an `accept` over the limit takes the connection off the queue and
/// closes it (the peer sees a reset), where the kernel leaves it queued.
fn kernel_soft_limit() -> Option<u64> {
    let limits = fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))?;
    // "Max open files   <soft>   <hard>   files"
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Descriptors on `/dev/null` filling every gap below the highest open
/// descriptor (a process may inherit, say, 0 to 3 and 251): a new
/// descriptor takes the lowest free number, so afterwards the only room is
/// above the highest.
fn fill_gaps() -> Vec<File> {
    let (_, highest) = descriptors();
    let mut fillers = Vec::new();
    loop {
        let filler = File::open("/dev/null").unwrap();
        if filler.as_raw_fd() as u64 > highest {
            return fillers;
        }
        fillers.push(filler);
    }
}

/// Puts the descriptor limit back as it was when dropped, at the end of
/// the test or when it fails.
struct RestoreLimit(Rlimit);

impl Drop for RestoreLimit {
    fn drop(&mut self) {
        // Not `unwrap`: a panic while the test unwinds would abort.
        let restored = setrlimit(Resource::Nofile, self.0);
        if !std::thread::panicking() {
            restored.unwrap();
        }
    }
}

/// What client `client` sends in round `round`.
fn message(client: usize, round: usize) -> Vec<u8> {
    pattern(client * 1000 + round, CHUNK)
}

#[test]
fn out_of_descriptors_the_server_backs_off_serves_on_and_accepts_later() {
    // One runtime after the other: the limit is the whole process's.
    out_of_descriptors(Flavor::Ch09);
    out_of_descriptors(Flavor::Ch11);
}

fn out_of_descriptors(flavor: Flavor) {
    let before = open_fds();
    let backoff = Duration::from_millis(20);
    let config = Config {
        idle_timeout: PATIENCE,
        accept_backoff: backoff,
    };
    let server = TestServer::start(flavor, config, 128);
    let addr = server.addr;

    // 1. Clients accepted and served while descriptors are plenty.
    let mut old: Vec<TcpStream> = (0..OLD)
        .map(|client| {
            let mut stream = connect(addr);
            echo_checked(
                &mut stream,
                &message(client, 0),
                &format!("old client {client}"),
            );
            stream
        })
        .collect();
    // 2. The sockets of the clients to come, made now: a socket takes a
    //    descriptor, connecting it does not.
    let sockets: Vec<OwnedFd> = (0..NEW).map(|_| echo_support::tcp_socket()).collect();

    // 3. The limit lowered: room for a few more descriptors, fewer than
    //    the new clients need.
    let fillers = fill_gaps();
    let original = getrlimit(Resource::Nofile);
    let (open, highest) = descriptors();
    let limit = highest + 1 + ROOM;
    let room = limit - open;
    assert!(
        room < NEW as u64,
        "{room} descriptors free: the test needs fewer than {NEW}"
    );
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: Some(limit),
            maximum: original.maximum,
        },
    )
    .unwrap();
    let restore = RestoreLimit(original);
    if kernel_soft_limit() != Some(limit) {
        drop(restore);
        eprintln!("the kernel does not hold the limit set (valgrind?): the test stops short");
        drop((fillers, sockets, old));
        eventually("the server saw the clients close", || {
            server.stats().finished.get() == OLD as u64
        });
        server.stop();
        assert_eq!(open_fds(), before, "descriptors left open");
        return;
    }
    assert!(exactly_fit(room), "not {room} descriptors free");
    let lowered = Instant::now();
    // From here until the limit is restored, nothing on this side opens a
    // descriptor: no `open_fds`, no new socket.

    // 4. The new clients connect (the kernel queues them for `accept`),
    //    and each, on its thread, sends its bytes and waits for them.
    let (served, served_clients) = mpsc::channel();
    let threads: Vec<_> = sockets
        .into_iter()
        .enumerate()
        .map(|(i, socket)| {
            let client = OLD + i;
            rustix::net::connect(&socket, &addr).unwrap();
            let mut stream = TcpStream::from(socket);
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            let served = served.clone();
            thread::spawn(move || {
                echo_checked(
                    &mut stream,
                    &message(client, 0),
                    &format!("new client {client}"),
                );
                // Kept open until the test lets go of it: its descriptors
                // stay taken.
                served.send(stream).unwrap();
            })
        })
        .collect();
    let mut new: Vec<TcpStream> = (0..room)
        .map(|_| {
            served_clients
                .recv_timeout(PATIENCE)
                .expect("the free descriptors were not used")
        })
        .collect();

    // 5. The server's next accept failed: it pauses and tries again, and
    //    again, and serves the clients it has meanwhile.
    eventually("the server backed off three times", || {
        server.stats().accept_backoffs.get() >= 3
    });
    for (client, stream) in old.iter_mut().enumerate() {
        echo_checked(
            stream,
            &message(client, 1),
            &format!("old client {client}, out of descriptors"),
        );
    }
    let stats = server.stats();
    assert_eq!(
        stats.accepted.get(),
        OLD as u64 + room,
        "accepted with no descriptor free"
    );
    assert_eq!(stats.failed.get(), 0);
    assert!(
        served_clients.try_recv().is_err(),
        "a client served with no descriptor free"
    );

    // 6. The old clients leave: their descriptors and the server's free
    //    up, and the server's next tries take the clients still queued.
    drop(old);
    new.extend((room..NEW as u64).map(|_| {
        served_clients
            .recv_timeout(PATIENCE)
            .expect("the queued clients were never served")
    }));
    let elapsed = lowered.elapsed();
    drop(restore);
    drop(fillers);

    drop(new);
    for thread in threads {
        thread.join().unwrap();
    }
    let all = (OLD + NEW) as u64;
    eventually("the server saw every client close", || {
        server.stats().finished.get() == all
    });
    let stats = server.stop();
    assert_eq!(stats.accepted.get(), all);
    assert_eq!(stats.finished.get(), all);
    assert_eq!(
        (
            stats.failed.get(),
            stats.idle_closed.get(),
            stats.accepts_skipped.get()
        ),
        (0, 0, 0)
    );
    // Each failed accept but the last was followed by a full pause (timers
    // never fire early): a server that retried at once would fail
    // thousands of times in this time.
    let backoffs = stats.accept_backoffs.get();
    let most = (elapsed.as_millis() / backoff.as_millis()) as u64 + 1;
    assert!(
        (3..=most).contains(&backoffs),
        "{backoffs} failed accepts in {elapsed:?}, at most {most} with {backoff:?} pauses"
    );
    assert_eq!(open_fds(), before, "descriptors left open");
}
