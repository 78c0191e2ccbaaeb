//! Chapter 9: the echo server with real peers on loopback — many at once,
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
use std::os::unix::thread::JoinHandleExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use common::{eventually, open_fds};
use echo_support::{PATIENCE, TestServer, connect, echo_checked, echo_clients, pattern};
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

/// Raises this process's soft limit of descriptors to its hard limit, and
/// checks that it allows `needed`.
fn allow_descriptors(needed: u64) {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    // `None`: no limit.
    if limit.maximum.is_some_and(|hard| hard < needed) {
        panic!(
            "this test needs {needed} descriptors, and the hard limit (`ulimit -Hn`) is {:?}: raise it",
            limit.maximum
        );
    }
    setrlimit(
        Resource::Nofile,
        Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        },
    )
    .unwrap();
}

/// The descriptors in the interest lists of this process's epoll instances
/// (a `tfd:` line each in the instance's `/proc/self/fdinfo`).
fn epoll_entries() -> usize {
    fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path();
            let target = fs::read_link(&path).ok()?;
            (target.to_str()? == "anon_inode:[eventpoll]")
                .then(|| path.file_name().unwrap().to_owned())
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|fd| {
            let info = fs::read_to_string(format!("/proc/self/fdinfo/{}", fd.to_str().unwrap()))
                .unwrap_or_default();
            info.lines().filter(|line| line.starts_with("tfd:")).count()
        })
        .sum()
}

/// `clients` clients at once, 64 KiB each, `per_thread` to a client thread.
fn concurrent_clients(clients: usize, per_thread: usize) {
    alone_and_leak_free(|| {
        let server = TestServer::start(patient(), BACKLOG);
        echo_clients(server.addr, 0..clients, per_thread);
        let all = clients as u64;
        // The clients have closed; the server's tasks see it as they run.
        eventually("the server saw every client close", || {
            server.stats().finished.get() == all
        });
        assert_eq!(server.stop(), served(all, all));
    });
}

#[test]
fn one_client_gets_its_64_kib_back_in_order() {
    concurrent_clients(1, 1);
}

#[test]
fn a_hundred_concurrent_clients_each_get_their_own_bytes_back() {
    concurrent_clients(100, 10);
}

#[test]
fn a_thousand_concurrent_clients_each_get_their_own_bytes_back() {
    // A client's socket and the server's for each, and a few more.
    allow_descriptors(2 * 1000 + 100);
    concurrent_clients(1000, 20);
}

#[test]
fn a_peer_that_resets_mid_write_ends_its_own_connection_only() {
    alone_and_leak_free(|| {
        let server = TestServer::start(patient(), BACKLOG);
        // It sends and never reads. The echo fills its receive buffer,
        // then the server's send buffer: the server's write waits, so it
        // stops reading, and this client's writes wait in turn. Up to
        // 4 MiB, or until its writes have waited 200 ms.
        let mut rude = connect(server.addr);
        rude.set_write_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let data = pattern(1000, 64 * 1024);
        let mut sent = 0;
        while sent < 4 << 20 {
            match rude.write(&data) {
                Ok(n) => sent += n,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => break,
                Err(e) => panic!("{e}"),
            }
        }
        assert!(sent > 0);
        // Closed with a linger time of zero: the kernel sends a reset, and
        // the server's next write (or read) fails with `ECONNRESET` or
        // `EPIPE`.
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

#[test]
fn a_silent_client_does_not_hold_up_the_others() {
    alone_and_leak_free(|| {
        let server = TestServer::start(patient(), BACKLOG);
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

#[test]
fn a_silent_client_is_closed_after_the_idle_timeout_and_its_socket_let_go() {
    alone_and_leak_free(|| {
        let idle = Duration::from_millis(300);
        let server = TestServer::start(
            Config {
                idle_timeout: idle,
                ..Config::default()
            },
            BACKLOG,
        );
        let fds = open_fds();
        // The runtime's eventfd and the listener.
        assert_eq!(epoll_entries(), 2);
        let connected = Instant::now();
        let mut silent = connect(server.addr);
        eventually("the silent client was accepted", || {
            server.stats().accepted.get() == 1
        });
        assert_eq!(open_fds(), fds + 2, "its socket, and the server's");
        assert_eq!(epoll_entries(), 3);
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
        assert_eq!(epoll_entries(), 2);
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

/// Installs a `SIGUSR1` handler without `SA_RESTART`: a system call that a
/// signal interrupts fails with `EINTR` instead of being restarted.
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

#[test]
fn signals_interrupting_epoll_wait_lose_nothing() {
    alone_and_leak_free(|| {
        handle_sigusr1_without_restart();
        let server = TestServer::start(patient(), BACKLOG);
        let target = server.thread().as_pthread_t();
        let stop = Arc::new(AtomicBool::new(false));
        let signaller = {
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                let mut sent = 0;
                while !stop.load(Ordering::Relaxed) || sent < 10 {
                    // SAFETY: `target` is the server's thread, which is not
                    // joined before this thread is (it may have ended: a
                    // thread not joined yet is still a valid target).
                    // SIGUSR1 has a handler, so it does not end the process.
                    let result = unsafe { libc::pthread_kill(target, libc::SIGUSR1) };
                    assert_eq!(result, 0, "pthread_kill failed");
                    sent += 1;
                    thread::sleep(Duration::from_micros(200));
                }
                sent
            })
        };
        let handled_before = SIGNALS_HANDLED.load(Ordering::Relaxed);
        echo_clients(server.addr, 0..100, 10);
        eventually("the server saw every client close", || {
            server.stats().finished.get() == 100
        });
        stop.store(true, Ordering::Relaxed);
        let sent = signaller.join().unwrap();
        let stats = server.stop();
        let handled = SIGNALS_HANDLED.load(Ordering::Relaxed) - handled_before;
        assert!(sent >= 10);
        assert!(handled >= 1, "no signal reached the server");
        assert_eq!(stats, served(100, 100));
    });
}

#[test]
fn stopping_the_server_closes_its_listener_and_the_open_connections() {
    alone_and_leak_free(|| {
        let server = TestServer::start(patient(), BACKLOG);
        let mut open = connect(server.addr);
        echo_checked(&mut open, b"before the stop", "the open client");
        let stats = server.stop();
        assert_eq!(stats, served(1, 0), "stopped with the connection open");
        // The runtime dropped the connection's task, which closed its
        // socket: the client sees the end of the stream. (The listener is
        // closed too: the count of descriptors after the test shows it.)
        assert_eq!(open.read(&mut [0; 16]).unwrap(), 0);
    });
}
