//! Where the timers group's memory goes: the heap bytes a pending timer
//! task holds, counted by the allocator rather than read from the kernel.
//!
//! The timers group (`cargo bench -p benchmarks --bench hand -- timers`)
//! reports each runtime's peak resident memory; chapter 11 explains why its
//! runtime needs more than async-io's. This program runs the same task
//! body (`benchmarks::timers::timed`) `COUNT` times on each runtime, waits
//! until every task has created its timer and is pending, and prints, for
//! that moment:
//! - the heap bytes in use above what was in use before the runtime's
//!   main future started, per task;
//! - the most heap bytes in use at any moment until then, per task (a
//!   growing buffer holds its old and its new block for a moment);
//! - the sizes of the allocations made at least `COUNT` times since then
//!   and still alive, with how many of each: the per-task blocks (the
//!   task, its timer entry) stand out from the runtime's few large
//!   buffers;
//! - the size of the task's future and of its output.
//!
//! Run: `cargo run --release -p benchmarks --example task_bytes`. Unlike
//! resident memory, the counts do not include the allocator's own
//! overhead per block or its free lists. They repeat from run to run,
//! but for async-io's bytes in use: of six runs on the machine this was
//! written on, one gave 287.2 B per task instead of 294.6 B, with the
//! same sizes made 10,000 times (not the task blocks, then; what it
//! depends on was not traced). The bytes in use include the main
//! future's `Vec` of the 10,000 join handles (8 B per task on every
//! runtime) and the runtime's queues and maps at their grown capacity.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use async_executor::LocalExecutor;
use benchmarks::timers::timed;

/// Tasks per runtime, as in the timers group.
const COUNT: usize = 10_000;
/// The timers' duration, as in the timers group.
const DURATION: Duration = Duration::from_millis(100);
/// How long the main future waits after spawning before it counts: every
/// task has been polled once (and so created its timer) long before, and
/// no timer of `DURATION` has fired yet.
const SETTLE: Duration = Duration::from_millis(20);
/// Allocations larger than this are not sorted by size (a runtime's few
/// large buffers; every per-task block is far smaller).
const LARGEST_SIZE: usize = 4096;

/// Heap bytes in use, over every thread.
static LIVE: AtomicI64 = AtomicI64::new(0);
/// The most `LIVE` has been since `start`.
static PEAK: AtomicI64 = AtomicI64::new(0);
/// Whether allocations are being sorted by size.
static RECORDING: AtomicBool = AtomicBool::new(false);
/// Live allocations by size, counted while `RECORDING` (an allocation
/// freed later is taken off its size's count even if it was made before).
static BY_SIZE: [AtomicU64; LARGEST_SIZE + 1] = [const { AtomicU64::new(0) }; LARGEST_SIZE + 1];

/// The system allocator, counting.
struct Counting;

// SAFETY: every call is passed on to `System` unchanged; the counters are
// atomics that no allocation path reads back.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The new block counted before the old one is let go: a realloc
        // that moves holds both for a moment, and the peak shows it (one
        // that grows in place does not: for it the peak is an upper
        // bound).
        note_alloc(new_size);
        // SAFETY: as for `alloc`.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        // Failed: the old block is still there, and no new one.
        let gone = if moved.is_null() {
            new_size
        } else {
            layout.size()
        };
        note_free(gone);
        moved
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_free(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn note_alloc(size: usize) {
    let live = LIVE.fetch_add(size as i64, Ordering::Relaxed) + size as i64;
    PEAK.fetch_max(live, Ordering::Relaxed);
    if RECORDING.load(Ordering::Relaxed) && size <= LARGEST_SIZE {
        BY_SIZE[size].fetch_add(1, Ordering::Relaxed);
    }
}

fn note_free(size: usize) {
    LIVE.fetch_sub(size as i64, Ordering::Relaxed);
    if RECORDING.load(Ordering::Relaxed) && size <= LARGEST_SIZE {
        // Saturating: a block made before recording started may be freed
        // during it.
        let _ =
            BY_SIZE[size].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
}

/// The size of a task's future and of its output, as the runtime gets
/// them (its block holds more: a header, and a slot or a union for both).
fn sizes<F: std::future::Future>(future: F) -> String {
    format!(
        "future {} B, output {} B",
        std::mem::size_of_val(&future),
        std::mem::size_of::<F::Output>()
    )
}

/// Starts counting: the bytes in use now are the baseline.
fn start() -> i64 {
    for count in &BY_SIZE {
        count.store(0, Ordering::Relaxed);
    }
    RECORDING.store(true, Ordering::Relaxed);
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

/// What is in use now, above `baseline`: bytes per task and the sizes made
/// at least `COUNT` times, still alive.
fn snapshot(baseline: i64) -> String {
    let bytes = LIVE.load(Ordering::Relaxed) - baseline;
    RECORDING.store(false, Ordering::Relaxed);
    let sizes: Vec<String> = BY_SIZE
        .iter()
        .enumerate()
        .filter(|(_, count)| count.load(Ordering::Relaxed) >= COUNT as u64)
        .map(|(size, count)| format!("{size} B × {}", count.load(Ordering::Relaxed)))
        .collect();
    let peak = PEAK.load(Ordering::Relaxed) - baseline;
    format!(
        "{:.1} B per task in use, {:.1} B at the peak so far; sizes made at least {COUNT} times: {}",
        bytes as f64 / COUNT as f64,
        peak as f64 / COUNT as f64,
        sizes.join(", ")
    )
}

/// Measures the book's runtime `$runtime` (chapter 9's and chapter 11's
/// have the same `spawn`, `sleep` and `block_on`, but no trait in common
/// that gives both a task's `JoinHandle`) and prints its line as `$name`.
macro_rules! book_runtime {
    ($runtime:ty, $name:literal) => {{
        let runtime = <$runtime>::new().expect("a runtime (epoll, eventfd)");
        let handle = runtime.handle().clone();
        let line = runtime
            .block_on(async {
                let baseline = start();
                let tasks: Vec<_> = (0..COUNT)
                    .map(|_| {
                        let timer = handle.clone();
                        handle.spawn(async move { timed(DURATION, |d| timer.sleep(d)).await })
                    })
                    .collect();
                handle.sleep(SETTLE).await;
                let line = snapshot(baseline);
                for task in tasks {
                    task.await;
                }
                line
            })
            .expect("the runtime's block_on");
        println!("{}: {line}", $name);
        let timer = handle.clone();
        println!(
            "  {}",
            sizes(async move { timed(DURATION, |d| timer.sleep(d)).await })
        );
    }};
}

fn main() {
    println!("{COUNT} pending timer tasks (the timers group's task body), heap in use:");

    book_runtime!(listings::lean_runtime::Runtime, "book-ch11");
    book_runtime!(listings::runtime::Runtime, "book-ch09");

    let executor = LocalExecutor::new();
    let line = async_io::block_on(executor.run(async {
        let baseline = start();
        let tasks: Vec<_> = (0..COUNT)
            .map(|_| executor.spawn(timed(DURATION, async_io::Timer::after)))
            .collect();
        async_io::Timer::after(SETTLE).await;
        let line = snapshot(baseline);
        for task in tasks {
            task.await;
        }
        line
    }));
    println!("async-io: {line}");
    println!("  {}", sizes(timed(DURATION, async_io::Timer::after)));

    let runtime = benchmarks::support::tokio_current_thread().expect("a tokio runtime");
    let local = tokio::task::LocalSet::new();
    let line = local.block_on(&runtime, async {
        let baseline = start();
        let tasks: Vec<_> = (0..COUNT)
            .map(|_| tokio::task::spawn_local(timed(DURATION, tokio::time::sleep)))
            .collect();
        tokio::time::sleep(SETTLE).await;
        let line = snapshot(baseline);
        for task in tasks {
            task.await.expect("a timer task does not panic");
        }
        line
    });
    println!("tokio: {line}");
    println!("  {}", sizes(timed(DURATION, tokio::time::sleep)));
}
