//! Group `block_on`: what one `block_on` call costs beyond its future —
//! setting up a waker, polling, and sleeping until a wake.
//!
//! One iteration is one call, on one of three futures (the cases):
//!
//! - `ready`: ready at its first poll. Only the setup: a parker and a waker
//!   made (or taken from a thread-local cache), one poll.
//! - `once`: wakes itself in its first poll (`wake_by_ref`) and returns
//!   `Pending`; ready at its second. A wake that comes during the poll: the
//!   parker must not sleep, and no other thread is involved.
//! - `thread`: in its first poll hands a clone of its waker to a helper
//!   thread and returns `Pending`; ready once the helper has woken it.
//!   The helper is started once, outside the loop, and waits on a channel;
//!   so the iteration includes the hand-over (one channel send, which wakes
//!   the helper), the helper's `wake`, and the sleep and wake-up of this
//!   thread: a real cross-thread wake. Its time is dominated by the kernel
//!   waking a sleeping thread, twice per iteration (the helper, asleep on
//!   the channel, and then this thread, asleep in its parker), which every
//!   implementation pays alike, so that their results lie close together
//!   here whatever their setup costs.
//!
//! Fair because every implementation runs the same futures and the same
//! helper; only the `block_on` changes. The futures return their poll
//! count, which must be exactly 2 for `once`, and 2 or 3 for `thread`:
//! it is ready only after the helper's wake counter has moved, so at
//! least its first poll and the one after the wake; a third is allowed
//! for one early wake-up (a parker may wake spuriously, or keep a token
//! from a wake that came late in the previous call), not more. An
//! implementation that skips a wake-up, returns early, or polls in a loop
//! fails the benchmark instead of making a fast number.

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::task::{Context, Poll, Waker};
use std::thread;

use bench_results::ids::BLOCK_ON_CASES;
use bench_results::{Group, Impl};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};

/// The group `block_on/<implementation>/<case>`.
pub fn bench(c: &mut Criterion) {
    let helper = WakerThread::start();
    let mut group = c.benchmark_group(Group::BlockOn.name());
    cases::<BookCh06>(&mut group, &helper);
    cases::<BookCh10Parker>(&mut group, &helper);
    cases::<BookCh10>(&mut group, &helper);
    cases::<Pollster>(&mut group, &helper);
    cases::<Futures>(&mut group, &helper);
    cases::<FuturesLite>(&mut group, &helper);
    group.finish();
}

/// The three cases for implementation `B`.
fn cases<B: BlockOn>(group: &mut BenchmarkGroup<'_, WallTime>, helper: &WakerThread) {
    let [ready, once, thread] = BLOCK_ON_CASES;
    let id = |case| BenchmarkId::new(B::ID.id(), case);
    group.bench_function(id(ready), |b| {
        b.iter(|| {
            let output = B::block_on(std::future::ready(black_box(42u64)));
            assert_eq!(black_box(output), 42, "{}: the output", B::ID);
        });
    });
    group.bench_function(id(once), |b| {
        b.iter(|| {
            let polls = B::block_on(black_box(WakesItselfOnce { polls: 0 }));
            assert_eq!(black_box(polls), 2, "{}: two polls", B::ID);
        });
    });
    group.bench_function(id(thread), |b| {
        b.iter(|| {
            let future = WokenFromThread {
                helper,
                // The helper's count once it has woken this future.
                target: helper.woken() + 1,
                sent: false,
                polls: 0,
            };
            let polls = black_box(B::block_on(black_box(future)));
            // Ready only after the helper's wake (see `poll`): at least
            // the first poll and the one after it; at most one early
            // wake-up more.
            assert!(
                (2..=3).contains(&polls),
                "{}: woken by the helper, {polls} polls",
                B::ID
            );
        });
    });
}

/// A `block_on`, as one implementation provides it.
trait BlockOn {
    /// The implementation: the chart label and the report's key.
    const ID: Impl;

    /// Runs `future` to completion on this thread.
    fn block_on<F: Future>(future: F) -> F::Output;
}

/// Chapter 6: `Mutex<bool>` + `Condvar` parker, a new `Arc` per call.
struct BookCh06;

impl BlockOn for BookCh06 {
    const ID: Impl = Impl::BookCh06;

    fn block_on<F: Future>(future: F) -> F::Output {
        listings::block_on::block_on(future)
    }
}

/// Chapter 10: the three-state parker, a new `Arc` per call.
struct BookCh10Parker;

impl BlockOn for BookCh10Parker {
    const ID: Impl = Impl::BookCh10Parker;

    fn block_on<F: Future>(future: F) -> F::Output {
        listings::fast_block_on::block_on_uncached(future)
    }
}

/// Chapter 10: the three-state parker and its waker, cached per thread.
struct BookCh10;

impl BlockOn for BookCh10 {
    const ID: Impl = Impl::BookCh10;

    fn block_on<F: Future>(future: F) -> F::Output {
        listings::fast_block_on::block_on(future)
    }
}

/// pollster: `thread::park`, a waker cached per thread.
struct Pollster;

impl BlockOn for Pollster {
    const ID: Impl = Impl::Pollster;

    fn block_on<F: Future>(future: F) -> F::Output {
        pollster::block_on(future)
    }
}

/// futures: `thread::park` behind a flag, a waker cached per thread.
struct Futures;

impl BlockOn for Futures {
    const ID: Impl = Impl::Futures;

    fn block_on<F: Future>(future: F) -> F::Output {
        futures::executor::block_on(future)
    }
}

/// futures-lite: the `parking` crate's parker, cached per thread.
struct FuturesLite;

impl BlockOn for FuturesLite {
    const ID: Impl = Impl::FuturesLite;

    fn block_on<F: Future>(future: F) -> F::Output {
        futures_lite::future::block_on(future)
    }
}

/// Case `once`: wakes itself during its first poll; ready at the second.
/// Returns its poll count.
struct WakesItselfOnce {
    polls: u32,
}

impl Future for WakesItselfOnce {
    type Output = u32;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        self.polls += 1;
        if self.polls == 1 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(self.polls)
    }
}

/// Case `thread`: has the helper thread wake it; ready once it has.
/// Returns its poll count.
struct WokenFromThread<'h> {
    helper: &'h WakerThread,
    /// Ready once the helper's wake count reaches this.
    target: u64,
    /// Whether the waker went to the helper already.
    sent: bool,
    polls: u32,
}

impl Future for WokenFromThread<'_> {
    type Output = u32;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u32> {
        self.polls += 1;
        if self.helper.woken() >= self.target {
            return Poll::Ready(self.polls);
        }
        // A poll that comes before the helper's wake (a wake left over
        // from an earlier call, say) sends nothing more: one wake is on
        // its way.
        if !self.sent {
            self.sent = true;
            self.helper.wake_later(cx.waker().clone());
        }
        Poll::Pending
    }
}

/// A long-lived thread that wakes the wakers it is sent.
struct WakerThread {
    to_helper: Option<mpsc::Sender<Waker>>,
    /// Wakes done so far; counted before each `wake`, read with `Acquire`
    /// by the future.
    woken: Arc<AtomicU64>,
    thread: Option<thread::JoinHandle<()>>,
}

impl WakerThread {
    fn start() -> Self {
        let (to_helper, wakers) = mpsc::channel::<Waker>();
        let woken = Arc::new(AtomicU64::new(0));
        let count = Arc::clone(&woken);
        let thread = thread::spawn(move || {
            for waker in wakers {
                count.fetch_add(1, Ordering::Release);
                waker.wake();
            }
        });
        WakerThread {
            to_helper: Some(to_helper),
            woken,
            thread: Some(thread),
        }
    }

    /// Hands `waker` to the helper, which wakes it.
    fn wake_later(&self, waker: Waker) {
        let to_helper = self.to_helper.as_ref().expect("the helper is running");
        to_helper.send(waker).expect("the helper is running");
    }

    /// Wakes the helper has done so far.
    fn woken(&self) -> u64 {
        self.woken.load(Ordering::Acquire)
    }
}

impl Drop for WakerThread {
    fn drop(&mut self) {
        // Closing the channel ends the helper's loop.
        drop(self.to_helper.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
