// Chapter 1: once a `!Unpin` value is pinned, safe code cannot move it.
// This file must NOT compile; its error is kept beside it.
use std::marker::PhantomPinned;
use std::mem;
use std::pin::pin;

struct Pinned {
    value: u64,
    _pinned: PhantomPinned,
}

fn main() {
    let a = pin!(Pinned { value: 1, _pinned: PhantomPinned });
    let b = pin!(Pinned { value: 2, _pinned: PhantomPinned });
    mem::swap(&mut *a, &mut *b); // would move both values
    println!("{} {}", a.value, b.value);
}
