//! Chapters 9 and 11: the echo server, on each chapter's runtime (every
//! test runs twice: `ch09::…` and `ch11::…`), with real peers on loopback — many at once,
//! and the faults a server meets: a peer that resets mid-write, a peer
//! that says nothing, signals interrupting `epoll_wait`. After each fault,
//! other clients must still be served, byte for byte; after each test, no
//! descriptor of the server or of its clients is left open.
//!
//! (Spurious readiness is tested in `echo.rs` itself, where the reactor's
//! test hook is; running out of descriptors in `echo_fd_limit.rs`, alone in
//! its process because the descriptor limit is the whole process's.)
#![cfg(all(target_os = "linux", not(loom)))]

mod common;
mod echo_support;

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::marker::PhantomData;
use std::net::{SocketAddr, TcpStream};
use std::os::unix::thread::JoinHandleExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use common::{allow_descriptors, asleep_in_epoll, eventually, fd_numbers, open_fds};
use echo_support::{Flavor, PATIENCE, TestServer, connect, echo_checked, echo_clients, pattern};
use listings::echo::{Config, Stats};

/// Room in the listen queue for every client of the largest test.
const BACKLOG: i32 = 1024;

/// A server that never closes a connection for being silent.
fn patient() -> Config {
    Config {
        idle_timeout: PATIENCE,
        ..Config::default()
    }
}

/// The counters of a server that accepted `accepted` connections and saw
/// `finished` of them closed by their peers, and nothing else.
fn served(accepted: u64, finished: u64) -> Stats {
    let stats = Stats::default();
    stats.accepted.set(accepted);
    stats.finished.set(finished);
    stats
}

/// Runs `test` alone in the process, and checks that it left no descriptor
/// open.
///
/// The tests of a binary run on parallel threads of one process, and
/// `/proc/self/fd` counts all their descriptors: a count taken while
/// another test opens or closes sockets means nothing. So the tests of
/// this binary take turns, and count inside their turn. (A binary per test
/// would do too, but each binary is one more link of the whole crate, and
/// taking turns also leaves the machine to the thousand clients.)
fn alone_and_leak_free(test: impl FnOnce()) {
    static TURN: Mutex<()> = Mutex::new(());
    // A test that failed poisoned the lock; the others still run.
    let _turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    let before = open_fds();
    test();
    // The server's thread has been joined, its runtime dropped, and every
    // client dropped: nothing may be left.
    assert_eq!(open_fds(), before, "descriptors left open");
}

/// The descriptors in the interest lists of this process's epoll instances
/// (a `tfd:` line each in the instance's `/proc/self/fdinfo`), among the
/// descriptors that [`open_fds`] counts. Only differences mean something:
/// the process may have inherited an epoll instance of its own.
fn epoll_entries() -> usize {
    fd_numbers()
        .into_iter()
        .filter(|fd| {
            fs::read_link(format!("/proc/self/fd/{fd}"))
                .is_ok_and(|target| target.as_os_str() == "anon_inode:[eventpoll]")
        })
        .map(|fd| {
            let info = fs::read_to_string(format!("/proc/self/fdinfo/{fd}")).unwrap_or_default();
            info.lines().filter(|line| line.starts_with("tfd:")).count()
        })
        .sum()
}

/// `clients` clients at once, 64 KiB each, `per_thread` to a client thread.
fn concurrent_clients(flavor: Flavor, clients: usize, per_thread: usize) {
    alone_and_leak_free(|| {
        let server = TestServer::start(flavor, patient(), BACKLOG);
        echo_clients(server.addr, 0..clients, per_thread);
        let all = clients as u64;
        // The clients have closed; the server's tasks see it as they run.
        eventually("the server saw every client close", || {
            server.stats().finished.get() == all
        });
        assert_eq!(server.stop(), served(all, all));
    });
}

fn one_client_gets_its_64_kib_back_in_order(flavor: Flavor) {
    concurrent_clients(flavor, 1, 1);
}

fn a_hundred_concurrent_clients_each_get_their_own_bytes_back(flavor: Flavor) {
    concurrent_clients(flavor, 100, 10);
}

fn a_thousand_concurrent_clients_each_get_their_own_bytes_back(flavor: Flavor) {
    // A client's socket and the server's for each, and a few more.
    allow_descriptors(2 * 1000 + 100);
    concurrent_clients(flavor, 1000, 20);
}

/// A client with a receive buffer as small as the kernel allows, set
/// before it connects (the window it offers is fixed then): the server's
/// echo fills it at once. (`TcpStream::connect` cannot set an option
/// first, so the socket is built by hand.)
fn connect_with_a_small_receive_buffer(addr: SocketAddr) -> TcpStream {
    let socket = echo_support::tcp_socket();
    // The kernel doubles it and raises it to its minimum (a few KiB); it
    // turns off the buffer's growth (autotuning) too.
    rustix::net::sockopt::set_socket_recv_buffer_size(&socket, 4096).unwrap();
    rustix::net::connect(&socket, &addr).unwrap();
    TcpStream::from(socket)
}

fn a_peer_that_resets_mid_write_ends_its_own_connection_only(flavor: Flavor) {
    alone_and_leak_free(|| {
        let server = TestServer::start(flavor, patient(), BACKLOG);
        // It sends and never reads. The echo fills its small receive
        // buffer, then the server's send buffer: the server's write waits,
        // so the server stops reading; its receive buffer fills, then this
        // client's send buffer, and this client's writes wait in turn.
        // Whenever a write has found no room for 300 ms (its timeout), the
        // test looks at the server: asleep in `epoll_wait` while bytes wait
        // unread in its socket, it is not waiting to read; it is in the
        // middle of a write. A server that is merely slow fails the look,
        // and the client writes on. (Without the small buffer, loopback's
        // autotuned buffers could take everything sent so far, with the
        // server waiting for its next read, not in a write.)
        let mut rude = connect_with_a_small_receive_buffer(server.addr);
        rude.set_write_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let rude_addr = rude.local_addr().unwrap();
        let data = pattern(1000, 64 * 1024);
        // Only a server that never stopped reading gets this far: the
        // buffers on both sides hold some megabytes at most.
        let most = 1 << 30;
        let deadline = Instant::now() + PATIENCE;
        let mut sent = 0;
        let mut stuck_in_write = false;
        while sent < most && Instant::now() < deadline {
            match rude.write(&data) {
                Ok(n) => sent += n,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                    if asleep_in_epoll(std::process::id(), server.tid)
                        && unread_bytes(server.addr, rude_addr) > 0
                    {
                        stuck_in_write = true;
                        break;
                    }
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(
            stuck_in_write,
            "{sent} bytes sent, and the server still reads (or was never seen waiting to write)"
        );
        assert!(sent > 0);
        // Closed with a linger time of zero: the kernel sends a reset, and
        // the server's pending write (or its next read) fails with
        // `ECONNRESET` or `EPIPE`.
        rustix::net::sockopt::set_socket_linger(&rude, Some(Duration::ZERO)).unwrap();
        drop(rude);
        eventually("the server counted the reset", || {
            server.stats().failed.get() == 1
        });
        // The others are served as before.
        echo_clients(server.addr, 0..10, 5);
        eventually("the server saw the others close", || {
            server.stats().finished.get() == 10
        });
        let stats = server.stop();
        let expected = served(11, 10);
        expected.failed.set(1);
        assert_eq!(stats, expected);
    });
}

fn a_silent_client_does_not_hold_up_the_others(flavor: Flavor) {
    alone_and_leak_free(|| {
        let server = TestServer::start(flavor, patient(), BACKLOG);
        let mut silent = connect(server.addr);
        // Accepted, and its task waits in its read...
        eventually("the silent client was accepted", || {
            server.stats().accepted.get() == 1
        });
        // ...while ten others are served, byte for byte.
        echo_clients(server.addr, 0..10, 1);
        eventually("the server saw the others close", || {
            server.stats().finished.get() == 10
        });
        // The silent one is still connected, and still served.
        assert_eq!(server.stats().open(), 1);
        echo_checked(&mut silent, b"late, but here", "the silent client");
        drop(silent);
        eventually("the server saw it close", || {
            server.stats().finished.get() == 11
        });
        assert_eq!(server.stop(), served(11, 11));
    });
}

fn a_silent_client_is_closed_after_the_idle_timeout_and_its_socket_let_go(flavor: Flavor) {
    alone_and_leak_free(|| {
        let idle = Duration::from_millis(300);
        let entries = epoll_entries();
        let server = TestServer::start(
            flavor,
            Config {
                idle_timeout: idle,
                ..Config::default()
            },
            BACKLOG,
        );
        // The runtime's own (its eventfd; chapter 11's timer) and the
        // listener.
        let entries = entries + flavor.own_epoll_entries();
        assert_eq!(epoll_entries(), entries + 1);
        let fds = open_fds();
        let connected = Instant::now();
        let mut silent = connect(server.addr);
        eventually("the silent client was accepted", || {
            server.stats().accepted.get() == 1
        });
        assert_eq!(open_fds(), fds + 2, "its socket, and the server's");
        assert_eq!(epoll_entries(), entries + 2, "the server's socket too");
        // The server closes its socket while its read waits: the client
        // sees the end of the stream.
        assert_eq!(silent.read(&mut [0; 16]).unwrap(), 0);
        let after = connected.elapsed();
        assert!(
            after >= idle,
            "closed after {after:?}, before the idle timeout"
        );
        assert!(after < PATIENCE);
        // The server's socket is closed, and out of epoll's interest list.
        assert_eq!(open_fds(), fds + 1, "only the client's socket is left");
        assert_eq!(epoll_entries(), entries + 1);
        drop(silent);
        let stats = server.stop();
        let expected = served(1, 0);
        expected.idle_closed.set(1);
        assert_eq!(stats, expected);
    });
}

/// How many `SIGUSR1` the handler has seen.
static SIGNALS_HANDLED: AtomicUsize = AtomicUsize::new(0);

extern "C" fn count_signal(_: libc::c_int) {
    // Only an atomic add: async-signal-safe.
    SIGNALS_HANDLED.fetch_add(1, Ordering::Relaxed);
}

/// Installs a `SIGUSR1` handler (again: it stays for the whole process).
///
/// Without `SA_RESTART`, the harshest setting: every system call that a
/// signal interrupts and that the kernel could restart fails with `EINTR`
/// instead, so a server call that forgot to retry would show. (The flag
/// does not matter to `epoll_wait` itself: signal(7) lists it among the
/// calls never restarted, which fail with `EINTR` whatever the flags.)
fn handle_sigusr1_without_restart() {
    // SAFETY: an all-zero `sigaction` is a valid value of the C struct
    // (no flags, an empty mask, a null handler) before we fill it in.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = count_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    action.sa_flags = 0;
    // SAFETY: `sa_mask` is a valid, writable `sigset_t` of `action`.
    unsafe { libc::sigemptyset(&mut action.sa_mask) };
    // SAFETY: `action` is fully initialised, and its handler is an
    // `extern "C" fn(c_int)` that only does async-signal-safe work; the
    // old action is not asked for (null).
    let installed = unsafe { libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()) };
    assert_eq!(installed, 0, "sigaction failed");
}

/// Sends one `SIGUSR1` to the thread of `server`.
fn signal(server: &TestServer) {
    let target = server.thread().as_pthread_t();
    // SAFETY: `target` is the server's thread, and `server`, borrowed for
    // the call, holds its `JoinHandle`, neither joined nor detached: the
    // thread id is valid (if the thread has ended, nothing is delivered).
    // SIGUSR1 has a handler (installed first by every test that signals),
    // so it does not end the process.
    let sent = unsafe { libc::pthread_kill(target, libc::SIGUSR1) };
    assert_eq!(sent, 0, "pthread_kill failed");
}

/// A thread that sends `SIGUSR1` to a server's thread every 200 µs until
/// stopped, at least ten times. It borrows the server, so that the
/// server's thread cannot be joined (`TestServer::stop` takes the server)
/// or detached (`TestServer`'s `Drop`) while it lives; and it stops and
/// joins its thread when stopped or dropped (a failed test unwinding
/// included), so that it never signals a thread id that may be gone or
/// reused.
struct Signaller<'server> {
    stop: Arc<AtomicBool>,
    /// How many signals were sent, or `pthread_kill`'s error.
    thread: Option<thread::JoinHandle<Result<usize, i32>>>,
    server: PhantomData<&'server TestServer>,
}

impl<'server> Signaller<'server> {
    fn start(server: &'server TestServer) -> Self {
        handle_sigusr1_without_restart();
        let target = server.thread().as_pthread_t();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                let mut sent = 0;
                while !stop.load(Ordering::Relaxed) || sent < 10 {
                    // SAFETY: `target` is the server's thread, whose
                    // `JoinHandle` stays un-joined and un-detached for as
                    // long as the `Signaller` borrows the server, and the
                    // `Signaller` joins this thread before that borrow ends
                    // (`stop`, `Drop`): the thread id is valid at every
                    // call (if the thread has ended, nothing is delivered).
                    // SIGUSR1 has a handler, installed above, so it does
                    // not end the process.
                    let result = unsafe { libc::pthread_kill(target, libc::SIGUSR1) };
                    if result != 0 {
                        return Err(result);
                    }
                    sent += 1;
                    thread::sleep(Duration::from_micros(200));
                }
                Ok(sent)
            })
        };
        Signaller {
            stop,
            thread: Some(thread),
            server: PhantomData,
        }
    }

    /// Stops and joins the thread; returns how many signals it sent.
    fn stop(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        let thread = self.thread.take().unwrap();
        thread.join().unwrap().expect("pthread_kill failed")
    }
}

impl Drop for Signaller<'_> {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.stop.store(true, Ordering::Relaxed);
            // The test has failed already: only the join matters.
            let _ = thread.join();
        }
    }
}

/// The bytes waiting unread in the receive queue of the loopback TCP socket
/// with this local and peer address, as `/proc/net/tcp` lists them (an
/// address is the IPv4 address's four bytes read as a native-endian `u32`,
/// in hex, then `:` and the port in hex; the queue is the second half of
/// the `tx_queue:rx_queue` field).
fn unread_bytes(local: SocketAddr, peer: SocketAddr) -> u64 {
    let hex = |addr: SocketAddr| match addr {
        SocketAddr::V4(addr) => format!(
            "{:08X}:{:04X}",
            u32::from_ne_bytes(addr.ip().octets()),
            addr.port()
        ),
        SocketAddr::V6(_) => panic!("the echo tests use IPv4 loopback"),
    };
    let (local, peer) = (hex(local), hex(peer));
    let table = fs::read_to_string("/proc/net/tcp").unwrap();
    let queues = table
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|fields| {
            fields.get(1) == Some(&local.as_str()) && fields.get(2) == Some(&peer.as_str())
        })
        .unwrap_or_else(|| panic!("no socket {local} -> {peer} in /proc/net/tcp"))[4];
    let (_, unread) = queues.split_once(':').unwrap();
    u64::from_str_radix(unread, 16).unwrap()
}

/// Waits until the server's thread sleeps in `epoll_wait`.
fn wait_until_asleep_in_epoll(server: &TestServer, what: &str) {
    eventually(what, || asleep_in_epoll(std::process::id(), server.tid));
}

fn signals_interrupting_epoll_wait_lose_nothing(flavor: Flavor) {
    alone_and_leak_free(|| {
        handle_sigusr1_without_restart();
        let server = TestServer::start(flavor, patient(), BACKLOG);
        // 1. A signal that interrupts `epoll_wait` itself: the server has
        //    nothing to do (no connection, no timer), so its thread sleeps
        //    in `epoll_wait` until the signal comes, and the handler runs
        //    on it. `epoll_wait` fails with `EINTR`; the reactor returns
        //    with no reports, and the runtime goes round its loop and
        //    sleeps again.
        wait_until_asleep_in_epoll(&server, "the idle server sleeps in epoll_wait");
        let handled = SIGNALS_HANDLED.load(Ordering::Relaxed);
        signal(&server);
        eventually("the server's thread ran the handler", || {
            SIGNALS_HANDLED.load(Ordering::Relaxed) > handled
        });
        wait_until_asleep_in_epoll(&server, "the server is back in epoll_wait");
        let mut first = connect(server.addr);
        echo_checked(&mut first, b"after the signal", "the first client");
        drop(first);

        // 2. Signals every 200 µs, wherever the server is, while a hundred
        //    clients are served.
        let handled = SIGNALS_HANDLED.load(Ordering::Relaxed);
        let signaller = Signaller::start(&server);
        echo_clients(server.addr, 0..100, 10);
        eventually("the server saw every client close", || {
            server.stats().finished.get() == 101
        });
        let sent = signaller.stop();
        let handled = SIGNALS_HANDLED.load(Ordering::Relaxed) - handled;
        assert!(sent >= 10);
        assert!(handled >= 1, "no signal reached the server");
        assert_eq!(server.stop(), served(101, 101));

        // 3. A silent client is closed after the idle timeout, not before
        //    (an interrupted wait does not end a timer), nor never (nor is
        //    it restarted by each interruption), while signals keep coming.
        let idle = Duration::from_millis(300);
        let server = TestServer::start(
            flavor,
            Config {
                idle_timeout: idle,
                ..Config::default()
            },
            BACKLOG,
        );
        let signaller = Signaller::start(&server);
        let connected = Instant::now();
        let mut silent = connect(server.addr);
        assert_eq!(
            silent.read(&mut [0; 16]).unwrap(),
            0,
            "closed by the server"
        );
        let after = connected.elapsed();
        let sent = signaller.stop();
        assert!(
            after >= idle,
            "closed after {after:?}, before the idle timeout"
        );
        assert!(after < PATIENCE);
        assert!(sent >= 10);
        drop(silent);
        let stats = server.stop();
        let expected = served(1, 0);
        expected.idle_closed.set(1);
        assert_eq!(stats, expected);
    });
}

fn stopping_the_server_closes_its_listener_and_the_open_connections(flavor: Flavor) {
    alone_and_leak_free(|| {
        let server = TestServer::start(flavor, patient(), BACKLOG);
        let addr = server.addr;
        let mut open = connect(addr);
        echo_checked(&mut open, b"before the stop", "the open client");
        let stats = server.stop();
        assert_eq!(stats, served(1, 0), "stopped with the connection open");
        // The runtime dropped the connection's task, which closed its
        // socket: the client, which had read every byte sent back, sees
        // the end of the stream.
        assert_eq!(open.read(&mut [0; 16]).unwrap(), 0);
        // The listener is closed: nobody listens on its port any more.
        // (The count of descriptors after the test shows it closed too.)
        let refused = TcpStream::connect(addr).unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::ConnectionRefused, "{refused}");
    });
}

// Every test above, on chapter 9's runtime and on chapter 11's.
on_both_runtimes!(
    one_client_gets_its_64_kib_back_in_order,
    a_hundred_concurrent_clients_each_get_their_own_bytes_back,
    a_thousand_concurrent_clients_each_get_their_own_bytes_back,
    a_peer_that_resets_mid_write_ends_its_own_connection_only,
    a_silent_client_does_not_hold_up_the_others,
    a_silent_client_is_closed_after_the_idle_timeout_and_its_socket_let_go,
    signals_interrupting_epoll_wait_lose_nothing,
    stopping_the_server_closes_its_listener_and_the_open_connections,
);
