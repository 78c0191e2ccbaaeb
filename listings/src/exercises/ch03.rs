//! Chapter 3 exercise: a handle to a spawned task's result.

use std::future::Future;

use futures::channel::oneshot;

use super::super::executor::Spawner;

// ANCHOR: spawn_with_handle
/// Exercise: spawns `future` and returns a future of its output.
///
/// The task sends its output through a one-shot channel, whose receiver is
/// itself a future: awaiting it suspends the caller until the value is
/// there. If the task is dropped before it finishes, it yields
/// `Err(Canceled)`.
pub fn spawn_with_handle<T: Send + 'static>(
    spawner: &Spawner,
    future: impl Future<Output = T> + Send + 'static,
) -> oneshot::Receiver<T> {
    let (sender, receiver) = oneshot::channel();
    spawner.spawn(async move {
        // The handle may have been dropped: then nobody wants the output.
        let _ = sender.send(future.await);
    });
    receiver
}
// ANCHOR_END: spawn_with_handle

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::new_executor_and_spawner;
    use crate::timer::TimerFuture;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_task_can_await_another_tasks_output() {
        let (executor, spawner) = new_executor_and_spawner();
        let (tx, rx) = mpsc::channel();
        let handle = spawn_with_handle(&spawner, async {
            TimerFuture::new(Duration::from_millis(10)).await;
            6 * 7
        });
        spawner.spawn(async move {
            tx.send(handle.await).unwrap();
        });
        drop(spawner);
        executor.run();
        assert_eq!(rx.try_recv(), Ok(Ok(42)));
    }
}
