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

extern "C" fn after_fork_in_child() {
    GENERATION.fetch_add(1, Relaxed);
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
    vec![
        ("connections_opened", OPENED.load(Relaxed)),
        ("live_connections", LIVE.load(Relaxed)),
        ("reconnects", RECONNECTS.load(Relaxed)),
        ("commands", COMMANDS.load(Relaxed)),
        ("scripts_loaded", SCRIPTS_LOADED.load(Relaxed)),
        ("noscript_fallbacks", NOSCRIPT.load(Relaxed)),
        ("errors", ERRORS.load(Relaxed)),
        ("requests", REQUESTS.load(Relaxed)),
        ("topology_queries", TOPOLOGY.load(Relaxed)),
        ("pid", std::process::id() as u64),
    ]
}
