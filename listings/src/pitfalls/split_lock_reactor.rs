//! Chapter 7 pitfall: the reactor's `is_ready` with its check and its store
//! under two separate locks, which can lose the wake-up.
//!
//! The map and `wake` are the reactor's ([`super::super::reactor`]), with
//! plain numbers for ids; only `is_ready` differs. The reactor's loom model
//! runs against both, and finds the interleaving that breaks this one.

use std::collections::HashMap;
use std::mem;
use std::task::Waker;

#[cfg(loom)]
use loom::sync::Mutex;
#[cfg(not(loom))]
use std::sync::Mutex;

#[derive(Debug)]
enum TimerState {
    NotReady(Waker),
    Ready,
}

/// The timers' states, as the reactor keeps them.
#[derive(Debug, Default)]
pub struct Timers {
    states: Mutex<HashMap<u64, TimerState>>,
}

impl Timers {
    /// Registers timer `id`, to wake `waker` when it fires.
    pub fn register(&self, id: u64, waker: Waker) {
        let mut states = self.states.lock().unwrap();
        states.insert(id, TimerState::NotReady(waker));
    }

    /// Fires timer `id`, as the reactor thread does.
    pub fn wake(&self, id: u64) {
        let mut states = self.states.lock().unwrap();
        let Some(state) = states.get_mut(&id) else {
            return;
        };
        let TimerState::NotReady(waker) = mem::replace(state, TimerState::Ready) else {
            return;
        };
        drop(states);
        waker.wake();
    }

    // ANCHOR: is_ready
    /// Whether timer `id` has fired; if not, stores `waker`.
    pub fn is_ready(&self, id: u64, waker: &Waker) -> bool {
        let states = self.states.lock().unwrap();
        let fired = matches!(states.get(&id), Some(TimerState::Ready) | None);
        drop(states);
        if fired {
            self.states.lock().unwrap().remove(&id);
            return true;
        }
        // BUG: the lock is released here. If the timer fires now, `wake`
        // takes the old waker (and leaves `Ready`): the store below finds
        // no `NotReady` to update, and this poll still says "not ready".
        // The task polling now is never woken.
        let waker = waker.clone();
        if let Some(TimerState::NotReady(stored)) = self.states.lock().unwrap().get_mut(&id) {
            *stored = waker;
        }
        false
    }
    // ANCHOR_END: is_ready
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;

    /// The reactor's model, unchanged: here loom finds an interleaving
    /// where `is_ready` says "not ready" and nobody wakes the polling task.
    #[test]
    #[should_panic(expected = "lost wake-up")]
    fn loom_finds_the_split_lock_reactors_lost_wake_up() {
        crate::reactor::loom_tests::check_fire_against_poll(
            |waker| {
                let timers = Timers::default();
                timers.register(0, waker);
                timers
            },
            |timers| timers.wake(0),
            |timers, waker| timers.is_ready(0, waker),
        );
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_wakers::TestWaker;
    use std::sync::Arc;

    #[test]
    fn firing_between_check_and_store_loses_the_wake_up() {
        let timers = Arc::new(Timers::default());
        // The task that registered the timer; the future has since moved
        // to another task, whose waker fires the timer when `is_ready`
        // clones it: between the check and the store.
        let first = TestWaker::new();
        timers.register(0, first.waker());
        let firing = Arc::clone(&timers);
        let task = TestWaker::with_clone_hook(move || firing.wake(0));

        assert!(
            !timers.is_ready(0, &task.waker()),
            "checked before the firing"
        );
        assert_eq!(first.wakes(), 1, "the firing woke the old task");
        assert_eq!(task.wakes(), 0, "and never will the one that polled");
        // The timer has fired, though: a poll for any other reason sees it.
        assert!(timers.is_ready(0, &task.waker()));
    }
}
