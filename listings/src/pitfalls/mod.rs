//! Bugs the book shows on purpose. Nothing else uses these modules; each
//! has a test that makes its bug happen, next to the test of the fix.
//!
//! | module | bug | fixed in |
//! | --- | --- | --- |
//! | [`split_lock_timer`] | lost wake-up: check and store under two locks | [`super::timer`] |

pub mod split_lock_timer;
