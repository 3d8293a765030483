//! Persistent per-worker connections: one per distinct DSN per thread (one
//! per PHP process on NTS, one per thread on ZTS), opened lazily on first use
//! and kept across requests.
//!
//! A connection is taken out of the pool for the duration of one call and put
//! back only if it is healthy, so a connection that hit an error is closed and
//! never reused, and nothing is borrowed while PHP code could run.
use super::dsn::Dsn;
use super::error::{Error, Result};
use super::stats;
use super::wire::{target_series, Fail, Wire};
use crate::metrics::{self, connection as mconn};
use std::cell::RefCell;

/// Few DSNs per worker: a short list beats hashing the key on every call.
#[derive(Default)]
struct Pool {
    generation: u64,
    conns: Vec<(Slot, String, Wire)>,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool::default());
}

impl Pool {
    /// In a forked child the sockets are the parent's: close our copies of
    /// the descriptors without a byte of I/O.
    fn forget_parents(&mut self) {
        let generation = stats::fork_generation();
        if self.generation != generation {
            self.conns.clear();
            self.generation = generation;
        }
    }
}

/// Which of the (at most two) connections per DSN: `Main` carries every
/// ordinary command, `Blocking` only blocking waits (BLPOP), so a wait can be
/// cut short with `CLIENT UNBLOCK` sent over `Main`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Main,
    Blocking,
}

/// A pooled connection with its pool key (kept, so that putting it back
/// allocates nothing).
fn take(slot: Slot, key: &str) -> Option<(String, Wire)> {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.forget_parents();
        let i = p
            .conns
            .iter()
            .position(|(s, k, _)| *s == slot && k == key)?;
        let (_, k, w) = p.conns.swap_remove(i);
        Some((k, w))
    })
}

fn put(slot: Slot, key: String, wire: Wire) {
    if !wire.is_broken() && wire.generation == stats::fork_generation() {
        POOL.with(|p| p.borrow_mut().conns.push((slot, key, wire)));
    }
}

/// Reads, without blocking, what each pooled tracking connection of this
/// thread received (`Wire::drain`); closes those found dead.
pub fn drain_tracking() {
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        p.forget_parents();
        p.conns.retain_mut(|(_, _, w)| w.session == 0 || w.drain());
    });
}

/// Number of connections this thread keeps open.
pub fn pooled() -> usize {
    POOL.with(|p| p.borrow().conns.len())
}

/// Closes this thread's connections (main and blocking) with this pool key.
pub fn discard(key: &str) {
    POOL.with(|p| p.borrow_mut().conns.retain(|(_, k, _)| k != key));
}

/// Closes every pooled connection of this thread (tests, and `RedisKit\reset()`).
pub fn close_all() {
    POOL.with(|p| p.borrow_mut().conns.clear());
}

/// A failed call, and whether the request may have reached the server.
pub struct CallError {
    pub error: Error,
    pub maybe_sent: bool,
}

/// Runs `f` on a live connection to `dsn`.
///
/// A dead pooled connection (server restarted, `CLIENT KILL`, idle timeout) is
/// noticed before anything is written and replaced. If the connection breaks
/// after the request was sent, `f` runs once more on a new connection only
/// when `retry_safe` (a read, or a script that cannot apply twice); otherwise
/// the caller gets `Error::Connection` and the next call reconnects.
///
/// The error tells a failure to connect (nothing sent: the caller may try
/// another node) from a failure after sending.
pub fn with_wire<R>(
    dsn: &Dsn,
    slot: Slot,
    retry_safe: bool,
    mut f: impl FnMut(&mut Wire) -> std::result::Result<R, Fail>,
) -> std::result::Result<R, CallError> {
    stats::ensure_fork_handler();
    let not_sent = |error| CallError {
        error,
        maybe_sent: false,
    };
    let key = dsn.pool_key();
    let mut retried = false;
    loop {
        let (owned_key, mut wire) = match take(slot, key) {
            Some((k, mut w)) => {
                if w.is_alive() {
                    (k, w)
                } else {
                    drop(w);
                    stats::reconnect();
                    metrics::add(target_series(dsn), mconn::RECONNECTS, 1);
                    (k, connect(dsn).map_err(not_sent)?)
                }
            }
            None => (key.to_string(), connect(dsn).map_err(not_sent)?),
        };
        match f(&mut wire) {
            Ok(r) => {
                put(slot, owned_key, wire);
                return Ok(r);
            }
            Err(fail) => {
                drop(wire);
                let may_retry = match &fail {
                    Fail::NotSent(_) => true,
                    Fail::Lost(_) => retry_safe,
                    Fail::Timeout(_) => false,
                };
                if may_retry && !retried {
                    retried = true;
                    stats::reconnect();
                    metrics::add(target_series(dsn), mconn::RECONNECTS, 1);
                    continue;
                }
                stats::error();
                let class = match fail {
                    Fail::NotSent(_) => mconn::ERR_CONNECT,
                    Fail::Timeout(_) => mconn::ERR_TIMEOUT,
                    Fail::Lost(_) => mconn::ERR_LOST,
                };
                metrics::add(target_series(dsn), class, 1);
                let maybe_sent = !matches!(fail, Fail::NotSent(_));
                return Err(CallError {
                    error: Error::Connection(describe(dsn, fail)),
                    maybe_sent,
                });
            }
        }
    }
}

fn connect(dsn: &Dsn) -> Result<Wire> {
    Wire::connect(dsn).map_err(|f| {
        stats::error();
        metrics::add(target_series(dsn), mconn::ERR_CONNECT, 1);
        Error::Connection(match f {
            Fail::NotSent(m) | Fail::Lost(m) | Fail::Timeout(m) => m,
        })
    })
}

/// The suffixes `describe` gives a failure after which the command may
/// have run.
const MAYBE_RUN: [&str; 2] = [
    "(the command may or may not have run)",
    "(read_timeout; the command may still run)",
];

/// Whether `e` is a connection failure before the command was sent (a
/// connect that failed or timed out, no master known): the command did not
/// run, so doing it another way cannot make it happen twice.
pub fn nothing_sent(e: &Error) -> bool {
    matches!(e, Error::Connection(m) if !MAYBE_RUN.iter().any(|s| m.contains(s)))
}

fn describe(dsn: &Dsn, fail: Fail) -> String {
    let at = dsn.redacted_node();
    match fail {
        Fail::NotSent(m) => format!("Redis at {at}: {m}"),
        Fail::Lost(m) => format!("Redis at {at}: {m} {}", MAYBE_RUN[0]),
        Fail::Timeout(m) => format!("Redis at {at}: {m} {}", MAYBE_RUN[1]),
    }
}
