//! The watchdog: one background thread per process, started by the first
//! acquire that needs it (never at module start-up, so never in the PHP-FPM
//! master), renewing every held lease every ttl/3 on the thread's own
//! connections (the pool is per thread).
//!
//! An acquire only records its lease on the board; the thread is woken only
//! when that lease is due before the thread's next wake-up, so a stream of
//! short lock/unlock cycles costs no thread switch.
//!
//! Fork: threads do not survive fork(2). A child finds the parent's handle
//! with another fork generation and forgets it (board, mutex and all) without
//! touching it, then starts its own thread when one of its own locks needs
//! one; leases taken by the parent are never renewed by the child.
use super::Shared;
use crate::conn::stats;
// std's Mutex/Condvar (futexes), not parking_lot's: parking_lot keeps a
// process-wide table of parked threads, and a fork while this thread is inside
// it leaves the child spinning forever on the next notify.
use std::collections::HashMap;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

struct Entry {
    sh: Arc<Shared>,
    epoch: u64,
    /// The token the lease was taken with (the thread never locks the
    /// object's owner mutex, so a fork can never find it held).
    token: Arc<[u8]>,
    due: Instant,
    last_ok: Instant,
    /// The counters of the thread that took the lease: its renewals are
    /// that thread's work (`RedisKit\stats()`).
    owner: Arc<stats::Counters>,
}

impl Entry {
    fn live(&self) -> bool {
        self.sh.lease.load(SeqCst) == self.epoch
    }
}

#[derive(Default)]
struct Board {
    /// One entry per lock object (keyed by its `Shared` address).
    leases: HashMap<usize, Entry>,
    /// When the thread will wake up next by itself (None: only when told).
    next_wake: Option<Instant>,
    stop: bool,
}

#[derive(Default)]
struct Inner {
    board: Mutex<Board>,
    cv: Condvar,
}

struct Handle {
    inner: Arc<Inner>,
    thread: Option<JoinHandle<()>>,
    generation: u64,
}

/// Only ever locked by PHP threads, never by the watchdog itself, and never
/// across a call into PHP: a fork cannot happen while it is held.
static HANDLE: Mutex<Option<Handle>> = Mutex::new(None);

/// Locks, ignoring poisoning (nothing in here can be left half-updated).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn interval(ttl_ms: u64) -> Duration {
    Duration::from_millis((ttl_ms / 3).max(1))
}

/// Renews the lease `epoch` of `sh`, taken with `token`, until it is
/// released, lost or dropped.
pub(super) fn watch(sh: &Arc<Shared>, epoch: u64, token: Arc<[u8]>) {
    let mut h = lock(&HANDLE);
    let generation = stats::fork_generation();
    if h.as_ref().is_some_and(|h| h.generation != generation) {
        // The parent's thread: it does not exist in this process.
        std::mem::forget(h.take());
    }
    if h.as_ref()
        .is_some_and(|h| h.thread.as_ref().is_some_and(|t| t.is_finished()))
    {
        *h = None; // the thread is gone (it cannot panic, but never rely on it)
    }
    if h.is_none() {
        *h = spawn();
    }
    let Some(handle) = h.as_ref() else {
        return; // could not start a thread: the TTL still bounds the lock
    };
    let now = Instant::now();
    let due = now + interval(sh.ttl_ms.load(SeqCst));
    let mut b = lock(&handle.inner.board);
    b.leases.insert(
        Arc::as_ptr(sh) as usize,
        Entry {
            sh: sh.clone(),
            epoch,
            token,
            due,
            last_ok: now,
            owner: stats::current(),
        },
    );
    if b.next_wake.is_none_or(|w| due < w) {
        handle.inner.cv.notify_one();
    }
}

/// The lease of `sh` was released or the object is going away: drop its
/// entry now. Left on the board until the thread's next wake-up (up to a
/// third of the TTL away), the entries of a stream of short lock cycles on
/// new objects would pile up, each keeping its object alive. The thread is
/// not woken. Never touches a board inherited through fork.
pub(super) fn forget(sh: &Arc<Shared>) {
    let h = lock(&HANDLE);
    let Some(handle) = h.as_ref() else {
        return;
    };
    if handle.generation != stats::fork_generation() {
        return;
    }
    let mut b = lock(&handle.inner.board);
    let k = Arc::as_ptr(sh) as usize;
    if b.leases.get(&k).is_some_and(|e| Arc::ptr_eq(&e.sh, sh)) {
        b.leases.remove(&k);
    }
}

/// Whether the board holds an entry for `sh` (tests).
#[cfg(test)]
pub(super) fn watched(sh: &Arc<Shared>) -> bool {
    let h = lock(&HANDLE);
    h.as_ref().is_some_and(|handle| {
        lock(&handle.inner.board)
            .leases
            .get(&(Arc::as_ptr(sh) as usize))
            .is_some_and(|e| Arc::ptr_eq(&e.sh, sh))
    })
}

/// Module shutdown: stop and join the thread before the extension is unloaded.
pub fn shutdown() {
    let Some(mut h) = lock(&HANDLE).take() else {
        return;
    };
    if h.generation != stats::fork_generation() {
        std::mem::forget(h);
        return;
    }
    lock(&h.inner.board).stop = true;
    h.inner.cv.notify_one();
    if let Some(t) = h.thread.take() {
        let _ = t.join();
    }
}

fn spawn() -> Option<Handle> {
    let inner = Arc::new(Inner::default());
    let theirs = inner.clone();
    // The thread starts with every signal blocked, so PHP's handlers
    // (max_execution_time, pcntl_signal) keep running on the PHP thread.
    let thread = with_signals_blocked(|| {
        std::thread::Builder::new()
            .name("rediskit-watchdog".into())
            .spawn(move || run(&theirs))
    })
    .ok()?;
    Some(Handle {
        inner,
        thread: Some(thread),
        generation: stats::fork_generation(),
    })
}

fn with_signals_blocked<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: plain signal-mask calls on valid, initialised sigset_t values.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let r = f();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        r
    }
}

/// A lease to renew now: board key, object, epoch, token, owner's counters.
type Due = (usize, Arc<Shared>, u64, Arc<[u8]>, Arc<stats::Counters>);

/// What a renewal found.
enum Outcome {
    Renewed(Instant),
    Lost,
    Unreachable,
}

fn run(inner: &Inner) {
    crate::conn::mark_own_thread();
    let mut b = lock(&inner.board);
    loop {
        if b.stop {
            return;
        }
        b.leases.retain(|_, e| e.live());
        let now = Instant::now();
        let due: Vec<Due> = b
            .leases
            .iter()
            .filter(|(_, e)| e.due <= now)
            .map(|(k, e)| (*k, e.sh.clone(), e.epoch, e.token.clone(), e.owner.clone()))
            .collect();
        if due.is_empty() {
            b.next_wake = b.leases.values().map(|e| e.due).min();
            b = match b.next_wake {
                Some(t) => {
                    let left = t.saturating_duration_since(Instant::now());
                    inner
                        .cv
                        .wait_timeout(b, left)
                        .map(|(g, _)| g)
                        .unwrap_or_else(|e| e.into_inner().0)
                }
                None => inner.cv.wait(b).unwrap_or_else(|e| e.into_inner()),
            };
            b.next_wake = None;
            continue;
        }
        // Renew outside the lock: acquires in the PHP thread never wait for Redis here.
        drop(b);
        let outcomes = {
            due.into_iter()
                .map(|(k, sh, epoch, token, owner)| {
                    let outcome = if sh.lease.load(SeqCst) != epoch {
                        Outcome::Lost // released meanwhile: dropped below, nothing is marked
                    } else {
                        let renewed = stats::on_behalf_of(&owner, || {
                            sh.extend_nodes(&token, sh.ttl_ms.load(SeqCst))
                        });
                        match renewed {
                            Ok(true) => Outcome::Renewed(Instant::now()),
                            Ok(false) => Outcome::Lost,
                            Err(_) => Outcome::Unreachable,
                        }
                    };
                    (k, epoch, outcome)
                })
                .collect::<Vec<_>>()
        };
        b = lock(&inner.board);
        for (k, epoch, outcome) in outcomes {
            let Some(e) = b.leases.get_mut(&k) else {
                continue;
            };
            if e.epoch != epoch {
                continue; // acquired again meanwhile: a new lease, scheduled on its own
            }
            let ttl_ms = e.sh.ttl_ms.load(SeqCst);
            match outcome {
                Outcome::Renewed(at) => {
                    e.last_ok = at;
                    e.due = at + interval(ttl_ms);
                }
                Outcome::Lost => stats::on_behalf_of(&e.owner, || e.sh.mark_lost(epoch)),
                Outcome::Unreachable => {
                    // Retry soon; once a whole TTL went by without a renewal
                    // the lock has expired.
                    if e.last_ok.elapsed() >= Duration::from_millis(ttl_ms) {
                        stats::on_behalf_of(&e.owner, || e.sh.mark_lost(epoch));
                    } else {
                        e.due =
                            Instant::now() + (interval(ttl_ms) / 4).max(Duration::from_millis(5));
                    }
                }
            }
        }
    }
}
