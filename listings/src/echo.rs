//! Chapter 9: a TCP echo server on the runtime.
//!
//! The first real program on the mini runtime: an accept loop that spawns
//! one task per connection, and per connection a loop that reads into a
//! buffer and writes it all back until the peer closes its side. Every
//! wait is the reactor's (`Async` reads, writes, accepts) or a timer's
//! (the idle timeout, the accept back-off), so one thread serves every
//! connection at once.
//!
//! What a server must survive, and how this one does (chapter 9 goes
//! through each, the tests make each happen):
//! - a peer that resets its connection or goes away mid-write: the error
//!   ends that connection's task, and nothing else;
//! - running out of descriptors (`EMFILE`, `ENFILE`): the accept loop
//!   pauses instead of retrying at once, which would spin;
//! - a peer that connects and sends nothing: it is closed after an idle
//!   timeout, and its socket is deregistered from epoll before it closes;
//! - signals and spurious wake-ups: the reactor and `Async` retry, and
//!   nothing here mistakes a wake-up for data or for the end of a timer.

use std::cell::Cell;
use std::future::Future;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::pin::pin;
use std::rc::Rc;
use std::time::Duration;

use futures::future::{Either, select};
use rustix::io::Errno;

use super::async_fd::Async;
use super::runtime::Handle;

// ANCHOR: net
/// What the server needs of a runtime: to spawn a task, to sleep, and to
/// accept, read and write on sockets registered with its reactor. Chapter
/// 9's runtime gives it (below); chapter 11's too.
pub trait Net: Clone + 'static {
    /// A listening socket, registered.
    type Listener;
    /// A connection, registered.
    type Stream: 'static;
    /// Starts `task`, detached.
    fn spawn_task(&self, task: impl Future<Output = ()> + 'static);
    /// Completes once `duration` has passed.
    fn sleep_for(&self, duration: Duration) -> impl Future<Output = ()>;
    /// The next connection.
    fn accept(listener: &Self::Listener) -> impl Future<Output = io::Result<Self::Stream>>;
    /// Reads into `buf`; 0 at the end of the stream.
    fn read(stream: &Self::Stream, buf: &mut [u8]) -> impl Future<Output = io::Result<usize>>;
    /// Writes all of `buf`.
    fn write_all(stream: &Self::Stream, buf: &[u8]) -> impl Future<Output = io::Result<()>>;
}

impl Net for Handle {
    type Listener = Async<TcpListener>;
    type Stream = Async<TcpStream>;

    fn spawn_task(&self, task: impl Future<Output = ()> + 'static) {
        // Dropping the `JoinHandle` detaches the task.
        drop(self.spawn(task));
    }

    fn sleep_for(&self, duration: Duration) -> impl Future<Output = ()> {
        self.sleep(duration)
    }

    async fn accept(listener: &Self::Listener) -> io::Result<Self::Stream> {
        Ok(listener.accept().await?.0)
    }

    fn read(stream: &Self::Stream, buf: &mut [u8]) -> impl Future<Output = io::Result<usize>> {
        stream.read(buf)
    }

    fn write_all(stream: &Self::Stream, buf: &[u8]) -> impl Future<Output = io::Result<()>> {
        stream.write_all(buf)
    }
}
// ANCHOR_END: net

// ANCHOR: config
/// How the server treats silent peers and a lack of descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// How long a connection may go without sending anything before the
    /// server closes it.
    pub idle_timeout: Duration,
    /// How long the accept loop pauses when it cannot take a connection
    /// for want of descriptors or memory.
    pub accept_backoff: Duration,
}

impl Default for Config {
    /// A minute of silence; 20 ms of pause: the waiting connections wait
    /// in the kernel's queue, and 50 retries a second cost nothing.
    fn default() -> Self {
        Config {
            idle_timeout: Duration::from_secs(60),
            accept_backoff: Duration::from_millis(20),
        }
    }
}

/// What the server has done so far: the summary line of the example, and
/// what the tests check. The runtime has one thread, so plain `Cell`s,
/// shared with `Rc`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Connections accepted.
    pub accepted: Cell<u64>,
    /// Connections ended by the peer closing its side (end of stream).
    pub finished: Cell<u64>,
    /// Connections ended by an error: reset by the peer, broken pipe…
    pub failed: Cell<u64>,
    /// Connections closed by the server after the idle timeout.
    pub idle_closed: Cell<u64>,
    /// Failed accepts skipped at once: the connection died in the queue.
    pub accepts_skipped: Cell<u64>,
    /// Failed accepts followed by a pause: out of descriptors or memory.
    pub accept_backoffs: Cell<u64>,
}

impl Stats {
    /// Connections accepted and not ended yet.
    pub fn open(&self) -> u64 {
        self.accepted.get() - self.finished.get() - self.failed.get() - self.idle_closed.get()
    }
}

/// Adds one to a counter.
fn bump(counter: &Cell<u64>) {
    counter.set(counter.get() + 1);
}
// ANCHOR_END: config

// ANCHOR: accept_loop
/// Accepts connections on `listener` and echoes each in a task of its
/// own, until `shutdown` completes; then returns, and the listener is
/// closed.
///
/// The tasks of connections still open are not awaited: they stay on the
/// runtime, and dropping the runtime drops them, which closes their
/// sockets (a caller that wants them to finish runs the runtime on until
/// `stats.open()` is 0). Waiting for them could take for ever — a peer
/// that keeps sending never ends its connection, and the idle timeout only
/// ends silent ones — and an echo has nothing half done that needs
/// finishing. A peer whose bytes were all read sees its stream end; a peer
/// with bytes still unread in the server's socket sees a reset instead
/// (the kernel answers the close of a socket with unread input with a
/// reset), as it would if the server died.
pub async fn serve<N: Net>(
    handle: N,
    listener: N::Listener,
    config: Config,
    stats: Rc<Stats>,
    shutdown: impl Future,
) {
    let accepting = async {
        loop {
            match N::accept(&listener).await {
                Ok(stream) => {
                    bump(&stats.accepted);
                    // A task per connection: a slow or silent peer waits in
                    // its own task, and this loop goes straight back to
                    // accepting.
                    let task = connection(
                        handle.clone(),
                        stream,
                        config.idle_timeout,
                        Rc::clone(&stats),
                    );
                    handle.spawn_task(task);
                }
                // That connection died before we took it: the next one may
                // be fine.
                Err(e) if lost_in_the_queue(&e) => bump(&stats.accepts_skipped),
                // Out of descriptors (`EMFILE`: ours, `ENFILE`: the
                // system's) or memory, or an error we do not know. The
                // connection stays queued, so the listener stays readable:
                // trying again at once would spin at full speed without
                // ever succeeding. Connections that end free descriptors;
                // give them time to.
                Err(_) => {
                    bump(&stats.accept_backoffs);
                    handle.sleep_for(config.accept_backoff).await;
                }
            }
        }
    };
    // Whichever completes first; the accept loop never does.
    select(pin!(accepting), pin!(shutdown)).await;
}

/// Whether a failed `accept` concerns only the connection it was taking:
/// aborted by its peer while queued, or, on Linux, a network error already
/// pending on the new connection (accept(2) says to treat these "like
/// `EAGAIN`").
fn lost_in_the_queue(e: &io::Error) -> bool {
    matches!(
        Errno::from_io_error(e),
        Some(
            Errno::CONNABORTED
                | Errno::PROTO
                | Errno::PERM
                | Errno::NETDOWN
                | Errno::NETUNREACH
                | Errno::HOSTDOWN
                | Errno::HOSTUNREACH
                | Errno::NONET
                | Errno::NOPROTOOPT
                | Errno::OPNOTSUPP
        )
    )
}
// ANCHOR_END: accept_loop

// ANCHOR: connection
/// How a connection ended, other than by an error.
enum Ended {
    /// The peer closed its side: it has nothing more to send.
    PeerClosed,
    /// The peer sent nothing for the idle timeout.
    Idle,
}

/// One connection's task: echoes, then counts how the connection ended.
async fn connection<N: Net>(handle: N, stream: N::Stream, idle: Duration, stats: Rc<Stats>) {
    let counter = match echo(&handle, stream, idle).await {
        Ok(Ended::PeerClosed) => &stats.finished,
        Ok(Ended::Idle) => &stats.idle_closed,
        // Reset by the peer, broken pipe: this connection is over, and only
        // this one. The error is a value returned to this task, which
        // nothing awaits: the accept loop and the other connections never
        // see it.
        Err(_) => &stats.failed,
    };
    bump(counter);
}

/// Sends back everything the peer sends, in order, until the peer closes
/// its side or sends nothing for `idle`. The connection is closed when this
/// returns: `stream` is dropped.
async fn echo<N: Net>(handle: &N, stream: N::Stream, idle: Duration) -> io::Result<Ended> {
    let mut buf = vec![0; 16 * 1024];
    loop {
        // The read races a timer; the first to complete wins, and the other
        // is dropped. When the timer wins, the read is dropped while the
        // reactor holds its waker, with the socket armed: `stream`'s drop
        // deregisters it (`Async`'s `Drop`) before the socket is closed, so
        // epoll never reports a closed descriptor and nothing leaks. The
        // timer is made anew for every read: the silence is counted from
        // the last echo, and wake-ups that bring no data do not restart it.
        let read = N::read(&stream, &mut buf);
        let n = match select(pin!(read), pin!(handle.sleep_for(idle))).await {
            Either::Left((read, _)) => read?,
            Either::Right(((), _)) => return Ok(Ended::Idle),
        };
        if n == 0 {
            return Ok(Ended::PeerClosed);
        }
        // No timeout on writing: a peer that stops reading holds its
        // connection, and this task, for as long as it stays connected (a
        // real server would time writes out too; this one keeps to one
        // timer).
        N::write_all(&stream, &buf[..n]).await?;
    }
}
// ANCHOR_END: connection

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::runtime::{JoinHandle, Runtime};
    use crate::state_machine::yield_now;
    use crate::test_executors::PATIENCE;
    use futures::StreamExt;
    use futures::channel::{mpsc, oneshot};
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::convert::Infallible;
    use std::future;
    use std::io::{Read, Write};
    use std::net::SocketAddr;
    use std::sync::mpsc as std_mpsc;
    use std::task::Poll;
    use std::thread;
    use std::time::Instant;

    const CLIENTS: usize = 8;
    const ROUNDS: usize = 5;
    const CHUNK: usize = 8192;
    /// `report_everything_spuriously` calls between two rounds.
    const SPURIOUS_PER_ROUND: usize = 10;

    /// Client `client`'s bytes for round `round`: different for every
    /// client and round, so that crossed or reordered streams show.
    fn chunk(client: usize, round: usize) -> Vec<u8> {
        (0..CHUNK)
            .map(|i| (client * 131 + round * 31 + i * 7 + i / 256) as u8)
            .collect()
    }

    /// A server spawned on `handle` with this idle timeout: its address,
    /// its stats, the sender that stops it, and its task.
    fn start(
        handle: &Handle,
        idle_timeout: Duration,
    ) -> (SocketAddr, Rc<Stats>, oneshot::Sender<()>, JoinHandle<()>) {
        let listener = Async::bind(handle.reactor(), "127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = listener.get_ref().local_addr().unwrap();
        let stats = Rc::new(Stats::default());
        let config = Config {
            idle_timeout,
            ..Config::default()
        };
        let (stop, stopped) = oneshot::channel::<()>();
        let server = handle.spawn(serve(
            handle.clone(),
            listener,
            config,
            Rc::clone(&stats),
            stopped,
        ));
        (addr, stats, stop, server)
    }

    #[test]
    fn open_connections_are_the_accepted_ones_minus_every_way_of_ending() {
        let stats = Stats::default();
        for (counter, n) in [
            (&stats.accepted, 10),
            (&stats.finished, 3),
            (&stats.failed, 2),
            (&stats.idle_closed, 1),
        ] {
            counter.set(n);
        }
        assert_eq!(stats.open(), 4);
    }

    #[test]
    fn only_errors_about_the_queued_connection_are_skipped_at_once() {
        for skipped in [Errno::CONNABORTED, Errno::PROTO, Errno::NETUNREACH] {
            assert!(lost_in_the_queue(&skipped.into()), "{skipped:?}");
        }
        // Out of descriptors or memory: back off instead.
        for kept in [Errno::MFILE, Errno::NFILE, Errno::NOBUFS, Errno::NOMEM] {
            assert!(!lost_in_the_queue(&kept.into()), "{kept:?}");
        }
        assert!(!lost_in_the_queue(&io::Error::other("not an errno")));
    }

    /// A `Net` whose `accept` fails with the errors of a script, one per
    /// call, and then waits forever; its sleeps end at once and are
    /// recorded. No loopback socket can make `accept` fail with
    /// `ECONNABORTED` on demand; this can.
    #[derive(Clone, Default)]
    struct ScriptedAccepts {
        errors: Rc<RefCell<VecDeque<Errno>>>,
        sleeps: Rc<RefCell<Vec<Duration>>>,
    }

    impl Net for ScriptedAccepts {
        type Listener = Self;
        type Stream = Infallible;

        fn spawn_task(&self, _: impl Future<Output = ()> + 'static) {
            unreachable!("no connection is ever accepted");
        }

        fn sleep_for(&self, duration: Duration) -> impl Future<Output = ()> {
            self.sleeps.borrow_mut().push(duration);
            future::ready(())
        }

        fn accept(listener: &Self) -> impl Future<Output = io::Result<Infallible>> {
            let next = listener.errors.borrow_mut().pop_front();
            async move {
                match next {
                    Some(errno) => Err(errno.into()),
                    None => future::pending().await,
                }
            }
        }

        async fn read(stream: &Infallible, _: &mut [u8]) -> io::Result<usize> {
            match *stream {}
        }

        async fn write_all(stream: &Infallible, _: &[u8]) -> io::Result<()> {
            match *stream {}
        }
    }

    #[test]
    fn an_aborted_connection_is_skipped_at_once_and_a_lack_of_descriptors_backs_off() {
        let net = ScriptedAccepts::default();
        net.errors.borrow_mut().extend([
            Errno::CONNABORTED,
            Errno::PROTO,
            Errno::MFILE,
            Errno::CONNABORTED,
            Errno::NOMEM,
        ]);
        let stats = Rc::new(Stats::default());
        let config = Config::default();
        // Every scripted `accept` fails at once, so the accept loop runs
        // through the script in its first poll; the shutdown, polled after
        // it, finds the script empty.
        let script = Rc::clone(&net.errors);
        let shutdown = future::poll_fn(|_| {
            if script.borrow().is_empty() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        });
        futures::executor::block_on(serve(
            net.clone(),
            net.clone(),
            config,
            Rc::clone(&stats),
            shutdown,
        ));
        let expected = Stats {
            accepts_skipped: Cell::new(3),
            accept_backoffs: Cell::new(2),
            ..Stats::default()
        };
        assert_eq!(*stats, expected);
        assert_eq!(*net.sleeps.borrow(), [config.accept_backoff; 2]);
    }

    #[test]
    fn spurious_readiness_neither_ends_nor_corrupts_a_connection() {
        let rt = Runtime::new().unwrap();
        let handle = rt.handle().clone();
        let (addr, stats, stop, server) = start(&handle, PATIENCE);

        // Each client, on its thread, echoes one chunk per round, says so,
        // and waits for the go of the next round; between rounds every
        // server-side read is pending, and the runtime wakes them all for
        // nothing, again and again.
        let (round_done, mut rounds_done) = mpsc::unbounded::<usize>();
        let (gos, clients): (Vec<_>, Vec<_>) = (0..CLIENTS)
            .map(|client| {
                let (go, next_round) = std_mpsc::channel::<()>();
                let round_done = round_done.clone();
                let thread = thread::spawn(move || {
                    let mut stream = std::net::TcpStream::connect(addr).unwrap();
                    stream.set_read_timeout(Some(PATIENCE)).unwrap();
                    for round in 0..ROUNDS {
                        let sent = chunk(client, round);
                        stream.write_all(&sent).unwrap();
                        let mut back = vec![0; CHUNK];
                        stream.read_exact(&mut back).unwrap();
                        assert!(back == sent, "client {client}, round {round}: wrong bytes");
                        round_done.unbounded_send(client).unwrap();
                        next_round.recv().unwrap();
                    }
                    // The end of the stream: the server ends the connection.
                    drop(stream);
                });
                (go, thread)
            })
            .collect();
        drop(round_done);

        let spurious_rounds = rt
            .block_on(async {
                let mut spurious_rounds = 0;
                for _ in 0..ROUNDS {
                    for _ in 0..CLIENTS {
                        rounds_done.next().await.unwrap();
                    }
                    for _ in 0..SPURIOUS_PER_ROUND {
                        // Every connection task waits in its read (and the
                        // accept loop in its accept): each echoed its
                        // chunk, which its client has read back, and went
                        // on to its next read in the same poll, which ran
                        // before this task, on this thread. Every one of
                        // them is woken.
                        let woken = handle.reactor().report_everything_spuriously();
                        assert!(
                            woken >= CLIENTS,
                            "{woken} wakers woken, with {CLIENTS} connections waiting"
                        );
                        // The tasks just woken are polled, find
                        // `WouldBlock`, and wait again before the next
                        // report. One yield is not always enough: if the
                        // last client's wake-up came while this task was
                        // being polled (after it had taken that client's
                        // message), this task is queued already, ahead of
                        // the tasks the hook woke (a task is queued once,
                        // however often it is woken), and it comes back
                        // first.
                        let deadline = Instant::now() + PATIENCE;
                        while handle.reactor().waiting_wakers() < woken {
                            assert!(
                                Instant::now() < deadline,
                                "{} of the {woken} woken wakers wait again",
                                handle.reactor().waiting_wakers()
                            );
                            yield_now().await;
                        }
                        spurious_rounds += 1;
                    }
                    for go in &gos {
                        go.send(()).unwrap();
                    }
                }
                // Every client closed: wait for the server to see it, while
                // spurious reports keep coming.
                let deadline = Instant::now() + PATIENCE;
                while stats.finished.get() < CLIENTS as u64 && Instant::now() < deadline {
                    handle.reactor().report_everything_spuriously();
                    handle.sleep(Duration::from_millis(1)).await;
                }
                stop.send(()).unwrap();
                server.await;
                spurious_rounds
            })
            .unwrap();
        for client in clients {
            client.join().unwrap();
        }
        assert_eq!(spurious_rounds, ROUNDS * SPURIOUS_PER_ROUND);
        let expected = Stats {
            accepted: Cell::new(CLIENTS as u64),
            finished: Cell::new(CLIENTS as u64),
            ..Stats::default()
        };
        assert_eq!(*stats, expected, "no connection ended early or failed");
    }

    #[test]
    fn spurious_wake_ups_do_not_restart_the_idle_timer() {
        let rt = Runtime::new().unwrap();
        let handle = rt.handle().clone();
        let idle = Duration::from_millis(200);
        let (addr, stats, stop, server) = start(&handle, idle);
        // A client that sends nothing and waits for the end of its stream.
        let (saw_end, seen) = oneshot::channel();
        let client = thread::spawn(move || {
            let start = Instant::now();
            let mut stream = std::net::TcpStream::connect(addr).unwrap();
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            let read = stream.read(&mut [0; 16]).unwrap();
            saw_end.send(()).unwrap();
            (read, start.elapsed())
        });
        rt.block_on(async {
            // A spurious report every millisecond, until the client is
            // closed: a timer made anew at each wake-up would never fire.
            let mut seen = pin!(seen);
            loop {
                handle.reactor().report_everything_spuriously();
                let tick = pin!(handle.sleep(Duration::from_millis(1)));
                if let Either::Left(_) = select(seen.as_mut(), tick).await {
                    break;
                }
            }
            stop.send(()).unwrap();
            server.await;
        })
        .unwrap();
        let (read, after) = client.join().unwrap();
        assert_eq!(read, 0, "the client saw its stream end");
        assert!(
            after >= idle,
            "closed after {after:?}, before the idle timeout"
        );
        assert!(after < PATIENCE);
        assert_eq!((stats.accepted.get(), stats.idle_closed.get()), (1, 1));
    }
}
