//! What the integration tests share: counting this process's threads and
//! open descriptors (Linux: both are listed in `/proc`), and finding the
//! built examples. Each test binary that says `mod common;` compiles this
//! file into itself, and uses only part of it.
#![allow(dead_code, reason = "each test binary uses part of it")]

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

/// The threads of this process.
pub fn threads() -> usize {
    fs::read_dir("/proc/self/task").unwrap().count()
}

/// The open file descriptors of this process, the one that lists them
/// (`read_dir` holds a descriptor on `/proc/self/fd` while it reads) not
/// counted.
///
/// Tests of one binary run in parallel threads of one process, and open
/// and close descriptors as they go: only a binary with a single test can
/// compare this count before and after. Other tests count the descriptors
/// of a program they start, which is alone in its process
/// ([`fd_targets_of`]).
pub fn open_fds() -> usize {
    fs::read_dir("/proc/self/fd").unwrap().count() - 1
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

/// Waits until `condition` holds, failing after 20 s, far longer than it
/// takes (only a hang can exceed it).
pub fn eventually(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !condition() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        thread::sleep(Duration::from_millis(1));
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
