//! What the tests of chapter 3's executors share: the first executor's
//! failures (`pitfalls::channel_executor`) and the corrected executor
//! (`fixed_executor`) are tested with the same scenes.

use std::future::Future;
use std::sync::{Arc, Mutex, mpsc};
use std::task::{Poll, Waker};
use std::thread;
use std::time::Duration;

use futures::channel::oneshot;

/// How long a test waits for something that must happen: far longer than
/// it takes, so that only a hang can exceed it.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// Runs `run` (an executor's `run`) on a thread of its own; the receiver
/// hears how it ended.
pub fn in_background(run: impl FnOnce() + Send + 'static) -> mpsc::Receiver<thread::Result<()>> {
    let (done, returned) = mpsc::channel();
    thread::spawn(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
        let _ = done.send(outcome);
    });
    returned
}

/// A stand-in for a library that calls `wake` while holding its own lock,
/// as event-listener (under async-channel and async-lock) does.
#[derive(Debug, Default)]
pub struct Library {
    pub waiting: Mutex<Option<Waker>>,
}

impl Library {
    /// A task that waits on the library once: its first poll leaves its
    /// waker there and says so on `polled`; its next poll completes.
    pub fn waiting_task(
        self: &Arc<Self>,
        polled: mpsc::Sender<()>,
    ) -> impl Future<Output = ()> + Send + 'static {
        let (library, mut waited) = (Arc::clone(self), false);
        std::future::poll_fn(move |cx| {
            if waited {
                return Poll::Ready(());
            }
            waited = true;
            *library.waiting.lock().unwrap() = Some(cx.waker().clone());
            polled.send(()).unwrap();
            Poll::Pending
        })
    }
}

/// A task that waits to be released, then reports that it completed; the
/// sender that releases it; and where its report arrives.
pub fn task_waiting_for_release() -> (
    impl Future<Output = ()> + Send + 'static,
    oneshot::Sender<()>,
    mpsc::Receiver<&'static str>,
) {
    let (report, reports) = mpsc::channel();
    let (release, released) = oneshot::channel::<()>();
    let task = async move {
        released.await.unwrap();
        report.send("the other task completed").unwrap();
    };
    (task, release, reports)
}
