//! Chapter 8's standard-input demo (`examples/ch08_stdin.rs`), run as the
//! reader runs it, with its standard input a pipe: the answer, or one
//! clear message and exit status 1 for every kind of bad input. Linux
//! only, like epoll.
#![cfg(all(target_os = "linux", not(loom)))]

mod common;

use std::fs::{self, File};
use std::io::{self, Read, Seek, Write};
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Output, Stdio};

use common::{asleep_in_epoll, eventually, output_within_patience};

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
    output_within_patience(child, "the demo")
}

/// Runs the demo with `stdin` as its standard input.
fn run_on(stdin: impl Into<Stdio>) -> Output {
    let child = Command::new(common::example("ch08_stdin"))
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    output_within_patience(child, "the demo")
}

/// Waits until the demo, process `pid` (one thread), sleeps in
/// `epoll_wait` with every byte written to `stdin` read: it waits for
/// more.
fn wait_until_it_waits_for_more(pid: u32, stdin: &ChildStdin) {
    eventually("the demo waits in epoll_wait, its input all read", || {
        rustix::io::ioctl_fionread(stdin.as_fd()).unwrap() == 0 && asleep_in_epoll(pid, pid)
    });
}

/// The flags of descriptor `fd` of process `pid`, as its `fdinfo` shows
/// them (octal).
fn flags_of(pid: u32, fd: u32) -> u32 {
    let info = fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).unwrap();
    let flags = info
        .lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .unwrap();
    u32::from_str_radix(flags.trim(), 8).unwrap()
}

/// The descriptors in the interest list of epoll instance `epoll` of
/// process `pid` (a `tfd:` line each in its `fdinfo`), sorted.
fn epoll_entries_of(pid: u32, epoll: u32) -> Vec<u32> {
    let info = fs::read_to_string(format!("/proc/{pid}/fdinfo/{epoll}")).unwrap();
    let mut fds: Vec<u32> = info
        .lines()
        .filter_map(|line| line.strip_prefix("tfd:"))
        .map(|rest| rest.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    fds.sort();
    fds
}

/// What descriptor `fd` of process `pid` refers to: `pipe:[…]`, a path…
fn target_of(pid: u32, fd: u32) -> String {
    let link = fs::read_link(format!("/proc/{pid}/fd/{fd}")).unwrap();
    link.to_string_lossy().into_owned()
}

/// The numbers of the descriptors of process `pid` that refer to `target`.
fn fds_on(pid: u32, target: &str) -> Vec<u32> {
    let mut fds: Vec<u32> = fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .map(|entry| {
            entry
                .unwrap()
                .file_name()
                .to_str()
                .unwrap()
                .parse()
                .unwrap()
        })
        .filter(|&fd| target_of(pid, fd) == target)
        .collect();
    fds.sort();
    fds
}

/// A text file in the target directory, named `<name>.<pid>.txt` (tests
/// that run at once, in this process or another, do not share it), removed
/// when dropped (at the end of the test or when it fails).
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let file = format!("{name}.{}.txt", std::process::id());
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(file);
        fs::write(&path, contents).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
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
    assert_refuses(
        run_on(writer),
        "cannot read the input: Bad file descriptor (os error 9)",
    );
}

#[test]
fn a_late_writer_still_gets_an_answer_from_a_program_asleep_in_epoll() {
    let mut child = start();
    let pid = child.id();
    // Asleep in `epoll_wait`, waiting for input.
    wait_until_it_waits_for_more(pid, child.stdin.as_ref().unwrap());
    assert!(child.try_wait().unwrap().is_none(), "it waits for input");
    // What the program opened itself, leaving out what it inherited
    // (standard input, output and error, and whatever else the test
    // harness has open without close-on-exec, such as cargo's jobserver
    // pipes) and its own descriptor of standard input.
    let opened: Vec<String> = common::fd_targets_of(pid)
        .into_iter()
        .filter(|target| target.starts_with("anon_inode:"))
        .collect();
    // One thread, and only its epoll instance and its eventfd: no thread,
    // no descriptor per wait.
    assert_eq!(opened, ["anon_inode:[eventfd]", "anon_inode:[eventpoll]"]);
    assert_eq!(common::threads_of(pid), 1);
    // The epoll instance waits for the eventfd and for a descriptor of the
    // pipe on standard input: not descriptor 0, but one of the demo's own,
    // opened anew, whose open file description is non-blocking while
    // descriptor 0's (the one the shell would share) stays blocking.
    let [epoll] = fds_on(pid, "anon_inode:[eventpoll]")[..] else {
        panic!("not one epoll instance")
    };
    let [eventfd] = fds_on(pid, "anon_inode:[eventfd]")[..] else {
        panic!("not one eventfd")
    };
    let pipe = target_of(pid, 0);
    assert!(pipe.starts_with("pipe:"), "{pipe}");
    let entries = epoll_entries_of(pid, epoll);
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(entries.contains(&eventfd), "{entries:?}");
    let read = entries.into_iter().find(|&fd| fd != eventfd).unwrap();
    assert_ne!(read, 0, "it waits on descriptor 0 itself");
    assert_eq!(target_of(pid, read), pipe, "it waits on its standard input");
    let nonblocking = libc::O_NONBLOCK as u32;
    assert_eq!(flags_of(pid, read) & nonblocking, nonblocking);
    assert_eq!(flags_of(pid, 0) & nonblocking, 0, "descriptor 0 changed");
    feed(&mut child, b"32\n");
    assert_answers(output_within_patience(child, "the demo"), "32 + 10 = 42");
}

#[test]
fn a_line_written_in_pieces_is_one_number() {
    let mut child = start();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    for piece in [&b"3"[..], b"2", b"\n"] {
        // Each piece only once the demo has read the one before and sleeps
        // in `epoll_wait` again: every piece is a read of its own.
        wait_until_it_waits_for_more(pid, &stdin);
        stdin.write_all(piece).unwrap();
    }
    drop(stdin);
    assert_answers(output_within_patience(child, "the demo"), "32 + 10 = 42");
}

#[test]
fn a_regular_file_is_read_directly() {
    // `cargo run --example ch08_stdin < number.txt`: epoll refuses a
    // regular file, and the demo reads it without waiting.
    let number = TempFile::new("ch08_stdin_number", b"32\n");
    assert_answers(run_on(File::open(&number.0).unwrap()), "32 + 10 = 42");
    // A file partly read already, as `(read first; demo) < file` leaves
    // it: the demo reads on from there, through the same open file
    // description (a regular file is never opened anew).
    let lines = TempFile::new("ch08_stdin_lines", b"first\n7\n");
    let mut file = File::open(&lines.0).unwrap();
    file.read_exact(&mut [0; 6]).unwrap();
    assert_eq!(file.stream_position().unwrap(), 6);
    assert_answers(run_on(file), "7 + 10 = 17");
    // `/dev/null` too: it is empty.
    assert_refuses(run_on(Stdio::null()), "no input: it ended before a line");
}
