//! The code of the book, chapter by chapter.
//!
//! Every ```rust block in the book is made from these files with mdBook
//! includes, and every module is tested here as well. Outside its tests a
//! module never names the crate: it reaches its siblings with `super::`, and
//! the examples reach the modules with `listings::`. That way a book block can wrap the very
//! same files in `mod listings { pub mod … { … } }` and still compile as one
//! self-contained program.
//!
//! | module | chapter |
//! | --- | --- |
//! | [`simple_future`] | 1: a simplified `Future` trait and a socket read |
//! | [`combinators`] | 1: `Join` and `AndThen` as state machines |
//! | [`real_future`] | 1: the same socket read on `std::future::Future` |
//! | [`pinning`] | 1: why a self-referential value must not move |
//! | [`timer`] | 2: `TimerFuture`, one thread per timer |
//! | [`executor`] | 3: a channel executor with `ArcWake` (the first shape) |
//! | [`std_executor`] | 3: the same executor on `std::task::Wake` |
//! | [`fixed_executor`] | 3: the executor done right: wakes never block, a task is queued once |
//! | [`state_machine`] | 4: async code and its hand-written state machines |
//! | [`raw_waker`] | 5: a waker made by hand with `RawWaker` and `RawWakerVTable` |
//! | [`run_queue`] | 5: a `VecDeque` run queue of named tasks; sleeping or blocking when idle |
//! | [`parker`] | 6: a `Parker` (`Mutex<bool>` + `Condvar`) that only its wakers can unpark |
//! | [`block_on`] | 6: `block_on`, one future on the current thread, on a `Parker` |
//! | [`reactor`] | 7: a timer reactor: one thread, a heap of deadlines, ids it issues |
//! | [`epoll`] | 8: `epoll_create1`, `epoll_ctl`, `epoll_wait` through rustix; level, edge, oneshot |
//! | [`notifier`] | 8: an `eventfd` that interrupts `epoll_wait`, one write per wait |
//! | [`epoll_reactor`] | 8: a reactor on epoll: token → wakers; `block_on` that sleeps in `epoll_wait` |
//! | [`async_fd`] | 8: `Async<T>`: read, write and accept on non-blocking descriptors |
//! | [`stdin_demo`] | 8: a number from standard input plus 10, waiting in epoll while there is none |
//! | [`runtime`] | 9: a single-thread runtime: run queue, epoll reactor, timers in the `epoll_wait` timeout |
//! | [`echo`] | 9: a TCP echo server: a task per connection, idle timeout, accept back-off |
//! | [`fast_parker`] | 10: a three-state parker: no lock and no system call when nobody sleeps |
//! | [`fast_block_on`] | 10: `block_on` with the thread's cached parker and waker; a fresh pair when nested |
//! | [`task_cell`] | 11: a task in one allocation: header, output and future; its waker and handles |
//! | [`slab`] | 11: values in numbered slots, freed numbers reused |
//! | [`lean_reactor`] | 11: a reactor for one thread: registered once, edge-triggered, per-descriptor state, `accept4` |
//! | [`lean_runtime`] | 11: chapter 9's runtime rebuilt: one-allocation tasks, a local queue, lazy timers |
//! | [`pitfalls`] | bugs the book shows on purpose, each with its test |
//! | [`exercises`] | solutions to the exercises at the end of each chapter |

#[cfg(all(test, not(loom)))]
mod alloc_counts;
pub mod async_fd;
pub mod block_on;
pub mod combinators;
pub mod echo;
pub mod epoll;
pub mod epoll_reactor;
pub mod executor;
pub mod exercises;
pub mod fast_block_on;
pub mod fast_parker;
pub mod fixed_executor;
pub mod lean_reactor;
pub mod lean_runtime;
pub mod notifier;
pub mod parker;
pub mod pinning;
pub mod pitfalls;
pub mod raw_waker;
pub mod reactor;
pub mod real_future;
pub mod run_queue;
pub mod runtime;
pub mod simple_future;
pub mod slab;
pub mod state_machine;
pub mod std_executor;
pub mod stdin_demo;
#[cfg(test)]
#[cfg_attr(loom, allow(dead_code, reason = "loom builds skip the tests using it"))]
mod syscall_counts;
pub mod task_cell;
#[cfg(all(test, not(loom)))]
mod test_executors;
#[cfg(test)]
#[cfg_attr(loom, allow(dead_code, reason = "loom builds skip the tests using it"))]
mod test_wakers;
pub mod timer;
