//! Per-worker counters (`RedisKit\stats()`) and fork detection.
//!
//! A worker is a PHP thread: the only one of a process under NTS (PHP-FPM,
//! the CLI), one of many under ZTS (Apache's threaded MPMs, FrankenPHP).
//! Each thread counts its own work, as its connection pool is its own; the
//! watchdog thread counts a renewal for the thread whose lock it renews.
//!
//! A `pthread_atfork` child handler bumps the fork generation and zeroes the
//! forking thread's counters (the child's only thread), so a forked child
//! starts its own statistics and every pool sees, without a syscall per
//! command, that the sockets it holds are its parent's.
use std::cell::{OnceCell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Once};

static GENERATION: AtomicU64 = AtomicU64::new(0);
static ATFORK: Once = Once::new();

/// One worker's counters: atomics, as the watchdog thread also adds to them.
#[derive(Default)]
pub struct Counters {
    opened: AtomicU64,
    live: AtomicU64,
    reconnects: AtomicU64,
    commands: AtomicU64,
    scripts_loaded: AtomicU64,
    noscript: AtomicU64,
    errors: AtomicU64,
    requests: AtomicU64,
    topology: AtomicU64,
    registrations: AtomicU64,
    round_trips: AtomicU64,
    wait_us: AtomicU64,
    events: [AtomicU64; EVENTS.len()],
}

impl Counters {
    fn zero(&self) {
        for c in self.events.iter().chain([
            &self.opened,
            &self.live,
            &self.reconnects,
            &self.commands,
            &self.scripts_loaded,
            &self.noscript,
            &self.errors,
            &self.requests,
            &self.topology,
            &self.registrations,
            &self.round_trips,
            &self.wait_us,
        ]) {
            c.store(0, Relaxed);
        }
    }
}

thread_local! {
    /// This thread's counters, made at its first count.
    static MINE: OnceCell<Arc<Counters>> = const { OnceCell::new() };
    /// Set on the watchdog thread while it works for another thread's lock.
    static ON_BEHALF: RefCell<Option<Arc<Counters>>> = const { RefCell::new(None) };
}

/// The calling thread's counters (kept by whoever counts for it later).
pub fn current() -> Arc<Counters> {
    MINE.with(|m| m.get_or_init(Default::default).clone())
}

/// Runs `f`, counting what it does for `owner` instead of this thread.
pub fn on_behalf_of<R>(owner: &Arc<Counters>, f: impl FnOnce() -> R) -> R {
    let saved = ON_BEHALF.with(|o| o.replace(Some(owner.clone())));
    let r = f();
    ON_BEHALF.with(|o| *o.borrow_mut() = saved);
    r
}

/// Adds to the counters this thread counts into now; nothing once the
/// thread's storage is gone (a thread's very end).
fn with(f: impl FnOnce(&Counters)) {
    match ON_BEHALF.try_with(|o| o.borrow().clone()).ok().flatten() {
        Some(owner) => f(&owner),
        None => {
            let _ = MINE.try_with(|m| f(m.get_or_init(Default::default)));
        }
    }
}

/// What the primitives count (`RedisKit\stats()`), from replies they read
/// anyway: no extra round trip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    LockAcquired,
    LockContended,
    LockTimedOut,
    LockLost,
    QueuePushed,
    QueueClaimed,
    QueueAcked,
    QueueRedelivered,
    QueueDead,
    /// Jobs a push put in the local spool (Redis unreachable).
    QueueSpooled,
    LimiterAllowed,
    LimiterDenied,
    LimiterLocalBlocks,
    CacheHit,
    CacheMiss,
    CacheCompute,
    CacheWait,
    CacheEarlyRefresh,
    CacheStaleServed,
    CacheLocalHit,
    BoardLocalHit,
}

const EVENTS: [(Event, &str); 21] = [
    (Event::LockAcquired, "lock_acquired"),
    (Event::LockContended, "lock_contended"),
    (Event::LockTimedOut, "lock_timed_out"),
    (Event::LockLost, "lock_lost"),
    (Event::QueuePushed, "queue_pushed"),
    (Event::QueueClaimed, "queue_claimed"),
    (Event::QueueAcked, "queue_acked"),
    (Event::QueueRedelivered, "queue_redelivered"),
    (Event::QueueDead, "queue_dead"),
    (Event::QueueSpooled, "queue_spooled"),
    (Event::LimiterAllowed, "limiter_allowed"),
    (Event::LimiterDenied, "limiter_denied"),
    (Event::LimiterLocalBlocks, "limiter_local_blocks"),
    (Event::CacheHit, "cache_hits"),
    (Event::CacheMiss, "cache_misses"),
    (Event::CacheCompute, "cache_computes"),
    (Event::CacheWait, "cache_waits"),
    (Event::CacheEarlyRefresh, "cache_early_refreshes"),
    (Event::CacheStaleServed, "cache_stale_served"),
    (Event::CacheLocalHit, "cache_local_hits"),
    (Event::BoardLocalHit, "leaderboard_local_hits"),
];

// EVENTS lists the events in their declaration order
const _: () = {
    let mut i = 0;
    while i < EVENTS.len() {
        assert!(EVENTS[i].0 as usize == i);
        i += 1;
    }
};

/// Counts `n` events of one kind.
pub fn count(e: Event, n: u64) {
    if n > 0 {
        with(|c| {
            c.events[e as usize].fetch_add(n, Relaxed);
        });
    }
}

extern "C" fn after_fork_in_child() {
    GENERATION.fetch_add(1, Relaxed);
    // the child's one thread is the one that forked: its counters start
    // again (the other threads' are gone with their threads)
    let _ = MINE.try_with(|m| {
        if let Some(c) = m.get() {
            c.zero();
        }
    });
}

/// Installs the fork handler; called before the first connection is opened
/// (never at module start-up, so nothing happens in the FPM master).
pub fn ensure_fork_handler() {
    ATFORK.call_once(|| {
        // SAFETY: registers a plain function that only touches atomics and
        // this thread's own storage.
        unsafe {
            libc::pthread_atfork(None, None, Some(after_fork_in_child));
        }
    });
}

pub fn fork_generation() -> u64 {
    GENERATION.load(Relaxed)
}

/// A connection was opened: returns the counters it is counted in (its
/// close is counted there too).
pub fn connection_opened() -> Option<Arc<Counters>> {
    let c = ON_BEHALF
        .try_with(|o| o.borrow().clone())
        .ok()
        .flatten()
        .or_else(|| {
            MINE.try_with(|m| m.get_or_init(Default::default).clone())
                .ok()
        })?;
    c.opened.fetch_add(1, Relaxed);
    c.live.fetch_add(1, Relaxed);
    Some(c)
}

pub fn connection_closed(owner: Option<&Arc<Counters>>, generation: u64) {
    if generation == fork_generation() {
        if let Some(c) = owner {
            let _ = c.live.fetch_update(Relaxed, Relaxed, |v| v.checked_sub(1));
        }
    }
}

pub fn reconnect() {
    with(|c| {
        c.reconnects.fetch_add(1, Relaxed);
    });
}

pub fn commands(n: u64) {
    with(|c| {
        c.commands.fetch_add(n, Relaxed);
    });
}

pub fn script_loaded() {
    with(|c| {
        c.scripts_loaded.fetch_add(1, Relaxed);
    });
}

pub fn noscript_fallback() {
    with(|c| {
        c.noscript.fetch_add(1, Relaxed);
    });
}

pub fn error() {
    with(|c| {
        c.errors.fetch_add(1, Relaxed);
    });
}

pub fn topology_query() {
    with(|c| {
        c.topology.fetch_add(1, Relaxed);
    });
}

/// A registry entry sent (`crate::registry`): bookkeeping, not in `commands`.
pub fn registration() {
    with(|c| {
        c.registrations.fetch_add(1, Relaxed);
    });
}

/// One reply read for what was sent, `ns` after sending it.
pub fn round_trip(ns: u64) {
    with(|c| {
        c.round_trips.fetch_add(1, Relaxed);
        c.wait_us.fetch_add(ns / 1_000, Relaxed);
    });
}

pub fn request_started() {
    with(|c| {
        c.requests.fetch_add(1, Relaxed);
    });
}

/// This worker's open connections (phpinfo).
pub fn live_connections() -> u64 {
    current().live.load(Relaxed)
}

/// This worker's counters, in a stable order, for `RedisKit\stats()` and
/// phpinfo.
pub fn snapshot() -> Vec<(&'static str, u64)> {
    let c = current();
    [
        ("connections_opened", c.opened.load(Relaxed)),
        ("live_connections", c.live.load(Relaxed)),
        ("reconnects", c.reconnects.load(Relaxed)),
        ("commands", c.commands.load(Relaxed)),
        ("scripts_loaded", c.scripts_loaded.load(Relaxed)),
        ("noscript_fallbacks", c.noscript.load(Relaxed)),
        ("errors", c.errors.load(Relaxed)),
        ("requests", c.requests.load(Relaxed)),
        ("topology_queries", c.topology.load(Relaxed)),
        ("registrations", c.registrations.load(Relaxed)),
        ("round_trips", c.round_trips.load(Relaxed)),
        ("redis_wait_us", c.wait_us.load(Relaxed)),
    ]
    .into_iter()
    .chain(
        EVENTS
            .iter()
            .zip(&c.events)
            .map(|((_, name), v)| (*name, v.load(Relaxed))),
    )
    .chain([("pid", std::process::id() as u64)])
    .collect()
}
