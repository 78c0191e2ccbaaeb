//! Chapter 8's standard-input demo (`examples/ch08_stdin.rs`), run as the
//! reader runs it, with its standard input a pipe: the answer, or one
//! clear message and exit status 1 for every kind of bad input. Linux
//! only, like epoll.
#![cfg(target_os = "linux")]

mod common;

use std::fs::File;
use std::io::{self, Write};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::Duration;

const PROMPT: &str = "Type a number:\n";

/// Starts the demo with its standard input a pipe of ours.
fn start() -> Child {
    Command::new(common::example("ch08_stdin"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Writes `input` to the demo's standard input, a pipe, and closes it.
/// A demo that stopped reading early (a line too long) may have exited
/// already: then the pipe is broken, which is no error of the test.
fn feed(child: &mut Child, input: &[u8]) {
    let mut stdin = child.stdin.take().unwrap();
    match stdin.write_all(input) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        result => result.unwrap(),
    }
}

/// Runs the demo on `input`, fed through a pipe.
fn run(input: &[u8]) -> Output {
    let mut child = start();
    feed(&mut child, input);
    child.wait_with_output().unwrap()
}

/// Checks a run that answered `answer`.
fn assert_answers(output: Output, answer: &str) {
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("{PROMPT}{answer}\n")
    );
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    assert_eq!(output.status.code(), Some(0));
}

/// Checks a run that refused its input with `message`.
fn assert_refuses(output: Output, message: &str) {
    assert_eq!(String::from_utf8(output.stdout).unwrap(), PROMPT);
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!("error: {message}\n")
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn a_number_gets_ten_added() {
    assert_answers(run(b"32\n"), "32 + 10 = 42");
    assert_answers(run(b"  -5 \n"), "-5 + 10 = 5");
    assert_answers(
        run(b"-9223372036854775808\n"),
        "-9223372036854775808 + 10 = -9223372036854775798",
    );
    // Windows line ends, and only the first line counts.
    assert_answers(run(b"1\r\n2\n"), "1 + 10 = 11");
}

#[test]
fn the_last_line_needs_no_newline() {
    assert_answers(run(b"7"), "7 + 10 = 17");
}

#[test]
fn bad_input_gets_a_clear_message_and_status_1() {
    assert_refuses(run(b"abc\n"), "\"abc\" is not a whole number");
    assert_refuses(run(b"12abc\n"), "\"12abc\" is not a whole number");
    assert_refuses(run(b"\n"), "the line is empty: type a number");
    assert_refuses(run(b"   \n"), "the line is empty: type a number");
    assert_refuses(run(b""), "no input: it ended before a line");
    assert_refuses(run(&[b'1'; 100]), "the line is longer than 32 bytes");
    assert_refuses(
        run(&[[b'4'; 40].as_slice(), b"\n"].concat()),
        "the line is longer than 32 bytes",
    );
    assert_refuses(run(b"\xff\xfe\n"), "the line is not UTF-8 text");
    assert_refuses(run(b"4\xc3\n"), "the line is not UTF-8 text");
    assert_refuses(
        run(b"9223372036854775800\n"),
        "9223372036854775800 + 10 is more than 9223372036854775807",
    );
    assert_refuses(
        run(b"99999999999999999999\n"),
        "\"99999999999999999999\" is out of range (-9223372036854775808 to 9223372036854775807)",
    );
}

#[test]
fn a_read_error_is_reported() {
    // Standard input is the *writing* end of a pipe: epoll takes it, but
    // `read` fails.
    let (_reader, writer) = io::pipe().unwrap();
    let output = Command::new(common::example("ch08_stdin"))
        .stdin(writer)
        .output()
        .unwrap();
    assert_refuses(
        output,
        "cannot read the input: Bad file descriptor (os error 9)",
    );
}

#[test]
fn a_late_writer_still_gets_an_answer_from_a_program_asleep_in_epoll() {
    let mut child = start();
    // What the program opened itself, leaving out what it inherited
    // (standard input, output and error, and whatever else the test
    // harness has open without close-on-exec, such as cargo's jobserver
    // pipes).
    let pid = child.id();
    let opened = || -> Vec<String> {
        common::fd_targets_of(pid)
            .into_iter()
            .filter(|target| target.starts_with("anon_inode:"))
            .collect()
    };
    common::eventually("the program has its epoll instance and its eventfd", || {
        opened().len() == 2
    });
    thread::sleep(Duration::from_millis(200));
    // While it waits, the program has one thread and has opened only its
    // epoll instance and its eventfd: no thread, no descriptor per wait.
    assert!(child.try_wait().unwrap().is_none(), "it waits for input");
    assert_eq!(opened(), ["anon_inode:[eventfd]", "anon_inode:[eventpoll]"]);
    assert_eq!(common::threads_of(pid), 1);
    feed(&mut child, b"32\n");
    assert_answers(child.wait_with_output().unwrap(), "32 + 10 = 42");
}

#[test]
fn a_line_written_in_pieces_is_one_number() {
    let mut child = start();
    let mut stdin = child.stdin.take().unwrap();
    for piece in [&b"3"[..], b"2", b"\n"] {
        thread::sleep(Duration::from_millis(50));
        stdin.write_all(piece).unwrap();
    }
    drop(stdin);
    assert_answers(child.wait_with_output().unwrap(), "32 + 10 = 42");
}

#[test]
fn a_regular_file_is_read_directly() {
    // `cargo run --example ch08_stdin < number.txt`: epoll refuses a
    // regular file, and the demo reads it without waiting.
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ch08_stdin_number.txt");
    std::fs::write(&path, "32\n").unwrap();
    let output = Command::new(common::example("ch08_stdin"))
        .stdin(File::open(&path).unwrap())
        .output()
        .unwrap();
    assert_answers(output, "32 + 10 = 42");
    std::fs::remove_file(&path).unwrap();
    // `/dev/null` too: it is empty.
    let output = Command::new(common::example("ch08_stdin"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_refuses(output, "no input: it ended before a line");
}
