//! Chapter 3: where the first executor ([`super::super::executor`]) breaks
//! with real futures. Its code is as chapter 3 builds it; each test here
//! makes one of its failures happen, and the tests of
//! [`super::super::fixed_executor`] check the fix.
//!
//! One of the failures, a wake-up that blocks, is a deadlock, and two tests
//! make it happen. A deadlock never ends, so they wait half a second
//! (`STUCK`) to be sure nothing moves and then leave the stuck threads
//! where they are; they end with the test process. The test of `run`
//! returning late waits as long, only to see that `run` has not returned
//! yet.

#[cfg(all(test, not(loom)))]
mod tests {
    use super::super::super::executor::{Executor, new_executor_and_spawner, with_capacity};
    use super::super::super::test_executors::{
        Library, PATIENCE, in_background, task_waiting_for_release,
    };
    use std::future::{Future, poll_fn};
    use std::panic::{self, AssertUnwindSafe};
    use std::pin::Pin;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, mpsc};
    use std::task::{Context, Poll, Waker};
    use std::thread;
    use std::time::Duration;

    /// Long enough to be sure that a stuck thread is stuck: nothing in
    /// these scenarios can move again once they are.
    const STUCK: Duration = Duration::from_millis(500);

    fn run_in_background(executor: Executor) -> mpsc::Receiver<thread::Result<()>> {
        in_background(move || executor.run())
    }

    #[test]
    fn a_wake_under_a_library_lock_deadlocks_the_executor() {
        // One place in the queue makes the scenario short; a longer queue
        // only needs more queued tasks to fill it.
        let (executor, spawner) = with_capacity(1);
        let library = Arc::new(Library::default());
        let (first_polled, polled) = mpsc::channel();
        spawner.spawn(library.waiting_task(first_polled));
        let returned = run_in_background(executor);
        polled.recv_timeout(PATIENCE).unwrap();

        let (progress, steps) = mpsc::channel();
        let lib = Arc::clone(&library);
        thread::spawn(move || {
            // The library's thread, holding its lock.
            let mut waiting = lib.waiting.lock().unwrap();
            for _ in 0..2 {
                let lib = Arc::clone(&lib);
                spawner.spawn(async move {
                    drop(lib.waiting.lock().unwrap());
                });
            }
            // The second spawn returned, so the executor has taken the
            // first of the two and is blocked on the lock polling it, and
            // the second fills the queue.
            progress.send("spawned").unwrap();
            // `send` waits for room that only the executor can make.
            waiting.take().unwrap().wake();
            progress.send("woke").unwrap();
        });
        assert_eq!(steps.recv_timeout(PATIENCE), Ok("spawned"));
        assert_eq!(
            steps.recv_timeout(STUCK),
            Err(mpsc::RecvTimeoutError::Timeout),
            "the wake-up waits for the executor, which waits for the lock"
        );
        assert!(returned.try_recv().is_err(), "run is stuck too");
    }

    #[test]
    fn spawning_more_than_the_queue_holds_blocks_the_executor_on_itself() {
        let (executor, spawner) = new_executor_and_spawner();
        let spawned = Arc::new(AtomicUsize::new(0));
        let (inner, count) = (spawner.clone(), Arc::clone(&spawned));
        spawner.spawn(async move {
            for _ in 0..=10_000 {
                inner.spawn(async {});
                count.fetch_add(1, Ordering::SeqCst);
            }
        });
        drop(spawner);
        let returned = run_in_background(executor);
        // The first 10,000 spawns fill the queue (however long that takes
        // on a busy machine)…
        let deadline = std::time::Instant::now() + PATIENCE;
        while spawned.load(Ordering::SeqCst) < 10_000 {
            assert!(
                std::time::Instant::now() < deadline,
                "spawning stalled early"
            );
            thread::sleep(Duration::from_millis(1));
        }
        // …and the 10,001st waits for room that only the thread waiting in
        // it could make: nothing moves again.
        assert!(returned.recv_timeout(STUCK).is_err(), "run never returns");
        assert_eq!(spawned.load(Ordering::SeqCst), 10_000);
    }

    /// Never ready. On its first poll it wakes itself `wakes` times; it
    /// counts its polls.
    struct WakeSelfThenWait {
        wakes: usize,
        polls: Arc<AtomicUsize>,
    }

    impl Future for WakeSelfThenWait {
        type Output = ();
        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.polls.fetch_add(1, Ordering::SeqCst) == 0 {
                for _ in 0..self.wakes {
                    cx.waker().wake_by_ref();
                }
            }
            Poll::Pending
        }
    }

    #[test]
    fn every_wake_before_a_poll_costs_a_queue_entry_and_a_poll() {
        let (executor, spawner) = new_executor_and_spawner();
        let polls = Arc::new(AtomicUsize::new(0));
        spawner.spawn(WakeSelfThenWait {
            wakes: 10_000,
            polls: Arc::clone(&polls),
        });
        drop(spawner);
        // Returns once the queue is empty: then nothing holds the task, so
        // nothing can send it again.
        executor.run();
        // One poll to start, then one per wake-up: the task was on the
        // queue 10,000 times at once. One more wake-up would not have fit,
        // and the executor's own thread would have blocked on it.
        assert_eq!(polls.load(Ordering::SeqCst), 10_001);
    }

    #[test]
    fn run_waits_for_a_finished_tasks_waker_held_elsewhere() {
        let (executor, spawner) = new_executor_and_spawner();
        let (kept_tx, kept_rx) = mpsc::channel();
        spawner.spawn(poll_fn(move |cx| {
            // A library keeps the waker (a timer that has not fired, say),
            // though the task completes now.
            kept_tx.send(cx.waker().clone()).unwrap();
            Poll::Ready(())
        }));
        drop(spawner);
        let returned = run_in_background(executor);
        let kept: Waker = kept_rx.recv_timeout(PATIENCE).expect("the task ran");
        // The task is done, but its waker holds a sender of the channel:
        // `recv` cannot report that every sender is gone.
        assert!(returned.recv_timeout(STUCK).is_err());
        drop(kept);
        returned
            .recv_timeout(PATIENCE)
            .expect("run returns once the last waker is gone")
            .unwrap();
    }

    #[test]
    fn a_panicking_task_takes_every_other_task_down() {
        let (executor, spawner) = new_executor_and_spawner();
        let (other, release, rx) = task_waiting_for_release();
        spawner.spawn(other);
        spawner.spawn(async move {
            let _ = release.send(()); // wakes the first task…
            panic!("task failed"); // …which is never polled again
        });
        drop(spawner);
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| executor.run()));
        let payload = outcome.expect_err("the panic escapes run");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"task failed"));
        assert!(rx.try_recv().is_err(), "the other task never completed");
    }
}
