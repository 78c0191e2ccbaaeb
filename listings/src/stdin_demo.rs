//! Chapter 8: a number from standard input, plus 10, without blocking the
//! thread while no input has come.
//!
//! The demo (`examples/ch08_stdin.rs`) registers standard input with an
//! epoll [`Reactor`] and reads a line through [`Async::read`]: the read is
//! tried, and while there is nothing to read the task waits in
//! `epoll_wait`, never in `read(2)`, so the same thread could run other
//! tasks meanwhile (the tests show one). Bad input is a clear
//! [`InputError`], never a panic.
//!
//! Waiting in epoll needs non-blocking reads, and `O_NONBLOCK` is a flag
//! of the *open file description*, which descriptor 0 shares with the
//! shell that started us (and, in a terminal, with standard output and
//! error). So the demo reads standard input through a description of its
//! own whenever Linux gives one ([`Unbuffered::stdin`]), and the flag it
//! sets concerns nobody else.
//!
//! Standard input is not always something epoll can wait for: for a
//! regular file (`cargo run --example ch08_stdin < number.txt`) or
//! `/dev/null`, `epoll_ctl` fails with `EPERM`. Such a file is always
//! ready, and [`Input`] reads it directly.

use std::fmt;
use std::io::{self, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::{Arc, LazyLock};

use rustix::fs::{FileType, Mode, OFlags};

use super::async_fd::Async;
use super::epoll_reactor::Reactor;

// ANCHOR: unbuffered
/// A borrowed descriptor read with plain `read(2)` calls, nothing in
/// between: standard input in the demo, a pipe in the tests.
///
/// Not `std::io::Stdin`: it reads ahead into a buffer of its own (up to
/// 8 KiB at a time, two lines or more from a pipe), and what sits in that
/// buffer is no longer in the kernel, so epoll never reports it. A task
/// that waits for readiness with its next line in that buffer waits for
/// ever.
#[derive(Debug, Clone, Copy)]
pub struct Unbuffered<'fd>(pub BorrowedFd<'fd>);

impl Unbuffered<'static> {
    /// Standard input of this process: a descriptor of its own on the
    /// same terminal, pipe or FIFO, if Linux gives one, otherwise
    /// descriptor 0 itself.
    ///
    /// Why not simply descriptor 0: `Async` sets `O_NONBLOCK`, a flag of
    /// the open file description, which descriptor 0 shares with the shell
    /// (in a terminal, standard output and error share it too). `Async`
    /// clears it again when dropped, but Ctrl-C ends the program without
    /// running any `Drop`: the shell would be left with a non-blocking
    /// terminal, and its next read fails with `EAGAIN` (some shells, and
    /// programs such as `cat`, give up). Meanwhile, a `println!` to that
    /// terminal could fail with `EAGAIN` too. Opening `/proc/self/fd/0`
    /// opens the file anew: a description of our own, whose flags are
    /// nobody else's, and which goes when the process ends.
    ///
    /// Descriptor 0 itself, shared, is used for a regular file (epoll
    /// refuses it, so `Async::new` sets `O_NONBLOCK` only for the moment
    /// of trying and restores it at once; and its offset is the shell's:
    /// after `(read first; demo) < file` the demo reads on from the second
    /// line, where a new description would start from the top),
    /// a socket (Linux cannot open one that way: `ENXIO`), a descriptor
    /// that cannot be read (so that reading it fails as it should), and
    /// whenever the open fails (no `/proc`; a terminal of another user,
    /// after `su`). On a shared description `O_NONBLOCK` is set for the
    /// demo and cleared on drop, Ctrl-C excepted.
    ///
    /// Both are kept in statics and live as long as the program, and so do
    /// the borrows.
    pub fn stdin() -> Self {
        static OWN: LazyLock<Option<OwnedFd>> = LazyLock::new(reopen_stdin);
        // `io::stdin()` hands out a handle to a process-wide value, and
        // its `as_fd` borrows the handle. It is only used for its
        // descriptor, never read through.
        static SHARED: LazyLock<io::Stdin> = LazyLock::new(io::stdin);
        match &*OWN {
            Some(own) => Unbuffered(own.as_fd()),
            None => Unbuffered(SHARED.as_fd()),
        }
    }
}

/// Opens standard input anew, read-only, if it is a terminal (a character
/// device), a pipe or a FIFO that descriptor 0 can read; `None` otherwise
/// or if that fails (see [`Unbuffered::stdin`]).
fn reopen_stdin() -> Option<OwnedFd> {
    reopen(io::stdin().as_fd())
}

/// The same for any descriptor `fd` (`/proc/self/fd/<fd>`).
fn reopen(fd: BorrowedFd<'_>) -> Option<OwnedFd> {
    let kind = FileType::from_raw_mode(rustix::fs::fstat(fd).ok()?.st_mode);
    let readable = (rustix::fs::fcntl_getfl(fd).ok()? & OFlags::RWMODE) != OFlags::WRONLY;
    if !matches!(kind, FileType::CharacterDevice | FileType::Fifo) || !readable {
        return None;
    }
    // `NOCTTY`: a terminal opened anew must not become the controlling
    // terminal of a process that has none. `NONBLOCK` for the open only:
    // a blocking open of a FIFO whose writer has gone would wait for a
    // new writer.
    let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK;
    let path = format!("/proc/self/fd/{}", fd.as_raw_fd());
    let own = rustix::fs::open(path, flags, Mode::empty()).ok()?;
    // Blocking, as descriptor 0 was, until `Async` makes it otherwise.
    let flags = rustix::fs::fcntl_getfl(&own).ok()?;
    rustix::fs::fcntl_setfl(&own, flags - OFlags::NONBLOCK).ok()?;
    Some(own)
}

impl AsFd for Unbuffered<'_> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.0
    }
}

impl Read for &Unbuffered<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Ok(rustix::io::read(self.0, buf)?)
    }
}

// ANCHOR_END: unbuffered

// ANCHOR: input
/// An input descriptor, waited for with epoll whenever epoll can.
#[derive(Debug)]
pub enum Input<'fd> {
    /// A pipe, a terminal, a socket: each read is tried, and while there
    /// is nothing to read, the task waits for the reactor's report.
    Polled(Async<Unbuffered<'fd>>),
    /// A regular file or `/dev/null`, which epoll refuses (`EPERM`): it
    /// never waits for data to *arrive*, so readiness means nothing for
    /// it. It is read directly. (A read from a slow disk still blocks the
    /// thread for a moment; no readiness API can help with that.)
    Direct(Unbuffered<'fd>),
}

impl<'fd> Input<'fd> {
    /// Registers `fd` with `reactor`, or falls back to reading it
    /// directly if epoll refuses it.
    pub fn new(reactor: &Arc<Reactor>, fd: Unbuffered<'fd>) -> io::Result<Self> {
        match Async::new(reactor, fd) {
            Ok(polled) => Ok(Input::Polled(polled)),
            // `Async::new` left the descriptor's flags as they were.
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::PERM.raw_os_error()) => {
                Ok(Input::Direct(fd))
            }
            Err(e) => Err(e),
        }
    }

    /// Reads some bytes into `buf`; `Ok(0)` at the end of the input.
    pub async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::Polled(polled) => polled.read(buf).await,
            Input::Direct(fd) => {
                let mut reader = fd;
                reader.read(buf)
            }
        }
    }
}
// ANCHOR_END: input

// ANCHOR: error
/// Why the input did not give a number plus 10.
#[derive(Debug)]
pub enum InputError {
    /// The input ended before a single byte of a line.
    NoLine,
    /// The line holds nothing but spaces.
    Empty,
    /// The line is longer than the buffer: `limit` bytes, not counting
    /// the `\n`.
    TooLong {
        /// The longest line accepted, in bytes.
        limit: usize,
    },
    /// The line is not UTF-8 text.
    NotUtf8,
    /// The line, without its surrounding spaces, is not a whole number.
    NotANumber(String),
    /// The line is a whole number, but not one an `i64` holds.
    OutOfRange(String),
    /// The number fits in an `i64`, but the number plus 10 does not.
    Overflow(i64),
    /// Reading failed.
    Io(io::Error),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::NoLine => write!(f, "no input: it ended before a line"),
            InputError::Empty => write!(f, "the line is empty: type a number"),
            InputError::TooLong { limit } => write!(f, "the line is longer than {limit} bytes"),
            InputError::NotUtf8 => write!(f, "the line is not UTF-8 text"),
            // `{:?}` quotes the text and escapes control characters.
            InputError::NotANumber(text) => write!(f, "{text:?} is not a whole number"),
            InputError::OutOfRange(text) => {
                write!(f, "{text:?} is out of range ({} to {})", i64::MIN, i64::MAX)
            }
            InputError::Overflow(n) => write!(f, "{n} + 10 is more than {}", i64::MAX),
            InputError::Io(e) => write!(f, "cannot read the input: {e}"),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InputError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for InputError {
    fn from(e: io::Error) -> Self {
        InputError::Io(e)
    }
}
// ANCHOR_END: error

// ANCHOR: read_line
/// Reads one line of at most `limit` bytes (not counting its `\n`), or
/// the last line of the input if it has no `\n`. Reads in chunks, so
/// bytes after the `\n` may be read too: they are dropped.
///
/// With an [`Input::Polled`], every read goes through [`Async::read`]:
/// while there is nothing to read, the task is `Pending` and its thread
/// free, and the task is woken when epoll reports the descriptor.
pub async fn read_line(input: &Input<'_>, limit: usize) -> Result<String, InputError> {
    // Room for the longest line and its `\n`: a full buffer without a
    // `\n` is a line that is too long.
    let mut line = vec![0; limit + 1];
    let mut len = 0;
    loop {
        if len == line.len() {
            return Err(InputError::TooLong { limit });
        }
        let n = input.read(&mut line[len..]).await?;
        if n == 0 {
            // The end of the input: a last line without `\n`, or none.
            if len == 0 {
                return Err(InputError::NoLine);
            }
            break;
        }
        if let Some(newline) = line[len..len + n].iter().position(|&b| b == b'\n') {
            len += newline;
            break;
        }
        len += n;
    }
    line.truncate(len);
    String::from_utf8(line).map_err(|_| InputError::NotUtf8)
}
// ANCHOR_END: read_line

// ANCHOR: plus_ten
/// A number and the number plus 10; displayed as `32 + 10 = 42`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlusTen {
    /// The number read.
    pub number: i64,
    /// `number + 10`.
    pub sum: i64,
}

impl fmt::Display for PlusTen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + 10 = {}", self.number, self.sum)
    }
}

/// Reads `line` as a whole number, spaces around it allowed, and adds 10.
pub fn plus_ten(line: &str) -> Result<PlusTen, InputError> {
    use std::num::IntErrorKind;

    let text = line.trim();
    if text.is_empty() {
        return Err(InputError::Empty);
    }
    let number: i64 = text
        .parse()
        .map_err(|e: std::num::ParseIntError| match e.kind() {
            IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => {
                InputError::OutOfRange(text.to_string())
            }
            _ => InputError::NotANumber(text.to_string()),
        })?;
    let sum = number.checked_add(10).ok_or(InputError::Overflow(number))?;
    Ok(PlusTen { number, sum })
}
// ANCHOR_END: plus_ten

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_executors::PATIENCE;
    use crate::test_wakers::TestWaker;
    use std::fs::File;
    use std::io::Write;
    use std::io::{PipeReader, PipeWriter};
    use std::pin::pin;
    use std::sync::mpsc;
    use std::task::{Context, Poll};
    use std::thread;

    /// The longest line the tests accept, as in the demo.
    const LIMIT: usize = 32;

    fn reactor() -> Arc<Reactor> {
        Arc::new(Reactor::new().unwrap())
    }

    fn message(result: Result<impl fmt::Debug, InputError>) -> String {
        result.unwrap_err().to_string()
    }

    /// Reads a line of `bytes`, written to a pipe then closed, waiting for
    /// the pipe in epoll.
    fn line_of(bytes: &[u8]) -> Result<String, InputError> {
        let reactor = reactor();
        let (reader, mut writer) = io::pipe().unwrap();
        writer.write_all(bytes).unwrap();
        drop(writer);
        let input = Input::new(&reactor, Unbuffered(reader.as_fd())).unwrap();
        assert!(matches!(input, Input::Polled(_)));
        reactor.block_on(read_line(&input, LIMIT)).unwrap()
    }

    #[test]
    fn a_reopened_pipe_is_read_only_close_on_exec_and_blocking() {
        let (reader, _writer) = std::io::pipe().unwrap();
        let own = reopen(reader.as_fd()).expect("a pipe can be reopened");
        let status = rustix::fs::fcntl_getfl(&own).unwrap();
        assert_eq!(status & OFlags::RWMODE, OFlags::RDONLY);
        assert!(!status.contains(OFlags::NONBLOCK), "blocking, as fd 0 was");
        let fd_flags = rustix::io::fcntl_getfd(&own).unwrap();
        assert!(fd_flags.contains(rustix::io::FdFlags::CLOEXEC));
    }

    #[test]
    fn reopening_a_fifo_whose_writer_is_gone_does_not_wait_for_a_new_one() {
        // Opened without `NONBLOCK`, a FIFO with no writer would block
        // until one comes: never, here. (An anonymous pipe would not.)
        let dir = std::env::temp_dir().join(format!("stdin-demo-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let fifo = dir.join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::RUSR | Mode::WUSR,
            0,
        )
        .unwrap();
        let nonblocking = OFlags::NONBLOCK | OFlags::CLOEXEC;
        let reader = rustix::fs::open(&fifo, OFlags::RDONLY | nonblocking, Mode::empty()).unwrap();
        let writer = rustix::fs::open(&fifo, OFlags::WRONLY | nonblocking, Mode::empty()).unwrap();
        drop(writer);
        let (done, reopened) = mpsc::channel();
        thread::spawn(move || done.send(reopen(reader.as_fd()).is_some()).unwrap());
        let outcome = reopened.recv_timeout(PATIENCE);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(outcome, Ok(true));
    }

    #[test]
    fn a_socket_or_a_write_only_descriptor_is_not_reopened() {
        let (socket, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
        assert!(reopen(socket.as_fd()).is_none());
        let (_reader, writer) = std::io::pipe().unwrap();
        assert!(reopen(writer.as_fd()).is_none());
    }

    #[test]
    fn only_a_read_error_has_a_source() {
        use std::error::Error;
        let failed = InputError::Io(io::Error::from(io::ErrorKind::BrokenPipe));
        let source = failed.source().expect("the I/O error");
        let source = source.downcast_ref::<io::Error>().unwrap();
        assert_eq!(source.kind(), io::ErrorKind::BrokenPipe);
        assert!(InputError::NoLine.source().is_none());
    }

    #[test]
    fn plus_ten_adds_ten_to_a_number_with_spaces_around() {
        assert_eq!(
            plus_ten("32").unwrap(),
            PlusTen {
                number: 32,
                sum: 42
            }
        );
        assert_eq!(plus_ten("  -5 \r").unwrap().to_string(), "-5 + 10 = 5");
        assert_eq!(plus_ten("+7").unwrap().to_string(), "7 + 10 = 17");
        assert_eq!(plus_ten("9223372036854775797").unwrap().sum, i64::MAX);
    }

    #[test]
    fn plus_ten_explains_every_bad_line() {
        assert_eq!(message(plus_ten("abc")), "\"abc\" is not a whole number");
        assert_eq!(message(plus_ten(" 4.5 ")), "\"4.5\" is not a whole number");
        assert_eq!(message(plus_ten("1\t2")), "\"1\\t2\" is not a whole number");
        assert_eq!(message(plus_ten("")), "the line is empty: type a number");
        assert_eq!(
            message(plus_ten("  \t ")),
            "the line is empty: type a number"
        );
        assert_eq!(
            message(plus_ten("99999999999999999999")),
            "\"99999999999999999999\" is out of range (-9223372036854775808 to 9223372036854775807)"
        );
        assert_eq!(
            message(plus_ten("-99999999999999999999")),
            "\"-99999999999999999999\" is out of range (-9223372036854775808 to 9223372036854775807)"
        );
        assert_eq!(
            message(plus_ten("9223372036854775800")),
            "9223372036854775800 + 10 is more than 9223372036854775807"
        );
    }

    #[test]
    fn read_line_stops_at_the_newline_or_the_end_of_the_input() {
        assert_eq!(line_of(b"32\n").unwrap(), "32");
        assert_eq!(line_of(b"32\nand more\n").unwrap(), "32");
        assert_eq!(line_of(b"  -5 ").unwrap(), "  -5 ");
        assert_eq!(line_of(b"\n").unwrap(), "");
    }

    #[test]
    fn read_line_explains_what_is_not_a_line() {
        assert_eq!(message(line_of(b"")), "no input: it ended before a line");
        assert_eq!(
            message(line_of(b"\xff\xfe\n")),
            "the line is not UTF-8 text"
        );
        let long = [b'1'; LIMIT + 1];
        assert_eq!(message(line_of(&long)), "the line is longer than 32 bytes");
        assert_eq!(
            message(line_of(&[&long[..], b"\n"].concat())),
            "the line is longer than 32 bytes"
        );
        // The limit itself is fine, with or without its newline.
        let longest = [b'1'; LIMIT];
        assert_eq!(line_of(&longest).unwrap().len(), LIMIT);
        assert_eq!(
            line_of(&[&longest[..], b"\n"].concat()).unwrap().len(),
            LIMIT
        );
    }

    #[test]
    fn a_read_error_is_an_io_error() {
        let reactor = reactor();
        // The writing end of a pipe: epoll takes it, `read` refuses it.
        let (_reader, writer) = io::pipe().unwrap();
        let input = Input::new(&reactor, Unbuffered(writer.as_fd())).unwrap();
        let error = reactor
            .block_on(read_line(&input, LIMIT))
            .unwrap()
            .unwrap_err();
        assert!(
            matches!(&error, InputError::Io(e) if e.raw_os_error() == Some(rustix::io::Errno::BADF.raw_os_error()))
        );
        assert!(
            error.to_string().starts_with("cannot read the input: "),
            "{error}"
        );
    }

    #[test]
    fn a_line_in_pieces_is_put_together() {
        let reactor = reactor();
        let (reader, mut writer) = io::pipe().unwrap();
        let input = Input::new(&reactor, Unbuffered(reader.as_fd())).unwrap();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut read = pin!(read_line(&input, LIMIT));
        // Nothing written yet: the read waits.
        assert!(read.as_mut().poll(&mut cx).is_pending());
        // Each piece is written only once the read waits again, so that
        // every piece is a read of its own: the line is put together from
        // three reads.
        for (wakes, piece) in [(1, &b" 3"[..]), (2, b"2")] {
            writer.write_all(piece).unwrap();
            reactor.wait(Some(PATIENCE)).unwrap();
            assert_eq!(task.wakes(), wakes);
            assert!(
                read.as_mut().poll(&mut cx).is_pending(),
                "no newline yet after {piece:?}"
            );
        }
        writer.write_all(b" \n").unwrap();
        reactor.wait(Some(PATIENCE)).unwrap();
        assert_eq!(task.wakes(), 3);
        match read.as_mut().poll(&mut cx) {
            Poll::Ready(line) => assert_eq!(line.unwrap(), " 32 "),
            Poll::Pending => panic!("the line is complete"),
        }
    }

    #[test]
    fn a_spurious_wake_up_finds_nothing_and_waits_again() {
        let reactor = reactor();
        let (reader, mut writer) = io::pipe().unwrap();
        let input = Input::new(&reactor, Unbuffered(reader.as_fd())).unwrap();
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut read = pin!(read_line(&input, LIMIT));
        assert!(read.as_mut().poll(&mut cx).is_pending());
        assert_eq!(reactor.report_everything_spuriously(), 1);
        assert_eq!(task.wakes(), 1);
        assert!(read.as_mut().poll(&mut cx).is_pending());
        writer.write_all(b"32\n").unwrap();
        reactor.wait(Some(PATIENCE)).unwrap();
        assert_eq!(task.wakes(), 2);
        match read.as_mut().poll(&mut cx) {
            Poll::Ready(line) => assert_eq!(line.unwrap(), "32"),
            Poll::Pending => panic!("the line is there"),
        }
    }

    #[test]
    fn a_pending_read_does_not_block_the_executor() {
        // One thread, one reactor: a read waiting for an empty pipe, and a
        // future waiting for a wake from another thread. The second
        // completes while the first still waits; only then is the data
        // written, and the read completes too.
        let reactor = reactor();
        let (reader, mut writer): (PipeReader, PipeWriter) = io::pipe().unwrap();
        let input = Input::new(&reactor, Unbuffered(reader.as_fd())).unwrap();
        let (wake, woken) = futures::channel::oneshot::channel::<()>();
        let (write_now, when_to_write) = mpsc::channel::<()>();
        let helper = thread::spawn(move || {
            wake.send(()).unwrap();
            when_to_write.recv_timeout(PATIENCE).unwrap();
            writer.write_all(b"32\n").unwrap();
        });
        let order = std::sync::Mutex::new(Vec::new());
        let (line, ()) = reactor
            .block_on(futures::future::join(
                async {
                    let line = read_line(&input, LIMIT).await;
                    order.lock().unwrap().push("read");
                    line
                },
                async {
                    woken.await.unwrap();
                    order.lock().unwrap().push("woken");
                    write_now.send(()).unwrap();
                },
            ))
            .unwrap();
        assert_eq!(line.unwrap(), "32");
        assert_eq!(*order.lock().unwrap(), ["woken", "read"]);
        helper.join().unwrap();
    }

    #[test]
    fn a_regular_file_is_read_directly_and_so_is_dev_null() {
        let reactor = reactor();
        // An in-memory regular file: epoll refuses it, as it does a file
        // on disk.
        let file = File::from(
            rustix::fs::memfd_create("number", rustix::fs::MemfdFlags::CLOEXEC).unwrap(),
        );
        (&file).write_all(b"32\n").unwrap();
        rustix::fs::seek(&file, rustix::fs::SeekFrom::Start(0)).unwrap();
        let input = Input::new(&reactor, Unbuffered(file.as_fd())).unwrap();
        assert!(matches!(input, Input::Direct(_)));
        assert_eq!(
            reactor.block_on(read_line(&input, LIMIT)).unwrap().unwrap(),
            "32"
        );
        // Still blocking: the failed registration left the flags alone.
        assert!(
            !rustix::fs::fcntl_getfl(&file)
                .unwrap()
                .contains(rustix::fs::OFlags::NONBLOCK)
        );

        let null = File::open("/dev/null").unwrap();
        let input = Input::new(&reactor, Unbuffered(null.as_fd())).unwrap();
        assert!(matches!(input, Input::Direct(_)));
        assert_eq!(
            message(reactor.block_on(read_line(&input, LIMIT)).unwrap()),
            "no input: it ended before a line"
        );
    }
}
