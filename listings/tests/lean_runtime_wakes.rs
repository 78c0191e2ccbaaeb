//! Chapter 11: a wake from another thread that lands while the runtime's
//! loop heads for sleep. The loop looks at its work (the busy check: the
//! local queue, the main future's flag, the inject queue's flag), finds
//! none, and asks the reactor to sleep; a task (or `block_on`'s own
//! future) woken from another thread in between finds the thread still
//! awake, so its `notify` writes no eventfd. Only the look that
//! `wait_unless` takes after `may_sleep` has said the thread sleeps sees
//! the flag then. Without it (say, `has_work` forgets one of the two
//! flags), the loop sleeps through the wake, with no timer and no
//! timeout: for ever.
//!
//! A race, which no single scene can make happen at a chosen moment: each
//! test plays up to 150,000 hand-offs with a thread that answers as soon
//! as it sees the future's turn, each a little later than the last, so
//! that its wakes sweep the loop's way from the poll to its sleep. On the
//! machine this was written on (two cores, shared with other work), a
//! `has_work` without the inject queue's flag failed the task's test 14
//! runs of 14 (with 50,000 hand-offs, about half), and one without the
//! main future's flag failed the main future's test 5 runs of 5. The
//! runtime as it is passed every run, in 1.6 to 4 seconds a test. A game
//! stops after `PLAYING` whatever its turns (under valgrind, which runs
//! one thread at a time, far fewer fit).
//!
//! In its own test binary: a runtime through its public interface only.
#![cfg(all(target_os = "linux", not(loom)))]

mod common;

use std::future::poll_fn;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::thread;
use std::time::{Duration, Instant};

use common::join_within_patience;
use listings::lean_runtime::Runtime;

/// Hand-offs per game, at most.
const TURNS: u32 = 150_000;
/// The most a game lasts, whatever its number of turns.
const PLAYING: Duration = Duration::from_secs(5);

/// What the task and the thread share.
struct Table {
    /// The last turn the task played.
    played: AtomicU32,
    /// The last turn the thread answered.
    answered: AtomicU32,
    /// The game's last turn: `TURNS`, or fewer once `PLAYING` is up (set
    /// before that turn is answered).
    last: AtomicU32,
    /// The task's waker, left before each turn it plays.
    waker: Mutex<Option<Waker>>,
}

#[test]
fn a_task_woken_from_a_thread_as_the_loop_heads_for_sleep_is_never_slept_through() {
    let scene = thread::spawn(|| play(false));
    join_within_patience(scene, "the game");
}

#[test]
fn the_main_future_woken_from_a_thread_as_the_loop_heads_for_sleep_is_never_slept_through() {
    let scene = thread::spawn(|| play(true));
    join_within_patience(scene, "the game");
}

/// One game against a thread that answers at once, played by a task or
/// (`on_main`) by `block_on`'s own future; its number of turns.
fn play(on_main: bool) -> u32 {
    // How far the answers sweep, in spins: the wake must land between the
    // loop's busy check and `may_sleep`. The main future's wake (a flag)
    // is quicker than a task's (the inject queue's lock), so it sweeps
    // further. Chosen by trying: with the other's sweep, each plant was
    // caught in fewer runs.
    let sweep = if on_main { 256 } else { 64 };
    let rt = Runtime::new().unwrap();
    let table = Arc::new(Table {
        played: AtomicU32::new(0),
        answered: AtomicU32::new(0),
        last: AtomicU32::new(TURNS),
        waker: Mutex::new(None),
    });
    let answering = {
        let table = Arc::clone(&table);
        thread::spawn(move || {
            let begun = Instant::now();
            for turn in 1..=TURNS {
                let start = Instant::now();
                while table.played.load(Ordering::Acquire) != turn {
                    // No turn for seconds: the loop slept through a
                    // wake (and sleeps through the ones after it,
                    // which find the task queued already). Give up:
                    // the scene's patience reports the hang.
                    if start.elapsed() > Duration::from_secs(5) {
                        return;
                    }
                    std::hint::spin_loop();
                }
                // A little later each turn, and again from 0 every
                // `sweep` turns.
                for _ in 0..turn % sweep {
                    std::hint::spin_loop();
                }
                if begun.elapsed() > PLAYING {
                    table.last.store(turn, Ordering::Relaxed);
                }
                table.answered.store(turn, Ordering::Release);
                let waker = table.waker.lock().unwrap().take();
                waker.expect("left before the turn").wake();
                if table.last.load(Ordering::Relaxed) == turn {
                    return;
                }
            }
        })
    };
    let game = poll_fn(move |cx| {
        // `Acquire`: the last turn's answer comes with `last` set.
        let turn = table.answered.load(Ordering::Acquire);
        if turn == table.last.load(Ordering::Relaxed) {
            return Poll::Ready(turn);
        }
        // The waker first, then the turn: the thread wakes only once
        // it sees the turn, so it finds the waker.
        *table.waker.lock().unwrap() = Some(cx.waker().clone());
        table.played.store(turn + 1, Ordering::Release);
        Poll::Pending
    });
    let turns = if on_main {
        // The thread's wakes set `MainWaker`'s flag.
        rt.block_on(game).unwrap()
    } else {
        // A task: the thread's wakes go through the inject queue.
        let task = rt.handle().spawn(game);
        rt.block_on(task).unwrap()
    };
    assert!(turns > 0);
    answering.join().unwrap();
    turns
}
