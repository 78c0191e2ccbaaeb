//! Bugs the book shows on purpose. Nothing else uses these modules; each
//! has a test that makes its bug happen, next to the test of the fix.
//!
//! | module | bug | fixed in |
//! | --- | --- | --- |
//! | [`split_lock_timer`] | lost wake-up: check and store under two locks | [`super::timer`] |
//! | [`channel_executor`] | the first executor: blocking wakes, duplicate entries, a late `run`, a panic that ends all | [`super::fixed_executor`] |

pub mod channel_executor;
pub mod split_lock_timer;
