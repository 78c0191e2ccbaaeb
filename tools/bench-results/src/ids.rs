//! The names a benchmark run and its report share: the groups, the
//! implementations each group measures (in the order the charts draw
//! them), the primitives of `parts`, and the cases criterion's ids carry.
//! The benchmarks (`benchmarks/`) name their criterion benchmarks and
//! write their JSON with these; the report (`bench-report`) reads and
//! expects them. A measure's id is `<group>/<case>/<name>`
//! ([`Group::measure`]).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A group of chapter 10: criterion's group name, and the first part of
/// its measures' ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    /// `block_on`: one call on three futures ([`BLOCK_ON_CASES`]).
    BlockOn,
    /// `spawn`: a task's whole life.
    Spawn,
    /// `ping_pong`: one task waking another.
    PingPong,
    /// `wake_many`: many wakes before a poll.
    WakeMany,
    /// `parts`: the price of single primitives.
    Parts,
    /// `timers`: measured by hand, `timers.json`.
    Timers,
    /// `echo`: measured by hand, `echo.json`.
    Echo,
}

impl Group {
    /// Every group, criterion's first, in the order a run runs them.
    pub const ALL: [Group; 7] = [
        Group::BlockOn,
        Group::Spawn,
        Group::PingPong,
        Group::WakeMany,
        Group::Parts,
        Group::Timers,
        Group::Echo,
    ];

    /// The groups measured by hand, outside criterion.
    pub const HAND_MEASURED: [Group; 2] = [Group::Timers, Group::Echo];

    /// Its name: `block_on`, `ping_pong`, `timers`.
    pub const fn name(self) -> &'static str {
        match self {
            Group::BlockOn => "block_on",
            Group::Spawn => "spawn",
            Group::PingPong => "ping_pong",
            Group::WakeMany => "wake_many",
            Group::Parts => "parts",
            Group::Timers => "timers",
            Group::Echo => "echo",
        }
    }

    /// The id of a measure of this group: `<group>/<case>/<name>`
    /// (`spawn/100000/tokio`, `timers/p99/book-ch07`).
    pub fn measure(self, case: impl fmt::Display, name: impl fmt::Display) -> String {
        format!("{}/{case}/{name}", self.name())
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// An implementation measured: `book-ch02` … `book-ch11` for the book's
/// code (the chapter that builds it), the crate's name for a library.
/// The JSON writes it as its [`id`](Impl::id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impl {
    /// Chapter 2's `TimerFuture`, a thread per timer.
    BookCh02,
    /// Chapter 3's first executor.
    BookCh03,
    /// Chapter 3's fixed executor.
    BookCh03Fixed,
    /// Chapter 6's `block_on`.
    BookCh06,
    /// Chapter 7's reactor's timers.
    BookCh07,
    /// Chapter 9's runtime.
    BookCh09,
    /// Chapter 10's runtime, or its cached `block_on`.
    BookCh10,
    /// Chapter 10's parker, uncached.
    BookCh10Parker,
    /// Chapter 11's runtime after its first step (tasks in one allocation).
    BookCh11Step1,
    /// Chapter 11's runtime after its second step (the local queue).
    BookCh11Step2,
    /// Chapter 11's runtime, every step taken.
    BookCh11,
    /// pollster.
    Pollster,
    /// futures.
    Futures,
    /// futures-lite.
    FuturesLite,
    /// async-executor.
    AsyncExecutor,
    /// tokio.
    Tokio,
    /// async-io.
    AsyncIo,
}

impl Impl {
    /// Every implementation.
    pub const ALL: [Impl; 17] = [
        Impl::BookCh02,
        Impl::BookCh03,
        Impl::BookCh03Fixed,
        Impl::BookCh06,
        Impl::BookCh07,
        Impl::BookCh09,
        Impl::BookCh10,
        Impl::BookCh10Parker,
        Impl::BookCh11Step1,
        Impl::BookCh11Step2,
        Impl::BookCh11,
        Impl::Pollster,
        Impl::Futures,
        Impl::FuturesLite,
        Impl::AsyncExecutor,
        Impl::Tokio,
        Impl::AsyncIo,
    ];

    /// The chart label and the last part of a measure's id.
    pub const fn id(self) -> &'static str {
        match self {
            Impl::BookCh02 => "book-ch02",
            Impl::BookCh03 => "book-ch03",
            Impl::BookCh03Fixed => "book-ch03-fixed",
            Impl::BookCh06 => "book-ch06",
            Impl::BookCh07 => "book-ch07",
            Impl::BookCh09 => "book-ch09",
            Impl::BookCh10 => "book-ch10",
            Impl::BookCh10Parker => "book-ch10-parker",
            Impl::BookCh11Step1 => "book-ch11-step1",
            Impl::BookCh11Step2 => "book-ch11-step2",
            Impl::BookCh11 => "book-ch11",
            Impl::Pollster => "pollster",
            Impl::Futures => "futures",
            Impl::FuturesLite => "futures-lite",
            Impl::AsyncExecutor => "async-executor",
            Impl::Tokio => "tokio",
            Impl::AsyncIo => "async-io",
        }
    }
}

impl fmt::Display for Impl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

/// A primitive of the `parts` group (not an implementation: its id takes
/// an implementation's place, `parts/op/<part>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// `Condvar::notify_one` with nobody waiting.
    CondvarNotify,
    /// An uncontended `Mutex<VecDeque>`, a push and a pop.
    Mutex,
    /// Chapter 8's notifier's write to its eventfd.
    EventfdWrite,
    /// `epoll_wait` with a zero timeout, nothing ready.
    EpollWait0,
    /// Re-arming a oneshot entry with `EPOLL_CTL_MOD`.
    EpollCtlMod,
    /// `Instant::now()`.
    Clock,
    /// A `HashMap` remove and insert (SipHash).
    HashmapSip,
    /// `Arc::new` and its drop.
    ArcNew,
    /// `Box::pin` of a small future and its drop.
    BoxPinFuture,
}

impl Part {
    /// Every part, in the order they run and the chart draws them.
    pub const ALL: [Part; 9] = [
        Part::CondvarNotify,
        Part::Mutex,
        Part::EventfdWrite,
        Part::EpollWait0,
        Part::EpollCtlMod,
        Part::Clock,
        Part::HashmapSip,
        Part::ArcNew,
        Part::BoxPinFuture,
    ];

    /// The last part of its measure's id.
    pub const fn id(self) -> &'static str {
        match self {
            Part::CondvarNotify => "condvar-notify",
            Part::Mutex => "mutex",
            Part::EventfdWrite => "eventfd-write",
            Part::EpollWait0 => "epoll-wait-0",
            Part::EpollCtlMod => "epoll-ctl-mod",
            Part::Clock => "clock",
            Part::HashmapSip => "hashmap-sip",
            Part::ArcNew => "arc-new",
            Part::BoxPinFuture => "box-pin-future",
        }
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

/// The `block_on` group's implementations, in the order the charts draw
/// them: the book's in the order the book builds them, then the libraries.
pub const BLOCK_ON: [Impl; 6] = [
    Impl::BookCh06,
    Impl::BookCh10Parker,
    Impl::BookCh10,
    Impl::Pollster,
    Impl::Futures,
    Impl::FuturesLite,
];
/// The executors of `spawn`, `ping_pong` and `wake_many`.
pub const EXECUTORS: [Impl; 10] = [
    Impl::BookCh03,
    Impl::BookCh03Fixed,
    Impl::BookCh09,
    Impl::BookCh10,
    Impl::BookCh11Step1,
    Impl::BookCh11Step2,
    Impl::BookCh11,
    Impl::AsyncExecutor,
    Impl::Tokio,
    Impl::Futures,
];
/// The timers' implementations.
pub const TIMERS: [Impl; 8] = [
    Impl::BookCh02,
    Impl::BookCh07,
    Impl::BookCh09,
    Impl::BookCh11Step1,
    Impl::BookCh11Step2,
    Impl::BookCh11,
    Impl::Tokio,
    Impl::AsyncIo,
];
/// The echo servers.
pub const ECHO: [Impl; 5] = [
    Impl::BookCh09,
    Impl::BookCh10,
    Impl::BookCh11,
    Impl::Tokio,
    Impl::AsyncIo,
];

/// The cases of `block_on`: a future ready at once, one that wakes itself
/// once, one woken from another thread.
pub const BLOCK_ON_CASES: [&str; 3] = ["ready", "once", "thread"];
/// `spawn`'s case in a full run: the tasks spawned per iteration.
pub const SPAWN_TASKS: usize = 100_000;
/// `ping_pong`'s case in a full run: the hand-offs per iteration.
pub const PING_PONG_TURNS: usize = 10_000;
/// `wake_many`'s case: the wakes per poll.
pub const WAKES_PER_POLL: usize = 100;
/// `parts`' one case: one operation per iteration.
pub const PARTS_CASE: &str = "op";
/// The echo group's connection counts in a full run.
pub const ECHO_CONNECTIONS: [u64; 3] = [1, 100, 1000];

/// The ids of `list`, in its order: for a list of `&str` where one is
/// wanted (a chart's bars).
pub const fn impl_ids<const N: usize>(list: [Impl; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = list[i].id();
        i += 1;
    }
    out
}

/// The ids of `list`, in its order.
pub const fn part_ids<const N: usize>(list: [Part; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = list[i].id();
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_implementation_is_written_as_its_id_and_read_back() {
        for implementation in Impl::ALL {
            let json = serde_json::to_string(&implementation).unwrap();
            assert_eq!(json, format!("\"{}\"", implementation.id()));
            assert_eq!(serde_json::from_str::<Impl>(&json).unwrap(), implementation);
        }
        assert!(serde_json::from_str::<Impl>("\"smol\"").is_err());
    }

    #[test]
    fn ids_are_unique_and_measure_ids_have_three_parts() {
        let mut names: Vec<&str> = Impl::ALL.iter().map(|i| i.id()).collect();
        names.extend(Part::ALL.iter().map(|p| p.id()));
        names.extend(Group::ALL.iter().map(|g| g.name()));
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "a name used twice");
        assert_eq!(
            Group::Spawn.measure(SPAWN_TASKS, Impl::Tokio),
            "spawn/100000/tokio"
        );
        assert_eq!(
            Group::Parts.measure(PARTS_CASE, Part::EpollWait0),
            "parts/op/epoll-wait-0"
        );
        assert_eq!(
            impl_ids(ECHO),
            ["book-ch09", "book-ch10", "book-ch11", "tokio", "async-io"]
        );
        assert_eq!(part_ids(Part::ALL)[8], "box-pin-future");
    }
}
