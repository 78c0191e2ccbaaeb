//! Chapter 1: why pinning exists.
//!
//! A value that stores a pointer to one of its own fields is
//! *self-referential*. Moving it copies the pointer unchanged, so the copy
//! points at the old place. The state machine of an `async fn` that keeps a
//! reference to its own local across an `.await` is exactly such a value.

use std::marker::PhantomPinned;
use std::pin::Pin;
use std::ptr;

// ANCHOR: self_ref
/// A value with a pointer to its own field.
#[derive(Debug)]
pub struct SelfRef {
    value: u64,
    /// Meant to point at `value`, set by [`SelfRef::init`].
    ptr: *const u64,
}

impl SelfRef {
    /// A value whose pointer is not set yet.
    pub fn new(value: u64) -> Self {
        SelfRef {
            value,
            ptr: ptr::null(),
        }
    }

    /// Points `ptr` at our own `value`.
    pub fn init(&mut self) {
        self.ptr = &self.value;
    }

    /// Whether `ptr` still points at our own `value`.
    pub fn points_to_itself(&self) -> bool {
        ptr::eq(self.ptr, &self.value)
    }
}
// ANCHOR_END: self_ref

// ANCHOR: pinned_self_ref
/// The same value, made safe: once pinned it can no longer be moved.
#[derive(Debug)]
pub struct PinnedSelfRef {
    value: u64,
    ptr: *const u64,
    /// Makes the type `!Unpin`: a `Pin<&mut PinnedSelfRef>` does not give
    /// out the `&mut PinnedSelfRef` that `mem::swap` would need.
    _pinned: PhantomPinned,
}

impl PinnedSelfRef {
    /// A value whose pointer is not set yet; it may still move freely.
    pub fn new(value: u64) -> Self {
        PinnedSelfRef {
            value,
            ptr: ptr::null(),
            _pinned: PhantomPinned,
        }
    }

    /// Points `ptr` at our own `value`. Requires the value to be pinned.
    pub fn init(self: Pin<&mut Self>) {
        // SAFETY: we only write one field through the `&mut`; nothing is
        // moved out of `self`, so the value stays where it was pinned.
        let this = unsafe { self.get_unchecked_mut() };
        this.ptr = &this.value;
    }

    /// Whether `ptr` still points at our own `value`.
    pub fn points_to_itself(&self) -> bool {
        ptr::eq(self.ptr, &self.value)
    }
}
// ANCHOR_END: pinned_self_ref

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem;

    #[test]
    fn swapping_breaks_an_unpinned_self_reference() {
        let mut a = SelfRef::new(1);
        let mut b = SelfRef::new(2);
        a.init();
        b.init();
        assert!(a.points_to_itself() && b.points_to_itself());
        mem::swap(&mut a, &mut b);
        // Each pointer still points at the place where it was made, which
        // now holds the other value.
        assert!(!a.points_to_itself());
        assert!(!b.points_to_itself());
        assert!(ptr::eq(a.ptr, &b.value));
    }

    /// What safe code can do with a pinned value is move the pointer that
    /// pins it: the value stays put. (What `Pin` adds, that safe code cannot
    /// get the `&mut` that would move it out, is a compile-time matter:
    /// `listings/compile_fail/pin_forbids_swap.rs` checks it.)
    #[test]
    fn pinned_self_references_survive_the_moves_safe_code_can_make() {
        // Moved out of a `Vec`, a plain value's pointer goes stale…
        let mut plain = vec![SelfRef::new(1)];
        plain[0].init();
        assert!(plain[0].points_to_itself());
        let moved = plain.remove(0);
        assert!(!moved.points_to_itself());
        // …while a pinned one stays where it was pinned: safe code can move
        // the `Pin<Box<_>>` around, never the value inside.
        let mut pinned: Vec<Pin<Box<PinnedSelfRef>>> =
            (0..8).map(|v| Box::pin(PinnedSelfRef::new(v))).collect();
        for value in &mut pinned {
            value.as_mut().init();
        }
        pinned.swap(0, 7);
        pinned.extend((8..64).map(|v| Box::pin(PinnedSelfRef::new(v))));
        let moved = pinned.remove(0);
        assert!(moved.points_to_itself());
        assert!(pinned[..7].iter().all(|value| value.points_to_itself()));
    }
}
