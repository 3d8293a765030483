//! What each worker (PHP process, or thread under ZTS) keeps in memory:
//! - the `local_block` cache: subjects Redis denied, and until when;
//! - the in-process limiters of `on_error => 'local'`;
//! - which Redis servers were just found unreachable (to skip them for a
//!   moment instead of paying a connect timeout on every check).
//!
//! A forked child starts with all three empty: the parent's entries are
//! dropped the first time the child looks (fork generation changed).
use super::model::{self, State};
use super::{Outcome, Params};
use crate::conn::stats;
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Entries kept per map before expired ones are swept (and, if still full,
/// new ones are not remembered).
const MAX_ENTRIES: usize = 100_000;

/// How long a Redis server that could not be reached is left alone by
/// limiters with an `on_error` fallback.
pub const DOWN_FOR: Duration = Duration::from_secs(1);

struct Block {
    params: Params,
    cost: i64,
    /// Until then an attempt of cost 1 is refused (may be already past).
    until: Instant,
    /// Until then an attempt of `cost` (or more) is refused.
    retry_until: Instant,
    reset_until: Instant,
    remaining: i64,
}

#[derive(Default)]
struct Worker {
    generation: u64,
    blocks: HashMap<Vec<u8>, Block>,
    states: HashMap<Vec<u8>, (Params, State)>,
    down: HashMap<String, Instant>,
}

thread_local! {
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
}

fn with<R>(f: impl FnOnce(&mut Worker) -> R) -> R {
    stats::ensure_fork_handler();
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        let generation = stats::fork_generation();
        if w.generation != generation {
            *w = Worker {
                generation,
                ..Worker::default()
            };
        }
        f(&mut w)
    })
}

/// The cached refusal of an attempt of `cost` on `ident`, if there is one:
/// an attempt of the refused cost or more is refused until the retry_after
/// Redis gave; a smaller one until an attempt of cost 1 would pass.
pub fn blocked(ident: &[u8], params: &Params, cost: i64) -> Option<Outcome> {
    with(|w| {
        let now = Instant::now();
        let b = w.blocks.get(ident)?;
        if b.params != *params || now >= b.retry_until {
            w.blocks.remove(ident);
            return None;
        }
        let until = if cost >= b.cost {
            b.retry_until
        } else {
            b.until
        };
        if now >= until {
            return None;
        }
        Some(Outcome {
            allowed: false,
            limit: params.limit,
            remaining: b.remaining,
            retry_after_us: micros(until - now),
            reset_after_us: micros(b.reset_until.saturating_duration_since(now)),
        })
    })
}

fn micros(d: Duration) -> i64 {
    d.as_micros().min(i64::MAX as u128) as i64
}

/// Remembers a refusal (`o.retry_after_us` > 0) of an attempt of `cost`;
/// `block_us`: how long an attempt of cost 1 is refused. `at` is when the
/// reply arrived: the durations count from then.
pub fn remember_block(
    ident: &[u8],
    params: &Params,
    cost: i64,
    o: &Outcome,
    block_us: i64,
    at: Instant,
) {
    if o.retry_after_us <= 0 {
        return;
    }
    let us = |d: i64| at + Duration::from_micros(d.max(0) as u64);
    with(|w| {
        if w.blocks.len() >= MAX_ENTRIES && !w.blocks.contains_key(ident) {
            let now = Instant::now();
            w.blocks.retain(|_, b| b.retry_until > now);
            if w.blocks.len() >= MAX_ENTRIES {
                return;
            }
        }
        w.blocks.insert(
            ident.to_vec(),
            Block {
                params: *params,
                cost,
                until: us(block_us.min(o.retry_after_us)),
                retry_until: us(o.retry_after_us),
                reset_until: us(o.reset_after_us),
                remaining: o.remaining,
            },
        );
    })
}

/// Drops the cached refusal of `ident` (after an allowed attempt).
pub fn unblock(ident: &[u8]) {
    with(|w| {
        w.blocks.remove(ident);
    })
}

/// Forgets what this worker knows about `ident` (after `reset()`).
pub fn forget(ident: &[u8]) {
    with(|w| {
        w.blocks.remove(ident);
        w.states.remove(ident);
    })
}

/// How much longer the server `pool_key` is to be left alone, if at all.
pub fn down_for(pool_key: &str) -> Option<Duration> {
    with(|w| {
        let now = Instant::now();
        match w.down.get(pool_key) {
            Some(&t) if t > now => Some(t - now),
            Some(_) => {
                w.down.remove(pool_key);
                None
            }
            None => None,
        }
    })
}

pub fn mark_down(pool_key: &str) {
    with(|w| {
        w.down
            .insert(pool_key.to_string(), Instant::now() + DOWN_FOR);
    })
}

/// The wall clock in microseconds (fixed windows are aligned on it, as they
/// are on the Redis server's clock).
fn wall_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

/// All-or-nothing check of several in-process limiters at one instant:
/// consumes `cost` from all of them if all allow it.
pub fn attempt_all(items: &[(&[u8], &Params)], cost: i64) -> (bool, Vec<model::Check>) {
    let now = wall_us();
    with(|w| {
        if w.states.len() >= MAX_ENTRIES {
            w.states.retain(|_, (p, s)| model::idle_after(p, s) > now);
        }
        let mut checks = Vec::with_capacity(items.len());
        let mut all = true;
        for (ident, params) in items {
            let mut st = state_of(w, ident, params);
            let c = model::check(params, &mut st, now, cost, false);
            all &= c.ok;
            checks.push(c);
        }
        if all {
            checks.clear();
            for (ident, params) in items {
                let mut st = state_of(w, ident, params);
                checks.push(model::check(params, &mut st, now, cost, true));
                if let Some(s) = st {
                    if w.states.len() < MAX_ENTRIES || w.states.contains_key(*ident) {
                        w.states.insert(ident.to_vec(), (**params, s));
                    }
                }
            }
        }
        (all, checks)
    })
}

/// What an in-process limiter would answer now, consuming nothing.
pub fn peek(ident: &[u8], params: &Params) -> model::Check {
    let now = wall_us();
    with(|w| {
        let mut st = state_of(w, ident, params);
        model::check(params, &mut st, now, 1, false)
    })
}

fn state_of(w: &Worker, ident: &[u8], params: &Params) -> Option<State> {
    match w.states.get(ident) {
        Some((p, s)) if p == params => Some(s.clone()),
        _ => None,
    }
}
