//! Group `wake_many`: what it costs when a task is woken many times
//! before it is polled again — the case a `scheduled` flag is for.
//!
//! One task; on each of its first K polls (1,000; 10 in a quick run) it
//! calls `wake_by_ref` 100 times and returns `Pending`, and its poll K+1
//! returns `Ready`, whatever woke it. An executor with a flag queues the
//! task once per 100 wakes and polls it K+1 times. Chapter 3's first
//! executor queues it 100 times per poll, 100·K+1 entries in all: the
//! first K+1 it receives poll the task (so it too sees K+1 polls), and once
//! the task has completed, `run` still receives the 99·K left over (each
//! finds the slot empty) before it can return. Those entries are exactly
//! the cost the flag removes, so they are timed. Its queue holds
//! 100·(K+1)+16 entries, so that a wake never blocks (which, on the
//! executor's own thread, would deadlock).
//!
//! One iteration spawns the task and runs until it has completed (see
//! [`executors`]); the report divides by K: nanoseconds
//! per round of 100 wakes and a poll. The future counts its polls and the
//! benchmark panics unless there were exactly K+1: no executor can skip
//! the work, or poll a completed future.

use std::cell::Cell;
use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::task::{Context, Poll};

use bench_results::Group;
use bench_results::ids::WAKES_PER_POLL;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};

use super::executors::{self, Executor, Visit};
use super::support;

/// Wakes per poll: the group's case.
const WAKES: usize = WAKES_PER_POLL;

thread_local! {
    /// The polls the task saw, stored when it completes (every executor
    /// polls on the thread that drives it).
    static POLLS: Cell<usize> = const { Cell::new(0) };
}

/// The group `wake_many/<implementation>/100`.
pub fn bench(c: &mut Criterion) {
    let rounds = if support::quick() { 10 } else { 1_000 };
    let mut group = support::task_group(c, Group::WakeMany, rounds);
    executors::each(&mut WakeManyGroup {
        group: &mut group,
        rounds,
    });
    group.finish();
}

/// Runs one [`WakeMany`] task of K rounds per iteration.
struct WakeManyGroup<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    rounds: usize,
}

impl Visit for WakeManyGroup<'_, '_> {
    fn visit<E: Executor>(&mut self) {
        let rounds = self.rounds;
        let mut executor = E::new();
        self.group
            .bench_function(BenchmarkId::new(E::ID.id(), WAKES), |b| {
                b.iter(|| {
                    POLLS.set(0);
                    let task = WakeMany {
                        rounds: black_box(rounds),
                        polls: 0,
                    };
                    executor.run_all(WAKES * (rounds + 1) + 16, [task]);
                    let polls = black_box(POLLS.get());
                    assert_eq!(polls, rounds + 1, "{}: K+1 polls", E::ID);
                });
            });
    }
}

/// Wakes itself [`WAKES`] times in each of its first `rounds` polls;
/// ready at the next.
#[derive(Debug)]
struct WakeMany {
    rounds: usize,
    polls: usize,
}

impl Future for WakeMany {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.polls += 1;
        if self.polls > self.rounds {
            POLLS.set(self.polls);
            return Poll::Ready(());
        }
        for _ in 0..WAKES {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }
}
