//! Delayed jobs on the Redis clock: pushed with a due time, claimed
//! atomically (one script, one round trip, bounded work), kept in flight
//! under a visibility timeout until acked, retried with backoff, dead-lettered
//! after `max_attempts`.
//!
//! Key layout (main key `K` = prefix . name; every other key shares its
//! Redis Cluster hash slot):
//! - `K`: schedule, a sorted set `id -> due time (unix ms)`: jobs pushed with
//!   a delay or a due time, retries, lapsed claims, requeued dead jobs. Ids
//!   are 16-digit zero-padded sequence numbers, so Redis's order of equal
//!   scores (lexical) is push order.
//! - `{K}:ready`: list of jobs pushed without a delay, `"<id>:<due ms>"` in
//!   push order (an append costs Redis far less than a sorted-set insert);
//!   `pop` merges it with the schedule's due jobs by (due time, id).
//! - `{K}:inflight`: sorted set `"<id>|<owner>" -> visibility deadline (unix
//!   ms)`: the claim and whose it is (the owner is the consumer identity).
//! - `{K}:dead`: sorted set `id -> dead-lettered at (unix ms)`.
//! - `{K}:payload`: hash `id -> payload`.
//! - `{K}:attempts`: hash `id -> failed deliveries` (absent: 0).
//! - `{K}:claim`: hash `id -> owner` of lapsed claims: a claim whose
//!   visibility timeout passed and put the job back, as long as no other
//!   consumer has claimed the job since.
//! - `{K}:seq`: the last id handed out (kept by `purge`, so ids never repeat).
//! - `{K}:wake`: wake-up tokens for consumers blocked in `pop` (a short,
//!   capped, expiring list; hints only).
//! - `{K}:waiting`: set while a consumer may be blocked in `pop`; writers
//!   push wake-up tokens only while it exists.
//!
//! Claims: every `DelayQueue` value has a consumer identity (random, renewed
//! in a forked child). `pop` records it with each job it claims, and `ack`,
//! `retry` and `touch` only act when the job's latest claim is the caller's.
//! A claim whose visibility timeout has passed stays the caller's until
//! another consumer claims the job.
//!
//! Lapsed claims: a claim whose visibility deadline has passed counts as a
//! failed delivery *at that deadline*: the job is due at deadline + backoff
//! (or dead as of the deadline), whichever script notices it first and
//! however late. `pop`, `counts`, `dead`, `cancel` and `requeue_dead` first
//! put back up to 100 lapsed claims (the same bookkeeping in each), so they
//! all see the same states; `ack`, `retry` and `touch` of a lapsed claim
//! nobody noticed yet act as they would once it was noticed.
use crate::conn::stats::{self, Event};
use crate::conn::{self, aux_key, bytes, int, Args, Dsn, Error, Result, ScriptCall, Value};
use crate::metrics::{self, queue as mq, Series};
use crate::options::{non_negative_secs, Connection, OptValue, Options, Settings};
use crate::scripts;
use crate::spool::{Replay, Spool};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const OPTIONS: &[&str] = &[
    "visibility_timeout",
    "max_attempts",
    "backoff",
    "prefix",
    "consumer",
    "wait_replicas",
    "wait_timeout",
    "on_error",
    "spool_dir",
];

/// Most jobs one `pop` may claim (bounds the script's work).
pub const MAX_POP: i64 = 1000;
/// Most dead jobs one `dead()` call may list.
pub const MAX_DEAD_LIST: i64 = 10_000;
/// Payloads per push script: a bigger `push_many` batch is sent as slices
/// of this many (all in one round trip).
const PUSH_SLICE: usize = 1000;
/// Dead jobs moved per script call in `requeue_dead` / `delete_dead` of all.
const REQUEUE_CHUNK: i64 = 1000;
/// Latest accepted `push_at` timestamp (seconds): keeps unix ms exact in a double.
const MAX_TIMESTAMP: f64 = 1e11;

/// A job as `pop` and `dead` return it.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub id: Vec<u8>,
    pub payload: Vec<u8>,
    /// Earlier deliveries that ended without an ack (timed out or retried).
    pub attempts: i64,
    /// Unix seconds (millisecond precision, Redis clock) the job was due at;
    /// for dead jobs, when it was dead-lettered.
    pub due_at: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Waiting, not yet due.
    pub scheduled: i64,
    /// Due now, not claimed.
    pub due: i64,
    /// Claimed, not acked (including claims whose visibility timeout passed
    /// and that no `pop` has put back yet).
    pub in_flight: i64,
    pub dead: i64,
}

/// `inspect()`: the counts and the times an operator page shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inspection {
    pub counts: Counts,
    /// Due time (unix seconds, Redis clock) of the oldest job that is due
    /// and not claimed: `now - oldest_due_at` is how far the consumers are
    /// behind.
    pub oldest_due_at: Option<f64>,
    /// The next due time after now, of a job not due yet.
    pub next_due_at: Option<f64>,
    /// The Redis clock when it was read.
    pub now: f64,
    /// `pause()`d: pops hand out nothing.
    pub paused: bool,
}

/// The states `jobs()` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Waiting, not due yet (by due time).
    Scheduled,
    /// Due now, not claimed (by due time).
    Due,
    /// Claimed, not acked (by claim deadline).
    InFlight,
    /// Dead-lettered (by when).
    Dead,
}

impl State {
    pub fn parse(s: &[u8]) -> Option<State> {
        Some(match s {
            b"scheduled" => State::Scheduled,
            b"due" => State::Due,
            b"in_flight" => State::InFlight,
            b"dead" => State::Dead,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            State::Scheduled => "scheduled",
            State::Due => "due",
            State::InFlight => "in_flight",
            State::Dead => "dead",
        }
    }
}

/// A job as an operator sees it (`jobs()`, `job()`).
#[derive(Debug, Clone, PartialEq)]
pub struct JobInfo {
    pub id: Vec<u8>,
    pub state: State,
    pub attempts: i64,
    /// Unix seconds (Redis clock): when it is due (scheduled, due), when its
    /// claim lapses (in flight), when it was dead-lettered (dead). `None`:
    /// a due job whose time `job()` could not find in the ready list.
    pub at: Option<f64>,
    /// The consumer that claimed it (in flight).
    pub owner: Option<Vec<u8>>,
    /// The payload's full size in bytes.
    pub size: i64,
    /// The payload, or its first bytes in a listing.
    pub payload: Vec<u8>,
}

/// One page of `jobs()`.
#[derive(Debug, Clone, PartialEq)]
pub struct JobPage {
    pub jobs: Vec<JobInfo>,
    /// Where the next page starts; `None` on the last page.
    pub cursor: Option<Vec<u8>>,
}

/// Which dead jobs `requeue_dead` and `delete_dead` act on.
#[derive(Debug, Clone, Copy)]
pub enum DeadJobs<'a> {
    All,
    Ids(&'a [Vec<u8>]),
}

/// Most jobs one `jobs()` page may hold.
pub const MAX_PAGE: i64 = 1000;
/// Most payload bytes one listed job may show.
pub const MAX_PREVIEW: i64 = 65536;
/// Most ids one `requeue_dead` / `delete_dead` call may name.
pub const MAX_IDS: usize = 10_000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    pub visibility_ms: i64,
    pub max_attempts: i64,
    pub backoff_ms: i64,
}

impl Config {
    /// The config string the scripts parse: "visibility_ms;max_attempts;backoff_ms".
    fn encode(&self) -> String {
        format!(
            "{};{};{}",
            self.visibility_ms, self.max_attempts, self.backoff_ms
        )
    }
}

#[derive(Debug)]
pub struct DelayQueue {
    dsn: Arc<Dsn>,
    keys: [Vec<u8>; 10],
    cfg: Config,
    cfg_arg: String,
    /// The `consumer` option; `None`: this worker process's identity.
    consumer: Option<String>,
    /// Its series in the host's metrics (the queue name, no prefix).
    metrics: Option<Series>,
    /// Its entry in the registry (`RedisKit\registry()`; none for a queue
    /// made from a bare key).
    registration: Option<crate::registry::Registration>,
    /// `wait_replicas` / `wait_timeout`: replicas that must confirm a push,
    /// an ack or a retry (WAIT, in the write's round trip), and how long to
    /// wait for them.
    replicas: i64,
    replica_wait: Duration,
    /// `on_error => 'spool'`: where pushes go while Redis cannot be reached.
    spool: Option<Spool>,
}

/// What `replay_spool` did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SpoolReplay {
    /// Records read from the spool and sent to Redis.
    pub replayed: usize,
    /// Of those, jobs added (the others had been replayed before).
    pub added: i64,
    /// Damaged records skipped, one message each.
    pub warnings: Vec<String>,
}

/// Spooled jobs per replay script.
const SPOOL_SLICE: usize = 500;

/// Claims a worker keeps the time of (for handler times), at most.
const MAX_CLAIMS_TIMED: usize = 4096;

thread_local! {
    /// Spools this worker found damaged, and their size then.
    static SPOOL_DAMAGED: std::cell::RefCell<std::collections::HashMap<std::path::PathBuf, u64>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
    /// When this worker claimed the jobs it has not acked or retried yet.
    static CLAIMS: std::cell::RefCell<std::collections::HashMap<Vec<u8>, Instant>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
    /// (pid, identity) of this worker as a consumer: renewed in a forked
    /// child. A worker is a process, or a thread on a thread-safe PHP.
    static WORKER_CONSUMER: std::cell::RefCell<(u32, String)> = const { std::cell::RefCell::new((0, String::new())) };
}

/// Seconds to whole microseconds, rounded up (never early).
fn delay_us(what: &str, secs: f64) -> Result<i64> {
    non_negative_secs(what, secs)?;
    Ok((secs * 1e6).ceil() as i64)
}

/// A unix timestamp in seconds to unix milliseconds, rounded up.
fn timestamp_ms(ts: f64) -> Result<i64> {
    if !(ts.is_finite() && (0.0..=MAX_TIMESTAMP).contains(&ts)) {
        return Err(Error::invalid(format!(
            "timestamp must be a unix time in seconds between 0 and {MAX_TIMESTAMP:.0}, got {}",
            conn::shown_float(ts)
        )));
    }
    let us = (ts * 1e6).round() as i64;
    Ok((us + 999).div_euclid(1000))
}

fn secs_option(opts: &mut Options, key: &str, positive: bool) -> Result<Option<f64>> {
    let v = match opts.take(key) {
        None | Some(OptValue::Null) => return Ok(None),
        Some(OptValue::Int(i)) => i as f64,
        Some(OptValue::Float(f)) => f,
        Some(_) => {
            return Err(Error::invalid(format!(
                "option '{key}' must be a number of seconds"
            )))
        }
    };
    if !(v.is_finite() && (0.0..1e9).contains(&v)) || (positive && v <= 0.0) {
        let want = if positive { "> 0" } else { ">= 0" };
        return Err(Error::invalid(format!(
            "option '{key}' must be a finite number of seconds {want}, got {}",
            conn::shown_float(v)
        )));
    }
    Ok(Some(v))
}

fn new_owner() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

impl DelayQueue {
    pub fn new(
        name: &[u8],
        connection: &Connection,
        mut opts: Options,
        settings: &Settings,
    ) -> Result<Self> {
        if name.is_empty() {
            return Err(Error::invalid(
                "DelayQueue: the queue name must not be empty",
            ));
        }
        let vt = secs_option(&mut opts, "visibility_timeout", true)?.unwrap_or(30.0);
        let max_attempts = opts.int("max_attempts", 0, 1_000_000_000, 5)?;
        let backoff = secs_option(&mut opts, "backoff", false)?.unwrap_or(1.0);
        let prefix = opts
            .bytes("prefix")?
            .unwrap_or_else(|| settings.prefix.clone().into_bytes());
        let consumer = opts.string("consumer")?;
        if let Some(c) = &consumer {
            if c.is_empty() || c.len() > 128 || c.contains('|') {
                return Err(Error::invalid(
                    "option 'consumer' must be 1 to 128 characters without '|'",
                ));
            }
        }
        let (replicas, replica_wait) = opts.replication()?;
        let spooling = opts.choice("on_error", &["throw", "spool"], "throw")? == "spool";
        let spool_dir = opts.string("spool_dir")?;
        opts.finish("DelayQueue", OPTIONS)?;
        let spool_dir = match (spooling, spool_dir) {
            (true, None) => {
                return Err(Error::invalid(
                    "DelayQueue: on_error 'spool' needs the option 'spool_dir' (a directory this process can write to)",
                ))
            }
            (false, Some(_)) => {
                return Err(Error::invalid(
                    "DelayQueue: option 'spool_dir' only applies with on_error 'spool'",
                ))
            }
            (_, d) => d,
        };
        if let Some(d) = &spool_dir {
            crate::spool::check_dir(std::path::Path::new(d))
                .map_err(|e| Error::invalid(format!("DelayQueue: option 'spool_dir': {e}")))?;
        }
        let dsn = connection.single(settings)?;
        let cfg = Config {
            visibility_ms: ((vt * 1000.0).ceil() as i64).max(1),
            max_attempts,
            backoff_ms: (backoff * 1000.0).round() as i64,
        };
        let registration = crate::registry::Registration::new(
            crate::registry::Kind::Queue,
            prefix.len(),
            name.len(),
        );
        let mut key = prefix;
        key.extend_from_slice(name);
        let base = Self::with_key(dsn, key, cfg);
        Ok(DelayQueue {
            consumer,
            registration: Some(registration),
            metrics: metrics::series(metrics::Kind::Queue, name),
            replicas: replicas.unwrap_or(base.replicas),
            replica_wait: replica_wait.unwrap_or(base.replica_wait),
            spool: spool_dir.map(|d| Spool::new(std::path::Path::new(&d), &base.keys[0])),
            ..base
        })
    }

    pub fn with_key(dsn: Arc<Dsn>, key: Vec<u8>, cfg: Config) -> Self {
        let keys = [
            key.clone(),
            aux_key(&key, "inflight"),
            aux_key(&key, "dead"),
            aux_key(&key, "payload"),
            aux_key(&key, "attempts"),
            aux_key(&key, "claim"),
            aux_key(&key, "seq"),
            aux_key(&key, "wake"),
            aux_key(&key, "waiting"),
            aux_key(&key, "ready"),
        ];
        DelayQueue {
            replicas: dsn.wait_replicas,
            replica_wait: dsn.wait_timeout,
            dsn,
            keys,
            cfg,
            cfg_arg: cfg.encode(),
            consumer: None,
            metrics: None,
            registration: None,
            spool: None,
        }
    }

    /// The schedule's key (prefix . name).
    pub fn key(&self) -> &[u8] {
        &self.keys[0]
    }

    pub fn config(&self) -> Config {
        self.cfg
    }

    fn wake_key(&self) -> &[u8] {
        &self.keys[7]
    }

    /// This consumer's identity: the `consumer` option, else one per worker
    /// (process, or thread on a thread-safe PHP; renewed in a forked child),
    /// shared by all its objects.
    pub fn owner(&self) -> String {
        if let Some(c) = &self.consumer {
            return c.clone();
        }
        let pid = std::process::id();
        WORKER_CONSUMER.with(|o| {
            let mut o = o.borrow_mut();
            if o.0 != pid || o.1.is_empty() {
                *o = (pid, new_owner());
            }
            o.1.clone()
        })
    }

    fn call<'a>(&self, script: &'a conn::Script, owner: &str) -> ScriptCall<'a> {
        let mut c = ScriptCall::new(script);
        for k in &self.keys {
            c.key(k);
        }
        c.arg(&self.cfg_arg).arg(owner);
        c
    }

    /// Records the queue in the registry, once per process: after a call
    /// that reached Redis.
    #[inline]
    fn registered(&self) {
        if let Some(r) = &self.registration {
            let c = self.cfg;
            r.done(&self.dsn, &self.keys[0], || {
                format!(
                    "visibility_timeout={}&max_attempts={}&backoff={}",
                    c.visibility_ms as f64 / 1000.0,
                    c.max_attempts,
                    c.backoff_ms as f64 / 1000.0
                )
            });
        }
    }

    /// One job due `delay` seconds from now (Redis clock). Returns its id.
    pub fn push(&self, payload: &[u8], delay: f64) -> Result<Vec<u8>> {
        let us = delay_us("delay", delay)?;
        let mut ids = self.push_jobs("push", "d", us, &[payload])?;
        ids.pop()
            .ok_or_else(|| Error::Redis("push: Redis returned no job id".into()))
    }

    /// One job due at the unix time `timestamp` (seconds). Returns its id.
    pub fn push_at(&self, payload: &[u8], timestamp: f64) -> Result<Vec<u8>> {
        let ms = timestamp_ms(timestamp)?;
        let mut ids = self.push_jobs("pushAt", "a", ms, &[payload])?;
        ids.pop()
            .ok_or_else(|| Error::Redis("pushAt: Redis returned no job id".into()))
    }

    /// One job per payload, all due `delay` seconds from now. Returns their
    /// ids in order. Under maxmemory the batch is refused whole (nothing
    /// written) or written whole; up to 1000 payloads it is one script (one
    /// round trip, atomic), beyond that one script per 1000 sent in one round
    /// trip after the one that takes the ids.
    pub fn push_many(&self, payloads: &[&[u8]], delay: f64) -> Result<Vec<Vec<u8>>> {
        let us = delay_us("delay", delay)?;
        self.push_jobs("pushMany", "d", us, payloads)
    }

    fn push_call(
        &self,
        mode: &str,
        value: i64,
        base: Option<i64>,
        slice: &[&[u8]],
    ) -> ScriptCall<'static> {
        let mut c = self.call(&scripts::QUEUE_PUSH, "");
        c.arg(mode).int(value);
        match base {
            None => c.arg(""),
            Some(b) => c.int(b),
        };
        for p in slice {
            c.arg(p);
        }
        c
    }

    /// A batch of up to PUSH_SLICE is one script, which Redis refuses under
    /// maxmemory at its first write (before any job is written) or lets
    /// finish. A bigger one first takes all its ids in one small script (the
    /// batch is admitted or refused there, nothing written), then sends its
    /// slices in one pipeline: each slice starts with a write Redis never
    /// refuses, so an admitted batch is written whole, the way Redis lets one
    /// script finish, and no script runs long (each stays one slice's work).
    fn push_jobs(
        &self,
        what: &str,
        mode: &str,
        value: i64,
        payloads: &[&[u8]],
    ) -> Result<Vec<Vec<u8>>> {
        match self.push_to_redis(what, mode, value, payloads) {
            Ok(ids) => {
                self.replay_spool_now_and_then();
                Ok(ids)
            }
            Err(e) if self.spool.is_some() && conn::nothing_sent(&e) => {
                self.push_to_spool(what, mode, value, payloads, e)
            }
            Err(e) => Err(e),
        }
    }

    /// `on_error => 'spool'`: the jobs go to the local spool, with ids of
    /// their own and their due times as absolute times (this machine's
    /// clock), to be pushed by the next replay.
    fn push_to_spool(
        &self,
        what: &str,
        mode: &str,
        value: i64,
        payloads: &[&[u8]],
        cause: Error,
    ) -> Result<Vec<Vec<u8>>> {
        let Some(spool) = &self.spool else {
            return Err(cause);
        };
        let due_ms = if mode == "a" {
            value
        } else {
            let now_us = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros() as i64);
            (now_us + value + 999) / 1000
        };
        // ids that sort in push order (jobs due in the same millisecond are
        // handed out by id): the push time in nanoseconds (one more per job
        // of a batch), then random bits against another process's same time
        let now_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let salt = uuid::Uuid::new_v4().as_u128() as u32;
        let records: Vec<crate::spool::Record> = payloads
            .iter()
            .enumerate()
            .map(|(i, p)| crate::spool::Record {
                id: format!("s{:016x}{salt:08x}", now_ns.wrapping_add(i as u64)).into_bytes(),
                due_ms,
                payload: p.to_vec(),
            })
            .collect();
        spool.append(&records).map_err(|io| {
            Error::Connection(format!(
                "{what}: {} and the spool could not take the job{} ({io}: {}); nothing of this call was spooled",
                cause.message(),
                if payloads.len() == 1 { "" } else { "s" },
                spool.path().display()
            ))
        })?;
        stats::count(Event::QueueSpooled, records.len() as u64);
        Ok(records.into_iter().map(|r| r.id).collect())
    }

    /// After a call that reached Redis: replays the spool if it holds
    /// something (one `stat`). A spool with a damaged record is left for an
    /// explicit replaySpool() (which logs what it skips), and not read again
    /// by this process until it changes size.
    fn replay_spool_now_and_then(&self) {
        let Some(spool) = &self.spool else {
            return;
        };
        let len = spool.pending();
        if len == 0 || SPOOL_DAMAGED.with(|m| m.borrow().get(spool.path()) == Some(&len)) {
            return;
        }
        // best effort: a failure leaves the spool for a later call
        if let Err(Replay::Damaged(_)) = self.replay(spool, false) {
            SPOOL_DAMAGED.with(|d| d.borrow_mut().insert(spool.path().to_path_buf(), len));
        }
    }

    /// Pushes what the spool holds (in order, with the ids it was given, so
    /// a replay that reached Redis but could not empty the spool pushes
    /// nothing twice), then empties it. Another process already replaying
    /// it: nothing done. Damaged records are skipped only with
    /// `skip_damaged` (their warnings returned), else the spool is left.
    pub fn replay_spool(&self, skip_damaged: bool) -> Result<SpoolReplay> {
        let Some(spool) = &self.spool else {
            return Err(Error::invalid(
                "DelayQueue::replaySpool: this queue has no spool (on_error 'spool', spool_dir)",
            ));
        };
        match self.replay(spool, skip_damaged) {
            Ok(r) => Ok(r),
            Err(Replay::Send(e)) => Err(e),
            Err(Replay::Damaged(w)) => Err(Error::Redis(format!(
                "replaySpool: the spool {} holds damaged records ({}); replaySpool() skips them and returns their warnings",
                spool.path().display(),
                w.join("; ")
            ))),
            Err(Replay::Io(e)) => Err(Error::Redis(format!(
                "replaySpool: cannot read the spool {}: {e}",
                spool.path().display()
            ))),
        }
    }

    /// `replay_spool`, with the spool's own reasons when it did not finish.
    fn replay(
        &self,
        spool: &Spool,
        skip_damaged: bool,
    ) -> std::result::Result<SpoolReplay, Replay<Error>> {
        let spooled = aux_key(&self.keys[0], "spooled");
        let mut added = 0;
        let r = spool.replay(skip_damaged, |records| {
            for slice in records.chunks(SPOOL_SLICE) {
                let mut c = ScriptCall::new(&scripts::QUEUE_PUSH_SPOOLED);
                for k in &self.keys {
                    c.key(k);
                }
                c.key(&spooled);
                c.arg(&self.cfg_arg).arg("");
                for rec in slice {
                    c.arg(&rec.id).int(rec.due_ms).arg(&rec.payload);
                }
                // idempotent (the ids): safe to send again after a lost reply
                added += int(conn::eval(&self.dsn, &c, true)?, "replaySpool")?;
            }
            Ok::<(), Error>(())
        });
        let Some((replayed, warnings)) = r? else {
            return Ok(SpoolReplay::default());
        };
        stats::count(Event::QueuePushed, added as u64);
        metrics::add(self.metrics, mq::PUSHED, added as u64);
        metrics::add_per_minute(self.metrics, mq::PUSHED_PER_MINUTE, added as u64);
        Ok(SpoolReplay {
            replayed,
            added,
            warnings,
        })
    }

    fn push_to_redis(
        &self,
        what: &str,
        mode: &str,
        value: i64,
        payloads: &[&[u8]],
    ) -> Result<Vec<Vec<u8>>> {
        if payloads.is_empty() {
            return Ok(Vec::new());
        }
        let refused = |e: Error| match e {
            Error::Redis(m) if m.starts_with("OOM") => Error::Redis(format!(
                "{what}: Redis is out of memory (maxmemory), no job was written: {m}"
            )),
            e => e,
        };
        // A push is not idempotent (new ids): never re-sent after a lost reply.
        let mut confirmed = None;
        let replies = if payloads.len() <= PUSH_SLICE {
            let c = self.push_call(mode, value, None, payloads);
            let v = if self.replicas > 0 {
                let (v, acked) =
                    conn::eval_then_wait(&self.dsn, &c, self.replicas, self.wait_ms(), false)
                        .map_err(refused)?;
                confirmed = Some(acked);
                v
            } else {
                conn::eval(&self.dsn, &c, false).map_err(refused)?
            };
            self.registered();
            vec![v]
        } else {
            let mut r = self.call(&scripts::QUEUE_RESERVE, "");
            r.int(payloads.len() as i64);
            let base = int(conn::eval(&self.dsn, &r, false).map_err(refused)?, what)?;
            let calls: Vec<ScriptCall> = payloads
                .chunks(PUSH_SLICE)
                .enumerate()
                .map(|(k, slice)| {
                    self.push_call(mode, value, Some(base + (k * PUSH_SLICE) as i64), slice)
                })
                .collect();
            let replies = conn::eval_many(&self.dsn, &calls)?;
            // Not an OOM refusal (slices are never refused): an error of
            // another kind, after the slices before it were written.
            for (k, r) in replies.iter().enumerate() {
                if let Value::ServerError(_) = r {
                    let e = conn::check(r.clone()).err().map(|e| e.to_string());
                    return Err(Error::Redis(format!(
                        "{what}: Redis failed slice {} of {} ({}): the {} jobs of the slices before it were written",
                        k + 1,
                        calls.len(),
                        e.unwrap_or_default(),
                        k * PUSH_SLICE
                    )));
                }
            }
            replies
        };
        let mut ids = Vec::with_capacity(payloads.len());
        for reply in replies {
            match reply {
                Value::Array(items) => {
                    for i in items {
                        ids.push(bytes(i, what)?);
                    }
                }
                v => return Err(Error::unexpected(what, &v)),
            }
        }
        if ids.len() != payloads.len() {
            return Err(Error::Redis(format!(
                "{what}: expected {} job ids, Redis returned {}",
                payloads.len(),
                ids.len()
            )));
        }
        stats::count(Event::QueuePushed, ids.len() as u64);
        metrics::add(self.metrics, mq::PUSHED, ids.len() as u64);
        metrics::add_per_minute(self.metrics, mq::PUSHED_PER_MINUTE, ids.len() as u64);
        if self.replicas > 0 {
            // a batch of slices: one WAIT after them, on their connection
            let acked = match confirmed {
                Some(a) => a,
                None => self.wait_for_replicas(),
            };
            self.replicated(what, "pushed", acked, ids.clone())?;
        }
        Ok(ids)
    }

    fn wait_ms(&self) -> i64 {
        self.replica_wait.as_millis().clamp(1, i64::MAX as u128) as i64
    }

    /// `WAIT replicas timeout` on the queue's connection (its node).
    fn wait_for_replicas(&self) -> Result<i64> {
        let mut a = Args::cmd("WAIT");
        a.int(self.replicas).int(self.wait_ms());
        a.route = Some(self.keys[0].clone());
        let mut dsn = (*self.dsn).clone();
        dsn.read_timeout += self.replica_wait;
        int(conn::command(&dsn, &a, false)?, "WAIT")
    }

    /// With `wait_replicas`: the write stands on the master; fewer replicas
    /// than asked confirmed it (or the WAIT failed) is a
    /// `ReplicationException` carrying the jobs concerned.
    fn replicated(
        &self,
        what: &str,
        done: &str,
        acked: Result<i64>,
        ids: Vec<Vec<u8>>,
    ) -> Result<()> {
        let (replicas, why) = match acked {
            Ok(n) if n >= self.replicas => return Ok(()),
            Ok(n) => (n, format!("{n} confirmed within {} ms", self.wait_ms())),
            Err(e) => (0, format!("the WAIT failed: {}", e.message())),
        };
        Err(Error::Replication {
            message: format!(
                "{what}: {} {done} on the master, but not confirmed by {} replica(s) (wait_replicas; {why}): a failover now could lose it",
                if ids.len() == 1 { "the job was".to_string() } else { format!("{} jobs were", ids.len()) },
                self.replicas
            ),
            ids,
            replicas,
        })
    }

    /// Claims up to `max` due jobs. With `wait` > 0, blocks until a job is
    /// claimed or `wait` seconds have passed, waking when the next job falls
    /// due or when a job due earlier is pushed.
    pub fn pop(&self, max: i64, wait: f64) -> Result<Vec<Job>> {
        let jobs = self.pop_jobs(max, wait)?;
        // a consumer that found Redis back replays the spool (its jobs are
        // then there for the next pop)
        self.replay_spool_now_and_then();
        Ok(jobs)
    }

    fn pop_jobs(&self, max: i64, wait: f64) -> Result<Vec<Job>> {
        if !(1..=MAX_POP).contains(&max) {
            return Err(Error::invalid(format!(
                "max must be between 1 and {MAX_POP}, got {max}"
            )));
        }
        let wait = non_negative_secs("wait", wait)?;
        let deadline = Instant::now() + wait;
        let owner = self.owner();
        if !wait.is_zero() {
            // the pop script may put back lapsed claims before this caller
            // waits: a server it cannot wait on fails the call before that
            conn::blocking_ready(&self.dsn, self.wake_key())?;
        }
        loop {
            // how long this call may block after this pop (0: it will not)
            let blocks = deadline.saturating_duration_since(Instant::now());
            let blocks_ms = if wait.is_zero() {
                0
            } else {
                blocks.as_millis().max(1) as i64
            };
            let (jobs, next_us) = self.pop_once(max, blocks_ms, &owner)?;
            if !jobs.is_empty() || wait.is_zero() {
                return Ok(jobs);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(jobs);
            }
            let sleep = match u64::try_from(next_us) {
                Ok(us) => left.min(Duration::from_micros(us)),
                Err(_) => left, // nothing scheduled or in flight
            };
            if sleep.is_zero() {
                if conn::interrupted() {
                    return Ok(Vec::new());
                }
                continue; // due now: more bookkeeping than one pop does
            }
            conn::wait_signal(&self.dsn, self.wake_key(), sleep)?;
            if conn::interrupted() {
                // a signal for PHP (e.g. SIGTERM to a worker): let its handler run
                return Ok(Vec::new());
            }
        }
    }

    /// One pop script: the claimed jobs, and (for a `waiting` caller that got
    /// none) µs until the next job is due or the next claim expires (-1:
    /// nothing scheduled or in flight).
    fn pop_once(&self, max: i64, blocks_ms: i64, owner: &str) -> Result<(Vec<Job>, i64)> {
        let mut c = self.call(&scripts::QUEUE_POP, owner);
        c.int(max).int(blocks_ms);
        // Not re-sent after a lost reply: the claims it made come back after
        // the visibility timeout (at-least-once).
        let v = conn::eval(&self.dsn, &c, false)?;
        self.registered();
        let Value::Array(items) = v else {
            return Err(Error::unexpected("pop", &v));
        };
        let mut it = items.into_iter();
        let next = int(it.next().unwrap_or(Value::Nil), "pop")?;
        let died = int(it.next().unwrap_or(Value::Nil), "pop")?;
        let jobs = jobs(it)?;
        let redelivered = jobs.iter().filter(|j| j.attempts > 0).count();
        stats::count(Event::QueueDead, died.max(0) as u64);
        stats::count(Event::QueueClaimed, jobs.len() as u64);
        stats::count(Event::QueueRedelivered, redelivered as u64);
        // a pop's bookkeeping may dead-letter jobs while it claims none
        metrics::add(self.metrics, mq::DEAD, died.max(0) as u64);
        if self.metrics.is_some() && !jobs.is_empty() {
            self.claimed(&jobs, redelivered as u64);
        }
        Ok((jobs, next))
    }

    /// Metrics of a pop that claimed `jobs`: counts, due-to-claim lag, and
    /// the claim time each job's handler time is measured from.
    fn claimed(&self, jobs: &[Job], redelivered: u64) {
        let m = self.metrics;
        metrics::add(m, mq::CLAIMED, jobs.len() as u64);
        metrics::add(m, mq::REDELIVERED, redelivered);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let at = Instant::now();
        CLAIMS.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() + jobs.len() > MAX_CLAIMS_TIMED {
                c.clear(); // handlers that never ack: forget what is kept
            }
            for j in jobs {
                let lag = (now - j.due_at).clamp(0.0, 1e9);
                metrics::observe(m, mq::LAG, Duration::from_secs_f64(lag));
                c.insert(j.id.clone(), at);
            }
        });
    }

    /// A claim of this worker ended (ack or retry): its handler time.
    fn handled(&self, id: &[u8]) {
        if self.metrics.is_some() {
            if let Some(t) = CLAIMS.with(|c| c.borrow_mut().remove(id)) {
                metrics::observe(self.metrics, mq::HANDLER, t.elapsed());
            }
        }
    }

    fn claim_call(&self, script: &'static conn::Script, id: &[u8]) -> ScriptCall<'static> {
        let mut c = self.call(script, &self.owner());
        c.arg(id);
        c
    }

    /// Done: deletes the job if this consumer holds its latest claim.
    pub fn ack(&self, id: &[u8]) -> Result<bool> {
        let c = self.claim_call(&scripts::QUEUE_ACK, id);
        let (v, confirmed) = self.write(&c)?;
        let acked = int(v, "ack")? == 1;
        stats::count(Event::QueueAcked, u64::from(acked));
        metrics::add(self.metrics, mq::ACKED, u64::from(acked));
        metrics::add_per_minute(self.metrics, mq::ACKED_PER_MINUTE, u64::from(acked));
        self.handled(id);
        if acked {
            self.replicated("ack", "acked", confirmed, vec![id.to_vec()])?;
        }
        Ok(acked)
    }

    /// A write script, with its WAIT in the same round trip when the queue
    /// has `wait_replicas` (then the replicas that confirmed it; else Ok(∞)).
    fn write(&self, c: &ScriptCall) -> Result<(Value, Result<i64>)> {
        if self.replicas > 0 {
            conn::eval_then_wait(&self.dsn, c, self.replicas, self.wait_ms(), false)
        } else {
            Ok((conn::eval(&self.dsn, c, false)?, Ok(i64::MAX)))
        }
    }

    /// Gives the job back, due `delay` seconds from now (a failed attempt).
    pub fn retry(&self, id: &[u8], delay: f64) -> Result<bool> {
        let us = delay_us("delay", delay)?;
        let mut c = self.claim_call(&scripts::QUEUE_RETRY, id);
        c.int(us);
        let (v, confirmed) = self.write(&c)?;
        let r = int(v, "retry")?;
        stats::count(Event::QueueDead, u64::from(r == 2));
        metrics::add(self.metrics, mq::RETRIED, u64::from(r == 1));
        metrics::add(self.metrics, mq::DEAD, u64::from(r == 2));
        self.handled(id);
        if r >= 1 {
            let done = if r == 2 {
                "dead-lettered"
            } else {
                "given back"
            };
            self.replicated("retry", done, confirmed, vec![id.to_vec()])?;
        }
        Ok(r >= 1)
    }

    /// Extends this consumer's claim to now + visibility timeout.
    pub fn touch(&self, id: &[u8]) -> Result<bool> {
        let c = self.claim_call(&scripts::QUEUE_TOUCH, id);
        // Idempotent: re-sending sets the same kind of deadline again.
        Ok(int(conn::eval(&self.dsn, &c, true)?, "touch")? == 1)
    }

    /// Deletes a job that is not in flight (scheduled, due or dead).
    pub fn cancel(&self, id: &[u8]) -> Result<bool> {
        if id.is_empty() {
            return Ok(false); // never a job id (the schedule's pause mark)
        }
        let mut c = self.call(&scripts::QUEUE_CANCEL, "");
        c.arg(id);
        Ok(int(conn::eval(&self.dsn, &c, false)?, "cancel")? == 1)
    }

    pub fn counts(&self) -> Result<Counts> {
        let c = self.call(&scripts::QUEUE_COUNTS, "");
        let v = conn::eval(&self.dsn, &c, true)?;
        match v {
            Value::Array(items) if items.len() == 4 => {
                let mut n = [0i64; 4];
                for (slot, item) in n.iter_mut().zip(items) {
                    *slot = int(item, "counts")?;
                }
                Ok(Counts {
                    scheduled: n[0],
                    due: n[1],
                    in_flight: n[2],
                    dead: n[3],
                })
            }
            v => Err(Error::unexpected("counts", &v)),
        }
    }

    /// `counts()` and the times an operator looks at next (one script, one
    /// round trip).
    pub fn inspect(&self) -> Result<Inspection> {
        let c = self.call(&scripts::QUEUE_INSPECT, "");
        let v = conn::eval(&self.dsn, &c, true)?;
        let Value::Array(items) = v else {
            return Err(Error::unexpected("inspect", &v));
        };
        if items.len() != 8 {
            return Err(Error::unexpected("inspect", &Value::Array(items)));
        }
        let mut n = [0i64; 8];
        for (slot, item) in n.iter_mut().zip(items) {
            *slot = match item {
                Value::BulkString(b) => std::str::from_utf8(&b)
                    .ok()
                    .and_then(|s| s.parse::<f64>().ok())
                    .map(|f| f as i64)
                    .ok_or_else(|| Error::Redis("inspect: a time that is not a number".into()))?,
                other => int(other, "inspect")?,
            };
        }
        let at = |ms: i64| (ms >= 0).then(|| ms as f64 / 1000.0);
        Ok(Inspection {
            counts: Counts {
                scheduled: n[0],
                due: n[1],
                in_flight: n[2],
                dead: n[3],
            },
            oldest_due_at: at(n[4]),
            next_due_at: at(n[5]),
            now: n[6] as f64 / 1000.0,
            paused: n[7] == 1,
        })
    }

    /// Pauses the queue: pushes are taken as ever, pops hand out nothing
    /// (a blocked `pop` keeps waiting) until `resume()`. Claims already
    /// handed out stay valid. Returns whether it was running.
    pub fn pause(&self) -> Result<bool> {
        self.set_paused(true)
    }

    /// Resumes a paused queue and wakes a consumer blocked in `pop`.
    /// Returns whether it was paused.
    pub fn resume(&self) -> Result<bool> {
        self.set_paused(false)
    }

    fn set_paused(&self, on: bool) -> Result<bool> {
        let mut c = self.call(&scripts::QUEUE_PAUSE, "");
        c.arg(if on { "1" } else { "0" });
        Ok(int(conn::eval(&self.dsn, &c, true)?, "pause")? == 1)
    }

    /// Whether the queue is paused (one read).
    pub fn is_paused(&self) -> Result<bool> {
        let mut a = Args::cmd("ZSCORE");
        a.push(&self.keys[0]).push(b"");
        Ok(!matches!(conn::command(&self.dsn, &a, true)?, Value::Nil))
    }

    /// The oldest dead-lettered jobs first.
    pub fn dead(&self, limit: i64) -> Result<Vec<Job>> {
        if !(1..=MAX_DEAD_LIST).contains(&limit) {
            return Err(Error::invalid(format!(
                "limit must be between 1 and {MAX_DEAD_LIST}, got {limit}"
            )));
        }
        let mut c = self.call(&scripts::QUEUE_DEAD, "");
        c.int(limit);
        let v = conn::eval(&self.dsn, &c, true)?;
        let Value::Array(items) = v else {
            return Err(Error::unexpected("dead", &v));
        };
        jobs(items.into_iter())
    }

    /// Dead jobs back to the schedule, due now, attempts 0: the ones named
    /// or all of them (in bounded batches). Returns how many moved.
    pub fn requeue_dead(&self, which: DeadJobs) -> Result<i64> {
        self.on_dead(&scripts::QUEUE_REQUEUE, "requeueDead", which)
    }

    /// Dead jobs deleted (payload and attempts too): the ones named or all
    /// of them (in bounded batches). A named job that is not dead is left
    /// alone. Returns how many were deleted.
    pub fn delete_dead(&self, which: DeadJobs) -> Result<i64> {
        self.on_dead(&scripts::QUEUE_DEAD_DELETE, "deleteDead", which)
    }

    fn on_dead(&self, script: &conn::Script, what: &str, which: DeadJobs) -> Result<i64> {
        let run = |args: &[&[u8]]| -> Result<(i64, i64)> {
            let mut c = self.call(script, "");
            for a in args {
                c.arg(a);
            }
            match conn::eval(&self.dsn, &c, false)? {
                Value::Array(v) if v.len() == 2 => {
                    let mut it = v.into_iter();
                    let done = int(it.next().unwrap_or(Value::Nil), what)?;
                    let seen = int(it.next().unwrap_or(Value::Nil), what)?;
                    Ok((done, seen))
                }
                v => Err(Error::unexpected(what, &v)),
            }
        };
        match which {
            DeadJobs::Ids(ids) => {
                if ids.len() > MAX_IDS {
                    return Err(Error::invalid(format!(
                        "at most {MAX_IDS} ids at once, got {}",
                        ids.len()
                    )));
                }
                if ids.is_empty() {
                    return Ok(0);
                }
                let mut args: Vec<&[u8]> = Vec::with_capacity(ids.len() + 1);
                args.push(b"ids");
                args.extend(ids.iter().map(|i| i.as_slice()));
                Ok(run(&args)?.0)
            }
            DeadJobs::All => {
                let chunk = REQUEUE_CHUNK.to_string();
                let mut total = 0;
                loop {
                    let (done, seen) = run(&[b"all", chunk.as_bytes()])?;
                    total += done;
                    if seen < REQUEUE_CHUNK {
                        return Ok(total);
                    }
                }
            }
        }
    }

    /// One page of the jobs in `state`, in the order they leave it: `cursor`
    /// is `None` for the first page, then the page before's. Payloads are
    /// cut to `preview` bytes (`size` keeps the full length).
    pub fn jobs(
        &self,
        state: State,
        cursor: Option<&[u8]>,
        limit: i64,
        preview: i64,
    ) -> Result<JobPage> {
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(Error::invalid(format!(
                "limit must be between 1 and {MAX_PAGE}, got {limit}"
            )));
        }
        if !(0..=MAX_PREVIEW).contains(&preview) {
            return Err(Error::invalid(format!(
                "preview must be between 0 and {MAX_PREVIEW} bytes, got {preview}"
            )));
        }
        let cursor = cursor.unwrap_or_default();
        if !cursor.is_empty() && !valid_cursor(cursor) {
            return Err(Error::invalid(
                "cursor must be the 'cursor' of a page jobs() returned",
            ));
        }
        let mut c = self.call(&scripts::QUEUE_JOBS, "");
        c.arg(state.name()).arg(cursor).int(limit).int(preview);
        let v = conn::eval(&self.dsn, &c, true)?;
        let Value::Array(items) = v else {
            return Err(Error::unexpected("jobs", &v));
        };
        let mut it = items.into_iter();
        let next = bytes(it.next().unwrap_or(Value::Nil), "jobs cursor")?;
        let mut jobs = Vec::new();
        while let Some(id) = it.next() {
            let (Some(at), Some(a), Some(owner), Some(size), Some(p)) =
                (it.next(), it.next(), it.next(), it.next(), it.next())
            else {
                return Err(Error::Redis("jobs: truncated job list from Redis".into()));
            };
            let owner = bytes(owner, "job owner")?;
            jobs.push(JobInfo {
                id: bytes(id, "job id")?,
                state,
                attempts: attempts(a)?,
                at: ms_text(at)?,
                owner: (!owner.is_empty()).then_some(owner),
                size: int(size, "job size")?,
                payload: bytes(p, "job payload")?,
            });
        }
        Ok(JobPage {
            jobs,
            cursor: (!next.is_empty()).then_some(next),
        })
    }

    /// One job by id, in whatever state it is; `None` when there is none.
    pub fn job(&self, id: &[u8]) -> Result<Option<JobInfo>> {
        if id.is_empty() {
            return Ok(None);
        }
        let mut c = self.call(&scripts::QUEUE_JOB, "");
        c.arg(id);
        let v = conn::eval(&self.dsn, &c, true)?;
        let Value::Array(items) = v else {
            return Err(Error::unexpected("job", &v));
        };
        if items.is_empty() {
            return Ok(None);
        }
        let [st, at, a, owner, p]: [Value; 5] = items
            .try_into()
            .map_err(|v: Vec<Value>| Error::unexpected("job", &Value::Array(v)))?;
        let st = bytes(st, "job state")?;
        let state = State::parse(&st)
            .ok_or_else(|| Error::Redis("job: an unknown state from Redis".into()))?;
        let owner = bytes(owner, "job owner")?;
        let payload = bytes(p, "job payload")?;
        Ok(Some(JobInfo {
            id: id.to_vec(),
            state,
            attempts: attempts(a)?,
            at: ms_text(at)?,
            owner: (!owner.is_empty()).then_some(owner),
            size: payload.len() as i64,
            payload,
        }))
    }

    /// Deletes every job in every state (the id sequence is kept).
    pub fn purge(&self) -> Result<()> {
        let mut a = Args::cmd("UNLINK");
        for k in &self.keys[..6] {
            a.push(k);
        }
        a.push(self.wake_key()).push(&self.keys[9]);
        conn::command(&self.dsn, &a, true).map(|_| ())
    }
}

/// A `jobs()` cursor: `<ms>:<member>`.
fn valid_cursor(c: &[u8]) -> bool {
    let Some(colon) = c.iter().position(|&b| b == b':') else {
        return false;
    };
    let ms = &c[..colon];
    let digits = ms.strip_prefix(b"-").unwrap_or(ms);
    !digits.is_empty() && digits.len() <= 17 && digits.iter().all(u8::is_ascii_digit)
}

fn attempts(a: Value) -> Result<i64> {
    match a {
        Value::Nil => Ok(0),
        a => int(a, "job attempts"),
    }
}

/// Milliseconds as the scripts return them (decimal text; '' = unknown) to
/// unix seconds.
fn ms_text(v: Value) -> Result<Option<f64>> {
    let b = bytes(v, "job time")?;
    if b.is_empty() {
        return Ok(None);
    }
    std::str::from_utf8(&b)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .map(|ms| Some(ms / 1000.0))
        .ok_or_else(|| Error::Redis("job: a time that is not a number".into()))
}

/// Flat `id, payload, attempts, due ms` groups to jobs.
fn jobs(mut it: impl Iterator<Item = Value>) -> Result<Vec<Job>> {
    let mut out = Vec::new();
    while let Some(id) = it.next() {
        let (Some(p), Some(a), Some(d)) = (it.next(), it.next(), it.next()) else {
            return Err(Error::Redis("queue: truncated job list from Redis".into()));
        };
        out.push(Job {
            id: bytes(id, "job id")?,
            payload: bytes(p, "job payload")?,
            attempts: attempts(a)?,
            due_at: int(d, "job due time")? as f64 / 1000.0,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(v: Vec<(&str, OptValue)>) -> Options {
        Options::new(v.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    fn make(v: Vec<(&str, OptValue)>) -> Result<DelayQueue> {
        DelayQueue::new(b"q", &Connection::Default, opts(v), &Settings::default())
    }

    #[test]
    fn delays_round_up_to_microseconds() {
        assert_eq!(delay_us("delay", 0.0).unwrap(), 0);
        assert_eq!(delay_us("delay", 0.0000001).unwrap(), 1);
        assert_eq!(delay_us("delay", 1.5).unwrap(), 1_500_000);
        assert!(delay_us("delay", -0.001).is_err());
        assert!(delay_us("delay", f64::NAN).is_err());
        assert!(delay_us("delay", f64::INFINITY).is_err());
    }

    #[test]
    fn timestamps_round_up_to_milliseconds() {
        assert_eq!(timestamp_ms(1_764_000_000.0).unwrap(), 1_764_000_000_000);
        assert_eq!(timestamp_ms(1_764_000_000.123).unwrap(), 1_764_000_000_123);
        assert_eq!(
            timestamp_ms(1_764_000_000.123_1).unwrap(),
            1_764_000_000_124
        );
        assert_eq!(timestamp_ms(0.0).unwrap(), 0);
        assert!(timestamp_ms(-1.0).is_err());
        assert!(timestamp_ms(f64::NAN).is_err());
        assert!(timestamp_ms(f64::NEG_INFINITY).is_err());
        assert!(timestamp_ms(2e11).is_err());
    }

    #[test]
    fn options_are_checked() {
        let q = make(vec![]).unwrap();
        assert_eq!(
            q.config(),
            Config {
                visibility_ms: 30_000,
                max_attempts: 5,
                backoff_ms: 1000
            }
        );
        assert_eq!(q.cfg_arg, "30000;5;1000");
        let q = make(vec![
            ("visibility_timeout", OptValue::Float(0.25)),
            ("max_attempts", OptValue::Int(0)),
            ("backoff", OptValue::Int(0)),
            ("prefix", OptValue::Str(b"app:".to_vec())),
        ])
        .unwrap();
        assert_eq!(
            q.config(),
            Config {
                visibility_ms: 250,
                max_attempts: 0,
                backoff_ms: 0
            }
        );
        assert_eq!(q.key(), b"app:q");
        assert_eq!(q.keys[1], b"{app:q}:inflight");
        assert_eq!(q.wake_key(), b"{app:q}:wake");
        for bad in [
            ("visibility_timeout", OptValue::Float(0.0)),
            ("visibility_timeout", OptValue::Float(f64::NAN)),
            ("visibility_timeout", OptValue::Str(b"30".to_vec())),
            ("max_attempts", OptValue::Int(-1)),
            ("max_attempts", OptValue::Float(2.0)),
            ("backoff", OptValue::Float(-1.0)),
            ("backoff", OptValue::Float(f64::INFINITY)),
            ("colour", OptValue::Int(1)),
        ] {
            let what = format!("{bad:?}");
            let e = make(vec![bad]).unwrap_err();
            assert!(matches!(e, Error::Invalid(_)), "{what}: {e}");
        }
        let e = make(vec![("visibilty_timeout", OptValue::Int(1))]).unwrap_err();
        assert!(e.message().contains("'visibilty_timeout'"), "{e}");
        assert!(DelayQueue::new(
            b"",
            &Connection::Default,
            Options::default(),
            &Settings::default()
        )
        .is_err());
    }

    #[test]
    fn hash_tagged_names_keep_their_tag() {
        let q = make(vec![("prefix", OptValue::Str(b"{t}".to_vec()))]).unwrap();
        assert_eq!(q.keys[5], b"{t}q:claim");
    }

    #[test]
    fn owners_are_per_process_unless_named() {
        let a = make(vec![]).unwrap();
        let b = make(vec![]).unwrap();
        assert_eq!(a.owner(), a.owner());
        assert_eq!(a.owner(), b.owner());
        assert_eq!(a.owner().len(), 32);
        let n = make(vec![("consumer", OptValue::Str(b"worker-7".to_vec()))]).unwrap();
        assert_eq!(n.owner(), "worker-7");
        for bad in ["", "a|b"] {
            assert!(make(vec![("consumer", OptValue::Str(bad.as_bytes().to_vec()))]).is_err());
        }
    }

    /// A queue on the test server (REDIS_URL) under a fresh key.
    fn live(cfg: Config) -> DelayQueue {
        let key = format!("rkq:{}:{}", std::process::id(), new_owner()).into_bytes();
        DelayQueue::with_key(Arc::new(conn::test_dsn()), key, cfg)
    }

    fn redis(q: &DelayQueue, args: &[&[u8]]) -> Value {
        let mut a = Args::new();
        for x in args {
            a.push(x);
        }
        conn::command(&q.dsn, &a, false).unwrap()
    }

    fn redis_ms(q: &DelayQueue) -> i64 {
        let Value::Array(t) = redis(q, &[b"TIME"]) else {
            panic!("TIME")
        };
        let mut t = t.into_iter();
        let s = int(t.next().unwrap(), "s").unwrap();
        let us = int(t.next().unwrap(), "us").unwrap();
        s * 1000 + us / 1000
    }

    /// Moves the one claim on `id` to the visibility deadline `deadline`
    /// (as if it had been claimed long ago); returns its member.
    fn set_deadline(q: &DelayQueue, id: &[u8], deadline: i64) -> Vec<u8> {
        let mut member = id.to_vec();
        member.push(b'|');
        member.extend_from_slice(q.owner().as_bytes());
        let d = deadline.to_string();
        redis(q, &[b"ZADD", &q.keys[1], b"XX", d.as_bytes(), &member]);
        member
    }

    fn cleanup(q: &DelayQueue) {
        q.purge().unwrap();
        redis(q, &[b"DEL", &q.keys[6]]);
    }

    /// Every page of one state, `limit` at a time.
    fn all_pages(q: &DelayQueue, state: State, limit: i64) -> Vec<JobInfo> {
        let mut out = Vec::new();
        let mut cursor: Option<Vec<u8>> = None;
        loop {
            let page = q.jobs(state, cursor.as_deref(), limit, 16).unwrap();
            assert!(page.jobs.len() as i64 <= limit);
            out.extend(page.jobs);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => return out,
            }
        }
    }

    /// jobs() pages through each state in order, ties of one due time
    /// included; a lapsed claim listed by jobs() is already put back (as a
    /// pop would); job() finds each state; delete_dead leaves other states.
    #[test]
    fn operator_listing() {
        let q = live(Config {
            visibility_ms: 60_000,
            max_attempts: 1,
            backoff_ms: 0,
        });
        let payloads: Vec<Vec<u8>> = (0..25).map(|i| format!("job-{i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = payloads.iter().map(|p| p.as_slice()).collect();
        let later = q.push_many(&refs, 3600.0).unwrap();
        let now = q.push_many(&refs[..9], 0.0).unwrap();
        let got: Vec<Vec<u8>> = all_pages(&q, State::Scheduled, 4)
            .into_iter()
            .map(|j| j.id)
            .collect();
        assert_eq!(got, later, "scheduled, ties in id order");
        let got: Vec<Vec<u8>> = all_pages(&q, State::Due, 2)
            .into_iter()
            .map(|j| j.id)
            .collect();
        assert_eq!(got, now, "due, from the ready list");
        // claim 3; lapse one: jobs() of the dead state sees it (max_attempts 1)
        let claimed = q.pop(3, 0.0).unwrap();
        let flight = all_pages(&q, State::InFlight, 1);
        assert_eq!(flight.len(), 3);
        assert!(flight
            .iter()
            .all(|j| j.owner.as_deref() == Some(q.owner().as_bytes())));
        set_deadline(&q, &claimed[0].id, redis_ms(&q) - 10);
        let dead = all_pages(&q, State::Dead, 10);
        assert_eq!(dead.len(), 1);
        assert_eq!(dead[0].id, claimed[0].id);
        assert_eq!(dead[0].attempts, 1);
        assert_eq!(all_pages(&q, State::InFlight, 10).len(), 2);
        let j = q.job(&claimed[1].id).unwrap().unwrap();
        assert_eq!(
            (j.state, j.payload.as_slice()),
            (State::InFlight, &b"job-1"[..])
        );
        assert_eq!(q.job(&later[0]).unwrap().unwrap().state, State::Scheduled);
        assert_eq!(q.job(&now[8]).unwrap().unwrap().state, State::Due);
        assert!(q.job(&now[8]).unwrap().unwrap().at.is_some());
        assert_eq!(q.job(b"nope").unwrap(), None);
        assert_eq!(
            q.delete_dead(DeadJobs::Ids(&[later[0].clone()])).unwrap(),
            0
        );
        assert_eq!(q.delete_dead(DeadJobs::All).unwrap(), 1);
        assert_eq!(q.job(&claimed[0].id).unwrap(), None);
        assert!(q.jobs(State::Due, Some(b"nonsense"), 10, 0).is_err());
        cleanup(&q);
    }

    /// A paused queue takes pushes, hands out nothing and counts no job
    /// for its pause mark; resumed, it hands out in order again.
    #[test]
    fn pause_and_resume() {
        let q = live(Config {
            visibility_ms: 60_000,
            max_attempts: 5,
            backoff_ms: 0,
        });
        assert!(q.pause().unwrap());
        assert!(!q.pause().unwrap());
        let a = q.push(b"a", 0.0).unwrap();
        q.push(b"later", 3600.0).unwrap();
        assert!(q.pop(5, 0.0).unwrap().is_empty());
        let c = q.counts().unwrap();
        assert_eq!((c.scheduled, c.due), (1, 1), "{c:?}");
        assert!(q.inspect().unwrap().paused);
        assert!(!q.cancel(b"").unwrap());
        assert!(q.is_paused().unwrap());
        assert!(q.resume().unwrap());
        assert!(!q.resume().unwrap());
        let got = q.pop(5, 0.0).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].id, a);
        cleanup(&q);
    }

    /// A lapsed claim's backoff runs from its deadline: one that lapsed long
    /// enough ago is due by the time a pop notices, and that pop delivers it;
    /// the due time is deadline + backoff exactly (Redis clock), whoever notices.
    #[test]
    fn backoff_counts_from_the_lapse() {
        let q = live(Config {
            visibility_ms: 60_000,
            max_attempts: 5,
            backoff_ms: 1000,
        });
        let id = q.push(b"job", 0.0).unwrap();
        assert_eq!(q.pop(1, 0.0).unwrap().len(), 1);
        // lapsed 3 s ago: first backoff is 0.5..1 s, over for 2 s by now
        let lapse = redis_ms(&q) - 3000;
        set_deadline(&q, &id, lapse);
        let jobs = q.pop(1, 0.0).unwrap();
        assert_eq!(jobs.len(), 1, "the noticing pop delivers it");
        assert_eq!(jobs[0].id, id);
        assert_eq!(jobs[0].attempts, 1);
        let due = (jobs[0].due_at * 1000.0).round() as i64;
        assert!(
            (lapse + 500..=lapse + 1000).contains(&due),
            "due {} ms after the lapse",
            due - lapse
        );
        // second failure, noticed by counts(): due at lapse + 1..2 s, so
        // still scheduled when the lapse was 100 ms ago
        let lapse = redis_ms(&q) - 100;
        set_deadline(&q, &id, lapse);
        let c = q.counts().unwrap();
        assert_eq!((c.scheduled, c.due, c.in_flight), (1, 0, 0), "{c:?}");
        let Value::BulkString(score) = redis(&q, &[b"ZSCORE", &q.keys[0], &id]) else {
            panic!("not scheduled")
        };
        let due: i64 = std::str::from_utf8(&score).unwrap().parse().unwrap();
        assert!(
            (lapse + 1000..=lapse + 2000).contains(&due),
            "due {} ms after the lapse",
            due - lapse
        );
        cleanup(&q);
    }

    /// Out of attempts, a lapsed claim is dead as of its deadline, whether a
    /// pop, dead() or a late retry() of its consumer notices it.
    #[test]
    fn dead_lettered_at_the_lapse() {
        let q = live(Config {
            visibility_ms: 60_000,
            max_attempts: 1,
            backoff_ms: 0,
        });
        let a = q.push(b"a", 0.0).unwrap();
        let b = q.push(b"b", 0.0).unwrap();
        let c = q.push(b"c", 0.0).unwrap();
        assert_eq!(q.pop(3, 0.0).unwrap().len(), 3);
        let now = redis_ms(&q);
        set_deadline(&q, &a, now - 9000);
        set_deadline(&q, &b, now - 8000);
        set_deadline(&q, &c, now - 7000);
        assert!(q.pop(1, 0.0).unwrap().is_empty());
        assert!(
            q.retry(&c, 0.0).unwrap(),
            "c was noticed by the pop: still the caller's"
        );
        let dead = q.dead(10).unwrap();
        let when: Vec<i64> = dead
            .iter()
            .map(|j| (j.due_at * 1000.0).round() as i64 - now)
            .collect();
        assert_eq!(when, [-9000, -8000, -7000]);
        cleanup(&q);

        // not noticed by anyone before the late retry
        let q = live(Config {
            visibility_ms: 60_000,
            max_attempts: 1,
            backoff_ms: 0,
        });
        let id = q.push(b"late", 0.0).unwrap();
        assert_eq!(q.pop(1, 0.0).unwrap().len(), 1);
        let lapse = redis_ms(&q) - 5000;
        set_deadline(&q, &id, lapse);
        assert!(q.retry(&id, 0.0).unwrap());
        let dead = q.dead(10).unwrap();
        assert_eq!(dead.len(), 1);
        assert_eq!((dead[0].due_at * 1000.0).round() as i64, lapse);
        cleanup(&q);
    }

    /// A batch of several slices gets consecutive ids in payload order; a
    /// lost id counter (evicted, deleted) while jobs remain never makes a
    /// push hand out a live id again.
    #[test]
    fn batches_and_ids() {
        let q = live(Config {
            visibility_ms: 60_000,
            max_attempts: 5,
            backoff_ms: 0,
        });
        let payloads: Vec<Vec<u8>> = (0..2345).map(|i| format!("p{i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
        let ids = q.push_many(&refs, 0.0).unwrap();
        let nums: Vec<u64> = ids
            .iter()
            .map(|i| std::str::from_utf8(i).unwrap().parse().unwrap())
            .collect();
        assert_eq!(nums.len(), 2345);
        assert!(nums.windows(2).all(|w| w[1] == w[0] + 1), "consecutive");
        assert!(ids.iter().all(|i| i.len() == 16));
        // the counter is lost while those jobs wait
        redis(&q, &[b"DEL", &q.keys[6]]);
        let more = q.push_many(&[b"a", b"b"], 0.0).unwrap();
        assert!(
            more.iter().all(|m| !ids.contains(m) && m > &ids[2344]),
            "{more:?}"
        );
        let mut got = Vec::new();
        loop {
            let jobs = q.pop(1000, 0.0).unwrap();
            if jobs.is_empty() {
                break;
            }
            got.extend(jobs);
        }
        assert_eq!(got.len(), 2347);
        for (j, id) in got.iter().zip(ids.iter().chain(more.iter())) {
            assert_eq!(&j.id, id);
        }
        assert_eq!(got[7].payload, b"p7");
        assert_eq!(got[2346].payload, b"b");
        cleanup(&q);
    }

    /// Jobs pushed without a delay (the ready list) and the schedule's due
    /// jobs come out as one sequence in (due time, id) order, across pops
    /// that take part of each, and the ready list is counted and cancelled.
    #[test]
    fn ready_list_and_schedule_merge_in_due_order() {
        let q = live(Config {
            visibility_ms: 60_000,
            max_attempts: 0,
            backoff_ms: 0,
        });
        let now = redis_ms(&q) as f64 / 1000.0;
        let r1 = q.push(b"r1", 0.0).unwrap(); // ready, due now
        let s1 = q.push_at(b"s1", now - 5.0).unwrap(); // schedule, due 5 s ago
        let r2 = q.push(b"r2", 0.0).unwrap();
        let gone = q.push(b"gone", 0.0).unwrap();
        let s2 = q.push_at(b"s2", now - 1.0).unwrap();
        let later = q.push(b"later", 3600.0).unwrap();
        let r3 = q.push_many(&[b"r3", b"r4"], 0.0).unwrap();
        let c = q.counts().unwrap();
        assert_eq!((c.scheduled, c.due, c.in_flight), (1, 7, 0), "{c:?}");
        assert!(q.cancel(&gone).unwrap(), "a ready job is cancelled");
        assert!(!q.cancel(&gone).unwrap(), "once");
        let mut got = Vec::new();
        for n in [1, 2, 1, 3] {
            got.extend(q.pop(n, 0.0).unwrap().into_iter().map(|j| j.id));
        }
        assert_eq!(got, vec![s1, s2, r1, r2, r3[0].clone(), r3[1].clone()]);
        assert!(
            q.pop(10, 0.0).unwrap().is_empty(),
            "the later job is not due"
        );
        let c = q.counts().unwrap();
        assert_eq!((c.scheduled, c.due, c.in_flight), (1, 0, 6), "{c:?}");
        assert!(q.cancel(&later).unwrap());
        q.purge().unwrap();
    }

    #[test]
    fn job_lists_are_parsed() {
        let v = vec![
            Value::BulkString(b"0000000000000001".to_vec()),
            Value::BulkString(b"\0x".to_vec()),
            Value::Int(2),
            Value::Int(1_764_000_000_123),
        ];
        let j = jobs(v.into_iter()).unwrap();
        assert_eq!(j[0].payload, b"\0x");
        assert_eq!(j[0].attempts, 2);
        assert!((j[0].due_at - 1_764_000_000.123).abs() < 1e-6);
        assert!(jobs(vec![Value::Int(1)].into_iter()).is_err());
        let v = vec![
            Value::BulkString(b"1".to_vec()),
            Value::BulkString(b"".to_vec()),
            Value::Nil,
            Value::BulkString(b"5".to_vec()),
        ];
        assert_eq!(jobs(v.into_iter()).unwrap()[0].attempts, 0);
    }
}
