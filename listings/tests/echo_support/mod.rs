//! What the echo server's integration tests share: the server on a thread
//! of its own, and clients that check every byte they get back.
//!
//! The server runs on chapter 9's runtime or chapter 11's ([`Flavor`]):
//! the same `serve`, through its `Net` trait. A runtime is not `Send`:
//! the thread makes its own. The test thread stops it with a oneshot channel and asks it for its
//! counters through another channel; both wake the runtime from another
//! thread, through its eventfd. It uses `common` (every binary that says
//! `mod echo_support;` says `mod common;` too).
#![allow(dead_code, reason = "each test binary uses part of it")]

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::ops::Range;
use std::os::fd::OwnedFd;
use std::rc::Rc;
use std::sync::{Arc, Barrier, mpsc as std_mpsc};
use std::thread;

use futures::StreamExt;
use futures::channel::{mpsc, oneshot};
use listings::echo::{Config, Net, Stats, serve};
use rustix::net::{AddressFamily, SocketFlags, SocketType};

pub use crate::common::PATIENCE;
use crate::common::{join_within_patience, within_patience};

/// Every client's stream: 64 KiB each way.
pub const STREAM_LEN: usize = 64 * 1024;

/// What a client writes before reading it back. A client never has more
/// than this in flight, which always fits in the socket buffers: so a
/// client's blocking write never waits for a read that the same thread
/// would only do later, and one thread can drive many clients.
pub const CHUNK: usize = 8 * 1024;

/// The runtime a test server runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Chapter 9's runtime.
    Ch09,
    /// Chapter 11's.
    Ch11,
}

impl Flavor {
    /// The entries the runtime itself keeps in its epoll interest list:
    /// its eventfd, and for chapter 11's also its timer.
    pub fn own_epoll_entries(self) -> usize {
        match self {
            Flavor::Ch09 => 1,
            Flavor::Ch11 => 2,
        }
    }
}

/// Makes, for each `fn name(flavor: Flavor)` listed, a test per runtime:
/// `ch09::name` and `ch11::name`.
#[macro_export]
macro_rules! on_both_runtimes {
    ($($name:ident),* $(,)?) => {
        mod ch09 {
            $(#[test]
            fn $name() {
                super::$name($crate::echo_support::Flavor::Ch09)
            })*
        }
        mod ch11 {
            $(#[test]
            fn $name() {
                super::$name($crate::echo_support::Flavor::Ch11)
            })*
        }
    };
}

/// What the server's thread needs of a runtime, besides `Net`.
trait ServerRuntime: Sized {
    type Handle: Net;
    fn start() -> (Self, Self::Handle);
    fn register(handle: &Self::Handle, listener: TcpListener) -> <Self::Handle as Net>::Listener;
    fn run<F: std::future::Future>(&self, future: F) -> F::Output;
}

impl ServerRuntime for listings::runtime::Runtime {
    type Handle = listings::runtime::Handle;

    fn start() -> (Self, Self::Handle) {
        let rt = Self::new().unwrap();
        let handle = rt.handle().clone();
        (rt, handle)
    }

    fn register(handle: &Self::Handle, listener: TcpListener) -> <Self::Handle as Net>::Listener {
        listings::async_fd::Async::new(handle.reactor(), listener).unwrap()
    }

    fn run<F: std::future::Future>(&self, future: F) -> F::Output {
        self.block_on(future).unwrap()
    }
}

impl ServerRuntime for listings::lean_runtime::Runtime {
    type Handle = listings::lean_runtime::Handle;

    fn start() -> (Self, Self::Handle) {
        let rt = Self::new().unwrap();
        let handle = rt.handle().clone();
        (rt, handle)
    }

    fn register(handle: &Self::Handle, listener: TcpListener) -> <Self::Handle as Net>::Listener {
        listings::lean_reactor::Async::new(handle.reactor(), listener).unwrap()
    }

    fn run<F: std::future::Future>(&self, future: F) -> F::Output {
        self.block_on(future).unwrap()
    }
}

/// Serves `listener` on a new runtime `R` until `stopped`, answering the
/// queries of `asked` meanwhile; drops the runtime (closing the
/// connections still open, and its own descriptors) and returns the
/// counters.
fn serve_on<R: ServerRuntime>(
    listener: TcpListener,
    config: Config,
    mut asked: mpsc::UnboundedReceiver<std_mpsc::Sender<Stats>>,
    stopped: oneshot::Receiver<()>,
) -> Stats {
    let (rt, handle) = R::start();
    let listener = R::register(&handle, listener);
    let stats = Rc::new(Stats::default());
    let counters = Rc::clone(&stats);
    handle.spawn_task(async move {
        while let Some(reply) = asked.next().await {
            let _ = reply.send(Stats::clone(&counters));
        }
    });
    rt.run(serve(
        handle.clone(),
        listener,
        config,
        Rc::clone(&stats),
        stopped,
    ));
    drop(rt);
    Stats::clone(&stats)
}

/// An echo server on a thread of its own.
#[derive(Debug)]
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The kernel's id of its thread (`gettid`), to find the thread in
    /// `/proc/self/task`.
    pub tid: u32,
    stop: Option<oneshot::Sender<()>>,
    queries: mpsc::UnboundedSender<std_mpsc::Sender<Stats>>,
    thread: Option<thread::JoinHandle<Stats>>,
}

impl TestServer {
    /// Starts a server on runtime `flavor` with `config`, on a listener of
    /// `127.0.0.1`, on a port the system picks, that queues up to
    /// `backlog` connections; returns once it runs.
    pub fn start(flavor: Flavor, config: Config, backlog: i32) -> TestServer {
        let listener = listener(backlog);
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let (queries, asked) = mpsc::unbounded::<std_mpsc::Sender<Stats>>();
        let (tell_tid, told_tid) = std_mpsc::channel();
        let thread = thread::Builder::new()
            .name("echo server".into())
            .spawn(move || {
                let tid = rustix::thread::gettid().as_raw_nonzero().get();
                tell_tid.send(u32::try_from(tid).unwrap()).unwrap();
                match flavor {
                    Flavor::Ch09 => {
                        serve_on::<listings::runtime::Runtime>(listener, config, asked, stopped)
                    }
                    Flavor::Ch11 => serve_on::<listings::lean_runtime::Runtime>(
                        listener, config, asked, stopped,
                    ),
                }
            })
            .unwrap();
        let tid = told_tid
            .recv_timeout(PATIENCE)
            .expect("the server's thread did not start");
        let server = TestServer {
            addr,
            tid,
            stop: Some(stop),
            queries,
            thread: Some(thread),
        };
        // Its first answer comes from the running runtime: from then on
        // its descriptors (epoll, eventfd, the listener's registration)
        // exist, and a test may count them.
        server.stats();
        server
    }

    /// The server's counters now.
    pub fn stats(&self) -> Stats {
        let (reply, answer) = std_mpsc::channel();
        self.queries.unbounded_send(reply).unwrap();
        answer
            .recv_timeout(PATIENCE)
            .expect("the server does not answer")
    }

    /// The server's thread, still running.
    pub fn thread(&self) -> &thread::JoinHandle<Stats> {
        self.thread.as_ref().unwrap()
    }

    /// Stops the server, waits for its thread (its runtime dropped, every
    /// descriptor of its closed), and returns its final counters. Fails if
    /// the thread has not ended within `PATIENCE` (a lost wake-up).
    pub fn stop(mut self) -> Stats {
        self.stop.take().unwrap().send(()).unwrap();
        join_within_patience(self.thread.take().unwrap(), "the stopped server")
    }
}

impl Drop for TestServer {
    /// A test that failed: stops the server, and waits for it a while, so
    /// that the next test does not count its descriptors.
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            // Not a failure of its own if it does not end: the test has
            // failed already. The thread is left behind, detached.
            within_patience(|| thread.is_finished());
        }
    }
}

/// A listener on `127.0.0.1`, port picked by the system, queueing up to
/// `backlog` connections. `TcpListener::bind` queues 128: a thousand
/// clients connecting at once would overflow it, and each client whose
/// handshake is dropped tries again only a second later.
pub fn listener(backlog: i32) -> TcpListener {
    let socket = tcp_socket();
    rustix::net::bind(&socket, &SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).unwrap();
    rustix::net::listen(&socket, backlog).unwrap();
    TcpListener::from(socket)
}

/// A new IPv4 TCP socket, closed on `exec`, for a test to set options on
/// before it binds or connects (std's types cannot).
pub fn tcp_socket() -> OwnedFd {
    rustix::net::socket_with(
        AddressFamily::INET,
        SocketType::STREAM,
        SocketFlags::CLOEXEC,
        None,
    )
    .unwrap()
}

/// Client `client`'s stream: 8-byte words of a mix of the client's number
/// and the word's, so that bytes of another client, or out of order, show.
pub fn pattern(client: usize, len: usize) -> Vec<u8> {
    let mut bytes = vec![0; len];
    // A plain loop: the tests run unoptimised (and under valgrind), and
    // the thousand clients make 64 MB of it.
    for (word, chunk) in bytes.chunks_mut(8).enumerate() {
        let mixed = mix((client as u64) << 32 | word as u64).to_le_bytes();
        chunk.copy_from_slice(&mixed[..chunk.len()]);
    }
    bytes
}

/// SplitMix64's finaliser: every input bit changes half the output bits.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d049bb133111eb);
    x ^ (x >> 31)
}

/// A client connected to `addr`, which fails rather than hangs if the
/// server stops answering.
pub fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream.set_write_timeout(Some(PATIENCE)).unwrap();
    stream
}

/// Writes `sent` and checks that exactly it comes back; `what` names the
/// client in the message.
pub fn echo_checked(stream: &mut TcpStream, sent: &[u8], what: &str) {
    stream.write_all(sent).unwrap();
    let mut back = vec![0; sent.len()];
    stream.read_exact(&mut back).unwrap();
    check(&back, sent, 0, what);
}

/// Checks that `back`, at offset `offset` of a stream, is `sent`; names
/// the first wrong byte if not.
fn check(back: &[u8], sent: &[u8], offset: usize, what: &str) {
    // Compared whole first (a `memcmp`); searched byte by byte only to
    // say where it went wrong.
    if back != sent {
        let at = back
            .iter()
            .zip(sent)
            .position(|(b, s)| b != s)
            .unwrap_or(back.len());
        panic!("{what}: byte {} came back wrong", offset + at);
    }
}

/// Connects the clients numbered `clients`, `per_thread` to a thread, all
/// of them at once, then echoes each one's 64 KiB stream a chunk at a
/// time, checking every byte; closes them all. Panics if any byte is wrong.
pub fn echo_clients(addr: SocketAddr, clients: Range<usize>, per_thread: usize) {
    let ids: Vec<usize> = clients.collect();
    let groups: Vec<Vec<usize>> = ids.chunks(per_thread).map(<[usize]>::to_vec).collect();
    let all_connected = Arc::new(Barrier::new(groups.len()));
    let threads: Vec<_> = groups
        .into_iter()
        .map(|group| {
            let all_connected = Arc::clone(&all_connected);
            thread::spawn(move || {
                let connected: Vec<_> = group
                    .iter()
                    .map(|&client| TcpStream::connect(addr).map(|stream| (client, stream)))
                    .collect();
                // Every thread reaches the barrier, even one whose connect
                // failed: the others must not wait for it for ever.
                all_connected.wait();
                let mut streams: Vec<(usize, TcpStream, Vec<u8>)> = connected
                    .into_iter()
                    .map(|connected| {
                        let (client, stream) = connected.unwrap();
                        stream.set_read_timeout(Some(PATIENCE)).unwrap();
                        (client, stream, pattern(client, STREAM_LEN))
                    })
                    .collect();
                let mut back = vec![0; CHUNK];
                for start in (0..STREAM_LEN).step_by(CHUNK) {
                    let end = start + CHUNK;
                    for (_, stream, sent) in &mut streams {
                        stream.write_all(&sent[start..end]).unwrap();
                    }
                    for (client, stream, sent) in &mut streams {
                        stream.read_exact(&mut back).unwrap();
                        check(&back, &sent[start..end], start, &format!("client {client}"));
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}
