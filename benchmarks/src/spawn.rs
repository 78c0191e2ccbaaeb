//! Group `spawn`: the cost of a task's whole life — spawned, polled once,
//! completed, freed — on each executor.
//!
//! One iteration spawns n tasks (100,000; 1,000 in a quick run) and runs
//! until all have completed, in the form [`executors`]
//! describes: the chapter 3 executors and `LocalPool` spawn, then run to
//! completion; the runtimes with `block_on` spawn from inside it and await
//! every join handle. The chapter 3 executors are built inside the
//! iteration (they are single use); the others once, outside the loop.
//! The report divides by n: nanoseconds per task.
//!
//! Fair because every executor runs the very same task: an `async` block
//! that captures nothing and adds one to a thread-local counter (all ten
//! poll their tasks on the thread that drives them). A shared `Rc` for the
//! local executors and an `Arc` for the `Send` ones would have charged the
//! chapter 3 executors three atomic operations per task that are not
//! theirs. The counter equals n after every iteration, or the benchmark
//! panics.

use std::cell::Cell;
use std::hint::black_box;

use bench_results::Group;
use bench_results::ids::SPAWN_TASKS;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};

use super::executors::{self, Executor, Visit};
use super::support;

thread_local! {
    /// Tasks completed in this iteration.
    static DONE: Cell<usize> = const { Cell::new(0) };
}

/// The group `spawn/<implementation>/<n>`.
pub fn bench(c: &mut Criterion) {
    let n = if support::quick() { 1_000 } else { SPAWN_TASKS };
    let mut group = support::task_group(c, Group::Spawn, n);
    executors::each(&mut Spawn {
        group: &mut group,
        n,
    });
    group.finish();
}

/// Spawns n counting tasks per iteration.
struct Spawn<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    n: usize,
}

impl Visit for Spawn<'_, '_> {
    fn visit<E: Executor>(&mut self) {
        let n = self.n;
        let mut executor = E::new();
        let id = BenchmarkId::new(E::ID.id(), n);
        self.group.bench_function(id, |b| {
            b.iter(|| {
                DONE.set(0);
                let tasks = (0..black_box(n)).map(|_| async {
                    DONE.set(DONE.get() + 1);
                });
                // All n are queued before the first poll (chapter 3's
                // executors get them before `run`): room for every one.
                executor.run_all(n + 16, tasks);
                let done = black_box(DONE.get());
                assert_eq!(done, n, "{}: every task ran once", E::ID);
            });
        });
    }
}
