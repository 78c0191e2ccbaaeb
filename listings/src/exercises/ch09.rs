//! Chapter 9 exercise: `yield_now`, a future that lets the other tasks
//! of the runtime run before its task goes on.
//!
//! The solution is chapter 4's [`YieldNow`], unchanged: it wakes its own
//! task before returning `Pending` once, which is all any executor needs,
//! so it is not written a second time. The tests here run it on chapter
//! 9's runtime.

pub use super::super::state_machine::{YieldNow, yield_now};

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::runtime::Runtime;
    use crate::test_wakers::TestWaker;
    use std::cell::RefCell;
    use std::future::Future;
    use std::pin::pin;
    use std::rc::Rc;
    use std::task::{Context, Poll};

    #[test]
    fn yield_now_is_pending_once_and_wakes_its_task_before_returning() {
        let task = TestWaker::new();
        let waker = task.waker();
        let mut cx = Context::from_waker(&waker);
        let mut yielding = pin!(yield_now());
        assert_eq!(yielding.as_mut().poll(&mut cx), Poll::Pending);
        assert_eq!(task.wakes(), 1);
        assert_eq!(yielding.as_mut().poll(&mut cx), Poll::Ready(()));
        assert_eq!(task.wakes(), 1, "no wake-up once ready");
    }

    /// Runs two tasks on a runtime, each logging three steps, yielding
    /// between steps or not; returns the log.
    fn two_tasks(yielding: bool) -> Vec<String> {
        let rt = Runtime::new().unwrap();
        let log = Rc::new(RefCell::new(Vec::new()));
        let tasks: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|name| {
                let log = Rc::clone(&log);
                rt.handle().spawn(async move {
                    for step in 1..=3 {
                        log.borrow_mut().push(format!("{name}{step}"));
                        if yielding {
                            yield_now().await;
                        }
                    }
                })
            })
            .collect();
        rt.block_on(async {
            for task in tasks {
                task.await;
            }
        })
        .unwrap();
        log.take()
    }

    #[test]
    fn two_tasks_that_yield_take_turns() {
        assert_eq!(two_tasks(true), ["a1", "b1", "a2", "b2", "a3", "b3"]);
    }

    #[test]
    fn without_yielding_a_task_runs_until_it_waits() {
        assert_eq!(two_tasks(false), ["a1", "a2", "a3", "b1", "b2", "b3"]);
    }
}
