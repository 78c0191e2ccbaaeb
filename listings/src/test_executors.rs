//! Scenes the tests of several executors share: chapter 3's first
//! executor's failures (`pitfalls::channel_executor`) and the corrected
//! executor (`fixed_executor`) are tested with the same scenes, and so are
//! the `block_on`s and runtimes of chapters 6 to 10.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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

/// Runs a test's scene on a thread of its own, and fails the test if the
/// scene is still running after [`PATIENCE`] (a hang, say a wake that was
/// lost) instead of hanging with it; a panic of the scene is the test's.
pub fn with_patience(scene: impl FnOnce() + Send + 'static) {
    match in_background(scene).recv_timeout(PATIENCE) {
        Ok(Ok(())) => {}
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("still running after {PATIENCE:?}: it hangs"),
    }
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

/// The scene of "many wakes before a poll cost one poll", for the
/// `block_on`s of chapters 6 and 10: during the future's first poll another
/// thread wakes it a thousand times (and is joined); its second poll starts
/// a thread that frees it and wakes it 100 ms later; the poll after that
/// completes it. Returns the future and the count of its polls. Wakes that
/// only set a flag make that 3; a `block_on` that counted wakes, or one
/// that never slept, would poll again and again in between.
pub fn woken_a_thousand_times_then_once() -> (impl Future<Output = ()>, Arc<AtomicUsize>) {
    let released = Arc::new(AtomicBool::new(false));
    let polls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&polls);
    let future = std::future::poll_fn(move |cx| {
        let poll = counted.fetch_add(1, Ordering::SeqCst) + 1;
        if released.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        let waker = cx.waker().clone();
        if poll == 1 {
            thread::spawn(move || {
                for _ in 0..1000 {
                    waker.wake_by_ref();
                }
            })
            .join()
            .unwrap();
        } else if poll == 2 {
            let released = Arc::clone(&released);
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(100));
                released.store(true, Ordering::SeqCst);
                waker.wake();
            });
        }
        Poll::Pending
    });
    (future, polls)
}

/// 10,000 delays spread over 0..300 ms in a scrambled order (a linear
/// congruential sequence), so that the timers have sorting to do: the
/// timer tests of chapters 9 and 11.
pub fn scrambled_delays() -> Vec<Duration> {
    let mut x: u64 = 12345;
    (0..10_000)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            Duration::from_micros((x >> 33) % 300_000)
        })
        .collect()
}

/// The scene of "a report wakes its task while the thread is awake", for
/// chapter 8's `block_on` and chapter 9's runtime: another thread sends a
/// byte, and the next only once the last was echoed (100 messages, each
/// waited for apart). Returns the future that echoes them through
/// `reactor`, and that thread, which checks every echo.
pub fn a_hundred_messages(
    reactor: &Arc<super::epoll_reactor::Reactor>,
) -> (impl Future<Output = ()> + 'static, thread::JoinHandle<()>) {
    use std::io::{Read, Write};
    let (ours, mut theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let ours = super::async_fd::Async::new(reactor, ours).unwrap();
    let peer = thread::spawn(move || {
        for i in 0..100u8 {
            theirs.write_all(&[i]).unwrap();
            let mut answer = [0];
            theirs.read_exact(&mut answer).unwrap();
            assert_eq!(answer, [i]);
        }
    });
    let echo = async move {
        let mut buf = [0; 1];
        for i in 0..100u8 {
            assert_eq!(ours.read(&mut buf).await.unwrap(), 1);
            assert_eq!(buf, [i]);
            ours.write_all(&buf).await.unwrap();
        }
    };
    (echo, peer)
}
