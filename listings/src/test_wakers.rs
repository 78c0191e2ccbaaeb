//! Wakers for tests that count what is done to them.
//!
//! `std::task::Wake` cannot observe clones (they are `Arc` clones), so
//! this is built on `RawWaker`, the way chapter 5 builds one: the data
//! pointer is an `Arc<Counters>`, and each vtable function keeps its
//! reference count exactly right.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{RawWaker, RawWakerVTable, Waker};

type Hook = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Counters {
    wakes: AtomicUsize,
    clones: AtomicUsize,
    /// Runs on the first clone.
    on_clone: Mutex<Option<Hook>>,
}

/// A task stand-in: hands out wakers and counts wakes and clones.
pub struct TestWaker {
    counters: Arc<Counters>,
}

impl TestWaker {
    pub fn new() -> Self {
        TestWaker {
            counters: Arc::default(),
        }
    }

    /// A waker that runs `hook` the first time it is cloned.
    pub fn with_clone_hook(hook: impl FnOnce() + Send + 'static) -> Self {
        let waker = TestWaker::new();
        *waker.counters.on_clone.lock().unwrap() = Some(Box::new(hook));
        waker
    }

    /// A new waker for this task (not counted as a clone).
    pub fn waker(&self) -> Waker {
        let data = Arc::into_raw(Arc::clone(&self.counters)).cast::<()>();
        // SAFETY: `data` comes from `Arc::into_raw` and owns one count,
        // which is what every function of VTABLE expects; `Counters` is
        // `Send + Sync` (checked below), so any thread may use the waker.
        unsafe { Waker::from_raw(RawWaker::new(data, &VTABLE)) }
    }

    pub fn wakes(&self) -> usize {
        self.counters.wakes.load(Ordering::SeqCst)
    }

    pub fn clones(&self) -> usize {
        self.counters.clones.load(Ordering::SeqCst)
    }

    /// How many wakers of this task exist right now.
    pub fn live(&self) -> usize {
        Arc::strong_count(&self.counters) - 1
    }
}

/// Waits until `condition` holds, failing the test after ten seconds
/// (never reached unless something is broken).
pub fn eventually(what: &str, condition: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !condition() {
        assert!(
            std::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

// The vtable functions may run on any thread: `Counters` must be shareable.
const _: () = {
    const fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<Counters>()
};

// ANCHOR: static_vtable
/// One table for the wakers of every `TestWaker`, at one address: a clone
/// and its original always pass `will_wake`. (Chapter 5's `vtable::<T>()`
/// is a promoted constant instead, one per `T`, which the compiler may copy.)
static VTABLE: RawWakerVTable =
    RawWakerVTable::new(clone_waker, wake_waker, wake_by_ref_waker, drop_waker);
// ANCHOR_END: static_vtable

/// Borrows the counters behind `data` without touching the count.
///
/// # Safety
/// `data` must come from `Arc::<Counters>::into_raw` and still own a count.
unsafe fn counters<'a>(data: *const ()) -> &'a Counters {
    // SAFETY: the caller guarantees that the `Arc` is alive.
    unsafe { &*data.cast::<Counters>() }
}

unsafe fn clone_waker(data: *const ()) -> RawWaker {
    // SAFETY: every RawWaker built with VTABLE holds a live count.
    let counters = unsafe { counters(data) };
    counters.clones.fetch_add(1, Ordering::SeqCst);
    let hook = counters.on_clone.lock().unwrap().take();
    if let Some(hook) = hook {
        hook();
    }
    // SAFETY: as above; the new RawWaker owns the count added here.
    unsafe { Arc::increment_strong_count(data.cast::<Counters>()) };
    RawWaker::new(data, &VTABLE)
}

unsafe fn wake_waker(data: *const ()) {
    // SAFETY: `wake` consumes the waker, so it takes over its count.
    unsafe {
        wake_by_ref_waker(data);
        drop_waker(data);
    }
}

unsafe fn wake_by_ref_waker(data: *const ()) {
    // SAFETY: the waker is alive for the duration of the call.
    unsafe { counters(data) }
        .wakes
        .fetch_add(1, Ordering::SeqCst);
}

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the waker being dropped owns one count; give it back.
    unsafe { Arc::decrement_strong_count(data.cast::<Counters>()) };
}

#[test]
fn test_waker_counts_and_keeps_the_reference_count_exact() {
    let task = TestWaker::new();
    let waker = task.waker();
    let copy = waker.clone();
    assert_eq!(task.live(), 2);
    copy.wake();
    waker.wake_by_ref();
    assert_eq!((task.wakes(), task.clones()), (2, 1));
    drop(waker);
    assert_eq!(task.live(), 0);
}

/// Under loom: in every interleaving of one `poll` of the future and one
/// call of its completion on another thread, a `Pending` poll is followed
/// by exactly one wake-up, and a `Ready` one by none. Panics with "lost
/// wake-up" (or "woken twice") when an interleaving breaks that.
#[cfg(loom)]
pub fn check_poll_against_completion<F>(
    setup: impl Fn() -> (F, Box<dyn FnOnce() + Send>) + Send + Sync + 'static,
) where
    F: std::future::Future + Unpin,
{
    use std::task::{Context, Wake};

    struct CountWakes(AtomicUsize);
    impl Wake for CountWakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    loom::model(move || {
        let (mut future, complete) = setup();
        let completer = loom::thread::spawn(complete);
        let wakes = Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&wakes));
        let poll = std::pin::Pin::new(&mut future).poll(&mut Context::from_waker(&waker));
        completer.join().unwrap();
        let expected = usize::from(poll.is_pending());
        let woken = wakes.0.load(Ordering::SeqCst);
        assert!(woken >= expected, "lost wake-up");
        assert!(woken <= expected, "woken twice");
    });
}

/// Under loom: a wake from another thread racing `block_on`'s poll and
/// park, for chapter 6's and chapter 10's `block_on`. On its first poll the
/// future starts a loom thread that stores `true` in a flag (with `store`)
/// and then wakes it; it completes on the poll that sees the flag (read
/// with `load`). In every interleaving the future must be polled again
/// after the wake, and that poll must see the flag; a lost wake-up is a
/// deadlock, which loom reports. With `Relaxed` for both, only
/// `block_on`'s own synchronisation can make the flag visible.
#[cfg(loom)]
pub fn wake_from_another_thread(
    block_on: fn(std::pin::Pin<&mut dyn std::future::Future<Output = ()>>),
    load: Ordering,
    store: Ordering,
) {
    use loom::sync::atomic::AtomicBool;
    use std::task::Poll;

    let ready = Arc::new(AtomicBool::new(false));
    let mut waker_thread = None;
    let future = std::pin::pin!(std::future::poll_fn(|cx| {
        if ready.load(load) {
            return Poll::Ready(());
        }
        if waker_thread.is_none() {
            let (ready, waker) = (Arc::clone(&ready), cx.waker().clone());
            waker_thread = Some(loom::thread::spawn(move || {
                ready.store(true, store);
                waker.wake();
            }));
        }
        Poll::Pending
    }));
    block_on(future);
    waker_thread.unwrap().join().unwrap();
}
