//! Group `ping_pong`: the cost of one task waking another and the other
//! being polled — the hand-off every channel, lock or socket between two
//! tasks pays.
//!
//! Two tasks take turns n times (10,000; 100 in a quick run): a shared turn
//! counter, even turns for one task and odd for the other; each waits for
//! its turn, moves the counter on and wakes the other. One iteration spawns
//! both and runs until both have completed (see
//! [`executors`] for how each executor is driven, and
//! what is built per iteration). The report divides by n: nanoseconds per
//! hand-off.
//!
//! Fair because every executor runs the same two futures on the same
//! primitive, an atomic counter and a `futures::task::AtomicWaker` per
//! task: `Send` and `Sync`, as the chapter 3 executors require, and it
//! costs each executor the same (one waker clone per wait, one wake per
//! turn). The counter must end at n, or the benchmark panics.

use std::future::poll_fn;
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bench_results::Group;
use bench_results::ids::PING_PONG_TURNS;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};
use futures::task::AtomicWaker;

use super::executors::{self, Executor, Visit};
use super::support;

/// The group `ping_pong/<implementation>/<n>`.
pub fn bench(c: &mut Criterion) {
    let n = if support::quick() {
        100
    } else {
        PING_PONG_TURNS
    };
    let mut group = support::task_group(c, Group::PingPong, n);
    executors::each(&mut PingPong {
        group: &mut group,
        n,
    });
    group.finish();
}

/// Runs two players for n turns per iteration.
struct PingPong<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    n: usize,
}

impl Visit for PingPong<'_, '_> {
    fn visit<E: Executor>(&mut self) {
        let n = self.n;
        let mut executor = E::new();
        // Reused: each game leaves both waker slots empty (the last
        // wake takes its waker, and a finished player registers none).
        let table = Arc::new(Table::default());
        let id = BenchmarkId::new(E::ID.id(), n);
        self.group.bench_function(id, |b| {
            b.iter(|| play(&mut executor, &table, n));
        });
    }
}

/// One game of `n` turns on `executor`: both players spawned, run until
/// both have completed (one iteration of the benchmark; also what
/// `examples/handoff_instructions.rs` counts the instructions of).
///
/// # Panics
///
/// If the counter does not end at `n`.
pub fn play<E: Executor>(executor: &mut E, table: &Arc<Table>, n: usize) {
    table.turn.store(0, Ordering::Relaxed);
    let turns = black_box(n);
    let players = [0, 1].map(|side| player(Arc::clone(table), side, turns));
    // At most both players and a wake-up or two are queued at
    // once: chapter 3's default queue is plenty.
    executor.run_all(16, players);
    let turn = black_box(table.turn.load(Ordering::Relaxed));
    assert_eq!(turn, n, "{}: every hand-off happened", E::ID);
}

/// What the two players share.
#[derive(Debug, Default)]
pub struct Table {
    /// Turns taken so far: side 0 plays the even ones, side 1 the odd.
    turn: AtomicUsize,
    /// Each side's waker while it waits for its turn.
    waiting: [AtomicWaker; 2],
}

impl Table {
    /// Ready with the turn count once it is `side`'s turn or the game is
    /// over (`end` turns taken); otherwise registers to be woken.
    fn my_turn(&self, side: usize, end: usize, cx: &mut Context<'_>) -> Poll<usize> {
        let ready = |turn: usize| turn >= end || turn % 2 == side;
        // Checked before registering, so that a player whose turn it is
        // (or who is done) leaves no waker behind.
        let turn = self.turn.load(Ordering::Acquire);
        if ready(turn) {
            return Poll::Ready(turn);
        }
        self.waiting[side].register(cx.waker());
        // And again after: the other side may have played meanwhile (on a
        // multi-threaded executor; here it never has).
        let turn = self.turn.load(Ordering::Acquire);
        if ready(turn) {
            Poll::Ready(turn)
        } else {
            Poll::Pending
        }
    }
}

/// Plays `side`'s turns until `end` turns have been taken in all.
async fn player(table: Arc<Table>, side: usize, end: usize) {
    loop {
        let turn = poll_fn(|cx| table.my_turn(side, end, cx)).await;
        if turn >= end {
            return;
        }
        // Only the side whose turn it is writes the counter.
        table.turn.store(turn + 1, Ordering::Release);
        table.waiting[1 - side].wake();
    }
}
