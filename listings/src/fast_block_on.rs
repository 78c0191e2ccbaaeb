//! Chapter 10: `block_on` without an allocation per call.
//!
//! Chapter 6's `block_on` makes a new `Arc<Parker>` and a new `Waker` on
//! every call: an allocation, a clone of the `Arc` for the waker, and two
//! decrements and a free when the call returns. Here each
//! thread keeps one parker and its waker, made on the thread's first call
//! and reused by every later one. A `block_on` called from inside another
//! on the same thread (a future that blocks on another future) finds the
//! thread's pair in use and makes a pair of its own, as chapter 6 does:
//! sharing one parker, the inner call could take the outer future's
//! wake-up.
//!
//! A waker clone from an earlier call may still be held somewhere (a timer
//! thread that fires late). Its wake-up then makes one extra, spurious poll
//! of a later call's future, which every future must tolerate: the flag
//! says "maybe ready", not "ready".

use std::cell::RefCell;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::fast_parker::Parker;

// ANCHOR: block_on
thread_local! {
    /// This thread's parker and a waker that unparks it, made once.
    static CACHED: RefCell<(Arc<Parker>, Waker)> = RefCell::new(new_pair());
}

/// A parker and a waker that unparks it.
fn new_pair() -> (Arc<Parker>, Waker) {
    let parker = Arc::new(Parker::new());
    let waker = Waker::from(Arc::clone(&parker));
    (parker, waker)
}

/// Polls `future` on the current thread until it is ready, sleeping
/// between polls until it is woken; returns its output. Reuses the
/// thread's parker and waker unless a `block_on` further up this thread's
/// stack is using them.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    // `try_with`: in a thread's teardown the cache may be gone already (a
    // destructor that blocks on a future).
    let cached = CACHED.try_with(|cached| {
        // Borrowed for the whole run: a nested call finds it taken.
        let pair = cached.try_borrow_mut().ok()?;
        let (parker, waker) = &*pair;
        Some(run(future.as_mut(), parker, waker))
    });
    match cached {
        Ok(Some(output)) => output,
        // In use further up the stack, or gone: a pair of our own.
        _ => {
            let (parker, waker) = new_pair();
            run(future, &parker, &waker)
        }
    }
}
// ANCHOR_END: block_on

// ANCHOR: uncached
/// The same loop with a new parker and waker on every call: chapter 6's
/// `block_on` on the three-state parker.
pub fn block_on_uncached<F: Future>(future: F) -> F::Output {
    let (parker, waker) = new_pair();
    run(pin!(future), &parker, &waker)
}

/// Polls `future` until it is ready, parking on `parker` (which `waker`
/// unparks) between polls.
fn run<F: Future + ?Sized>(mut future: Pin<&mut F>, parker: &Parker, waker: &Waker) -> F::Output {
    let mut cx = Context::from_waker(waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        parker.park();
    }
}
// ANCHOR_END: uncached

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::pitfalls::park_block_on::outer_with_nested_block_on;
    use crate::state_machine::yield_now;
    use crate::test_executors::{
        Library, PATIENCE, in_background, woken_a_thousand_times_then_once,
    };
    use crate::timer::TimerFuture;
    use std::future::poll_fn;
    use std::sync::atomic::Ordering;
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    /// The data pointer of the waker `block_on` hands its future: which
    /// parker the call uses.
    async fn parker_in_use() -> *const () {
        poll_fn(|cx| Poll::Ready(cx.waker().data())).await
    }

    #[test]
    fn calls_one_after_another_reuse_the_thread_s_parker() {
        let first = block_on(parker_in_use());
        let second = block_on(async {
            yield_now().await;
            parker_in_use().await
        });
        assert_eq!(first, second);
        let cached = CACHED.with(|cached| Arc::as_ptr(&cached.borrow().0).cast::<()>());
        assert_eq!(first, cached);
        // Another thread has a parker of its own.
        let elsewhere = thread::spawn(|| block_on(parker_in_use()) as usize)
            .join()
            .unwrap();
        assert_ne!(elsewhere, first as usize);
    }

    #[test]
    fn a_nested_call_gets_a_parker_of_its_own() {
        let (outer, inner) = block_on(async {
            let outer = parker_in_use().await;
            let inner = block_on(parker_in_use());
            (outer, inner)
        });
        assert_ne!(outer, inner);
        // And the outer wake-up is not taken by the nested call: the scene
        // that hangs chapter 6's `thread::park` version.
        let returned = in_background(|| block_on(outer_with_nested_block_on(block_on)));
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
    }

    #[test]
    fn a_panicking_future_leaves_the_cache_usable() {
        let caught = std::panic::catch_unwind(|| block_on(async { panic!("boom") }));
        assert!(caught.is_err());
        // The borrow was released by the unwinding: the cache serves again.
        let after = block_on(parker_in_use());
        let cached = CACHED.with(|cached| Arc::as_ptr(&cached.borrow().0).cast::<()>());
        assert_eq!(after, cached);
    }

    #[test]
    fn wakes_from_a_timer_thread_and_from_a_library_under_its_lock() {
        let returned = in_background(|| {
            block_on(TimerFuture::new(Duration::from_millis(10)));
            block_on_uncached(TimerFuture::new(Duration::from_millis(10)));
            let library = Arc::new(Library::default());
            let (polled_tx, polled) = mpsc::channel();
            let task = library.waiting_task(polled_tx);
            let waker_side = Arc::clone(&library);
            let waker_thread = thread::spawn(move || {
                polled.recv().unwrap();
                let waiting = waker_side.waiting.lock().unwrap();
                waiting.as_ref().unwrap().wake_by_ref();
            });
            block_on(task);
            waker_thread.join().unwrap();
        });
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
    }

    #[test]
    fn runs_async_channel_between_two_threads() {
        let (sums, sum) = mpsc::channel();
        let returned = in_background(move || {
            let (sender, receiver) = async_channel::bounded::<u32>(1);
            let producer = thread::spawn(move || {
                block_on(async {
                    for i in 1..=1000 {
                        sender.send(i).await.unwrap();
                    }
                })
            });
            let total = block_on(async {
                let mut total = 0;
                while let Ok(i) = receiver.recv().await {
                    total += i;
                }
                total
            });
            producer.join().unwrap();
            sums.send(total).unwrap();
        });
        returned.recv_timeout(PATIENCE).unwrap().unwrap();
        assert_eq!(sum.recv().unwrap(), 500_500);
    }

    #[test]
    fn many_wakes_before_a_poll_cost_one_poll() {
        // The scene is described at `woken_a_thousand_times_then_once`.
        let (future, polls) = woken_a_thousand_times_then_once();
        block_on(future);
        assert_eq!(polls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn block_on_in_a_thread_local_destructor_completes_whether_or_not_the_cache_is_gone() {
        // A thread-local whose destructor blocks on a future. In which
        // order a thread's locals are destroyed is not specified by std:
        // the cache may be there still (and is used), or gone (and a pair
        // of its own is made, as for a nested call). Either way the future
        // completes.
        struct BlocksOnDrop(mpsc::Sender<u32>);
        impl Drop for BlocksOnDrop {
            fn drop(&mut self) {
                let output = block_on(async {
                    yield_now().await;
                    7
                });
                self.0.send(output).unwrap();
            }
        }
        thread_local! {
            static LATE: RefCell<Option<BlocksOnDrop>> = const { RefCell::new(None) };
        }
        let (sender, received) = mpsc::channel();
        thread::spawn(move || {
            LATE.with(|late| *late.borrow_mut() = Some(BlocksOnDrop(sender)));
            block_on(async {});
        })
        .join()
        .unwrap();
        assert_eq!(received.recv_timeout(PATIENCE).unwrap(), 7);
    }

    #[test]
    fn a_block_on_while_the_cache_is_unavailable_gets_a_pair_of_its_own() {
        // The branch the destructor above takes when the cache is gone is
        // the one a nested call takes when it is in use: `try_with` and
        // `try_borrow_mut` both end in a pair of its own. Here the cache
        // is made unavailable for sure, by holding it.
        let output = CACHED.with(|cached| {
            let _held = cached.borrow_mut();
            block_on(async {
                yield_now().await;
                7
            })
        });
        assert_eq!(output, 7);
    }
}

/// loom tries every interleaving of a wake from another thread with the
/// poll and the park, as for chapter 6's `block_on`. The flag is read and
/// written `Relaxed`: only the parker's `Release` swap and `Acquire`
/// exchange can make the poll after the wake see it, so a parker that
/// lost the ordering would fail here. (The cached `block_on` is left out:
/// a std thread-local outlives loom's runs, and loom's objects must not.)
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::test_wakers::wake_from_another_thread;
    use std::sync::atomic::Ordering;

    #[test]
    fn loom_block_on_never_misses_a_wake_from_another_thread() {
        loom::model(|| {
            wake_from_another_thread(
                |future| block_on_uncached(future),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
        });
    }
}
