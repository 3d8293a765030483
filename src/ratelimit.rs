//! Rate limits checked by one atomic script per check (one round trip),
//! timed by the Redis server's clock. A refused attempt consumes nothing.
//!
//! Algorithms (per subject key):
//! - `sliding_window`: an exact log. A list of the microsecond times of the
//!   allowed units; an attempt passes if the units in the last `window`
//!   (strictly newer than now - window) plus its cost fit in `limit`.
//! - `fixed_window`: a counter per window aligned on multiples of `window`
//!   since the Unix epoch; with option `window_start => 'first_hit'`
//!   (`FixedWindowFirstHit`), a counter whose window starts with the first
//!   unit it admits and whose key expires with that window (Laravel's and
//!   Symfony's fixed window). Its state does not depend on the limit or
//!   window, so limiters of one name with other settings read it too.
//! - `token_bucket`: `burst` tokens, refilled continuously at limit/window;
//!   the bucket's tokens (in exact fractional units) and their time.
//! - `gcra`: the same decisions as `token_bucket`, stored as one number (the
//!   theoretical arrival time).
//!
//! Key layout: `<prefix><name>:<alg>:{<key>}` with `<alg>` one of `sw`, `fw`,
//! `fwh` (first_hit), `tb`, `gcra`. The subject key is the Redis Cluster hash tag, so every
//! limiter's state for one subject lands in one slot and `attempt_all` can
//! touch them in one script.
pub mod local;
#[cfg(test)]
mod lua_tests;
pub mod model;

use crate::conn::stats::{self, Event};
use crate::conn::{self, shown_float, Args, Dsn, Error, Result, ScriptCall, Value};
use crate::metrics::{self, hot::Hot, limiter as ml, Series};
use crate::options::{Connection, OptValue, Options, Settings};
use crate::scripts;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const OPTIONS: &[&str] = &[
    "algorithm",
    "burst",
    "on_error",
    "local_block",
    "prefix",
    "window_start",
    "wait_replicas",
    "wait_timeout",
];

/// Integers the scripts handle must stay below this (Lua numbers are doubles).
const SAFE: i128 = 1 << 53;
/// Largest limit for `sliding_window` (one list element per unit).
const MAX_LOG_LIMIT: i64 = 10_000_000;
const MAX_LIMIT: i64 = 1_000_000_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    SlidingWindow,
    FixedWindow,
    /// `fixed_window` with `window_start => 'first_hit'`.
    FixedWindowFirstHit,
    TokenBucket,
    Gcra,
}

impl Algorithm {
    pub fn parse(s: &str) -> Result<Algorithm> {
        match s {
            "sliding_window" => Ok(Algorithm::SlidingWindow),
            "fixed_window" => Ok(Algorithm::FixedWindow),
            "token_bucket" => Ok(Algorithm::TokenBucket),
            "gcra" => Ok(Algorithm::Gcra),
            _ => Err(Error::invalid(format!(
                "RateLimiter: unknown algorithm '{}' (use 'sliding_window', 'fixed_window', 'token_bucket' or 'gcra')",
                conn::shown(s.as_bytes())
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Algorithm::SlidingWindow => "sliding_window",
            Algorithm::FixedWindow | Algorithm::FixedWindowFirstHit => "fixed_window",
            Algorithm::TokenBucket => "token_bucket",
            Algorithm::Gcra => "gcra",
        }
    }

    fn code(self) -> i64 {
        match self {
            Algorithm::SlidingWindow => 1,
            Algorithm::FixedWindow => 2,
            Algorithm::TokenBucket => 3,
            Algorithm::Gcra => 4,
            Algorithm::FixedWindowFirstHit => 5,
        }
    }

    /// The part of the key naming the algorithm (the state formats differ).
    fn tag(self) -> &'static str {
        match self {
            Algorithm::SlidingWindow => "sw",
            Algorithm::FixedWindow => "fw",
            Algorithm::FixedWindowFirstHit => "fwh",
            Algorithm::TokenBucket => "tb",
            Algorithm::Gcra => "gcra",
        }
    }

    /// The script checking one limiter of this algorithm (same arguments
    /// and reply as `rl_attempt.lua` with one limiter).
    fn attempt_script(self) -> &'static conn::Script {
        match self {
            Algorithm::SlidingWindow => &scripts::RL_SW,
            Algorithm::FixedWindow => &scripts::RL_FW,
            Algorithm::FixedWindowFirstHit => &scripts::RL_FWH,
            Algorithm::TokenBucket => &scripts::RL_TB,
            Algorithm::Gcra => &scripts::RL_GCRA,
        }
    }

    fn bucket_like(self) -> bool {
        matches!(self, Algorithm::TokenBucket | Algorithm::Gcra)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    Throw,
    Allow,
    Deny,
    Local,
}

/// The validated numbers of one limiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub alg: Algorithm,
    pub limit: i64,
    pub window_us: i64,
    /// The most that can pass at once: `burst` for token_bucket and gcra,
    /// `limit` for the window algorithms.
    pub burst: i64,
    /// limit / gcd(limit, window_us)
    pub(crate) l_red: i64,
    /// window_us / gcd(limit, window_us)
    pub(crate) w_red: i64,
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Params {
    pub fn new(alg: Algorithm, limit: i64, window: f64, burst: Option<i64>) -> Result<Params> {
        let max = if alg == Algorithm::SlidingWindow {
            MAX_LOG_LIMIT
        } else {
            MAX_LIMIT
        };
        if limit < 1 {
            return Err(Error::invalid(format!(
                "RateLimiter: limit must be at least 1, got {limit}"
            )));
        }
        if limit > max {
            return Err(Error::invalid(format!(
                "RateLimiter: limit must be at most {max} for {}, got {limit}",
                alg.name()
            )));
        }
        if !window.is_finite() || window <= 0.0 {
            return Err(Error::invalid(format!(
                "RateLimiter: window must be a positive number of seconds, got {}",
                shown_float(window)
            )));
        }
        if window >= 1e9 {
            return Err(Error::invalid(format!(
                "RateLimiter: window must be below 1e9 seconds, got {}",
                shown_float(window)
            )));
        }
        let window_us = (window * 1e6).round() as i64;
        if window_us < 1 {
            return Err(Error::invalid(format!(
                "RateLimiter: window must be at least 1 microsecond (0.000001), got {}",
                shown_float(window)
            )));
        }
        let burst = match (alg.bucket_like(), burst) {
            (true, b) => b.unwrap_or(limit),
            (false, None) => limit,
            (false, Some(_)) => {
                return Err(Error::invalid(format!(
                "RateLimiter: option 'burst' only applies to 'token_bucket' and 'gcra', not '{}'",
                alg.name()
            )))
            }
        };
        if !(1..=MAX_LIMIT).contains(&burst) {
            return Err(Error::invalid(format!(
                "RateLimiter: burst must be between 1 and {MAX_LIMIT}, got {burst}"
            )));
        }
        let g = gcd(window_us, limit);
        let p = Params {
            alg,
            limit,
            window_us,
            burst,
            l_red: limit / g,
            w_red: window_us / g,
        };
        let (l, w, b) = (p.l_red as i128, p.w_red as i128, burst as i128);
        match alg {
            Algorithm::TokenBucket if b * w + l >= SAFE => Err(Error::invalid(format!(
                "RateLimiter: token_bucket cannot count {burst} tokens at {limit} per {} s exactly (tokens are counted in 1/{w} units, the bucket would hold more than 2^53 of them); use 'gcra', which decides the same way",
                shown_float(window)
            ))),
            Algorithm::Gcra if (b + 1) * l >= SAFE || b * w / l >= 4_000_000_000_000_000 => Err(Error::invalid(format!(
                "RateLimiter: gcra cannot represent burst {burst} at {limit} per {} s exactly (the numbers exceed 2^53)",
                shown_float(window)
            ))),
            _ => Ok(p),
        }
    }

    pub fn check_cost(&self, cost: i64) -> Result<()> {
        if cost < 1 {
            return Err(Error::invalid(format!(
                "RateLimiter: cost must be at least 1, got {cost}"
            )));
        }
        if cost > self.burst {
            let what = if self.alg.bucket_like() {
                "burst"
            } else {
                "limit"
            };
            return Err(Error::invalid(format!(
                "RateLimiter: cost {cost} is more than this limiter can ever allow at once (its {what} is {})",
                self.burst
            )));
        }
        Ok(())
    }

    /// The 11 numbers `_rl_common.lua` reads per limiter.
    fn push_args(&self, call: &mut ScriptCall, cost: i64) {
        call.int(self.alg.code())
            .int(self.limit)
            .int(self.window_us)
            .int(cost);
        let (l, w) = (self.l_red as i128, self.w_red as i128);
        // a duration in 1/L µs units as the pair (µs, remainder)
        let pair = |x: i128| [(x / l) as i64, (x % l) as i64];
        let extra: [i64; 7] = match self.alg {
            Algorithm::TokenBucket => [
                self.l_red,
                self.w_red,
                (self.burst as i128 * w) as i64,
                (cost as i128 * w) as i64,
                0,
                0,
                0,
            ],
            Algorithm::Gcra => {
                let [t0, t1] = pair(w);
                let [b0, b1] = pair(self.burst as i128 * w);
                let [c0, c1] = pair(cost as i128 * w);
                [self.l_red, t0, t1, b0, b1, c0, c1]
            }
            _ => [0; 7],
        };
        for x in extra {
            call.int(x);
        }
    }
}

/// One answer. Durations in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub allowed: bool,
    pub limit: i64,
    pub remaining: i64,
    /// 0 when allowed; otherwise trying again this much later passes (if
    /// nothing else consumed in between).
    pub retry_after_us: i64,
    /// Until the subject is back to its full allowance.
    pub reset_after_us: i64,
}

impl Outcome {
    pub fn retry_after(&self) -> f64 {
        self.retry_after_us as f64 / 1e6
    }

    pub fn reset_after(&self) -> f64 {
        self.reset_after_us as f64 / 1e6
    }
}

#[derive(Debug, Clone)]
pub struct RateLimiter {
    dsn: Arc<Dsn>,
    pool_key: String,
    name: Vec<u8>,
    /// `<prefix><name>:<alg>:`
    base: Vec<u8>,
    params: Params,
    window: f64,
    on_error: OnError,
    local_block: bool,
    /// Its series in the host's metrics (the limiter's name).
    metrics: Option<Series>,
    /// Its entry in the registry (`RedisKit\registry()`).
    registration: Arc<crate::registry::Registration>,
    /// `wait_replicas` / `wait_timeout`: replicas that must confirm an
    /// allowed attempt (WAIT, in its round trip), and how long to wait.
    replicas: i64,
    replica_wait: Duration,
}

impl RateLimiter {
    pub fn new(
        name: &[u8],
        limit: i64,
        window: f64,
        connection: &Connection,
        mut opts: Options,
        settings: &Settings,
    ) -> Result<Self> {
        if name.is_empty() {
            return Err(Error::invalid("RateLimiter: the name must not be empty"));
        }
        if name.iter().any(|&b| b == b'{' || b == b'}') {
            return Err(Error::invalid(
                "RateLimiter: the name must not contain '{' or '}' (the subject key is the Redis Cluster hash tag)",
            ));
        }
        let mut alg = match opts.string("algorithm")? {
            None => Algorithm::SlidingWindow,
            Some(s) => Algorithm::parse(&s)?,
        };
        if let Some(start) = opts.string("window_start")? {
            alg = match (alg, start.as_str()) {
                (Algorithm::FixedWindow, "epoch") => Algorithm::FixedWindow,
                (Algorithm::FixedWindow, "first_hit") => Algorithm::FixedWindowFirstHit,
                (Algorithm::FixedWindow, _) => {
                    return Err(Error::invalid(format!(
                    "RateLimiter: option 'window_start' must be 'epoch' or 'first_hit', got '{}'",
                    conn::shown(start.as_bytes())
                )))
                }
                (other, _) => {
                    return Err(Error::invalid(format!(
                    "RateLimiter: option 'window_start' only applies to 'fixed_window', not '{}'",
                    other.name()
                )))
                }
            };
        }
        let burst = match opts.take("burst") {
            None | Some(OptValue::Null) => None,
            Some(OptValue::Int(b)) => Some(b),
            Some(_) => return Err(Error::invalid("RateLimiter: option 'burst' must be an int")),
        };
        let on_error =
            match opts.choice("on_error", &["throw", "allow", "deny", "local"], "throw")? {
                "allow" => OnError::Allow,
                "deny" => OnError::Deny,
                "local" => OnError::Local,
                _ => OnError::Throw,
            };
        let local_block = opts.bool("local_block", true)?;
        let prefix = opts
            .bytes("prefix")?
            .unwrap_or_else(|| settings.prefix.clone().into_bytes());
        let (replicas, replica_wait) = opts.replication()?;
        opts.finish("RateLimiter", OPTIONS)?;
        let params = Params::new(alg, limit, window, burst)?;
        let dsn = connection.single(settings)?;
        let replicas = replicas.unwrap_or(dsn.wait_replicas);
        let replica_wait = replica_wait.unwrap_or(dsn.wait_timeout);
        let registration = Arc::new(crate::registry::Registration::new(
            crate::registry::Kind::Limiter,
            prefix.len(),
            name.len(),
        ));
        let mut base = prefix;
        base.extend_from_slice(name);
        base.push(b':');
        base.extend_from_slice(alg.tag().as_bytes());
        base.push(b':');
        Ok(RateLimiter {
            pool_key: dsn.pool_key().to_string(),
            dsn,
            name: name.to_vec(),
            base,
            params,
            window: params.window_us as f64 / 1e6,
            on_error,
            local_block,
            metrics: metrics::series(metrics::Kind::Limiter, name),
            registration,
            replicas,
            replica_wait,
        })
    }

    pub fn name(&self) -> &[u8] {
        &self.name
    }

    /// What the registry shows of it (burst: the algorithms that have one).
    fn settings(&self) -> String {
        let p = &self.params;
        let burst = match p.alg {
            Algorithm::TokenBucket | Algorithm::Gcra => format!("&burst={}", p.burst),
            _ => String::new(),
        };
        format!(
            "algorithm={}&limit={}&window={}{burst}",
            p.alg.name(),
            p.limit,
            self.window
        )
    }

    /// This limiter's hottest keys on this host (from the metrics' hot-key
    /// sketch, shared by every limiter with this name), hottest first:
    /// (key, estimated uses, most the estimate may be over). No round trip.
    pub fn hot_keys(&self, limit: usize) -> Vec<(Vec<u8>, u64, u64)> {
        let mut prefix = self.name.clone();
        prefix.push(b':');
        metrics::hot_keys()
            .into_iter()
            .filter(|(k, _)| *k == Hot::Limiter)
            .flat_map(|(_, keys)| keys)
            .filter_map(|k| {
                k.key
                    .strip_prefix(prefix.as_slice())
                    .map(|s| (s.to_vec(), k.count, k.error))
            })
            .take(limit)
            .collect()
    }

    /// The window in seconds (as used: whole microseconds).
    pub fn window(&self) -> f64 {
        self.window
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The Redis key holding the state of `subject`.
    pub fn key(&self, subject: &[u8]) -> Result<Vec<u8>> {
        if subject.is_empty() {
            return Err(Error::invalid("RateLimiter: the key must not be empty"));
        }
        let mut k = Vec::with_capacity(self.base.len() + subject.len() + 2);
        k.extend_from_slice(&self.base);
        k.push(b'{');
        k.extend_from_slice(subject);
        k.push(b'}');
        Ok(k)
    }

    /// This worker's name for the state of `redis_key` on this server.
    fn ident(&self, redis_key: &[u8]) -> Vec<u8> {
        let mut id = Vec::with_capacity(self.pool_key.len() + redis_key.len() + 1);
        id.extend_from_slice(self.pool_key.as_bytes());
        id.push(0);
        id.extend_from_slice(redis_key);
        id
    }

    pub fn attempt(&self, subject: &[u8], cost: i64) -> Result<Outcome> {
        Self::attempt_all(&[self], &[subject], cost).map(|(o, _)| o)
    }

    /// Checks all `limiters` at one instant and consumes `cost` from all of
    /// them if all allow it, from none otherwise: for one subject (a single
    /// element in `subjects`) or for one subject per limiter. Returns the
    /// combined outcome and the index of the limiter it describes (the one
    /// with the least remaining when allowed, the longest wait when refused).
    pub fn attempt_all(
        limiters: &[&RateLimiter],
        subjects: &[&[u8]],
        cost: i64,
    ) -> Result<(Outcome, usize)> {
        let r = Self::check_all(limiters, subjects, cost);
        if let Ok((o, i)) = &r {
            let e = if o.allowed {
                Event::LimiterAllowed
            } else {
                Event::LimiterDenied
            };
            stats::count(e, 1);
            for (i, l) in limiters.iter().enumerate() {
                if l.metrics.is_some() {
                    let subject = subjects[if subjects.len() == 1 { 0 } else { i }];
                    metrics::hot_key(Hot::Limiter, &[&l.name, subject]);
                }
            }
            if o.allowed {
                for l in limiters {
                    metrics::add(l.metrics, ml::ALLOWED, 1);
                }
            } else if let Some(l) = limiters.get(*i) {
                metrics::add(l.metrics, ml::DENIED, 1);
            }
        }
        r
    }

    /// The `on_error` answer while Redis cannot be reached, counted in the
    /// metrics when it allows.
    fn fail_open(limiters: &[&RateLimiter], idents: &[Vec<u8>], cost: i64) -> (Outcome, usize) {
        let r = Self::fallback(limiters, idents, cost);
        if r.0.allowed {
            for l in limiters {
                metrics::add(l.metrics, ml::FAIL_OPEN, 1);
            }
        }
        r
    }

    fn check_all(
        limiters: &[&RateLimiter],
        subjects: &[&[u8]],
        cost: i64,
    ) -> Result<(Outcome, usize)> {
        let Some(first) = limiters.first() else {
            return Err(Error::invalid(
                "RateLimiter::attemptAll: the list of limiters is empty",
            ));
        };
        if subjects.len() != 1 && subjects.len() != limiters.len() {
            return Err(Error::invalid(format!(
                "RateLimiter::attemptAll: a list of keys needs one key per limiter ({} limiters, {} keys)",
                limiters.len(),
                subjects.len()
            )));
        }
        let mut keys = Vec::with_capacity(limiters.len());
        for (i, l) in limiters.iter().enumerate() {
            let subject = subjects[if subjects.len() == 1 { 0 } else { i }];
            if l.pool_key != first.pool_key {
                return Err(Error::invalid(format!(
                    "RateLimiter::attemptAll: all limiters must use the same connection (limiter {i} uses {}, limiter 0 uses {})",
                    l.dsn.redacted(),
                    first.dsn.redacted()
                )));
            }
            l.params.check_cost(cost)?;
            let k = l.key(subject)?;
            if keys.contains(&k) {
                return Err(Error::invalid(format!(
                    "RateLimiter::attemptAll: limiter {i} has the same name, algorithm and key as an earlier one (they would share one state)"
                )));
            }
            keys.push(k);
        }
        // one script touches every key: on a cluster they must share a slot
        if matches!(
            first.dsn.topology.as_deref(),
            Some(conn::Topology::Cluster { .. })
        ) {
            let slot = conn::slot::key_slot(&keys[0]);
            if let Some(i) = keys.iter().position(|k| conn::slot::key_slot(k) != slot) {
                return Err(Error::invalid(format!(
                    "RateLimiter::attemptAll: on a Redis Cluster the keys of one check must hash to one slot, and key {i} does not hash to key 0's (give them a common {{hash tag}})"
                )));
            }
        }
        let idents: Vec<Vec<u8>> = limiters
            .iter()
            .zip(&keys)
            .map(|(l, k)| l.ident(k))
            .collect();

        // Refusals this worker already knows about: no round trip.
        let known: Vec<(Outcome, usize)> = limiters
            .iter()
            .enumerate()
            .filter(|(_, l)| l.local_block)
            .filter_map(|(i, l)| local::blocked(&idents[i], &l.params, cost).map(|o| (o, i)))
            .collect();
        if !known.is_empty() {
            stats::count(Event::LimiterLocalBlocks, 1);
            for (_, i) in &known {
                metrics::add(limiters[*i].metrics, ml::LOCAL_BLOCKS, 1);
            }
            return Ok(combine(known));
        }

        let throw = limiters.iter().any(|l| l.on_error == OnError::Throw);
        if !throw && local::down_for(&first.pool_key).is_some() {
            return Ok(Self::fail_open(limiters, &idents, cost));
        }

        // one limiter: its algorithm's straight-line script (half the Redis CPU)
        let script = match limiters {
            [one] => one.params.alg.attempt_script(),
            _ => &scripts::RL_ATTEMPT,
        };
        let mut call = ScriptCall::new(script);
        for k in &keys {
            call.key(k);
        }
        call.int(limiters.len() as i64);
        for l in limiters {
            l.params.push_args(&mut call, cost);
        }
        let replicas = limiters.iter().map(|l| l.replicas).max().unwrap_or(0);
        let wait_ms = limiters
            .iter()
            .map(|l| l.replica_wait)
            .max()
            .unwrap_or_default()
            .as_millis()
            .clamp(1, i64::MAX as u128) as i64;
        let sent = if replicas > 0 {
            conn::eval_then_wait(&first.dsn, &call, replicas, wait_ms, false)
                .map(|(v, a)| (v, Some(a)))
        } else {
            conn::eval(&first.dsn, &call, false).map(|v| (v, None))
        };
        let (reply, confirmed) = match sent {
            Ok(v) => v,
            Err(Error::Connection(_)) if !throw => {
                local::mark_down(&first.pool_key);
                return Ok(Self::fail_open(limiters, &idents, cost));
            }
            Err(e) => return Err(e),
        };
        let at = Instant::now();
        for l in limiters {
            l.registration.done(&l.dsn, &l.base, || l.settings());
        }
        let (mut allowed, parts) = parse_reply(reply, limiters.len())?;
        // wait_replicas: an allowed attempt counts once enough replicas
        // have it; otherwise `on_error` decides: 'throw' throws, 'deny'
        // refuses it (its units stay spent on the master), 'allow' and
        // 'local' let the master's answer stand
        let mut retry_floor = 0;
        if let (true, Some(acked)) = (allowed, confirmed) {
            if !matches!(acked, Ok(n) if n >= replicas) {
                let why = match &acked {
                    Ok(n) => format!("{n} confirmed within {wait_ms} ms"),
                    Err(e) => format!("the WAIT failed: {}", e.message()),
                };
                if throw {
                    return Err(Error::Replication {
                        message: format!(
                            "RateLimiter: the attempt was counted on the master, but not confirmed by {replicas} replica(s) (wait_replicas; {why}): a failover now could forget it"
                        ),
                        ids: Vec::new(),
                        replicas: acked.unwrap_or(0),
                    });
                }
                if limiters.iter().any(|l| l.on_error == OnError::Deny) {
                    allowed = false;
                    retry_floor = wait_ms * 1000;
                }
            }
        }
        let mut outcomes = Vec::with_capacity(limiters.len());
        for (i, (l, [remaining, retry, reset, block])) in limiters.iter().zip(parts).enumerate() {
            let o = Outcome {
                allowed,
                limit: l.params.limit,
                remaining,
                retry_after_us: retry.max(retry_floor),
                reset_after_us: reset,
            };
            // (a refusal for want of replicas is not a limit to remember)
            if l.local_block && retry_floor == 0 {
                if allowed {
                    local::unblock(&idents[i]);
                } else {
                    local::remember_block(&idents[i], &l.params, cost, &o, block, at);
                }
            }
            outcomes.push((o, i));
        }
        Ok(combine(outcomes))
    }

    /// The answer while Redis cannot be reached, by each limiter's `on_error`
    /// (none of them is 'throw'); still all or nothing.
    fn fallback(limiters: &[&RateLimiter], idents: &[Vec<u8>], cost: i64) -> (Outcome, usize) {
        let wait = local::down_for(&limiters[0].pool_key)
            .map_or(0, |d| d.as_micros() as i64)
            .max(1);
        let deny = limiters.iter().any(|l| l.on_error == OnError::Deny);
        let locals: Vec<(&[u8], &Params)> = limiters
            .iter()
            .zip(idents)
            .filter(|(l, _)| l.on_error == OnError::Local)
            .map(|(l, id)| (id.as_slice(), &l.params))
            .collect();
        let (allowed, mut checks) = if deny {
            (
                false,
                locals.iter().map(|(id, p)| local::peek(id, p)).collect(),
            )
        } else {
            local::attempt_all(&locals, cost)
        };
        checks.reverse();
        let outcomes = limiters
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let p = &l.params;
                let o = match l.on_error {
                    OnError::Local => {
                        let c = checks.pop().unwrap_or(model::Check {
                            ok: false,
                            remaining: 0,
                            retry_us: wait,
                            reset_us: wait,
                            block_us: 0,
                        });
                        Outcome {
                            allowed,
                            limit: p.limit,
                            remaining: c.remaining,
                            retry_after_us: c.retry_us,
                            reset_after_us: c.reset_us,
                        }
                    }
                    OnError::Deny => Outcome {
                        allowed,
                        limit: p.limit,
                        remaining: 0,
                        retry_after_us: wait,
                        reset_after_us: wait,
                    },
                    _ => Outcome {
                        allowed,
                        limit: p.limit,
                        remaining: if allowed { p.burst - cost } else { p.burst },
                        retry_after_us: 0,
                        reset_after_us: 0,
                    },
                };
                (o, i)
            })
            .collect();
        combine(outcomes)
    }

    /// What an attempt of cost 1 would get now; consumes nothing.
    pub fn peek(&self, subject: &[u8]) -> Result<Outcome> {
        let key = self.key(subject)?;
        let ident = self.ident(&key);
        if self.on_error != OnError::Throw && local::down_for(&self.pool_key).is_some() {
            return Ok(self.peek_fallback(&ident));
        }
        let mut call = ScriptCall::new(&scripts::RL_PEEK);
        call.key(&key).int(1);
        self.params.push_args(&mut call, 1);
        let reply = match conn::eval(&self.dsn, &call, true) {
            Ok(v) => v,
            Err(Error::Connection(_)) if self.on_error != OnError::Throw => {
                local::mark_down(&self.pool_key);
                return Ok(self.peek_fallback(&ident));
            }
            Err(e) => return Err(e),
        };
        let (allowed, parts) = parse_reply(reply, 1)?;
        let [remaining, retry, reset, _] = parts[0];
        Ok(Outcome {
            allowed,
            limit: self.params.limit,
            remaining,
            retry_after_us: retry,
            reset_after_us: reset,
        })
    }

    fn peek_fallback(&self, ident: &[u8]) -> Outcome {
        let wait = local::down_for(&self.pool_key)
            .map_or(0, |d| d.as_micros() as i64)
            .max(1);
        let limit = self.params.limit;
        match self.on_error {
            OnError::Local => {
                let c = local::peek(ident, &self.params);
                Outcome {
                    allowed: c.ok,
                    limit,
                    remaining: c.remaining,
                    retry_after_us: c.retry_us,
                    reset_after_us: c.reset_us,
                }
            }
            OnError::Deny => Outcome {
                allowed: false,
                limit,
                remaining: 0,
                retry_after_us: wait,
                reset_after_us: wait,
            },
            _ => Outcome {
                allowed: true,
                limit,
                remaining: self.params.burst,
                retry_after_us: 0,
                reset_after_us: 0,
            },
        }
    }

    /// Reserves `cost` units (token_bucket and gcra only): taken now if they
    /// are there, otherwise from the future, the outcome's `retry_after_us`
    /// then being the wait until they may be used. Not reserved (`allowed`
    /// false, nothing changed) only when that wait is above `max_wait`
    /// seconds. Always asks Redis: a connection error is returned whatever
    /// `on_error` says, and this worker's `local_block` memory is neither
    /// read nor written (a reservation only ever consumes more).
    pub fn reserve(&self, subject: &[u8], cost: i64, max_wait: Option<f64>) -> Result<Outcome> {
        if !self.params.alg.bucket_like() {
            return Err(Error::invalid(format!(
                "RateLimiter::reserve: only 'token_bucket' and 'gcra' limiters can reserve units ahead of time, this one is '{}'",
                self.params.alg.name()
            )));
        }
        self.params.check_cost(cost)?;
        let max_wait_us = match max_wait {
            None => -1,
            Some(w) => {
                crate::options::non_negative_secs("RateLimiter::reserve(): $maxWait", w)?;
                // whole microseconds, as the durations of the results
                (w * 1e6).round() as i64
            }
        };
        let key = self.key(subject)?;
        let mut call = ScriptCall::new(&scripts::RL_RESERVE);
        call.key(&key).int(1);
        self.params.push_args(&mut call, cost);
        call.int(max_wait_us);
        let (reserved, parts) = parse_reply(conn::eval(&self.dsn, &call, false)?, 1)?;
        let [remaining, wait, reset, _] = parts[0];
        Ok(Outcome {
            allowed: reserved,
            limit: self.params.limit,
            remaining,
            retry_after_us: wait,
            reset_after_us: reset,
        })
    }

    /// Forgets the subject: its next attempt starts from the full allowance.
    /// Clears this worker's cached refusal and in-process state for it too.
    pub fn reset(&self, subject: &[u8]) -> Result<()> {
        let key = self.key(subject)?;
        local::forget(&self.ident(&key));
        let mut del = Args::cmd("DEL");
        del.push(&key);
        conn::command(&self.dsn, &del, true).map(|_| ())
    }
}

fn parse_reply(reply: Value, n: usize) -> Result<(bool, Vec<[i64; 4]>)> {
    let Value::Array(items) = reply else {
        return Err(Error::unexpected("a rate limit check", &reply));
    };
    if items.len() != 1 + 4 * n {
        return Err(Error::Redis(format!(
            "unexpected reply from Redis for a rate limit check: {} values",
            items.len()
        )));
    }
    let mut it = items.into_iter();
    let allowed = it
        .next()
        .map(|v| conn::int(v, "a rate limit check"))
        .transpose()?
        == Some(1);
    let mut parts = Vec::with_capacity(n);
    for _ in 0..n {
        let mut p = [0i64; 4];
        for x in p.iter_mut() {
            *x = it
                .next()
                .map(|v| conn::int(v, "a rate limit check"))
                .transpose()?
                .unwrap_or(0)
                .max(0);
        }
        parts.push(p);
    }
    Ok((allowed, parts))
}

/// One outcome for several limiters: when allowed, the one with the least
/// remaining; when refused, the longest wait. The first wins ties.
fn combine(outcomes: Vec<(Outcome, usize)>) -> (Outcome, usize) {
    let mut best: Option<(Outcome, usize)> = None;
    for (o, i) in outcomes {
        best = match best {
            None => Some((o, i)),
            Some((b, j)) => {
                let better = if o.allowed {
                    o.remaining < b.remaining
                } else {
                    o.retry_after_us > b.retry_after_us
                };
                if better {
                    Some((o, i))
                } else {
                    Some((b, j))
                }
            }
        };
    }
    // callers never pass an empty list
    best.unwrap_or((
        Outcome {
            allowed: false,
            limit: 1,
            remaining: 0,
            retry_after_us: 0,
            reset_after_us: 0,
        },
        0,
    ))
}

/// What `headers()` needs from a result array.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderInput {
    pub allowed: bool,
    pub limit: i64,
    pub remaining: i64,
    pub retry_after: f64,
    pub reset_after: f64,
    pub policy: Option<Vec<u8>>,
    pub window: Option<f64>,
}

fn ceil_secs(s: f64) -> i64 {
    // results carry whole microseconds: do not let 2.0000000001 become 3
    let us = (s * 1e6).round();
    ((us / 1e6).ceil() as i64).max(0)
}

/// An sf-string (RFC 9651) naming the policy: printable ASCII, with `"` and
/// `\` escaped; other bytes become `_`.
fn sf_string(name: &[u8]) -> String {
    let mut s = String::with_capacity(name.len() + 2);
    s.push('"');
    for &b in name {
        match b {
            b'"' | b'\\' => {
                s.push('\\');
                s.push(b as char);
            }
            0x20..=0x7e => s.push(b as char),
            _ => s.push('_'),
        }
    }
    s.push('"');
    s
}

/// The response headers for a result (draft-ietf-httpapi-ratelimit-headers-10):
/// `RateLimit-Policy: "<policy>";q=<limit>[;w=<window>]`,
/// `RateLimit: "<policy>";r=<remaining>;t=<seconds>`, the `X-RateLimit-*`
/// trio and, when refused, `Retry-After`.
pub fn headers(r: &HeaderInput) -> Result<Vec<(&'static str, String)>> {
    if r.limit < 1 {
        return Err(Error::invalid(format!(
            "RateLimiter::headers: 'limit' must be at least 1, got {}",
            r.limit
        )));
    }
    if r.remaining < 0 {
        return Err(Error::invalid(format!(
            "RateLimiter::headers: 'remaining' must be >= 0, got {}",
            r.remaining
        )));
    }
    for (k, v) in [
        ("retry_after", r.retry_after),
        ("reset_after", r.reset_after),
    ] {
        if !v.is_finite() || v < 0.0 {
            return Err(Error::invalid(format!(
                "RateLimiter::headers: '{k}' must be a finite number of seconds >= 0, got {}",
                shown_float(v)
            )));
        }
    }
    if let Some(w) = r.window {
        if !w.is_finite() || w <= 0.0 {
            return Err(Error::invalid(format!(
                "RateLimiter::headers: 'window' must be a positive number of seconds, got {}",
                shown_float(w)
            )));
        }
    }
    let name = sf_string(
        r.policy
            .as_deref()
            .filter(|p| !p.is_empty())
            .unwrap_or(b"default"),
    );
    let mut policy = format!("{name};q={}", r.limit);
    // the draft's window is a whole number of seconds; others are left out
    if let Some(w) = r.window {
        if w >= 1.0 && w.fract() == 0.0 {
            policy.push_str(&format!(";w={}", w as i64));
        }
    }
    let reset = ceil_secs(r.reset_after);
    let retry = ceil_secs(r.retry_after);
    let t = if r.allowed { reset } else { retry };
    let mut h = vec![
        ("RateLimit-Policy", policy),
        ("RateLimit", format!("{name};r={};t={t}", r.remaining)),
        ("X-RateLimit-Limit", r.limit.to_string()),
        ("X-RateLimit-Remaining", r.remaining.to_string()),
        ("X-RateLimit-Reset", reset.to_string()),
    ];
    if !r.allowed {
        h.push(("Retry-After", retry.to_string()));
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_checked() {
        let sw = Algorithm::SlidingWindow;
        assert!(Params::new(sw, 0, 1.0, None).is_err());
        assert!(Params::new(sw, 1, 0.0, None).is_err());
        assert!(Params::new(sw, 1, -1.0, None).is_err());
        assert!(Params::new(sw, 1, f64::NAN, None).is_err());
        assert!(Params::new(sw, 1, f64::INFINITY, None).is_err());
        assert!(Params::new(sw, 1, 1e-7, None).is_err());
        assert!(
            Params::new(sw, 10, 1.0, Some(5)).is_err(),
            "burst is for buckets"
        );
        assert!(Params::new(Algorithm::Gcra, 10, 1.0, Some(0)).is_err());
        let p = Params::new(Algorithm::TokenBucket, 10, 1.0, Some(3)).unwrap();
        assert!(p.check_cost(3).is_ok());
        assert!(p.check_cost(4).is_err());
        assert!(p.check_cost(0).is_err());
        let p = Params::new(Algorithm::FixedWindow, 10, 60.0, None).unwrap();
        assert_eq!((p.l_red, p.w_red), (1, 6_000_000));
        assert!(p.check_cost(10).is_ok() && p.check_cost(11).is_err());
        // a prime limit per day with a huge burst cannot be counted exactly by token_bucket
        assert!(Params::new(Algorithm::TokenBucket, 999_983, 86_400.0, Some(1_000_000)).is_err());
        assert!(Params::new(Algorithm::Gcra, 999_983, 86_400.0, Some(1_000_000)).is_ok());
    }

    #[test]
    fn header_values() {
        let mut r = HeaderInput {
            allowed: true,
            limit: 100,
            remaining: 42,
            retry_after: 0.0,
            reset_after: 29.000001,
            policy: Some(b"api \"v1\"\xff".to_vec()),
            window: Some(60.0),
        };
        let h = headers(&r).unwrap();
        assert_eq!(
            h[0],
            (
                "RateLimit-Policy",
                r#""api \"v1\"_";q=100;w=60"#.to_string()
            )
        );
        assert_eq!(
            h[1],
            ("RateLimit", r#""api \"v1\"_";r=42;t=30"#.to_string())
        );
        assert_eq!(h.len(), 5);
        r.allowed = false;
        r.remaining = 0;
        r.retry_after = 2.0;
        r.window = Some(0.5);
        r.policy = None;
        let h = headers(&r).unwrap();
        assert_eq!(h[0].1, "\"default\";q=100");
        assert_eq!(h[1].1, "\"default\";r=0;t=2");
        assert_eq!(h[5], ("Retry-After", "2".to_string()));
        r.retry_after = f64::NAN;
        assert!(headers(&r).is_err());
    }
}
