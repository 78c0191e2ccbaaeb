//! Chapter 8: reads a number from standard input and prints it plus 10.
//! The read waits in `epoll_wait` until standard input is readable (a
//! terminal, a pipe), so the thread could run other tasks meanwhile. Bad
//! input is an error message on standard error and exit status 1.
//!
//! Try `cargo run --example ch08_stdin`, `echo 32 | cargo run --example
//! ch08_stdin`, or `(sleep 2; echo 32) | cargo run --example ch08_stdin`.

use std::process::ExitCode;
use std::sync::Arc;

use listings::epoll_reactor::Reactor;
use listings::stdin_demo::{Input, InputError, PlusTen, Unbuffered, plus_ten, read_line};

/// The longest line read, in bytes: any number an `i64` holds fits.
const LIMIT: usize = 32;

// ANCHOR: main
fn main() -> ExitCode {
    println!("Type a number:");
    match read_number() {
        Ok(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read_number() -> Result<PlusTen, InputError> {
    let reactor = Arc::new(Reactor::new()?);
    // Non-blocking from here until `stdin` is dropped at the end of this
    // function, before `main` prints. The flag is set on an open file
    // description of standard input that is the demo's own whenever Linux
    // gives one (see `Unbuffered::stdin`), not on the shell's: Ctrl-C,
    // which skips every `Drop`, then leaves the terminal as it was.
    let stdin = Input::new(&reactor, Unbuffered::stdin())?;
    let line = reactor.block_on(read_line(&stdin, LIMIT))??;
    plus_ten(&line)
}
// ANCHOR_END: main
