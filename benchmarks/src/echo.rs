//! A TCP echo server under load: throughput and round-trip latency.
//!
//! Each implementation serves on 127.0.0.1 (a port the system picks) on
//! ONE thread of its own, a task per connection:
//! - `book-ch09`: chapter 9's `listings::echo::serve` on `Runtime::new()`,
//!   exactly as the book's example starts it (`Config::default()`);
//! - `book-ch10`: the same server on `Runtime::with_io_interval(61)`;
//! - `book-ch11`: the same server (through `listings::echo::Net`) on
//!   chapter 11's `lean_runtime::Runtime::new()`;
//! - `tokio`: a current-thread runtime, `tokio::net::TcpListener`, a
//!   `tokio::spawn`ed task per connection;
//! - `async-io`: `async_io::Async<TcpListener>` and an
//!   `async_executor::LocalExecutor` driven by `async_io::block_on`, a task
//!   per connection. async-io is not strictly one thread: it has a thread
//!   of its own, named "async-io", that drives its reactor whenever the
//!   thread in `block_on` is busy running tasks instead of waiting on the
//!   reactor (see [`measure::start_async_io`], which the group calls
//!   first, so that the thread's start falls in no measurement and the
//!   leak check counts it in its baseline).
//!
//! The two library servers are the plain echo loop a reader would write
//! (`echo`): read into a buffer, write it all back, until the end of the
//! stream. Their buffer is 16 KiB (`BUFFER`), the size of the book's
//! server's, so that all four read and write in the same chunks. (The
//! book's server does a little more for the same bytes: every read races
//! an idle timer of its own, a `Sleep` made per read.)
//!
//! One client thread, the same for every server, drives C connections
//! (C = 1, 100, 1000; quick: 1, 10) concurrently: a tokio current-thread
//! runtime, a task per connection, `TCP_NODELAY` set on each (so that the
//! client's own small writes are never held back). Each connection does
//! round trips of a 1 KiB message (write it, read 1 KiB back, check every
//! byte against what was sent), one after another, through a warm-up and
//! then a measured window of T = 2 s (quick: 0.2 s). Every message is
//! different from every other of the point: its bytes 0..8 are the round's
//! number and its bytes 8..16 the connection's index (little-endian
//! `u64`s), so crossed or stale data shows even among a thousand
//! connections.
//!
//! The round trips counted are those that END inside the measured window,
//! whenever they started; the throughput is their echoed payload (bytes,
//! one direction) divided by exactly T. Each connection always has one
//! round trip in flight, so the one cut by the window's start (counted)
//! and the one cut by its end (not counted) balance out. The latency's p50
//! and p99 (nearest rank) are over the same round trips. If any
//! connection fails, the point fails: the other client tasks are aborted
//! and waited for at once (their sockets closed), so that nothing of a
//! failed point runs into the next.
//!
//! The connections are made before the clock starts and closed after it
//! stops; a server serves the three values of C in turn, and between them
//! the run waits until the server has closed its side of every
//! connection. The server is then stopped through its shutdown future,
//! and the run checks that its thread ended and that no descriptor or
//! thread was left behind. Both the client and the server run on this
//! machine's two cores: the numbers compare servers under the same
//! client, they are not the servers' limits.
//!
//! The report, `echo.json` (see [`measure::write_report`]; its schema is
//! `bench_results::raw::Echo`, which the report reads): `quick`,
//! `problems` (a server that did not start or whose thread failed, a point
//! that failed, connections that ended with an error on the server, fewer
//! connections accepted than made, a leaked descriptor or thread), the
//! parameters `message_bytes`, `seconds` (T), `warm_up_seconds`, `runs`
//! (each point is measured that many times; every metric is the median of
//! the runs) and `connections` (the values of C), and `results`, one object per
//! (implementation, C), implementations in the order above (a server that
//! did not start has every point failed): `impl`, `connections`, and
//! either `error` or `round_trips`, `throughput_mib_s`, `p50_us`,
//! `p99_us`.

use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::executors::BookRuntime;
use async_executor::LocalExecutor;
use bench_results::raw::{self, EchoMeasures, EchoResult, Outcome};
use futures::channel::oneshot;
use futures::future::select;
use listings::echo::{Config, Stats, serve};
use listings::runtime::Runtime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::measure::{self, rounded};
use super::support;

/// An implementation of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Impl {
    BookCh09,
    BookCh10,
    BookCh11,
    Tokio,
    AsyncIo,
}

impl Impl {
    /// Every implementation, in the order they run and are reported.
    const ALL: [Impl; 5] = [
        Impl::BookCh09,
        Impl::BookCh10,
        Impl::BookCh11,
        Impl::Tokio,
        Impl::AsyncIo,
    ];

    /// Its name, in the report and the charts.
    fn id(self) -> bench_results::Impl {
        match self {
            Impl::BookCh09 => bench_results::Impl::BookCh09,
            Impl::BookCh10 => bench_results::Impl::BookCh10,
            Impl::BookCh11 => bench_results::Impl::BookCh11,
            Impl::Tokio => bench_results::Impl::Tokio,
            Impl::AsyncIo => bench_results::Impl::AsyncIo,
        }
    }
}

/// Bytes per message, each way.
const MESSAGE: usize = 1024;

/// The library servers' read buffer: 16 KiB, as in the book's server
/// (`listings::echo`; a test checks that they stay equal).
const BUFFER: usize = 16 * 1024;

/// How long any single step (a connect, a round trip) may take before the
/// run calls the server broken: generous, it only has to end a hang.
const PATIENCE: Duration = Duration::from_secs(20);

/// What one (implementation, C) point measured.
#[derive(Debug)]
struct Point {
    round_trips: u64,
    throughput_mib_s: f64,
    p50_us: f64,
    p99_us: f64,
}

impl Point {
    /// Each metric's median over `runs` (not empty).
    fn median(runs: Vec<Point>) -> Point {
        let of = |metric: fn(&Point) -> f64| measure::median(runs.iter().map(metric).collect());
        Point {
            round_trips: of(|p| p.round_trips as f64) as u64,
            throughput_mib_s: of(|p| p.throughput_mib_s),
            p50_us: of(|p| p.p50_us),
            p99_us: of(|p| p.p99_us),
        }
    }

    /// As the report has it, rounded: the measurements are not that
    /// precise anyway.
    fn measures(&self) -> EchoMeasures {
        EchoMeasures {
            round_trips: self.round_trips,
            throughput_mib_s: rounded(self.throughput_mib_s, 2),
            p50_us: rounded(self.p50_us, 1),
            p99_us: rounded(self.p99_us, 1),
        }
    }
}

/// Runs the group: every implementation at every C; prints a table and
/// writes `echo.json`.
pub fn run(quick: bool) {
    // Each point is measured `runs` times, one after another, and each
    // metric reported is the median of the runs: one window of a few
    // seconds on a shared machine varies by a fifth from run to run.
    let (connection_counts, seconds, warm_up, runs): (&[usize], _, _, _) = if quick {
        (
            &[1, 10],
            Duration::from_millis(200),
            Duration::from_millis(50),
            1,
        )
    } else {
        (
            &[1, 100, 1000],
            Duration::from_secs(2),
            Duration::from_millis(500),
            3,
        )
    };
    // First: async-io's thread and descriptors, which stay for the life of
    // the process, must be there before the leak check's first baseline.
    measure::start_async_io();
    raise_descriptor_limit();
    let client = support::tokio_current_thread().expect("the client's tokio runtime");
    println!(
        "echo: {MESSAGE}-byte round trips, {} s per run after {} ms of warm-up, median of {runs} run(s) per point; one server thread, one client thread",
        seconds.as_secs_f64(),
        warm_up.as_millis()
    );

    let mut results = Vec::new();
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    let mut problem = |text: String| {
        println!("echo: {text}");
        problems.push(text);
    };
    for implementation in Impl::ALL {
        let name = implementation.id();
        let (fds_before, threads_before) = (measure::open_fds(), measure::threads());
        let server = match Server::start(implementation) {
            Ok(server) => server,
            Err(e) => {
                problem(format!("{name}: the server did not start: {e}"));
                // Every point of it failed.
                for &connections in connection_counts {
                    results.push(EchoResult {
                        implementation: name,
                        connections: connections as u64,
                        outcome: Outcome::Failed {
                            error: format!("server start: {e}"),
                        },
                    });
                }
                continue;
            }
        };
        let mut connections_made = 0;
        for &connections in connection_counts {
            let fds_between = measure::open_fds();
            let outcome = (0..runs)
                .map(|_| {
                    let point =
                        client.block_on(measure_point(server.addr, connections, warm_up, seconds));
                    // The server closes its side of each connection when
                    // it sees the client's end of stream: wait for it, so
                    // that the next run starts on a server with nothing
                    // left to do.
                    measure::settle_fds(fds_between, PATIENCE);
                    point
                })
                .collect::<Result<Vec<Point>, String>>()
                .map(Point::median);
            let outcome = match outcome {
                Ok(point) => {
                    connections_made += connections as u64;
                    let measures = point.measures();
                    rows.push((name, connections, point));
                    Outcome::Measured(measures)
                }
                Err(error) => {
                    problem(format!(
                        "{name}, {connections} connections: FAILED: {error}"
                    ));
                    Outcome::Failed { error }
                }
            };
            results.push(EchoResult {
                implementation: name,
                connections: connections as u64,
                outcome,
            });
        }
        match server.stop() {
            Ok(counts) => {
                if counts.failed > 0 {
                    problem(format!(
                        "{name}: {} connection(s) ended with an error on the server",
                        counts.failed
                    ));
                }
                if counts.accepted < connections_made {
                    problem(format!(
                        "{name}: accepted {} connections of the {connections_made} made",
                        counts.accepted
                    ));
                }
            }
            Err(e) => problem(format!("{name}: the server thread failed: {e}")),
        }
        let fds_after = measure::settle_fds(fds_before, PATIENCE);
        let threads_after = measure::threads();
        if fds_after > fds_before || threads_after > threads_before {
            problem(format!(
                "{name}: LEAK: descriptors {fds_before} -> {fds_after}, threads {threads_before} -> {threads_after}"
            ));
        }
    }
    drop(client);
    print_table(&rows);
    let report = raw::Echo {
        quick,
        problems,
        message_bytes: MESSAGE as u64,
        seconds: seconds.as_secs_f64(),
        warm_up_seconds: warm_up.as_secs_f64(),
        runs,
        connections: connection_counts.iter().map(|&c| c as u64).collect(),
        results,
    };
    let path = measure::write_report(&report);
    println!("echo: wrote {}", path.display());
    if !report.problems.is_empty() {
        println!(
            "echo: {} problem(s), listed in the report",
            report.problems.len()
        );
    }
}

/// Raises the soft limit on open descriptors to the hard limit: C = 1000
/// needs a thousand on each side, above the usual soft limit of 1024.
fn raise_descriptor_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current == limit.maximum {
        return;
    }
    let raised = rustix::process::Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    if let Err(e) = setrlimit(Resource::Nofile, raised) {
        println!("echo: could not raise the descriptor limit: {e}");
    }
}

// The client.

/// One point: connects `connections` clients to `addr`, has each do
/// round trips through the warm-up and the measured window of `seconds`,
/// and closes them.
async fn measure_point(
    addr: SocketAddr,
    connections: usize,
    warm_up: Duration,
    seconds: Duration,
) -> Result<Point, String> {
    // One at a time: a thousand connects at once could overflow the
    // listener's accept queue, and connects are not what is measured.
    let mut streams = Vec::with_capacity(connections);
    for _ in 0..connections {
        let stream = tokio::time::timeout(PATIENCE, tokio::net::TcpStream::connect(addr))
            .await
            .map_err(|_| "connect timed out".to_owned())?
            .map_err(|e| format!("connect: {e}"))?;
        stream
            .set_nodelay(true)
            .map_err(|e| format!("TCP_NODELAY: {e}"))?;
        streams.push(stream);
    }
    let window_start = Instant::now() + warm_up;
    let window_end = window_start + seconds;
    let mut tasks = tokio::task::JoinSet::new();
    for (index, stream) in streams.into_iter().enumerate() {
        tasks.spawn(round_trips(index, stream, window_start, window_end));
    }
    let mut latencies = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined
            .map_err(|e| format!("client task: {e}"))
            .and_then(|r| r)
        {
            Ok(connection) => latencies.extend(connection),
            Err(error) => {
                // Aborts the other connections' tasks and waits until
                // they are gone (their streams dropped, so closed): none
                // of them may still run during the next point.
                tasks.shutdown().await;
                return Err(error);
            }
        }
    }
    if latencies.is_empty() {
        return Err("no round trip ended inside the measured window".into());
    }
    let round_trips = latencies.len() as u64;
    let mut micros: Vec<f64> = latencies.iter().map(|&ns| ns as f64 / 1e3).collect();
    micros.sort_by(f64::total_cmp);
    Ok(Point {
        round_trips,
        throughput_mib_s: (round_trips * MESSAGE as u64) as f64
            / seconds.as_secs_f64()
            / (1024.0 * 1024.0),
        p50_us: measure::percentile(&micros, 50.0),
        p99_us: measure::percentile(&micros, 99.0),
    })
}

/// Round trips on `stream`, started until `window_end`; returns the
/// latencies, in nanoseconds, of those that ended inside the window
/// (`window_start` to `window_end`). The stream is closed on return.
async fn round_trips(
    index: usize,
    mut stream: tokio::net::TcpStream,
    window_start: Instant,
    window_end: Instant,
) -> Result<Vec<u64>, String> {
    // This connection's own bytes: bytes 0..8 are the round's number
    // (written each round), 8..16 the connection's index.
    let mut sent: Vec<u8> = (0..MESSAGE)
        .map(|i| (index.wrapping_mul(131) ^ i.wrapping_mul(7)) as u8)
        .collect();
    sent[8..16].copy_from_slice(&(index as u64).to_le_bytes());
    let mut back = vec![0; MESSAGE];
    let mut latencies_ns = Vec::new();
    for round in 0u64.. {
        let begin = Instant::now();
        if begin >= window_end {
            break;
        }
        sent[..8].copy_from_slice(&round.to_le_bytes());
        let trip = async {
            stream.write_all(&sent).await?;
            stream.read_exact(&mut back).await
        };
        tokio::time::timeout(PATIENCE, trip)
            .await
            .map_err(|_| format!("connection {index}: round trip {round} timed out"))?
            .map_err(|e| format!("connection {index}: round trip {round}: {e}"))?;
        let ended = Instant::now();
        if back != sent {
            return Err(format!(
                "connection {index}: round trip {round}: wrong bytes came back"
            ));
        }
        if (window_start..=window_end).contains(&ended) {
            latencies_ns.push(u64::try_from((ended - begin).as_nanos()).unwrap_or(u64::MAX));
        }
    }
    Ok(latencies_ns)
}

// The servers.

/// A server running on a thread of its own.
#[derive(Debug)]
struct Server {
    addr: SocketAddr,
    /// Sending (or dropping) it completes the server's shutdown future.
    stop: oneshot::Sender<()>,
    thread: thread::JoinHandle<Counts>,
}

/// What a server counted.
#[derive(Debug, Default)]
struct Counts {
    accepted: u64,
    /// Connections that ended with an error (reset, broken pipe).
    failed: u64,
}

/// Where a server's thread reports its address, or why it has none.
type Ready = mpsc::Sender<io::Result<SocketAddr>>;

impl Server {
    /// Starts `implementation` on a new thread and waits until it listens.
    fn start(implementation: Impl) -> io::Result<Server> {
        let (stop, stopped) = oneshot::channel::<()>();
        let (ready, listening) = mpsc::channel();
        let thread = thread::Builder::new()
            .name(format!("echo {}", implementation.id()))
            .spawn(move || match implementation {
                Impl::BookCh09 => book_server(Runtime::new(), &ready, stopped),
                Impl::BookCh10 => book_server(Runtime::with_io_interval(61), &ready, stopped),
                Impl::BookCh11 => {
                    book_server(listings::lean_runtime::Runtime::new(), &ready, stopped)
                }
                Impl::Tokio => tokio_server(&ready, stopped),
                Impl::AsyncIo => async_io_server(&ready, stopped),
            })?;
        match listening.recv() {
            Ok(Ok(addr)) => Ok(Server { addr, stop, thread }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err(io::Error::other(match thread.join() {
                Err(payload) => measure::panic_message(&*payload),
                Ok(_) => "the server thread ended without listening".into(),
            })),
        }
    }

    /// Completes its shutdown future and waits for its thread to end.
    fn stop(self) -> Result<Counts, String> {
        // The receiver is gone only if the server has stopped already,
        // which `join` reports.
        let _ = self.stop.send(());
        self.thread
            .join()
            .map_err(|payload| measure::panic_message(&*payload))
    }
}

/// Sends the address (or the error) of a server being set up; returns what
/// was set up, if it was.
fn announce<T>(ready: &Ready, setup: io::Result<(T, SocketAddr)>) -> Option<T> {
    match setup {
        Ok((server, addr)) => {
            let _ = ready.send(Ok(addr));
            Some(server)
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            None
        }
    }
}

fn localhost() -> SocketAddr {
    SocketAddr::from((Ipv4Addr::LOCALHOST, 0))
}

/// The book's server, as `ch09_echo` starts it, on `runtime`, until
/// `stopped` completes. Dropping the runtime afterwards drops the tasks
/// of connections still open, which closes their sockets.
fn book_server<R: BookRuntime>(
    runtime: io::Result<R>,
    ready: &Ready,
    stopped: oneshot::Receiver<()>,
) -> Counts {
    let setup = runtime.and_then(|runtime| {
        let (listener, addr) = runtime.bind(localhost())?;
        Ok(((runtime, listener), addr))
    });
    let Some((runtime, listener)) = announce(ready, setup) else {
        return Counts::default();
    };
    let stats = Rc::new(Stats::default());
    runtime.run(serve(
        runtime.net(),
        listener,
        Config::default(),
        Rc::clone(&stats),
        stopped,
    ));
    Counts {
        accepted: stats.accepted.get(),
        failed: stats.failed.get(),
    }
}

/// What a library server counts, from its accept loop and its connection
/// tasks. Atomic because tokio's `spawn` wants `Send` tasks, even on a
/// current-thread runtime; once per connection, so the cost is nothing.
#[derive(Debug, Default)]
struct SharedCounts {
    accepted: AtomicU64,
    failed: AtomicU64,
}

impl SharedCounts {
    fn counts(&self) -> Counts {
        Counts {
            accepted: self.accepted.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
        }
    }
}

/// A library server's accept loop, until `stopped` completes: each
/// connection that `accept` returns is counted and handed to `spawn`;
/// after a failed accept, `pause()` is awaited.
async fn accept_loop<S, A, P>(
    mut accept: impl FnMut() -> A,
    mut spawn: impl FnMut(S),
    pause: impl Fn() -> P,
    counts: &SharedCounts,
    stopped: oneshot::Receiver<()>,
) where
    A: Future<Output = io::Result<S>>,
    P: Future,
{
    let accepting = async {
        loop {
            match accept().await {
                Ok(stream) => {
                    counts.accepted.fetch_add(1, Ordering::Relaxed);
                    spawn(stream);
                }
                // Out of descriptors, most likely: trying again at once
                // would spin. (The pause is the book's, `Config::default()`.)
                Err(_) => {
                    pause().await;
                }
            }
        }
    };
    select(pin!(accepting), stopped).await;
}

/// A library server's connection task: [`echo`], then counts a failure.
async fn connection<S: EchoStream>(stream: S, counts: Arc<SharedCounts>) {
    if echo(stream).await.is_err() {
        counts.failed.fetch_add(1, Ordering::Relaxed);
    }
}

/// The plain echo loop a reader would write, the same for both library
/// servers: reads up to [`BUFFER`] bytes, writes them all back, until the
/// end of the stream.
async fn echo<S: EchoStream>(mut stream: S) -> io::Result<()> {
    let mut buf = vec![0; BUFFER];
    loop {
        let n = stream.read_some(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        stream.write_every(&buf[..n]).await?;
    }
}

/// A library's TCP stream, as [`echo`] uses it: the two libraries' own
/// `read` and `write_all`, under one name.
trait EchoStream {
    /// Reads what has arrived, up to `buf.len()` bytes; 0 at the end.
    async fn read_some(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// Writes all of `buf`.
    async fn write_every(&mut self, buf: &[u8]) -> io::Result<()>;
}

impl EchoStream for tokio::net::TcpStream {
    async fn read_some(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read(buf).await
    }

    async fn write_every(&mut self, buf: &[u8]) -> io::Result<()> {
        self.write_all(buf).await
    }
}

impl EchoStream for async_io::Async<std::net::TcpStream> {
    async fn read_some(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        futures_lite::AsyncReadExt::read(self, buf).await
    }

    async fn write_every(&mut self, buf: &[u8]) -> io::Result<()> {
        futures_lite::AsyncWriteExt::write_all(self, buf).await
    }
}

/// tokio's echo server on a current-thread runtime.
fn tokio_server(ready: &Ready, stopped: oneshot::Receiver<()>) -> Counts {
    let setup = support::tokio_current_thread().and_then(|runtime| {
        let listener = runtime.block_on(tokio::net::TcpListener::bind(localhost()))?;
        let addr = listener.local_addr()?;
        Ok(((runtime, listener), addr))
    });
    let Some((runtime, listener)) = announce(ready, setup) else {
        return Counts::default();
    };
    let counts = Arc::new(SharedCounts::default());
    runtime.block_on(accept_loop(
        || async { listener.accept().await.map(|(stream, _)| stream) },
        |stream: tokio::net::TcpStream| {
            tokio::spawn(connection(stream, Arc::clone(&counts)));
        },
        || tokio::time::sleep(Config::default().accept_backoff),
        &counts,
        stopped,
    ));
    // Drops the tasks of connections still open: their sockets close.
    drop(runtime);
    counts.counts()
}

/// async-io's echo server: a `LocalExecutor` driven by `async_io::block_on`.
fn async_io_server(ready: &Ready, stopped: oneshot::Receiver<()>) -> Counts {
    let setup = async_io::Async::<TcpListener>::bind(localhost()).and_then(|listener| {
        let addr = listener.get_ref().local_addr()?;
        Ok((listener, addr))
    });
    let Some(listener) = announce(ready, setup) else {
        return Counts::default();
    };
    let executor = LocalExecutor::new();
    let counts = Arc::new(SharedCounts::default());
    async_io::block_on(executor.run(accept_loop(
        || async { listener.accept().await.map(|(stream, _)| stream) },
        |stream: async_io::Async<std::net::TcpStream>| {
            executor
                .spawn(connection(stream, Arc::clone(&counts)))
                .detach();
        },
        || async_io::Timer::after(Config::default().accept_backoff),
        &counts,
        stopped,
    )));
    // Drops the tasks of connections still open: their sockets close.
    drop(executor);
    counts.counts()
}

fn print_table(rows: &[(bench_results::Impl, usize, Point)]) {
    println!(
        "{:<10} {:>6} {:>12} {:>9} {:>9} {:>9}",
        "impl", "conns", "round trips", "MiB/s", "p50 µs", "p99 µs"
    );
    for (name, connections, point) in rows {
        println!(
            "{:<10} {:>6} {:>12} {:>9.1} {:>9.1} {:>9.1}",
            name,
            connections,
            point.round_trips,
            point.throughput_mib_s,
            point.p50_us,
            point.p99_us
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_servers_buffer_is_the_book_servers() {
        let book = include_str!("../../listings/src/echo.rs");
        let allocation = format!("let mut buf = vec![0; {} * 1024];", BUFFER / 1024);
        assert_eq!(
            book.matches("let mut buf = vec![0;").count(),
            book.matches(allocation.as_str()).count(),
            "listings/src/echo.rs allocates a buffer of another size than {BUFFER} bytes"
        );
        assert!(
            book.contains(&allocation),
            "no `{allocation}` in the book's server"
        );
    }

    #[test]
    fn the_group_runs_the_servers_the_report_expects_in_its_order() {
        assert_eq!(Impl::ALL.map(Impl::id), bench_results::ids::ECHO);
    }

    #[test]
    fn the_report_collects_what_the_group_writes() {
        let point = |round_trips, throughput_mib_s, p99_us| Point {
            round_trips,
            throughput_mib_s,
            p50_us: 100.04,
            p99_us,
        };
        let median = Point::median(vec![
            point(100, 7.016, 200.0),
            point(300, 9.0, 900.0),
            point(200, 8.0, 300.0),
        ]);
        let report = raw::Echo {
            quick: true,
            problems: Vec::new(),
            message_bytes: MESSAGE as u64,
            seconds: 2.0,
            warm_up_seconds: 0.5,
            runs: 3,
            connections: vec![1, 100],
            results: vec![
                EchoResult {
                    implementation: Impl::BookCh10.id(),
                    connections: 1,
                    outcome: Outcome::Measured(median.measures()),
                },
                EchoResult {
                    implementation: Impl::BookCh10.id(),
                    connections: 100,
                    outcome: Outcome::Failed {
                        error: "connect timed out".into(),
                    },
                },
            ],
        };
        let collected = measure::collected_by_the_report(&report, "echo");
        let value = |id: &str| collected.value(id);
        assert_eq!(value("echo/throughput-1/book-ch10"), Some(8.0));
        assert_eq!(value("echo/p50-1/book-ch10"), Some(100.0));
        assert_eq!(value("echo/p99-1/book-ch10"), Some(300.0));
        assert_eq!(value("echo/param/message-bytes"), Some(1024.0));
        assert_eq!(value("echo/param/seconds"), Some(2.0));
        assert_eq!(value("echo/p99-100/book-ch10"), None);
        measure::assert_reported(
            &collected,
            &[
                "echo.json: a quick run (`-- --test` or BENCH_QUICK=1), with a quick run's sizes",
                "echo.json: book-ch10 with 100 connections failed: connect timed out",
            ],
        );
    }
}
