//! Group `parts`: the price of the primitives the chapter uses to explain
//! the gaps between the book's code and the libraries.
//!
//! One iteration is one operation, measured alone on this thread, with
//! nobody else touching what it uses (so: the uncontended cost, the floor
//! that every use pays). Ids are `parts/op/<part>`:
//!
//! - `condvar-notify`: `Condvar::notify_one` with nobody waiting. std's
//!   condition variable on Linux is a futex, and `notify_one` makes the
//!   futex-wake system call whether or not anyone sleeps on it. Chapter 6's
//!   parker and chapter 3's fixed executor call it on every wake.
//! - `mutex`: locking an uncontended `Mutex<VecDeque<u64>>`, one
//!   `push_back` and one `pop_front` inside, unlocking: the runtime's queue
//!   of task ids, as one wake and the poll that follows use it.
//! - `eventfd-write`: chapter 8's [`Notifier`] doing the write that reaches
//!   the kernel, as a wake of a sleeping runtime does: `may_sleep` (the
//!   waiting side's flag goes down, as just before its `epoll_wait`; the
//!   look at its work finds none) then `notify` (the flag goes up, one
//!   8-byte `write` to the eventfd). The `woke` that would follow (its
//!   `read`) is left out on purpose: it is the waiting side's cost, not
//!   the waker's, so the counter just grows (by one per iteration, nowhere
//!   near its limit), and after the run it must equal the iterations,
//!   proving that every `notify` wrote. As in the
//!   reactor, the eventfd is in an epoll interest list, so the write also
//!   runs epoll's callback; with nobody waiting and the eventfd never
//!   drained, that callback finds it already on the ready list, so this is
//!   the floor of a wake from another thread, without the waiter's wake-up.
//! - `epoll-wait-0`: chapter 8's [`Poller`] waiting with a zero timeout on
//!   an instance whose one entry (an eventfd, as the reactor's notifier) is
//!   not ready: the runtime's look at the reactor between busy rounds, the
//!   system call that `with_io_interval` makes rarer.
//! - `epoll-ctl-mod`: re-arming a oneshot entry with `EPOLL_CTL_MOD`
//!   (chapter 8's [`Poller::modify`]), on an eventfd that is not ready: the
//!   system call chapter 8's reactor makes each time a task starts to wait
//!   on a descriptor (its price for oneshot interest).
//! - `clock`: `Instant::now()`, which the runtime reads each round to fire
//!   its timers (on Linux a vDSO call, no system call).
//! - `hashmap-sip`: in a `HashMap<u64, Box<u64>>` of 1,000 entries (std's
//!   SipHash), `remove` one key and `insert` it back: what the runtime's
//!   `poll_task` does to its task map around every poll.
//! - `arc-new`: `Arc::new` of a 32-byte value and its drop: one allocation
//!   and one free, as every task's waker data or every uncached parker.
//! - `box-pin-future`: `Box::pin` of a small `async` block, type-erased as
//!   the runtime stores its tasks (`Pin<Box<dyn Future<Output = ()>>>`),
//!   and its drop, unpolled: the allocation every spawn pays.
//!
//! Inputs and outputs go through `black_box`, so the compiler can neither
//! fold an operation away nor hoist it out of the loop. Where an operation
//! has a result, the benchmark checks it (the popped value, the removed
//! entry, the empty wait), cheaply; `eventfd-write` checks the counter once
//! the measurement is over.

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use bench_results::ids::PARTS_CASE;
use bench_results::{Group, Part};
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};
use listings::epoll::{Interest, Mode, Poller};
use listings::notifier::Notifier;

/// Entries in the map of `hashmap-sip`.
const MAP_ENTRIES: u64 = 1_000;

/// The group `parts/op/<part>`.
pub fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group(Group::Parts.name());
    condvar_notify(&mut group);
    mutex(&mut group);
    eventfd_write(&mut group);
    epoll_wait_0(&mut group);
    epoll_ctl_mod(&mut group);
    clock(&mut group);
    hashmap_sip(&mut group);
    arc_new(&mut group);
    box_pin_future(&mut group);
    group.finish();
}

/// The id of one part: one operation per iteration.
fn id(part: Part) -> BenchmarkId {
    BenchmarkId::new(part.id(), PARTS_CASE)
}

fn condvar_notify(group: &mut BenchmarkGroup<'_, WallTime>) {
    let condvar = Condvar::new();
    group.bench_function(id(Part::CondvarNotify), |b| {
        // Nothing to check: a notify has no result, and nobody waits.
        b.iter(|| black_box(&condvar).notify_one());
    });
}

fn mutex(group: &mut BenchmarkGroup<'_, WallTime>) {
    let queue = Mutex::new(VecDeque::<u64>::with_capacity(16));
    group.bench_function(id(Part::Mutex), |b| {
        b.iter(|| {
            let id = black_box(7u64);
            // One lock around both: the queue is empty before and after,
            // so the `VecDeque` never grows inside the timing.
            let mut queue = black_box(&queue).lock().unwrap();
            queue.push_back(id);
            let popped = queue.pop_front();
            drop(queue);
            assert_eq!(black_box(popped), Some(7), "mutex: the queued id");
        });
    });
}

/// An epoll instance with one entry, token 0: an eventfd (chapter 8's
/// `Notifier`, as the reactor has) that nobody has notified.
fn poller_with_an_idle_eventfd(mode: Mode) -> (Poller, Notifier) {
    let poller = Poller::new().expect("an epoll instance");
    let notifier = Notifier::new().expect("an eventfd");
    poller
        .add(&notifier, 0, Interest::READABLE, mode)
        .expect("the eventfd in the interest list");
    (poller, notifier)
}

fn eventfd_write(group: &mut BenchmarkGroup<'_, WallTime>) {
    // The poller only has to exist: the write runs epoll's callback.
    let (_poller, notifier) = poller_with_an_idle_eventfd(Mode::Level);
    // Every `notify` since the start, counted beside the eventfd's own
    // counter (one cell add per iteration).
    let notifies = Cell::new(0u64);
    group.bench_function(id(Part::EventfdWrite), |b| {
        b.iter(|| {
            let notifier = black_box(&notifier);
            // Nothing to do: the waiting side would sleep, so the next
            // `notify` writes.
            let asleep = notifier.may_sleep(|| false);
            notifier.notify();
            assert!(black_box(asleep), "eventfd-write: no work, it sleeps");
            notifies.set(notifies.get() + 1);
        });
    });
    // The eventfd's counter is the number of writes: one per `notify`,
    // or some `notify` skipped its write.
    let mut count = [0u8; 8];
    let writes = match rustix::io::read(&notifier, &mut count) {
        Ok(_) => u64::from_ne_bytes(count),
        Err(rustix::io::Errno::AGAIN) => 0,
        Err(e) => panic!("eventfd-write: reading the counter: {e}"),
    };
    assert_eq!(
        writes,
        notifies.get(),
        "eventfd-write: one write per notify"
    );
}

fn epoll_wait_0(group: &mut BenchmarkGroup<'_, WallTime>) {
    // Never notified: registered, never ready.
    let (poller, _notifier) = poller_with_an_idle_eventfd(Mode::Level);
    let mut events = Vec::with_capacity(64);
    group.bench_function(id(Part::EpollWait0), |b| {
        b.iter(|| {
            black_box(&poller)
                .wait(&mut events, black_box(Some(Duration::ZERO)))
                .expect("epoll_wait");
            assert!(black_box(&events).is_empty(), "epoll-wait-0: nothing ready");
        });
    });
}

fn epoll_ctl_mod(group: &mut BenchmarkGroup<'_, WallTime>) {
    // Never notified: re-arming finds nothing ready, as for a socket with
    // no data yet.
    let (poller, notifier) = poller_with_an_idle_eventfd(Mode::Oneshot);
    let mut events = Vec::with_capacity(64);
    group.bench_function(id(Part::EpollCtlMod), |b| {
        b.iter(|| {
            black_box(&poller)
                .modify(&notifier, black_box(0), Interest::READABLE, Mode::Oneshot)
                .expect("epoll-ctl-mod: EPOLL_CTL_MOD");
        });
    });
    // Still registered and armed, and still nothing to report.
    poller
        .wait(&mut events, Some(Duration::ZERO))
        .expect("epoll_wait");
    assert!(events.is_empty(), "epoll-ctl-mod: nothing ready");
    poller
        .delete(&notifier)
        .expect("epoll-ctl-mod: still registered");
}

fn clock(group: &mut BenchmarkGroup<'_, WallTime>) {
    group.bench_function(id(Part::Clock), |b| {
        // Nothing cheap to check that the clock could fail.
        b.iter(|| black_box(Instant::now()));
    });
}

fn hashmap_sip(group: &mut BenchmarkGroup<'_, WallTime>) {
    let mut tasks: HashMap<u64, Box<u64>> = (0..MAP_ENTRIES).map(|k| (k, Box::new(k))).collect();
    group.bench_function(id(Part::HashmapSip), |b| {
        b.iter(|| {
            // One key, as `poll_task` takes the task it polls out of the
            // map and puts it back (the value moves, nothing allocates).
            let key = black_box(MAP_ENTRIES / 2);
            let task = tasks.remove(&key).expect("hashmap-sip: the entry");
            let task = black_box(task);
            let old = tasks.insert(key, task);
            assert!(black_box(old).is_none(), "hashmap-sip: the key was out");
        });
    });
    assert_eq!(tasks.len() as u64, MAP_ENTRIES, "hashmap-sip: the entries");
}

fn arc_new(group: &mut BenchmarkGroup<'_, WallTime>) {
    group.bench_function(id(Part::ArcNew), |b| {
        b.iter(|| {
            // 32 bytes of data, 48 with the two counters.
            let shared = Arc::new(black_box([1u64, 2, 3, 4]));
            let shared = black_box(shared);
            assert_eq!(Arc::strong_count(&shared), 1, "arc-new: one owner");
            drop(shared);
        });
    });
}

fn box_pin_future(group: &mut BenchmarkGroup<'_, WallTime>) {
    group.bench_function(id(Part::BoxPinFuture), |b| {
        b.iter(|| {
            let n = black_box(42u64);
            let task: Pin<Box<dyn Future<Output = ()>>> = Box::pin(async move {
                black_box(n);
            });
            // Dropped unpolled: the allocation and the free, nothing else.
            drop(black_box(task));
        });
    });
}
