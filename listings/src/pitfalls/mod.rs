//! Bugs the book shows on purpose. Nothing else uses these modules; each
//! has a test that makes its bug happen, next to the test of the fix.
//!
//! | module | bug | fixed in |
//! | --- | --- | --- |
//! | [`first_timer`] | a timer that keeps the first waker it gets (wakes the old task), and keeps it after it is dropped | [`super::timer`] |
//! | [`split_lock_timer`] | lost wake-up: check and store under two locks | [`super::timer`] |
//! | [`channel_executor`] | the first executor: blocking wakes, duplicate entries, a late `run`, a panic that ends all | [`super::fixed_executor`] |
//! | [`leaky_waker`] | a waker whose `drop` does nothing: every task leaks | [`super::raw_waker`] |
//! | [`park_block_on`] | `block_on` on `thread::park`: a nested `block_on` steals the wake-up, a stray `unpark` fakes one | [`super::block_on`] |
//! | [`broken_parkers`] | a parker whose flag is set outside its lock (lost wake-up), one that never clears it (busy loop) | [`super::parker`] |
//! | [`first_reactor`] | the first reactor: caller-chosen ids collide, a late `wake` for a dropped timer panics and poisons the lock, a thread per timer | [`super::reactor`] |
//! | [`split_lock_reactor`] | the reactor's `is_ready` checking and storing under two locks: a lost wake-up | [`super::reactor`] |
//! | [`late_flag`] | a task that lowers its scheduled flag after the poll: a wake during the poll is erased | [`super::task_cell`] |

pub mod broken_parkers;
pub mod channel_executor;
pub mod first_reactor;
pub mod first_timer;
pub mod late_flag;
pub mod leaky_waker;
pub mod park_block_on;
pub mod split_lock_reactor;
pub mod split_lock_timer;
