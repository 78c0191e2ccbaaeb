//! Chapter 0: the smallest async program, run by `futures`' `block_on`.

use futures::executor::block_on;

// ANCHOR: main
async fn greeting() -> String {
    String::from("hello from an async fn")
}

fn main() {
    // Calling an async fn only builds a future; `block_on` runs it.
    let future = greeting();
    let text = block_on(future);
    println!("{text}");
}
// ANCHOR_END: main
