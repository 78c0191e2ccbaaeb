//! The ten executors of the task groups ([`spawn`](super::spawn),
//! [`ping_pong`](super::ping_pong), [`wake_many`](super::wake_many)) behind
//! one trait, so that each group writes its work once and runs it on every
//! executor the same way.
//!
//! One timed iteration is [`Executor::run_all`]: spawn the given tasks and
//! run until every one of them has completed. Each executor is driven the
//! way its own documentation shows:
//!
//! - those with a "run until every task is done" call (`book-ch03`,
//!   `book-ch03-fixed`, `futures`' `LocalPool`) get the tasks spawned from
//!   outside, then that call;
//! - those whose loop runs one main future (`book-ch09`, `book-ch10`, `book-ch11…`,
//!   `async-executor`, `tokio`) spawn from inside it, as a program would,
//!   keep the join handles and await every one.
//!
//! Either way each task is spawned, polled and completed on this thread.
//! The second form also makes and awaits a join handle per task: those
//! executors cannot spawn without one (it is part of what their `spawn`
//! costs), and awaiting a finished handle is one borrow.
//!
//! Everything that can be reused is built once per benchmark, outside the
//! timed loop ([`Executor::new`]). The chapter 3 executors cannot: `run`
//! returns only once their last spawner is gone, so each iteration builds a
//! new one, and the iteration includes building it. That is small beside
//! the work: measured once, about 4 µs for the first executor's default
//! channel (10,000 places, allocated up front), 33 µs for 100,000 places,
//! 0.3 µs for the fixed executor. Against the iterations of the first
//! executor as measured on the book's 2-core machine, that is ≈1.5% of
//! `wake_many` (33 µs of ≈2.2 ms), ≈0.6% of `ping_pong` (4 µs of
//! ≈0.7 ms in the run of f863cf0; ≈1.1% of ≈0.35 ms in earlier runs) and
//! ≈0.2% of `spawn` (33 µs of ≈15 ms); for the fixed executor, under 0.1%
//! of any.

use std::future::Future;

use bench_results::Impl;
use futures::executor::{LocalPool, LocalSpawner};
use futures::task::LocalSpawnExt;

/// An executor as the task groups drive it.
pub trait Executor {
    /// The implementation: the chart label and the report's key.
    const ID: Impl;

    /// Builds what the benchmark reuses from one iteration to the next.
    fn new() -> Self;

    /// Spawns every future of `tasks` and runs until all have completed.
    /// `queue` is the most wake-ups that may be queued at once: the first
    /// executor of chapter 3 blocks (and, on its own thread, deadlocks)
    /// when its bounded queue is full, so it gets one at least that big.
    fn run_all<F, I>(&mut self, queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>;
}

/// A group's benchmark, written once for every executor.
pub trait Visit {
    /// Benchmarks executor `E`.
    fn visit<E: Executor>(&mut self);
}

/// Runs `visit` for every executor, in the order of the charts
/// (`bench_results::ids::EXECUTORS`).
pub fn each(visit: &mut impl Visit) {
    visit.visit::<BookCh03>();
    visit.visit::<BookCh03Fixed>();
    visit.visit::<BookCh09>();
    visit.visit::<BookCh10>();
    visit.visit::<BookCh11<1>>();
    visit.visit::<BookCh11<2>>();
    visit.visit::<BookCh11<3>>();
    visit.visit::<AsyncExecutor>();
    visit.visit::<Tokio>();
    visit.visit::<Futures>();
}

/// Chapter 3's first executor: a bounded `sync_channel`, one entry per
/// wake-up. Single use, so built per iteration.
#[derive(Debug)]
pub struct BookCh03;

impl Executor for BookCh03 {
    const ID: Impl = Impl::BookCh03;

    fn new() -> Self {
        BookCh03
    }

    fn run_all<F, I>(&mut self, queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>,
    {
        use listings::executor::{MAX_QUEUED_TASKS, new_executor_and_spawner, with_capacity};
        // What a user would write: the default queue, or a bigger one
        // where the default would fill up and deadlock.
        let (executor, spawner) = if queue <= MAX_QUEUED_TASKS {
            new_executor_and_spawner()
        } else {
            with_capacity(queue)
        };
        for task in tasks {
            spawner.spawn(task);
        }
        drop(spawner);
        executor.run();
    }
}

/// Chapter 3's fixed executor: `Mutex<VecDeque>` + `Condvar`, a task
/// queued once however often it is woken. Single use, so built per
/// iteration.
#[derive(Debug)]
pub struct BookCh03Fixed;

impl Executor for BookCh03Fixed {
    const ID: Impl = Impl::BookCh03Fixed;

    fn new() -> Self {
        BookCh03Fixed
    }

    fn run_all<F, I>(&mut self, _queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>,
    {
        let (executor, spawner) = listings::fixed_executor::new_executor_and_spawner();
        for task in tasks {
            spawner.spawn(task);
        }
        drop(spawner);
        executor.run();
    }
}

/// The book's runtimes (chapters 9 to 11) as the benchmarks drive them:
/// the tasks spawned from inside `block_on`, as a program would, and every
/// handle awaited in spawn order; and the echo server on them.
pub trait BookRuntime {
    /// What the echo server runs on.
    type Handle: listings::echo::Net;

    /// Spawns every future of `tasks` and returns their outputs, in order.
    fn spawn_and_join<F, I>(&self, tasks: I) -> Vec<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
        I: IntoIterator<Item = F>;

    /// A handle, for the echo server.
    fn net(&self) -> Self::Handle;

    /// A listener on `addr`, registered with this runtime's reactor, and
    /// the address it got.
    #[allow(clippy::type_complexity, reason = "the listener type is the runtime's")]
    fn bind(
        &self,
        addr: std::net::SocketAddr,
    ) -> std::io::Result<(
        <Self::Handle as listings::echo::Net>::Listener,
        std::net::SocketAddr,
    )>;

    /// Runs `future` to completion.
    fn run<F: Future>(&self, future: F) -> F::Output;
}

/// The same code for each runtime: their `spawn`, `block_on`, handles and
/// `Async` have the same shape, not a common type.
macro_rules! book_runtime {
    ($runtime:ty, $handle:ty, $async:ty) => {
        impl BookRuntime for $runtime {
            type Handle = $handle;

            fn spawn_and_join<F, I>(&self, tasks: I) -> Vec<F::Output>
            where
                F: Future + 'static,
                F::Output: 'static,
                I: IntoIterator<Item = F>,
            {
                let handle = self.handle();
                self.run(async {
                    let handles: Vec<_> =
                        tasks.into_iter().map(|task| handle.spawn(task)).collect();
                    let mut outputs = Vec::with_capacity(handles.len());
                    for joined in handles {
                        outputs.push(joined.await);
                    }
                    outputs
                })
            }

            fn net(&self) -> $handle {
                self.handle().clone()
            }

            fn bind(
                &self,
                addr: std::net::SocketAddr,
            ) -> std::io::Result<($async, std::net::SocketAddr)> {
                let listener = <$async>::bind(self.handle().reactor(), addr)?;
                let addr = listener.get_ref().local_addr()?;
                Ok((listener, addr))
            }

            fn run<F: Future>(&self, future: F) -> F::Output {
                self.block_on(future).expect("epoll_wait failed")
            }
        }
    };
}

book_runtime!(
    listings::runtime::Runtime,
    listings::runtime::Handle,
    listings::async_fd::Async<std::net::TcpListener>
);
book_runtime!(
    listings::lean_runtime::Runtime,
    listings::lean_runtime::Handle,
    listings::lean_reactor::Async<std::net::TcpListener>
);

/// Chapter 9's runtime: looks at epoll after every round of polls.
#[derive(Debug)]
pub struct BookCh09 {
    rt: listings::runtime::Runtime,
}

impl Executor for BookCh09 {
    const ID: Impl = Impl::BookCh09;

    fn new() -> Self {
        let rt = listings::runtime::Runtime::new().expect("an epoll runtime");
        BookCh09 { rt }
    }

    fn run_all<F, I>(&mut self, _queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>,
    {
        self.rt.spawn_and_join(tasks);
    }
}

/// Chapter 10's runtime: the same, looking at epoll every 61 busy rounds
/// or when there is nothing to poll. (61 is borrowed from tokio's default
/// `event_interval`, but tokio counts task polls, ticks, not rounds: a
/// round polls every task queued at its start, so with many tasks queued
/// ours looks far less often.)
#[derive(Debug)]
pub struct BookCh10 {
    rt: listings::runtime::Runtime,
}

impl Executor for BookCh10 {
    const ID: Impl = Impl::BookCh10;

    fn new() -> Self {
        let rt = listings::runtime::Runtime::with_io_interval(61).expect("an epoll runtime");
        BookCh10 { rt }
    }

    fn run_all<F, I>(&mut self, _queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>,
    {
        self.rt.spawn_and_join(tasks);
    }
}

/// Chapter 11's runtime after its step `STEP` (the last, 3, is the
/// runtime the chapter ends with).
#[derive(Debug)]
pub struct BookCh11<const STEP: u8> {
    rt: listings::lean_runtime::Runtime,
}

impl<const STEP: u8> Executor for BookCh11<STEP> {
    const ID: Impl = match STEP {
        1 => Impl::BookCh11Step1,
        2 => Impl::BookCh11Step2,
        _ => Impl::BookCh11,
    };

    fn new() -> Self {
        let rt =
            listings::lean_runtime::Runtime::at_step(ch11_step(STEP)).expect("an epoll runtime");
        BookCh11 { rt }
    }

    fn run_all<F, I>(&mut self, _queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>,
    {
        self.rt.spawn_and_join(tasks);
    }
}

/// Chapter 11's step `n`.
pub fn ch11_step(n: u8) -> listings::lean_runtime::Step {
    use listings::lean_runtime::Step;
    match n {
        1 => Step::Tasks,
        2 => Step::LocalQueue,
        3 => Step::Timers,
        _ => panic!("chapter 11 has no step {n}"),
    }
}

/// async-executor's `LocalExecutor`, driven by futures-lite's `block_on`.
#[derive(Debug)]
pub struct AsyncExecutor {
    executor: async_executor::LocalExecutor<'static>,
}

impl Executor for AsyncExecutor {
    const ID: Impl = Impl::AsyncExecutor;

    fn new() -> Self {
        AsyncExecutor {
            executor: async_executor::LocalExecutor::new(),
        }
    }

    fn run_all<F, I>(&mut self, _queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>,
    {
        let executor = &self.executor;
        futures_lite::future::block_on(executor.run(async {
            let handles: Vec<_> = tasks.into_iter().map(|task| executor.spawn(task)).collect();
            for joined in handles {
                joined.await;
            }
        }));
    }
}

/// tokio's current-thread runtime (I/O and timers enabled, as a program
/// would have them) with a `LocalSet`, the closest to the book's runtime:
/// one thread, tasks that need not be `Send`.
#[derive(Debug)]
pub struct Tokio {
    rt: tokio::runtime::Runtime,
    local: tokio::task::LocalSet,
}

impl Executor for Tokio {
    const ID: Impl = Impl::Tokio;

    fn new() -> Self {
        let rt = super::support::tokio_current_thread().expect("a tokio runtime");
        let local = tokio::task::LocalSet::new();
        Tokio { rt, local }
    }

    fn run_all<F, I>(&mut self, _queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>,
    {
        self.local.block_on(&self.rt, async {
            let handles: Vec<_> = tasks.into_iter().map(tokio::task::spawn_local).collect();
            for joined in handles {
                joined.await.expect("the task panicked");
            }
        });
    }
}

/// futures' `LocalPool`: `run` returns once every spawned task has
/// completed.
#[derive(Debug)]
pub struct Futures {
    pool: LocalPool,
    spawner: LocalSpawner,
}

impl Executor for Futures {
    const ID: Impl = Impl::Futures;

    fn new() -> Self {
        let pool = LocalPool::new();
        let spawner = pool.spawner();
        Futures { pool, spawner }
    }

    fn run_all<F, I>(&mut self, _queue: usize, tasks: I)
    where
        F: Future<Output = ()> + Send + 'static,
        I: IntoIterator<Item = F>,
    {
        for task in tasks {
            self.spawner.spawn_local(task).expect("the pool is alive");
        }
        self.pool.run();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_executor_is_visited_in_the_order_the_report_expects() {
        struct Ids(Vec<Impl>);
        impl Visit for Ids {
            fn visit<E: Executor>(&mut self) {
                self.0.push(E::ID);
            }
        }
        let mut ids = Ids(Vec::new());
        each(&mut ids);
        assert_eq!(ids.0, bench_results::ids::EXECUTORS);
    }
}
