//! Per-process counters (`RedisKit\stats()`) and fork detection.
//!
//! A `pthread_atfork` child handler bumps the fork generation and zeroes the
//! counters, so a forked child starts its own statistics and every pool sees,
//! without a syscall per command, that the sockets it holds are its parent's.
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Once;

static GENERATION: AtomicU64 = AtomicU64::new(0);
static OPENED: AtomicU64 = AtomicU64::new(0);
static RECONNECTS: AtomicU64 = AtomicU64::new(0);
static COMMANDS: AtomicU64 = AtomicU64::new(0);
static SCRIPTS_LOADED: AtomicU64 = AtomicU64::new(0);
static NOSCRIPT: AtomicU64 = AtomicU64::new(0);
static ERRORS: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicU64 = AtomicU64::new(0);
static REQUESTS: AtomicU64 = AtomicU64::new(0);
static TOPOLOGY: AtomicU64 = AtomicU64::new(0);
static ATFORK: Once = Once::new();

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
    LimiterAllowed,
    LimiterDenied,
    LimiterLocalBlocks,
    CacheHit,
    CacheMiss,
    CacheCompute,
    CacheWait,
    CacheEarlyRefresh,
    CacheStaleServed,
}

const EVENTS: [(Event, &str); 18] = [
    (Event::LockAcquired, "lock_acquired"),
    (Event::LockContended, "lock_contended"),
    (Event::LockTimedOut, "lock_timed_out"),
    (Event::LockLost, "lock_lost"),
    (Event::QueuePushed, "queue_pushed"),
    (Event::QueueClaimed, "queue_claimed"),
    (Event::QueueAcked, "queue_acked"),
    (Event::QueueRedelivered, "queue_redelivered"),
    (Event::QueueDead, "queue_dead"),
    (Event::LimiterAllowed, "limiter_allowed"),
    (Event::LimiterDenied, "limiter_denied"),
    (Event::LimiterLocalBlocks, "limiter_local_blocks"),
    (Event::CacheHit, "cache_hits"),
    (Event::CacheMiss, "cache_misses"),
    (Event::CacheCompute, "cache_computes"),
    (Event::CacheWait, "cache_waits"),
    (Event::CacheEarlyRefresh, "cache_early_refreshes"),
    (Event::CacheStaleServed, "cache_stale_served"),
];

// EVENTS lists the events in their declaration order
const _: () = {
    let mut i = 0;
    while i < EVENTS.len() {
        assert!(EVENTS[i].0 as usize == i);
        i += 1;
    }
};

static EVENT_COUNTS: [AtomicU64; EVENTS.len()] = [const { AtomicU64::new(0) }; EVENTS.len()];

/// Counts `n` events of one kind.
pub fn count(e: Event, n: u64) {
    if n > 0 {
        EVENT_COUNTS[e as usize].fetch_add(n, Relaxed);
    }
}

extern "C" fn after_fork_in_child() {
    GENERATION.fetch_add(1, Relaxed);
    for c in &EVENT_COUNTS {
        c.store(0, Relaxed);
    }
    for c in [
        &OPENED,
        &RECONNECTS,
        &COMMANDS,
        &SCRIPTS_LOADED,
        &NOSCRIPT,
        &ERRORS,
        &LIVE,
        &REQUESTS,
        &TOPOLOGY,
    ] {
        c.store(0, Relaxed);
    }
}

/// Installs the fork handler; called before the first connection is opened
/// (never at module start-up, so nothing happens in the FPM master).
pub fn ensure_fork_handler() {
    ATFORK.call_once(|| {
        // SAFETY: registers a plain function that only touches atomics.
        unsafe {
            libc::pthread_atfork(None, None, Some(after_fork_in_child));
        }
    });
}

pub fn fork_generation() -> u64 {
    GENERATION.load(Relaxed)
}

pub fn connection_opened() {
    OPENED.fetch_add(1, Relaxed);
    LIVE.fetch_add(1, Relaxed);
}

pub fn connection_closed(generation: u64) {
    if generation == fork_generation() {
        let _ = LIVE.fetch_update(Relaxed, Relaxed, |v| v.checked_sub(1));
    }
}

pub fn reconnect() {
    RECONNECTS.fetch_add(1, Relaxed);
}

pub fn commands(n: u64) {
    COMMANDS.fetch_add(n, Relaxed);
}

pub fn script_loaded() {
    SCRIPTS_LOADED.fetch_add(1, Relaxed);
}

pub fn noscript_fallback() {
    NOSCRIPT.fetch_add(1, Relaxed);
}

pub fn error() {
    ERRORS.fetch_add(1, Relaxed);
}

pub fn topology_query() {
    TOPOLOGY.fetch_add(1, Relaxed);
}

pub fn request_started() {
    REQUESTS.fetch_add(1, Relaxed);
}

pub fn live_connections() -> u64 {
    LIVE.load(Relaxed)
}

/// Snapshot, in a stable order, for `RedisKit\stats()` and phpinfo.
pub fn snapshot() -> Vec<(&'static str, u64)> {
    [
        ("connections_opened", OPENED.load(Relaxed)),
        ("live_connections", LIVE.load(Relaxed)),
        ("reconnects", RECONNECTS.load(Relaxed)),
        ("commands", COMMANDS.load(Relaxed)),
        ("scripts_loaded", SCRIPTS_LOADED.load(Relaxed)),
        ("noscript_fallbacks", NOSCRIPT.load(Relaxed)),
        ("errors", ERRORS.load(Relaxed)),
        ("requests", REQUESTS.load(Relaxed)),
        ("topology_queries", TOPOLOGY.load(Relaxed)),
    ]
    .into_iter()
    .chain(
        EVENTS
            .iter()
            .zip(&EVENT_COUNTS)
            .map(|((_, name), c)| (*name, c.load(Relaxed))),
    )
    .chain([("pid", std::process::id() as u64)])
    .collect()
}
