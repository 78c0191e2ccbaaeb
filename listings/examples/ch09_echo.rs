//! Chapter 9: the echo server, to try by hand. It listens on
//! `127.0.0.1:PORT` (the first argument; by default a port the system
//! picks), serves until a line is typed or standard input ends, then says
//! how many connections it served.
//!
//! Try `cargo run --example ch09_echo 7878`, then, in other terminals,
//! `nc 127.0.0.1 7878` (type lines: they come back); press Enter in the
//! server's terminal to stop it.
//!
//! Its standard input must stay open while it serves. Started with it
//! from `/dev/null` (under `nohup`, as a systemd service, in `docker run`
//! without `-i`), it finds the end of its input at once and stops
//! straight away; give it a pipe that stays open instead, such as
//! `sleep infinity | cargo run --example ch09_echo 7878`.

use std::io::{self, Write};
use std::net::{Ipv4Addr, SocketAddr};
use std::rc::Rc;

use listings::async_fd::Async;
use listings::echo::{Config, Stats, serve};
use listings::runtime::Runtime;
use listings::stdin_demo::{Input, Unbuffered};

// ANCHOR: main
fn main() -> io::Result<()> {
    let port = match std::env::args().nth(1) {
        Some(arg) => arg.parse().map_err(|e| {
            io::Error::new(io::ErrorKind::InvalidInput, format!("port {arg:?}: {e}"))
        })?,
        None => 0,
    };
    let rt = Runtime::new()?;
    let handle = rt.handle().clone();
    let listener = Async::bind(
        handle.reactor(),
        SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
    )?;
    println!("listening on {}", listener.get_ref().local_addr()?);
    // Whoever started us (a script, a test) may wait for this line: out of
    // the buffer with it, now.
    io::stdout().flush()?;

    // Standard input read the runtime's way: its descriptor waits in
    // epoll with the sockets. A line (or the end of the input) stops the
    // server.
    let stdin = Input::new(handle.reactor(), Unbuffered::stdin())?;
    let shutdown = async {
        let _ = stdin.read(&mut [0; 256]).await;
    };
    let stats = Rc::new(Stats::default());
    rt.block_on(serve(
        handle.clone(),
        listener,
        Config::default(),
        Rc::clone(&stats),
        shutdown,
    ))?;
    // Out of epoll, and blocking again, before anything more is printed.
    // Standard input may be read through the open file description it
    // shares with the shell (when Linux gives no description of our own:
    // see `Unbuffered::stdin`); on a terminal, standard output shares it
    // too, and a write to it while it is non-blocking could fail with
    // `EAGAIN`.
    drop(stdin);
    println!("served {} connections", stats.accepted.get());
    Ok(())
    // Here the locals left are dropped, in the reverse order of their
    // declaration: `stats`, `handle`, then the runtime, and with it the
    // tasks of connections still open: their sockets close.
}
// ANCHOR_END: main
