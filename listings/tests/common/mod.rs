//! What the integration tests share: counting this process's threads and
//! open descriptors (Linux: both are listed in `/proc`), raising its limit
//! of descriptors, seeing whether a thread sleeps in `epoll_wait`, waiting
//! at most [`PATIENCE`] for a thread or a child process, and finding the
//! built examples. Each test binary that says `mod common;` compiles this
//! file into itself, and uses only part of it. It uses the dev-dependencies
//! (`rustix`'s `process`, `libc`), which are not there under `--cfg loom`:
//! the binaries that include it are not built then.
#![allow(dead_code, reason = "each test binary uses part of it")]

use std::env;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Output};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// How long a test waits for what must happen: far longer than it takes
/// (only a hang can exceed it).
pub const PATIENCE: Duration = Duration::from_secs(20);

/// The threads of this process.
pub fn threads() -> usize {
    fs::read_dir("/proc/self/task").unwrap().count()
}

/// The numbers of this process's open descriptors, the one that lists them
/// (`read_dir` holds a descriptor on `/proc/self/fd` while it reads)
/// included, and only those below the soft limit of descriptors.
///
/// The limit is the rule for valgrind's own descriptors (its log file, its
/// copy of the program): valgrind keeps them above the soft limit that it
/// shows the program, out of the program's reach, and they are no business
/// of a test. Without valgrind nothing is above the limit.
pub fn fd_numbers() -> Vec<u64> {
    let limit = getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX);
    fs::read_dir("/proc/self/fd")
        .unwrap()
        .map(|entry| {
            let name = entry.unwrap().file_name();
            name.to_str().unwrap().parse().unwrap()
        })
        .filter(|&fd| fd < limit)
        .collect()
}

/// The open file descriptors of this process, the one that lists them not
/// counted, nor valgrind's ([`fd_numbers`]).
///
/// Tests of one binary run in parallel threads of one process, and open
/// and close descriptors as they go: only a binary with a single test, or
/// tests that take turns, can compare this count before and after. Other
/// tests count the descriptors of a program they start, which is alone in
/// its process ([`fd_targets_of`]).
pub fn open_fds() -> usize {
    fd_numbers().len() - 1
}

/// Raises this process's soft limit of descriptors to its hard limit, and
/// checks that it allows `needed`: a test that opens about a thousand
/// descriptors must not depend on the soft limit it inherits (often 1024).
/// The hard limit only root can raise: if it is too low, the test fails and
/// says so.
pub fn allow_descriptors(needed: u64) {
    let limit = getrlimit(Resource::Nofile);
    // `None`: no limit.
    if let Some(hard) = limit.maximum
        && hard < needed
    {
        panic!(
            "this test needs {needed} descriptors, and the hard limit is {hard} (`ulimit -Hn`; \
             under valgrind, the soft limit valgrind was started with, `ulimit -Sn`): raise it"
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

/// What the open file descriptors of the process `pid` (a child of
/// ours) refer to, sorted: `pipe:[…]`, `socket:[…]`, `anon_inode:[eventpoll]`,
/// a path….
pub fn fd_targets_of(pid: u32) -> Vec<String> {
    let mut targets: Vec<String> = fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|entry| fs::read_link(entry.unwrap().path()).ok())
        .map(|target| target.to_string_lossy().into_owned())
        .collect();
    targets.sort();
    targets
}

/// The threads of the process `pid`.
pub fn threads_of(pid: u32) -> usize {
    fs::read_dir(format!("/proc/{pid}/task")).unwrap().count()
}

/// Whether thread `tid` of process `pid` is asleep in `epoll_wait` now.
///
/// `/proc/<pid>/task/<tid>/wchan` names the kernel function a sleeping
/// thread waits in: `do_epoll_wait` (or `ep_poll`, on kernels that do not
/// inline it) for an epoll wait, with a timeout or not, and `0` for a
/// thread that runs. Some kernels show `0` (or nothing) for a sleeping
/// thread too, when they keep kernel addresses hidden; then the thread's
/// `syscall` file says which system call it sleeps in (its first field;
/// `running` while it runs): the epoll reactor waits with `epoll_pwait`,
/// or `epoll_pwait2` for a timeout too long for it.
pub fn asleep_in_epoll(pid: u32, tid: u32) -> bool {
    let task = format!("/proc/{pid}/task/{tid}");
    let wchan = fs::read_to_string(format!("{task}/wchan")).unwrap_or_default();
    match wchan.trim() {
        "" | "0" => {}
        function => return function == "do_epoll_wait" || function == "ep_poll",
    }
    let syscall = fs::read_to_string(format!("{task}/syscall")).unwrap_or_default();
    syscall
        .split_whitespace()
        .next()
        .and_then(|number| number.parse::<libc::c_long>().ok())
        .is_some_and(|number| number == libc::SYS_epoll_pwait || number == libc::SYS_epoll_pwait2)
}

/// Waits until `condition` holds, or [`PATIENCE`] has passed; returns
/// whether it holds. Every wait of the tests for what must happen goes
/// through here: none can hang `cargo test`.
pub fn within_patience(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if condition() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// Waits until `condition` holds, failing after [`PATIENCE`].
pub fn eventually(what: &str, condition: impl FnMut() -> bool) {
    assert!(within_patience(condition), "never happened: {what}");
}

/// Joins `thread`, which must end within [`PATIENCE`]; fails if it does
/// not (it is left behind), and passes its panic on if it panicked.
pub fn join_within_patience<T>(thread: thread::JoinHandle<T>, what: &str) -> T {
    assert!(
        within_patience(|| thread.is_finished()),
        "{what} did not end within {PATIENCE:?}"
    );
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// What `wait_with_output` gives, from a child that must exit within
/// [`PATIENCE`]: if it does not, it is killed and the test fails. As with
/// `wait_with_output`, its standard input (if piped) is closed first, and
/// its standard output and error (if piped) are read on threads meanwhile,
/// so that it never waits for room in a full pipe.
pub fn output_within_patience(mut child: Child, what: &str) -> Output {
    drop(child.stdin.take());
    fn read_all(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<Vec<u8>> {
        thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_end(&mut bytes).unwrap();
            }
            bytes
        })
    }
    let stdout = read_all(child.stdout.take());
    let stderr = read_all(child.stderr.take());
    let mut status = None;
    if !within_patience(|| {
        status = child.try_wait().unwrap();
        status.is_some()
    }) {
        // Its pipes close with it, and the readers end.
        child.kill().unwrap();
        child.wait().unwrap();
        panic!("{what} did not exit within {PATIENCE:?}: killed");
    }
    Output {
        status: status.unwrap(),
        stdout: join_within_patience(stdout, "reading its standard output"),
        stderr: join_within_patience(stderr, "reading its standard error"),
    }
}

/// The example `name`, as `cargo test` built it (in
/// `target/<profile>/examples`), checked to be newer than its source and
/// the library's.
pub fn example(name: &str) -> PathBuf {
    let exe = env::current_exe().unwrap();
    let program = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join(name);
    let listings = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = listings.join("examples").join(format!("{name}.rs"));
    let newest = newest_under(&listings.join("src")).max(modified(&source));
    assert!(
        modified(&program).is_some() && modified(&program) >= newest,
        "example {name} is not built or out of date: run plain `cargo test`, which builds the examples"
    );
    program
}

fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn newest_under(dir: &Path) -> Option<SystemTime> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter_map(|path| {
            if path.is_dir() {
                newest_under(&path)
            } else {
                modified(&path)
            }
        })
        .max()
}
