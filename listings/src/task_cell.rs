//! Chapter 11: a task in one allocation — its header, its future and its
//! output side by side — and the waker that points at it.
//!
//! Chapter 9 paid three allocations per task: the boxed future, the `Arc`
//! its waker counts, and the `Rc` its `JoinHandle` reads. Here one `Box`
//! holds all three parts, and every reference to the task — each waker,
//! the run queue's entry, the runtime's list of live tasks, the
//! `JoinHandle` — is a pointer to it, counted in its header. Polling needs
//! no map lookup: the queue holds the pointer itself.
//!
//! Only two fields are ever *changed* from another thread: the reference
//! count and the `scheduled` flag, both atomic. A wake elsewhere also
//! reads the vtable and calls the scheduler (`Sync`), and whichever
//! thread lets go of the last reference frees the task there, dropping
//! the scheduler and the awaiter's waker (both `Send`). The rest — the
//! future, the output, the stage — belongs to the thread that spawned the
//! task, because the runtime never polls it anywhere else (chapter 9's
//! rule: the future need not be `Send`). That is what keeps this simpler
//! than a multi-threaded task: the stage and the output need no lock and
//! no atomic.

use std::cell::{Cell, UnsafeCell};
use std::future::Future;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::process;
use std::ptr::NonNull;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};
use std::thread;

// Under `--cfg loom` the model checker's atomics stand in for std's, so
// that it can try every interleaving of wakes, drops and polls (tests).
#[cfg(loom)]
use loom::sync::atomic::{AtomicBool, AtomicUsize, fence};
#[cfg(not(loom))]
use std::sync::atomic::{AtomicBool, AtomicUsize, fence};

/// Under loom, a cell whose every access loom records: it stands for the
/// fields only the task's thread touches (future, output, stage,
/// awaiter), so that loom reports a touch of them on that thread that is
/// not ordered before the free on another. Outside loom it is nothing: no
/// bytes, and `touch` no code.
struct ThreadOnly {
    #[cfg(loom)]
    cell: loom::cell::UnsafeCell<()>,
}

impl ThreadOnly {
    fn new() -> Self {
        ThreadOnly {
            #[cfg(loom)]
            cell: loom::cell::UnsafeCell::new(()),
        }
    }

    /// Records a touch of the task's thread-only fields (under loom).
    #[inline(always)]
    fn touch(&self) {
        #[cfg(loom)]
        self.cell.with_mut(|_| ());
    }
}

// ANCHOR: layout
/// Where a woken task goes: the runtime's queues. Called on whichever
/// thread calls `wake`, hence `Send + Sync`.
pub trait Schedule: Send + Sync + 'static {
    /// Queues `task` to be run on the runtime's thread.
    fn schedule(&self, task: Runnable);
}

/// The start of every task, whatever its future: what a waker, a
/// `Runnable` or a `JoinHandle` can use without knowing the future's type.
struct Header {
    /// How many pointers to the task exist; the last one frees it.
    refs: AtomicUsize,
    /// True while the task is queued (and for good once it has finished
    /// or been closed): a wake then does nothing.
    scheduled: AtomicBool,
    /// The functions that know the future's and the scheduler's types.
    vtable: &'static TaskVTable,
    // The rest is only touched on the task's own thread.
    stage: Cell<Stage>,
    /// Whether the `JoinHandle` still exists.
    handle: Cell<bool>,
    /// The waker of whoever awaits the `JoinHandle`.
    awaiter: UnsafeCell<Option<Waker>>,
    /// The runtime's number for the task (its slot in the list of live
    /// tasks), set at spawn.
    key: usize,
    /// The model checker's stand-in for the fields only the task's thread
    /// touches (see [`ThreadOnly`]); nothing outside loom.
    thread_only: ThreadOnly,
}

/// Where the task is in its life.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Stage {
    /// The future is alive and may be polled.
    Running,
    /// The future completed or panicked; its output went to the handle
    /// (or was dropped if there was none).
    Finished,
    /// The runtime dropped the future unfinished.
    Closed,
}

/// The whole task. `repr(C)`: the header comes first, so a pointer to the
/// task is a pointer to its header; the output comes next, so a
/// `JoinHandle<T>` can find it knowing only `T` (see [`Prefix`]).
#[repr(C)]
struct Task<F: Future, S> {
    header: Header,
    output: UnsafeCell<Option<thread::Result<F::Output>>>,
    scheduler: S,
    /// Dropped in place when the stage leaves `Running`; never moved
    /// (it is pinned here from the first poll on).
    future: UnsafeCell<ManuallyDrop<F>>,
}

/// The first two fields of every `Task<F, S>` whose output is `T`. Both
/// are `repr(C)` and start with the same fields, so these two fields lie at
/// the same offsets in both.
#[repr(C)]
struct Prefix<T> {
    header: Header,
    output: UnsafeCell<Option<thread::Result<T>>>,
}

/// The operations that need the concrete types, written once per
/// `Task<F, S>` by the compiler.
struct TaskVTable {
    /// Polls the future once; true if that finished the task.
    run: unsafe fn(NonNull<Header>) -> bool,
    /// Queues the task through its scheduler (taking a reference).
    schedule: unsafe fn(NonNull<Header>),
    /// Drops the future of a running task.
    close: unsafe fn(NonNull<Header>),
    /// Frees the allocation.
    dealloc: unsafe fn(NonNull<Header>),
}
// ANCHOR_END: layout

// ANCHOR: spawn
/// Allocates a task for `future`, numbered `key` by the runtime, and
/// returns its three first references: the [`Runnable`] to queue (a task
/// starts scheduled), the runtime's [`Registered`] and the [`JoinHandle`].
///
/// The future need not be `Send`: it is polled only by [`Runnable::run`],
/// whose caller promises to be on this thread, and dropped either there or
/// by the `Registered`, which cannot leave this thread.
///
/// # Safety
///
/// The `Registered` must not be dropped while the task is being polled
/// (the future would be dropped under its own poll): the caller keeps it
/// out of the future's reach, as a runtime keeps it in its own list.
pub unsafe fn spawn_local<F, S>(
    future: F,
    scheduler: S,
    key: usize,
) -> (Runnable, Registered, JoinHandle<F::Output>)
where
    F: Future + 'static,
    S: Schedule,
{
    let task = Box::new(Task {
        header: Header {
            // The runnable, the registration and the handle.
            refs: AtomicUsize::new(3),
            scheduled: AtomicBool::new(true),
            vtable: &Task::<F, S>::VTABLE,
            stage: Cell::new(Stage::Running),
            handle: Cell::new(true),
            awaiter: UnsafeCell::new(None),
            key,
            thread_only: ThreadOnly::new(),
        },
        output: UnsafeCell::new(None),
        scheduler,
        future: UnsafeCell::new(ManuallyDrop::new(future)),
    });
    let ptr = NonNull::from(Box::leak(task)).cast::<Header>();
    (
        Runnable { ptr },
        Registered { ptr },
        JoinHandle {
            ptr,
            _output: PhantomData,
        },
    )
}
// ANCHOR_END: spawn

// ANCHOR: run
impl<F: Future + 'static, S: Schedule> Task<F, S> {
    const VTABLE: TaskVTable = TaskVTable {
        run: Self::run,
        schedule: Self::schedule,
        close: Self::close,
        dealloc: Self::dealloc,
    };

    /// # Safety
    ///
    /// `ptr` points to a live `Task<F, S>` (the caller holds a reference),
    /// on the task's own thread, and no other call on it is running.
    unsafe fn run(ptr: NonNull<Header>) -> bool {
        // SAFETY: as the function's contract says.
        let task = unsafe { ptr.cast::<Self>().as_ref() };
        let header = &task.header;
        header.thread_only.touch();
        if header.stage.get() != Stage::Running {
            // Queued by a wake during its last poll: nothing to do (and
            // `scheduled` stays set for good). Not "finished now": the
            // runtime forgot it then, and may have given its key to
            // another task since.
            return false;
        }
        // From now on a wake queues the task again, even one during this
        // poll. `Acquire` pairs with the `Release` of the wake that queued
        // it: this poll sees what the waker did before waking.
        header.scheduled.swap(false, Acquire);
        // A waker that borrows the caller's reference: the task cannot be
        // freed during the poll, so this one is not counted, and
        // `ManuallyDrop` keeps its drop from releasing a reference.
        // SAFETY: the vtable's functions take a pointer to a live task's
        // header, which `ptr` is for the whole poll.
        let waker = ManuallyDrop::new(unsafe { Waker::from_raw(raw_waker(ptr)) });
        let mut cx = Context::from_waker(&waker);
        // SAFETY: the future lives in the heap and is never moved (it is
        // dropped in place), so it may be pinned; only this thread touches
        // it, and only here and in `close`, which cannot run during a poll.
        let future = unsafe { Pin::new_unchecked(&mut **task.future.get()) };
        let result = match panic::catch_unwind(AssertUnwindSafe(|| future.poll(&mut cx))) {
            Ok(Poll::Pending) => return false,
            Ok(Poll::Ready(output)) => Ok(output),
            // A panic ends this task only: it is kept for the handle (the
            // panic hook has already printed it).
            Err(panic) => Err(panic),
        };
        // Finished for good: later wakes do nothing.
        header.scheduled.store(true, Relaxed);
        header.stage.set(Stage::Finished);
        // SAFETY: the stage is no longer `Running`, so nothing touches the
        // future again; it is dropped where it lies, when `future` goes —
        // after `finish`, or while a panic in `finish` unwinds. (Its drop
        // runs the future's code: it may wake tasks, even drop this task's
        // handle, which touch other fields only.)
        let future = unsafe { DropInPlace::new(task.future.get()) };
        // The output first: should the future's drop panic, the handle
        // has its output and the awaiter is awake.
        // SAFETY: the task is alive and on its thread.
        unsafe { Self::finish(task, result) };
        drop(future);
        true
    }

    /// Leaves `result` for the handle and wakes its awaiter; with no
    /// handle, drops it here, on the task's thread.
    ///
    /// # Safety
    ///
    /// On the task's thread.
    unsafe fn finish(task: &Self, result: thread::Result<F::Output>) {
        task.header.thread_only.touch();
        if !task.header.handle.get() {
            drop(result);
            return;
        }
        // SAFETY: only this thread touches the output and the awaiter, and
        // no reference into them is alive (each access is one statement).
        unsafe { *task.output.get() = Some(result) };
        let awaiter = unsafe { (*task.header.awaiter.get()).take() };
        if let Some(awaiter) = awaiter {
            awaiter.wake();
        }
    }

    /// # Safety
    ///
    /// `ptr` points to a live `Task<F, S>`; the caller gives this call a
    /// reference of its own, which the `Runnable` takes over.
    unsafe fn schedule(ptr: NonNull<Header>) {
        // SAFETY: the task is alive; the scheduler is `Sync`.
        let task = unsafe { ptr.cast::<Self>().as_ref() };
        // A reference of our own for as long as `schedule` runs: once the
        // `Runnable` is queued, the runtime's thread may run it, or drop
        // it with the runtime, and free the task — and with it the
        // scheduler that `schedule` is still using (its `&self`).
        // SAFETY: the caller's reference keeps the task alive until here.
        unsafe { acquire_ref(&task.header) };
        task.scheduler.schedule(Runnable { ptr });
        // SAFETY: our reference, given up; the task is not used after.
        unsafe { release_ref(ptr) };
    }

    /// # Safety
    ///
    /// As for `run`.
    unsafe fn close(ptr: NonNull<Header>) {
        // SAFETY: as the function's contract says.
        let task = unsafe { ptr.cast::<Self>().as_ref() };
        let header = &task.header;
        header.thread_only.touch();
        if header.stage.get() != Stage::Running {
            return;
        }
        header.scheduled.store(true, Relaxed);
        header.stage.set(Stage::Closed);
        // SAFETY: as in `run`: no longer `Running`, so never touched again;
        // dropped at the end, or if the awaiter's wake panics.
        let future = unsafe { DropInPlace::new(task.future.get()) };
        // The awaiter would wait for ever: wake it (its poll of the handle
        // panics, saying why).
        // SAFETY: on the task's thread, no reference into the field alive.
        let awaiter = unsafe { (*header.awaiter.get()).take() };
        if let Some(awaiter) = awaiter {
            awaiter.wake();
        }
        drop(future);
    }

    /// # Safety
    ///
    /// `ptr` points to a `Task<F, S>` that no one else can reach any more
    /// (its count reached zero).
    unsafe fn dealloc(ptr: NonNull<Header>) {
        // SAFETY: the pointer came from `Box::leak` of this very type.
        let task = unsafe { Box::from_raw(ptr.cast::<Self>().as_ptr()) };
        // The free touches everything.
        task.header.thread_only.touch();
        // This may run on any thread (the last reference may be a waker
        // dropped elsewhere), so nothing of the task's own thread may be
        // left: by then the future is gone (finished or closed before the
        // runtime let go of it) and so is the output (the handle takes or
        // drops it before letting go; without a handle, `finish` drops it).
        debug_assert_ne!(task.header.stage.get(), Stage::Running);
        // SAFETY: nobody else can reach the task.
        debug_assert!(unsafe { (*task.output.get()).is_none() });
        // Dropping the box drops the scheduler and the awaiter, both
        // `Send`; the future is in `ManuallyDrop` and already dropped.
        drop(task);
    }
}

/// Drops a future in place when it goes, whether at the end of its scope
/// or while a panic unwinds through it: a panic in the code before (an
/// output's drop, an awaiter's wake) must not leak the future.
struct DropInPlace<F>(*mut ManuallyDrop<F>);

impl<F> DropInPlace<F> {
    /// # Safety
    ///
    /// `future` is alive, not yet dropped, and nothing else will touch it.
    unsafe fn new(future: *mut ManuallyDrop<F>) -> Self {
        DropInPlace(future)
    }
}

impl<F> Drop for DropInPlace<F> {
    fn drop(&mut self) {
        // SAFETY: as `new`'s contract says; this runs once.
        unsafe { ManuallyDrop::drop(&mut *self.0) };
    }
}
// ANCHOR_END: run

// ANCHOR: waker
/// A raw waker for the task at `ptr`, sharing the caller's reference.
fn raw_waker(ptr: NonNull<Header>) -> RawWaker {
    RawWaker::new(ptr.as_ptr().cast_const().cast(), &WAKER_VTABLE)
}

/// Wakers of every task share one table: the header has what they need.
static WAKER_VTABLE: RawWakerVTable =
    RawWakerVTable::new(clone_waker, wake, wake_by_ref, drop_waker);

/// The header a waker's data points to.
///
/// # Safety
///
/// `data` comes from [`raw_waker`] and the waker holds a reference.
unsafe fn header<'a>(data: *const ()) -> &'a Header {
    // SAFETY: as the function's contract says.
    unsafe { &*data.cast::<Header>() }
}

unsafe fn clone_waker(data: *const ()) -> RawWaker {
    // SAFETY: the waker being cloned holds a reference.
    unsafe { acquire_ref(header(data)) };
    RawWaker::new(data, &WAKER_VTABLE)
}

/// Wakes and gives up the waker's reference: if the task must be queued,
/// the reference goes to the queue instead of being counted twice.
unsafe fn wake(data: *const ()) {
    // SAFETY: the waker holds a reference.
    let header = unsafe { header(data) };
    let ptr = NonNull::from(header);
    // `Release`: the poll that follows sees what the waker did before.
    if header.scheduled.swap(true, Release) {
        // Already queued, or finished: this wake is folded into that.
        // SAFETY: the waker's reference, given up.
        unsafe { release_ref(ptr) };
    } else {
        // SAFETY: the task is alive and the reference is the waker's.
        unsafe { (header.vtable.schedule)(ptr) };
    }
}

unsafe fn wake_by_ref(data: *const ()) {
    // SAFETY: the waker holds a reference.
    let header = unsafe { header(data) };
    if !header.scheduled.swap(true, Release) {
        // SAFETY: a new reference for the queue; the waker keeps its own.
        unsafe {
            acquire_ref(header);
            (header.vtable.schedule)(NonNull::from(header));
        }
    }
}

unsafe fn drop_waker(data: *const ()) {
    // SAFETY: the waker's reference, given up.
    unsafe { release_ref(NonNull::from(header(data))) };
}
// ANCHOR_END: waker

// ANCHOR: refs
/// Counts one more reference, as `Arc::clone` does: `Relaxed`, because a
/// new reference can only be made from an existing one, which keeps the
/// task alive meanwhile.
///
/// # Safety
///
/// The caller holds a reference.
unsafe fn acquire_ref(header: &Header) {
    let old = header.refs.fetch_add(1, Relaxed);
    // Wakers leaked without end: stop before the count wraps round.
    if old > isize::MAX as usize {
        process::abort();
    }
}

/// Gives up a reference when it goes, even while a panic unwinds: a
/// future's or an output's drop may panic, and the reference must not
/// leak with it (the task would never be freed).
struct RefGuard(NonNull<Header>);

impl Drop for RefGuard {
    fn drop(&mut self) {
        // SAFETY: a `RefGuard` is made from a reference that its maker
        // hands over, and is not used after.
        unsafe { release_ref(self.0) };
    }
}

/// Gives up one reference; the last one frees the task.
///
/// # Safety
///
/// The caller holds a reference and does not use `ptr` afterwards.
unsafe fn release_ref(ptr: NonNull<Header>) {
    // SAFETY: the caller's reference keeps the task alive until here.
    let header = unsafe { ptr.as_ref() };
    // `Release`: everything this thread did with the task happens before
    // the free. The thread that frees it pairs that with `Acquire`.
    if header.refs.fetch_sub(1, Release) != 1 {
        return;
    }
    // `Acquire`, here where the count reached zero: pairs with the other
    // threads' `Release` decrements, so their touches of the task happen
    // before the free (as `Arc`'s drop does it).
    fence(Acquire);
    // SAFETY: that was the last reference.
    unsafe { (header.vtable.dealloc)(ptr) };
}
// ANCHOR_END: refs

// ANCHOR: handles
/// A task that is due to run: one reference, held by the run queue.
pub struct Runnable {
    ptr: NonNull<Header>,
}

// SAFETY: a `Runnable` only travels (from a waking thread to the runtime's
// queue); the one thing that touches the future, `run`, is unsafe and
// must be called on the task's own thread.
unsafe impl Send for Runnable {}

impl Runnable {
    /// Polls the task once, unless it already finished or closed; true
    /// if this poll finished it (the runtime then forgets it: drops its
    /// [`Registered`]).
    ///
    /// # Safety
    ///
    /// On the thread that spawned the task, and not from inside a poll of
    /// the same task (the runtime runs one task at a time).
    pub unsafe fn run(self) -> bool {
        let this = ManuallyDrop::new(self);
        // The runnable's reference, given up after the run, or if a drop
        // in it (the future's, the output's) panics.
        let _release = RefGuard(this.ptr);
        // SAFETY: the runnable's reference keeps the task alive; the
        // caller vouches for the thread; `run` calls never nest (a poll
        // cannot reach a `Runnable` of its own task: the queue gives them
        // out one at a time).
        unsafe { (this.header().vtable.run)(this.ptr) }
    }

    /// The runtime's number for this task.
    pub fn key(&self) -> usize {
        self.header().key
    }

    fn header(&self) -> &Header {
        // SAFETY: the runnable holds a reference.
        unsafe { self.ptr.as_ref() }
    }
}

impl Drop for Runnable {
    /// Dropped unrun (a runtime that closed): only the reference goes.
    fn drop(&mut self) {
        // SAFETY: the runnable's reference, given up.
        unsafe { release_ref(self.ptr) };
    }
}

/// The runtime's own reference to a live task: the runtime drops it when
/// the task has finished, or when the runtime itself goes, and then a
/// task that never finished is closed (see `Drop`). Not `Send`: it stays
/// on the task's thread.
pub struct Registered {
    ptr: NonNull<Header>,
}

impl Registered {
    fn header(&self) -> &Header {
        // SAFETY: the registration holds a reference.
        unsafe { self.ptr.as_ref() }
    }
}

impl Drop for Registered {
    /// Drops the future if it is still running (a task nobody would ever
    /// poll again): the handle's awaiter is woken, and polling the handle
    /// then panics. Then gives up the reference.
    fn drop(&mut self) {
        // The registration's reference, given up at the end, or if the
        // future's drop panics.
        let _release = RefGuard(self.ptr);
        // SAFETY: the reference keeps the task alive; `Registered` is not
        // `Send`, so this is the task's thread; a task's poll cannot reach
        // its own registration (the runtime holds it), so this is not
        // inside that poll.
        unsafe { (self.header().vtable.close)(self.ptr) };
    }
}

/// Awaits a task's output. Dropping it lets the task run on, detached.
///
/// # Panics
///
/// Awaiting it panics if the task panicked (with the task's panic), or if
/// its runtime dropped the task unfinished.
pub struct JoinHandle<T> {
    ptr: NonNull<Header>,
    /// The output type; and `*const ()`, which says what the `NonNull`
    /// already makes so: the handle is neither `Send` nor `Sync` (it reads
    /// the task's thread-only fields).
    _output: PhantomData<(T, *const ())>,
}

// The handle is a pointer: moving it never moves the output.
impl<T> Unpin for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    fn prefix(&self) -> &Prefix<T> {
        // SAFETY: the handle holds a reference, and the task is a
        // `Task<F, S>` with `F::Output = T`, whose first fields are
        // `Prefix<T>`'s (both `repr(C)`).
        unsafe { self.ptr.cast::<Prefix<T>>().as_ref() }
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let prefix = self.prefix();
        prefix.header.thread_only.touch();
        // SAFETY: the handle is on the task's thread (it is not `Send`),
        // and no other reference into the output is alive.
        let output = unsafe { (*prefix.output.get()).take() };
        match (output, prefix.header.stage.get()) {
            (Some(Ok(output)), _) => Poll::Ready(output),
            (Some(Err(panic)), _) => panic::resume_unwind(panic),
            (None, Stage::Running) => {
                // SAFETY: as for the output.
                let old = unsafe { (*prefix.header.awaiter.get()).replace(cx.waker().clone()) };
                // Dropped after the field is let go: a waker's drop may
                // run its executor's code.
                drop(old);
                Poll::Pending
            }
            (None, Stage::Finished) => panic!("JoinHandle polled after it completed"),
            (None, Stage::Closed) => {
                panic!("the task was dropped with its runtime before it completed")
            }
        }
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        let prefix = self.prefix();
        prefix.header.thread_only.touch();
        prefix.header.handle.set(false);
        // Taken out first, dropped afterwards: their drops run other code,
        // which must not find a reference into the task alive.
        // SAFETY: on the task's thread, one statement each.
        let output = unsafe { (*prefix.output.get()).take() };
        let awaiter = unsafe { (*prefix.header.awaiter.get()).take() };
        // The handle's reference, given up after them, or if the output's
        // drop panics.
        let _release = RefGuard(self.ptr);
        drop((output, awaiter));
    }
}
// ANCHOR_END: handles

impl std::fmt::Debug for Runnable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runnable")
            .field("key", &self.key())
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Registered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registered")
            .field("stage", &self.header().stage.get())
            .finish_non_exhaustive()
    }
}

impl<T> std::fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinHandle")
            .field("stage", &self.prefix().header.stage.get())
            .finish_non_exhaustive()
    }
}

/// The number of references to the task of `handle`, for tests.
#[cfg(all(test, not(loom)))]
fn refs<T>(handle: &JoinHandle<T>) -> usize {
    handle.prefix().header.refs.load(Relaxed)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::alloc_counts::allocations;
    use crate::test_wakers::TestWaker;
    use std::collections::VecDeque;
    use std::future::poll_fn;
    use std::rc::Rc;
    use std::sync::{Arc, Mutex};
    use std::thread::ThreadId;

    /// `spawn_local`, for the tests: none gives a future its own
    /// registration.
    fn spawn<F: Future + 'static, S: Schedule>(
        future: F,
        scheduler: S,
        key: usize,
    ) -> (Runnable, Registered, JoinHandle<F::Output>) {
        // SAFETY: the registration stays with the test, out of the
        // future's reach.
        unsafe { spawn_local(future, scheduler, key) }
    }

    /// A run queue for the tests: a `Mutex<VecDeque>`, closed on request
    /// (a closed queue drops what it is given, as a runtime's does).
    #[derive(Default)]
    struct Queue {
        tasks: Mutex<VecDeque<Runnable>>,
        closed: AtomicBool,
    }

    impl Schedule for Arc<Queue> {
        fn schedule(&self, task: Runnable) {
            if self.closed.load(Relaxed) {
                drop(task);
            } else {
                self.tasks.lock().unwrap().push_back(task);
            }
        }
    }

    impl Queue {
        fn len(&self) -> usize {
            self.tasks.lock().unwrap().len()
        }

        /// Runs what is queued, one at a time, until nothing is; returns
        /// how many runs that was.
        fn run_all(&self) -> usize {
            let mut runs = 0;
            loop {
                let next = self.tasks.lock().unwrap().pop_front();
                let Some(task) = next else { return runs };
                // SAFETY: the tests spawn and run on the same thread.
                unsafe { task.run() };
                runs += 1;
            }
        }
    }

    /// Polls `handle` once with a counting waker.
    fn poll_handle<T>(handle: &mut JoinHandle<T>, waker: &TestWaker) -> Poll<T> {
        Pin::new(handle).poll(&mut Context::from_waker(&waker.waker()))
    }

    /// A future that waits until `open` is set, keeping its latest waker
    /// in `slot` for whoever opens it.
    fn gate(slot: Arc<Mutex<Option<Waker>>>, open: Arc<AtomicBool>) -> impl Future<Output = ()> {
        poll_fn(move |cx| {
            *slot.lock().unwrap() = Some(cx.waker().clone());
            if open.load(Acquire) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }

    /// Records on which thread it was dropped.
    struct DropSpy(Rc<Cell<Option<ThreadId>>>);

    impl Drop for DropSpy {
        fn drop(&mut self) {
            self.0.set(Some(thread::current().id()));
        }
    }

    #[test]
    fn a_task_is_one_allocation_and_its_output_reaches_the_handle() {
        let queue = Arc::new(Queue::default());
        let scheduler = Arc::clone(&queue);
        let before = allocations();
        let (runnable, registered, mut handle) = spawn(async { 7 }, scheduler, 0);
        assert_eq!(allocations() - before, 1, "header, output and future");
        // The runnable, the registration and the handle.
        assert_eq!(refs(&handle), 3);
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() }, "finished on its first poll");
        assert_eq!(refs(&handle), 2);
        drop(registered);
        assert_eq!(refs(&handle), 1);
        assert_eq!(poll_handle(&mut handle, &TestWaker::new()), Poll::Ready(7));
        // The task holds the scheduler: freeing the task drops it.
        assert_eq!(Arc::strong_count(&queue), 2);
        drop(handle);
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
    }

    #[test]
    fn many_wakes_from_another_thread_queue_a_pending_task_once() {
        let queue = Arc::new(Queue::default());
        let (slot, open) = (Arc::default(), Arc::new(AtomicBool::new(false)));
        let future = gate(Arc::clone(&slot), Arc::clone(&open));
        let (runnable, _registered, mut handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(!unsafe { runnable.run() });
        assert_eq!(queue.len(), 0);
        let waker = slot.lock().unwrap().take().unwrap();
        // Room in the test's queue, so that only the wakes could allocate.
        queue.tasks.lock().unwrap().reserve(1);
        let allocated = thread::spawn(move || {
            let before = allocations();
            for _ in 0..1000 {
                waker.wake_by_ref();
            }
            waker.wake();
            allocations() - before
        })
        .join()
        .unwrap();
        assert_eq!(allocated, 0, "a wake does not allocate");
        assert_eq!(queue.len(), 1, "a thousand and one wakes, queued once");
        open.store(true, Release);
        assert_eq!(queue.run_all(), 1);
        assert_eq!(poll_handle(&mut handle, &TestWaker::new()), Poll::Ready(()));
    }

    #[test]
    fn a_wake_during_the_poll_queues_the_task_again() {
        let queue = Arc::new(Queue::default());
        let polls = Rc::new(Cell::new(0));
        let counted = Rc::clone(&polls);
        let future = poll_fn(move |cx| {
            counted.set(counted.get() + 1);
            if counted.get() == 1 {
                // Woken while being polled: must be polled again.
                cx.waker().wake_by_ref();
                cx.waker().wake_by_ref();
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        });
        let (runnable, _registered, _handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(!unsafe { runnable.run() });
        assert_eq!(queue.len(), 1, "queued again, once");
        assert_eq!(queue.run_all(), 1);
        assert_eq!(polls.get(), 2);
    }

    #[test]
    fn a_wake_during_the_last_poll_queues_a_run_that_does_nothing() {
        let queue = Arc::new(Queue::default());
        let polls = Rc::new(Cell::new(0));
        let counted = Rc::clone(&polls);
        let future = poll_fn(move |cx| {
            counted.set(counted.get() + 1);
            cx.waker().wake_by_ref();
            Poll::Ready(())
        });
        let (runnable, registered, handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() }, "finished by this run");
        assert_eq!(queue.len(), 1);
        let stale = queue.tasks.lock().unwrap().pop_front().unwrap();
        // SAFETY: as above.
        assert!(!unsafe { stale.run() }, "not finished by this one");
        assert_eq!(polls.get(), 1);
        assert_eq!(refs(&handle), 2);
        drop((registered, handle));
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
    }

    #[test]
    fn wakes_after_completion_queue_nothing_and_give_up_their_reference() {
        let queue = Arc::new(Queue::default());
        let slot = Arc::new(Mutex::new(None));
        let future = gate(Arc::clone(&slot), Arc::new(AtomicBool::new(true)));
        let (runnable, registered, handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() });
        let waker = slot.lock().unwrap().take().unwrap();
        // The registration, the handle and the kept waker.
        assert_eq!(refs(&handle), 3);
        waker.wake_by_ref();
        assert_eq!((queue.len(), refs(&handle)), (0, 3));
        waker.wake();
        assert_eq!((queue.len(), refs(&handle)), (0, 2));
        drop((registered, handle));
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
    }

    #[test]
    fn a_panicking_task_gives_its_panic_to_the_handle_and_drops_its_future() {
        let queue = Arc::new(Queue::default());
        let dropped = Rc::new(Cell::new(None));
        let spy = DropSpy(Rc::clone(&dropped));
        let future = async move {
            let _spy = spy;
            panic!("task failed");
        };
        let (runnable, _registered, mut handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() }, "a panic finishes the task");
        assert_eq!(dropped.get(), Some(thread::current().id()));
        let waker = TestWaker::new();
        let panic = panic::catch_unwind(AssertUnwindSafe(|| poll_handle(&mut handle, &waker)));
        assert_eq!(
            *panic.unwrap_err().downcast::<&str>().unwrap(),
            "task failed"
        );
        let again = panic::catch_unwind(AssertUnwindSafe(|| poll_handle(&mut handle, &waker)));
        assert_eq!(
            *again.unwrap_err().downcast::<&str>().unwrap(),
            "JoinHandle polled after it completed"
        );
    }

    #[test]
    fn without_a_handle_the_output_is_dropped_at_completion_on_the_tasks_thread() {
        let queue = Arc::new(Queue::default());
        let dropped = Rc::new(Cell::new(None));
        let output = DropSpy(Rc::clone(&dropped));
        let (runnable, _registered, handle) = spawn(async move { output }, queue, 0);
        drop(handle);
        assert_eq!(dropped.get(), None);
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() });
        assert_eq!(dropped.get(), Some(thread::current().id()));
    }

    #[test]
    fn a_handle_dropped_after_completion_drops_the_output_it_did_not_take() {
        let queue = Arc::new(Queue::default());
        let dropped = Rc::new(Cell::new(None));
        let output = DropSpy(Rc::clone(&dropped));
        let (runnable, registered, handle) = spawn(async move { output }, queue, 0);
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() });
        drop(registered);
        assert_eq!(dropped.get(), None, "kept for the handle");
        drop(handle);
        assert_eq!(dropped.get(), Some(thread::current().id()));
    }

    #[test]
    fn dropping_the_registration_closes_a_pending_task_and_wakes_its_awaiter() {
        let queue = Arc::new(Queue::default());
        let dropped = Rc::new(Cell::new(None));
        let spy = DropSpy(Rc::clone(&dropped));
        let future = async move {
            let _spy = spy;
            std::future::pending::<()>().await;
        };
        let (runnable, registered, mut handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(!unsafe { runnable.run() });
        let awaiter = TestWaker::new();
        assert_eq!(poll_handle(&mut handle, &awaiter), Poll::Pending);
        drop(registered);
        assert_eq!(dropped.get(), Some(thread::current().id()));
        assert_eq!(awaiter.wakes(), 1);
        assert_eq!(awaiter.live(), 0, "the awaiter's waker was let go");
        let panic = panic::catch_unwind(AssertUnwindSafe(|| poll_handle(&mut handle, &awaiter)));
        assert_eq!(
            *panic.unwrap_err().downcast::<&str>().unwrap(),
            "the task was dropped with its runtime before it completed"
        );
    }

    #[test]
    fn the_handles_awaiter_is_woken_once_with_the_output_and_only_the_latest_waker_kept() {
        let queue = Arc::new(Queue::default());
        let (slot, open) = (Arc::default(), Arc::new(AtomicBool::new(false)));
        let future = gate(Arc::clone(&slot), Arc::clone(&open));
        let (runnable, _registered, mut handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(!unsafe { runnable.run() });
        let (first, second) = (TestWaker::new(), TestWaker::new());
        assert_eq!(poll_handle(&mut handle, &first), Poll::Pending);
        assert_eq!(poll_handle(&mut handle, &second), Poll::Pending);
        assert_eq!((first.live(), second.live()), (0, 1));
        open.store(true, Release);
        slot.lock().unwrap().take().unwrap().wake();
        assert_eq!(queue.run_all(), 1);
        assert_eq!((first.wakes(), second.wakes(), second.live()), (0, 1, 0));
        assert_eq!(poll_handle(&mut handle, &second), Poll::Ready(()));
    }

    #[test]
    fn the_last_reference_may_be_a_waker_dropped_on_another_thread() {
        let queue = Arc::new(Queue::default());
        let slot = Arc::new(Mutex::new(None));
        let dropped = Rc::new(Cell::new(None));
        let spy = DropSpy(Rc::clone(&dropped));
        let gate = gate(Arc::clone(&slot), Arc::new(AtomicBool::new(true)));
        let future = async move {
            let _spy = spy;
            gate.await;
        };
        let (runnable, registered, handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() });
        // The future (and its `Rc`) went on this thread, at completion.
        assert_eq!(dropped.get(), Some(thread::current().id()));
        drop((registered, handle));
        let waker = slot.lock().unwrap().take().unwrap();
        assert_eq!(Arc::strong_count(&queue), 2);
        thread::spawn(move || drop(waker)).join().unwrap();
        assert_eq!(Arc::strong_count(&queue), 1, "freed on the other thread");
    }

    /// A future that is ready with 7 at its first poll (or never, if
    /// `ready` is false), and whose drop panics.
    struct PanicsWhenDropped {
        ready: bool,
    }

    impl Future for PanicsWhenDropped {
        type Output = u32;

        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u32> {
            if self.ready {
                Poll::Ready(7)
            } else {
                Poll::Pending
            }
        }
    }

    impl Drop for PanicsWhenDropped {
        fn drop(&mut self) {
            panic!("dropped");
        }
    }

    /// The message of a panic that `catch_unwind` caught.
    fn message(caught: thread::Result<impl Sized>) -> &'static str {
        *caught.err().expect("no panic").downcast::<&str>().unwrap()
    }

    #[test]
    fn a_futures_drop_that_panics_at_completion_still_lets_the_task_be_freed() {
        let queue = Arc::new(Queue::default());
        let future = PanicsWhenDropped { ready: true };
        let (runnable, registered, mut handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        let run = panic::catch_unwind(AssertUnwindSafe(|| unsafe { runnable.run() }));
        assert_eq!(message(run), "dropped");
        // The runnable's reference went with the panic.
        assert_eq!(refs(&handle), 2);
        assert_eq!(poll_handle(&mut handle, &TestWaker::new()), Poll::Ready(7));
        drop((registered, handle));
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
    }

    #[test]
    fn a_futures_drop_that_panics_when_closed_still_wakes_the_awaiter_and_frees_the_task() {
        let queue = Arc::new(Queue::default());
        let future = PanicsWhenDropped { ready: false };
        let (runnable, registered, mut handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(!unsafe { runnable.run() });
        let awaiter = TestWaker::new();
        assert_eq!(poll_handle(&mut handle, &awaiter), Poll::Pending);
        let closed = panic::catch_unwind(AssertUnwindSafe(|| drop(registered)));
        assert_eq!(message(closed), "dropped");
        assert_eq!((awaiter.wakes(), refs(&handle)), (1, 1));
        drop(handle);
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
    }

    #[test]
    fn an_awaiters_wake_that_panics_when_closed_still_drops_the_future_and_frees_the_task() {
        /// A waker of another executor whose wake panics.
        struct PanicsWhenWoken;

        impl std::task::Wake for PanicsWhenWoken {
            fn wake(self: Arc<Self>) {
                panic!("woken");
            }
        }

        let queue = Arc::new(Queue::default());
        let spied = Rc::new(Cell::new(None));
        let spy = DropSpy(Rc::clone(&spied));
        // Held by the future until it is dropped; never ready.
        let future = poll_fn(move |_| {
            let _ = &spy;
            Poll::<()>::Pending
        });
        let (runnable, registered, mut handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(!unsafe { runnable.run() });
        let awaiter = Waker::from(Arc::new(PanicsWhenWoken));
        let polled = Pin::new(&mut handle).poll(&mut Context::from_waker(&awaiter));
        assert_eq!(polled, Poll::Pending);
        drop(awaiter);
        let closed = panic::catch_unwind(AssertUnwindSafe(|| drop(registered)));
        assert_eq!(message(closed), "woken");
        assert_eq!(spied.get(), Some(thread::current().id()), "future dropped");
        assert_eq!(refs(&handle), 1, "the registration's reference went");
        drop(handle);
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
    }

    #[test]
    fn an_outputs_drop_that_panics_still_lets_the_task_and_its_future_be_freed() {
        // Dropped by the handle that did not take it.
        let queue = Arc::new(Queue::default());
        let output = std::future::ready(PanicsWhenDropped { ready: true });
        let (runnable, registered, handle) = spawn(output, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() });
        drop(registered);
        let dropped = panic::catch_unwind(AssertUnwindSafe(|| drop(handle)));
        assert_eq!(message(dropped), "dropped");
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
        // Dropped at completion, for want of a handle: the future is
        // dropped all the same.
        let queue = Arc::new(Queue::default());
        let spied = Rc::new(Cell::new(None));
        let spy = DropSpy(Rc::clone(&spied));
        // Held by the future until it is dropped.
        let output = poll_fn(move |_| {
            let _ = &spy;
            Poll::Ready(PanicsWhenDropped { ready: true })
        });
        let (runnable, registered, handle) = spawn(output, Arc::clone(&queue), 0);
        drop(handle);
        // SAFETY: spawned on this thread.
        let run = panic::catch_unwind(AssertUnwindSafe(|| unsafe { runnable.run() }));
        assert_eq!(message(run), "dropped");
        assert_eq!(spied.get(), Some(thread::current().id()), "future dropped");
        drop(registered);
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
    }

    #[test]
    fn debug_shows_a_runnables_key_and_the_stage_of_the_task() {
        let queue = Arc::new(Queue::default());
        let (runnable, registered, handle) = spawn(async {}, Arc::clone(&queue), 5);
        assert_eq!(format!("{runnable:?}"), "Runnable { key: 5, .. }");
        assert_eq!(
            format!("{registered:?}"),
            "Registered { stage: Running, .. }"
        );
        assert_eq!(format!("{handle:?}"), "JoinHandle { stage: Running, .. }");
        // SAFETY: spawned on this thread.
        assert!(unsafe { runnable.run() });
        assert_eq!(
            format!("{registered:?}"),
            "Registered { stage: Finished, .. }"
        );
        assert_eq!(format!("{handle:?}"), "JoinHandle { stage: Finished, .. }");
        // Closed: dropped by its runtime before it finished.
        let (runnable, registered, handle) = spawn(std::future::pending::<()>(), queue, 0);
        drop(runnable);
        drop(registered);
        assert_eq!(format!("{handle:?}"), "JoinHandle { stage: Closed, .. }");
    }

    #[test]
    fn a_queue_that_drops_a_runnable_unrun_gives_up_its_reference() {
        let queue = Arc::new(Queue::default());
        let (slot, open) = (Arc::default(), Arc::new(AtomicBool::new(false)));
        let future = gate(Arc::clone(&slot), open);
        let (runnable, registered, handle) = spawn(future, Arc::clone(&queue), 0);
        // SAFETY: spawned on this thread.
        assert!(!unsafe { runnable.run() });
        let waker = slot.lock().unwrap().take().unwrap();
        queue.closed.store(true, Relaxed);
        // The registration, the handle, the waker: the wake's runnable was
        // dropped by the queue.
        waker.wake_by_ref();
        assert_eq!((queue.len(), refs(&handle)), (0, 3));
        drop((registered, waker, handle));
        assert_eq!(Arc::strong_count(&queue), 1, "the task was freed");
    }
}

/// loom tries every interleaving of the two fields that other threads
/// change — the reference count and the `scheduled` flag — between the task's thread
/// (polling, completing, dropping the handle and the registration) and a
/// thread that wakes or lets go of a waker. The task's scheduler counts
/// its own drop: the task must be freed exactly once, whichever thread
/// lets go last. Under loom the header's `thread_only` cell stands for the
/// fields only the task's thread touches, and the free touches it too: a
/// touch on the task's thread not ordered before a free on another (the
/// job of `release_ref`'s `Release` decrement and `Acquire` fence) is
/// reported as a race.
#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::{Arc, Mutex};
    use loom::thread;
    use std::collections::VecDeque;
    use std::future::poll_fn;

    type Queue = Arc<Mutex<VecDeque<Runnable>>>;

    /// Queues into a shared queue; counts its drop, which is the task's.
    struct Scheduler {
        queue: Queue,
        frees: Arc<AtomicUsize>,
    }

    impl Schedule for Scheduler {
        fn schedule(&self, task: Runnable) {
            self.queue.lock().unwrap().push_back(task);
        }
    }

    impl Drop for Scheduler {
        fn drop(&mut self) {
            self.frees.fetch_add(1, Relaxed);
        }
    }

    /// Runs what is queued until nothing is (without holding the lock
    /// during a run: a wake during the poll queues again).
    fn run_queued(queue: &Queue) {
        loop {
            let next = queue.lock().unwrap().pop_front();
            let Some(task) = next else { return };
            // SAFETY: the model spawns and runs on its main thread.
            unsafe { task.run() };
        }
    }

    /// A task waiting for `open`, its latest waker in `slot`; another
    /// thread opens it and wakes that waker, while this one polls it. No
    /// wake may be lost: once that thread is done and the queue run, the
    /// task has finished. With `handle_first`, the handle is dropped
    /// before the task finishes, so the output is dropped at completion.
    fn wake_during_poll(handle_first: bool) {
        loom::model(move || {
            let queue = Queue::default();
            let frees = Arc::new(AtomicUsize::new(0));
            let slot = Arc::new(Mutex::new(None::<Waker>));
            let open = Arc::new(AtomicBool::new(false));
            let finished = Arc::new(AtomicBool::new(false));
            let future = {
                let (slot, open) = (Arc::clone(&slot), Arc::clone(&open));
                let finished = Arc::clone(&finished);
                poll_fn(move |cx| {
                    *slot.lock().unwrap() = Some(cx.waker().clone());
                    if open.load(Acquire) {
                        finished.store(true, Relaxed);
                        Poll::Ready(())
                    } else {
                        Poll::Pending
                    }
                })
            };
            let scheduler = Scheduler {
                queue: Arc::clone(&queue),
                frees: Arc::clone(&frees),
            };
            let (runnable, registered, handle) =
                // SAFETY: the registration stays with the model.
                unsafe { spawn_local(future, scheduler, 0) };
            let mut handle = Some(handle);
            let opener = {
                let slot = Arc::clone(&slot);
                thread::spawn(move || {
                    open.store(true, Release);
                    let waker = slot.lock().unwrap().take();
                    if let Some(waker) = waker {
                        waker.wake();
                    }
                })
            };
            if handle_first {
                drop(handle.take());
            }
            // SAFETY: spawned on this thread.
            unsafe { runnable.run() };
            opener.join().unwrap();
            run_queued(&queue);
            assert!(finished.load(Relaxed), "a wake was lost");
            if let Some(mut handle) = handle {
                let mut cx = Context::from_waker(Waker::noop());
                assert_eq!(Pin::new(&mut handle).poll(&mut cx), Poll::Ready(()));
            }
            drop(registered);
            // The waker of the last poll, if the opener did not take it.
            drop(slot.lock().unwrap().take());
            assert_eq!(frees.load(Relaxed), 1, "freed once");
        });
    }

    #[test]
    fn loom_a_wake_during_the_poll_is_never_lost() {
        wake_during_poll(false);
    }

    #[test]
    fn loom_a_wake_during_the_poll_is_never_lost_with_the_handle_dropped_first() {
        wake_during_poll(true);
    }

    /// A wake folded into a pending schedule: the task is queued already
    /// (woken on its own thread) when another thread publishes data with
    /// a relaxed store and wakes it again. That wake finds `scheduled`
    /// set and only gives up its reference (or nothing, by reference); the
    /// run already queued must see the data through the flag alone — the
    /// wake's `Release`, the run's `Acquire` — as no lock is on that path.
    /// Weakening either loses the wake: the task stays pending.
    fn wake_while_scheduled(by_ref: bool) {
        loom::model(move || {
            let queue = Queue::default();
            let frees = Arc::new(AtomicUsize::new(0));
            let data = Arc::new(AtomicUsize::new(0));
            let slot = Arc::new(Mutex::new(None::<Waker>));
            let future = {
                let (data, slot) = (Arc::clone(&data), Arc::clone(&slot));
                poll_fn(move |cx| {
                    if data.load(Relaxed) == 1 {
                        return Poll::Ready(());
                    }
                    *slot.lock().unwrap() = Some(cx.waker().clone());
                    Poll::Pending
                })
            };
            let scheduler = Scheduler {
                queue: Arc::clone(&queue),
                frees: Arc::clone(&frees),
            };
            let (runnable, registered, mut handle) =
                // SAFETY: the registration stays with the model.
                unsafe { spawn_local(future, scheduler, 0) };
            // SAFETY: spawned on this thread.
            assert!(!unsafe { runnable.run() });
            let waker = slot.lock().unwrap().take().unwrap();
            // Queued again: `scheduled` is set.
            waker.wake_by_ref();
            let other = thread::spawn(move || {
                data.store(1, Relaxed);
                if by_ref {
                    waker.wake_by_ref();
                } else {
                    waker.wake();
                }
            });
            run_queued(&queue);
            other.join().unwrap();
            run_queued(&queue);
            let mut cx = Context::from_waker(Waker::noop());
            let output = Pin::new(&mut handle).poll(&mut cx);
            assert_eq!(output, Poll::Ready(()), "a wake was lost");
            drop((registered, handle));
            drop(slot.lock().unwrap().take());
            assert_eq!(frees.load(Relaxed), 1, "freed once");
        });
    }

    #[test]
    fn loom_a_wake_folded_into_a_pending_schedule_is_seen_by_the_run() {
        wake_while_scheduled(false);
    }

    #[test]
    fn loom_a_wake_by_reference_folded_into_a_pending_schedule_is_seen_by_the_run() {
        wake_while_scheduled(true);
    }

    /// A task that finishes at its first poll, having handed a waker to
    /// another thread, which wakes it: the wake after completion queues
    /// nothing, and whichever thread lets go last frees the task, once.
    #[test]
    fn loom_a_wake_after_completion_frees_the_task_once_on_either_thread() {
        loom::model(|| {
            let queue = Queue::default();
            let frees = Arc::new(AtomicUsize::new(0));
            let give = Arc::new(Mutex::new(None::<Waker>));
            let future = {
                let give = Arc::clone(&give);
                poll_fn(move |cx| {
                    *give.lock().unwrap() = Some(cx.waker().clone());
                    Poll::Ready(())
                })
            };
            let scheduler = Scheduler {
                queue: Arc::clone(&queue),
                frees: Arc::clone(&frees),
            };
            let (runnable, registered, handle) =
                // SAFETY: the registration stays with the model.
                unsafe { spawn_local(future, scheduler, 0) };
            // SAFETY: spawned on this thread.
            unsafe { runnable.run() };
            let waker = give.lock().unwrap().take().unwrap();
            let waker_thread = thread::spawn(move || waker.wake());
            drop(registered);
            drop(handle);
            waker_thread.join().unwrap();
            assert!(queue.lock().unwrap().is_empty(), "nothing to run");
            assert_eq!(frees.load(Relaxed), 1, "freed once");
        });
    }
}
