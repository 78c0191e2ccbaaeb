//! Chapter 9: the echo server example (`examples/ch09_echo.rs`) as a
//! reader runs it: it says where it listens, echoes for real clients, and
//! stops with a summary when its standard input ends.
#![cfg(all(target_os = "linux", not(loom)))]

mod common;
mod echo_support;

use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;

use echo_support::{PATIENCE, connect, echo_checked, pattern};

#[test]
fn the_example_echoes_for_three_clients_and_stops_when_its_input_ends() {
    let mut child = Command::new(common::example("ch09_echo"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let addr: SocketAddr = first
        .strip_prefix("listening on ")
        .and_then(|addr| addr.trim_end().parse().ok())
        .unwrap_or_else(|| panic!("not the first line expected: {first:?}"));
    assert_eq!(addr.ip(), Ipv4Addr::LOCALHOST);
    assert_ne!(addr.port(), 0);

    // Three clients at once, each with its own bytes.
    let clients: Vec<_> = (0..3)
        .map(|client| {
            thread::spawn(move || {
                let mut stream = connect(addr);
                echo_checked(
                    &mut stream,
                    &pattern(client, 100_000),
                    &format!("client {client}"),
                );
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }

    // The end of its input: it stops. If it does not, it is killed, and
    // the test fails.
    drop(child.stdin.take());
    let (exited, exit) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let mut rest = String::new();
        stdout.read_to_string(&mut rest).unwrap();
        exited.send(()).unwrap();
        rest
    });
    if exit.recv_timeout(PATIENCE).is_err() {
        child.kill().unwrap();
        panic!("the example did not stop at the end of its input");
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert_eq!(waiter.join().unwrap(), "served 3 connections\n");
}
