//! The watchdog: one background thread per process, started by the first
//! acquire that needs it (never at module start-up, so never in the PHP-FPM
//! master), renewing every held lease every ttl/3 on the thread's own
//! connections (the pool is per thread).
//!
//! Fork: threads do not survive fork(2). A child finds the parent's handle
//! with another fork generation, forgets it without touching it and starts its
//! own thread when one of its own locks needs it; leases taken by the parent
//! are never renewed by the child.
use super::{Shared, LOST};
use crate::conn::stats;
use parking_lot::Mutex;
use std::sync::atomic::Ordering::SeqCst;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

enum Msg {
    Watch(Arc<Shared>, u64),
    Stop,
}

struct Handle {
    tx: Sender<Msg>,
    thread: Option<JoinHandle<()>>,
    generation: u64,
}

/// Only ever locked by PHP threads, never by the watchdog itself, and never
/// across a call into PHP: a fork cannot happen while it is held.
static HANDLE: Mutex<Option<Handle>> = parking_lot::const_mutex(None);

/// Renews the lease `epoch` of `sh` until it is released, lost or dropped.
pub(super) fn watch(sh: &Arc<Shared>, epoch: u64) {
    let mut h = HANDLE.lock();
    let generation = stats::fork_generation();
    if h.as_ref().is_some_and(|h| h.generation != generation) {
        // The parent's thread: it does not exist in this process.
        std::mem::forget(h.take());
    }
    for _ in 0..2 {
        if h.is_none() {
            *h = spawn();
        }
        match h.as_ref() {
            Some(handle) if handle.tx.send(Msg::Watch(sh.clone(), epoch)).is_ok() => return,
            Some(_) => *h = None, // the thread is gone: start another
            None => return,       // could not start a thread: the TTL still bounds the lock
        }
    }
}

/// Module shutdown: stop and join the thread before the extension is unloaded.
pub fn shutdown() {
    let Some(mut h) = HANDLE.lock().take() else {
        return;
    };
    if h.generation != stats::fork_generation() {
        std::mem::forget(h);
        return;
    }
    let _ = h.tx.send(Msg::Stop);
    if let Some(t) = h.thread.take() {
        let _ = t.join();
    }
}

fn spawn() -> Option<Handle> {
    let (tx, rx) = channel();
    // The thread starts with every signal blocked, so PHP's handlers
    // (max_execution_time, pcntl_signal) keep running on the PHP thread.
    let thread = with_signals_blocked(|| {
        std::thread::Builder::new()
            .name("rediskit-watchdog".into())
            .spawn(move || run(rx))
    })
    .ok()?;
    Some(Handle {
        tx,
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

struct Entry {
    sh: Arc<Shared>,
    epoch: u64,
    due: Instant,
    last_ok: Instant,
}

impl Entry {
    fn live(&self) -> bool {
        self.sh.lease.load(SeqCst) == self.epoch
    }

    fn lost(&self) {
        let _ = self
            .sh
            .lease
            .compare_exchange(self.epoch, self.epoch | LOST, SeqCst, SeqCst);
    }
}

fn interval(ttl_ms: u64) -> Duration {
    Duration::from_millis((ttl_ms / 3).max(1))
}

fn run(rx: Receiver<Msg>) {
    let mut leases: Vec<Entry> = Vec::new();
    loop {
        leases.retain(Entry::live);
        let now = Instant::now();
        let wait = leases
            .iter()
            .map(|e| e.due.saturating_duration_since(now))
            .min()
            .unwrap_or(Duration::from_secs(3600));
        match rx.recv_timeout(wait) {
            Ok(Msg::Watch(sh, epoch)) => {
                let due = now + interval(sh.ttl_ms.load(SeqCst));
                leases.push(Entry {
                    sh,
                    epoch,
                    due,
                    last_ok: now,
                });
                continue;
            }
            Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => {}
        }
        let now = Instant::now();
        for e in leases.iter_mut().filter(|e| e.due <= now) {
            if !e.live() {
                continue;
            }
            let ttl_ms = e.sh.ttl_ms.load(SeqCst);
            match e.sh.extend_nodes(ttl_ms) {
                Ok(true) => {
                    e.last_ok = Instant::now();
                    e.due = e.last_ok + interval(ttl_ms);
                }
                Ok(false) => e.lost(),
                Err(_) => {
                    // Redis unreachable: retry soon; once a whole TTL went by
                    // without a renewal the lock has expired.
                    if e.last_ok.elapsed() >= Duration::from_millis(ttl_ms) {
                        e.lost();
                    } else {
                        e.due =
                            Instant::now() + (interval(ttl_ms) / 4).max(Duration::from_millis(5));
                    }
                }
            }
        }
    }
}
