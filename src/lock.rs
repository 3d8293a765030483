//! A distributed lock: one round trip to take it, owner-checked release and
//! extend, waiters woken by the release (or the TTL expiry) instead of
//! polling, an optional FIFO queue, fencing tokens, a background watchdog,
//! and Redlock across independent masters.
//!
//! Key layout (K = prefix . resource): see `src/lua/_lock_common.lua`.
//!
//! Ownership of a lease (`Shared::lease`): the epoch of the acquire that took
//! it, with `LOST` set once it was found gone (by the watchdog, or by
//! `extend()`/`isAcquired()` asking Redis), 0 when this object
//! does not hold it. Every acquire gets a new epoch, so the watchdog, the
//! request-end hook and `run()` never act on a lease that was released and
//! taken again meanwhile.
//!
//! Fork: an object belongs to the process that made its token
//! (`Shared::owner`). In a child forked with `pcntl_fork()` an inherited
//! object never writes under its parent's token: the request-end hook,
//! `__destruct`, `run()`'s release, `release()` and `extend()` leave the
//! parent's lock alone, the watchdog thread does not exist there, and
//! `acquire()` first gives the object a token of the child's own.
mod watchdog;

use crate::conn::stats::{self, Event};
use crate::conn::{self, int, Args, Dsn, Error, Result, ScriptCall, Value};
use crate::metrics::{self, hot::Hot, lock as mlock, Series};
use crate::options::{Connection, Options, Settings};
use crate::scripts;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

pub use watchdog::shutdown as shutdown_watchdog;

pub const OPTIONS: &[&str] = &[
    "ttl",
    "watchdog",
    "fair",
    "token",
    "prefix",
    "wait_replicas",
    "wait_timeout",
];

/// A waiter re-checks at least this often (so it notices a dead fair-queue
/// head or a lost wake-up hint) and refreshes its heartbeat.
const SLICE: Duration = Duration::from_millis(1000);
/// A waiter that has not refreshed its place for this long is dropped.
const HEARTBEAT_MS: i64 = 3000;
const DEFAULT_TTL: Duration = Duration::from_secs(30);
/// Longest adopted token accepted.
const MAX_TOKEN: usize = 512;
const NO_FENCE: i64 = i64::MIN;
/// Set in `Shared::lease` when the watchdog found the lease lost.
const LOST: u64 = 1 << 63;

/// One Redis server holding the lock's keys.
#[derive(Debug)]
struct Node {
    dsn: Arc<Dsn>,
    /// The lock key, then its side keys (`PARTS`), one after the other:
    /// one allocation per node instead of six.
    keys: Box<[u8]>,
    /// Where each of them ends in `keys`.
    ends: [usize; 6],
}

/// The side keys of a lock `K`, in `Node::keys` after `K` itself:
///   {K}:fence, {K}:waiters, {K}:queue, {K}:wake, and `{K}:wake:`, followed
///   by a fair waiter's token for its private wake-up key.
const PARTS: [&str; 5] = ["fence", "waiters", "queue", "wake", "wake:"];

impl Node {
    fn new(dsn: Arc<Dsn>, key: &[u8]) -> Node {
        let mut keys = Vec::with_capacity(key.len() * 6 + 48);
        keys.extend_from_slice(key);
        let mut ends = [key.len(); 6];
        for (i, suffix) in PARTS.iter().enumerate() {
            conn::aux_key_into(&mut keys, key, suffix);
            ends[i + 1] = keys.len();
        }
        Node {
            dsn,
            keys: keys.into_boxed_slice(),
            ends,
        }
    }

    fn part(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.keys[start..self.ends[i]]
    }

    fn lock(&self) -> &[u8] {
        self.part(0)
    }

    fn fence(&self) -> &[u8] {
        self.part(1)
    }

    fn waiters(&self) -> &[u8] {
        self.part(2)
    }

    fn queue(&self) -> &[u8] {
        self.part(3)
    }

    fn wake(&self) -> &[u8] {
        self.part(4)
    }

    /// `{K}:wake:`, followed by a fair waiter's token.
    fn private(&self) -> &[u8] {
        self.part(5)
    }

    fn private_key(&self, token: &[u8]) -> Vec<u8> {
        let mut k = self.private().to_vec();
        k.extend_from_slice(token);
        k
    }

    /// One attempt of a waiter (lock_acquire.lua); `mode` as there; `fence`:
    /// issue the fencing token with the lock (Redlock), instead of when asked.
    fn acquire_call(
        &self,
        token: &[u8],
        ttl_ms: i64,
        mode: &str,
        fence: bool,
    ) -> ScriptCall<'static> {
        let mut c = ScriptCall::new(&scripts::LOCK_ACQUIRE);
        c.key(self.lock())
            .key(self.fence())
            .key(self.waiters())
            .key(self.queue())
            .key(self.wake());
        c.arg(token)
            .int(ttl_ms)
            .arg(mode)
            .int(HEARTBEAT_MS)
            .arg(self.private())
            .arg(if fence { "1" } else { "0" });
        c
    }

    fn waiter_call<'a>(&self, script: &'a conn::Script, token: &[u8]) -> ScriptCall<'a> {
        let mut c = ScriptCall::new(script);
        c.key(self.lock())
            .key(self.waiters())
            .key(self.queue())
            .key(self.wake());
        c.arg(token).int(HEARTBEAT_MS).arg(self.private());
        c
    }
}

/// What one attempt on one node said.
enum Attempt {
    /// Taken, with the fencing token when one was issued with it (else 0).
    Got(i64),
    /// Held by someone else (PTTL in ms, -1 when none / not expiring), and
    /// whether we head the fair queue.
    Busy { pttl: i64, head: bool },
}

fn parse_attempt(v: Value) -> Result<Attempt> {
    let what = "lock acquire";
    // lock_try.lua: 1, or -2 - the holder's PTTL
    if let Value::Int(i) = v {
        return match i {
            1 => Ok(Attempt::Got(0)),
            i if i <= -1 => Ok(Attempt::Busy {
                pttl: -2 - i,
                head: false,
            }),
            _ => Err(Error::unexpected(what, &v)),
        };
    }
    let Value::Array(items) = v else {
        return Err(Error::unexpected(what, &v));
    };
    let mut it = items.into_iter();
    let status = it.next().map(|v| int(v, what)).transpose()?;
    let a = it.next().map(|v| int(v, what)).transpose()?;
    match (status, a) {
        (Some(1), Some(f)) => Ok(Attempt::Got(f)),
        (Some(0), Some(pttl)) => {
            let head = it.next().map(|v| int(v, what)).transpose()?.unwrap_or(0) == 1;
            Ok(Attempt::Busy { pttl, head })
        }
        _ => Err(Error::Redis(format!(
            "unexpected reply from Redis for {what}"
        ))),
    }
}

/// A process, as fork(2) tells them apart: its pid, and the fork generation
/// (bumped in every child by a `pthread_atfork` handler, installed before the
/// first lock object exists), so neither a reused pid nor a fork the handler
/// missed can make a child pass for its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Process {
    pid: u32,
    generation: u64,
}

impl Process {
    fn current() -> Process {
        Process {
            pid: std::process::id(),
            generation: conn::stats::fork_generation(),
        }
    }
}

/// Whose an object's token is.
#[derive(Debug)]
struct Owner {
    token: Arc<[u8]>,
    /// The process that made the token, or for an adopted token the one that
    /// took the current lease: only there does the object release, renew or
    /// take a lease with it.
    home: Process,
}

fn new_token() -> Arc<[u8]> {
    Arc::from(uuid::Uuid::new_v4().hyphenated().to_string().into_bytes())
}

/// Locks, ignoring poisoning (nothing in here can be left half-updated).
fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Everything a lock object, the watchdog thread and the request-end hook share.
#[derive(Debug)]
pub(crate) struct Shared {
    nodes: Vec<Node>,
    /// Only ever locked by the PHP thread, for an instant, never across a
    /// call into PHP (so never held when PHP forks). The watchdog thread gets
    /// its own copy of the token with each lease.
    owner: Mutex<Owner>,
    adopted: bool,
    fair: bool,
    watchdog: bool,
    ttl_ms: AtomicU64,
    /// Epoch of the lease this object holds (| `LOST` once it was found gone),
    /// 0 when none. Only meaningful in the owner's home process: a forked
    /// child's copy is its parent's, and is ignored there.
    lease: AtomicU64,
    fence: AtomicI64,
    /// `wait_replicas`: replicas that must confirm an acquire (WAIT), and how
    /// long to wait for them.
    replicas: i64,
    replica_wait: Duration,
    /// Its series in the host's metrics (the resource name, no prefix).
    metrics: Option<Series>,
    /// The resource name (the hot-lock sketch).
    resource: Box<[u8]>,
    /// When the lease held now was taken (`metrics::now_ns`), 0 when none
    /// is timed (the hold-time histogram).
    held_since: AtomicU64,
    /// Its entry in the registry (`RedisKit\registry()`).
    registration: crate::registry::Registration,
}

static EPOCH: AtomicU64 = AtomicU64::new(0);

fn next_epoch() -> u64 {
    EPOCH.fetch_add(1, SeqCst) + 1
}

thread_local! {
    /// Leases taken by lock objects during the current request.
    static REQUEST: RefCell<Vec<Weak<Shared>>> = const { RefCell::new(Vec::new()) };
}

impl Shared {
    /// The lease `epoch` is found gone (once: counted as a lost lock).
    pub(crate) fn mark_lost(&self, epoch: u64) {
        if self
            .lease
            .compare_exchange(epoch, epoch | LOST, SeqCst, SeqCst)
            .is_ok()
        {
            stats::count(Event::LockLost, 1);
            metrics::add(self.metrics, mlock::LOST, 1);
            self.hold_ended();
        }
    }

    /// The lease ended (released, or found lost): its hold time.
    fn hold_ended(&self) {
        let t = self.held_since.swap(0, SeqCst);
        if t != 0 {
            let held = metrics::now_ns().saturating_sub(t);
            metrics::observe_ns(self.metrics, mlock::HOLD, held);
        }
    }

    fn quorum(&self) -> usize {
        self.nodes.len() / 2 + 1
    }

    fn redlock(&self) -> bool {
        self.nodes.len() > 1
    }

    fn ttl(&self) -> Duration {
        Duration::from_millis(self.ttl_ms.load(SeqCst))
    }

    /// Redlock's allowance for clock drift between the nodes.
    fn drift(&self) -> Duration {
        self.ttl() / 100 + Duration::from_millis(2)
    }

    fn token(&self) -> Arc<[u8]> {
        locked(&self.owner).token.clone()
    }

    /// True in the process the token belongs to (or, adopted, that took the
    /// lease); false in a child forked since, which inherited the object.
    fn at_home(&self) -> bool {
        locked(&self.owner).home == Process::current()
    }

    /// May `release()`/`extend()` write with the token in this process? An
    /// adopted token was handed over explicitly: anywhere. Otherwise only at home.
    fn acts_here(&self) -> bool {
        self.adopted || self.at_home()
    }

    /// The lease word, as seen by this process (0 in a forked child).
    fn lease_here(&self) -> u64 {
        if self.at_home() {
            self.lease.load(SeqCst)
        } else {
            0
        }
    }

    /// Resets the TTL on the nodes; true if `token` still holds it (on a
    /// majority for Redlock). Used by `extend()` and by the watchdog.
    fn extend_nodes(&self, token: &[u8], ttl_ms: u64) -> Result<bool> {
        let results = self.each(|n| {
            let mut c = ScriptCall::new(&scripts::LOCK_EXTEND);
            c.key(n.lock()).arg(token).int(ttl_ms as i64);
            Ok(int(conn::eval(&n.dsn, &c, true)?, "lock extend")? == 1)
        });
        let ok = self.count_reachable(&results)?;
        Ok(results.iter().filter(|r| matches!(r, Ok(true))).count() >= ok)
    }

    /// Runs `f` on every node, in order.
    fn each<T>(&self, mut f: impl FnMut(&Node) -> Result<T>) -> Vec<Result<T>> {
        self.nodes.iter().map(&mut f).collect()
    }

    /// How many nodes must agree (1, or the quorum), or the first error when
    /// too few nodes answered to decide anything.
    fn count_reachable<T>(&self, results: &[Result<T>]) -> Result<usize> {
        self.count_reachable_or(results, "")
    }

    /// As `count_reachable`, with `done` (what the nodes that answered did)
    /// added to the Redlock error.
    fn count_reachable_or<T>(&self, results: &[Result<T>], done: &str) -> Result<usize> {
        let need = self.quorum();
        let answered = results.iter().filter(|r| r.is_ok()).count();
        if answered >= need {
            return Ok(need);
        }
        let errors: Vec<String> = results
            .iter()
            .filter_map(|r| r.as_ref().err().map(|e| e.to_string()))
            .collect();
        if !self.redlock() {
            if let Some(Err(e)) = results.iter().find(|r| r.is_err()) {
                return Err(e.clone());
            }
        }
        // A Redis error (not a connection problem) keeps its class.
        if let Some(Err(e @ Error::Redis(_))) =
            results.iter().find(|r| matches!(r, Err(Error::Redis(_))))
        {
            return Err(e.clone());
        }
        Err(Error::Connection(format!(
            "Redlock: only {answered} of {} Redis servers answered, {need} needed{done}: {}",
            self.nodes.len(),
            errors.join("; ")
        )))
    }

    fn release_nodes(&self, token: &[u8]) -> Result<bool> {
        let results = self.each(|n| {
            let c = n.waiter_call(&scripts::LOCK_RELEASE, token);
            Ok(int(conn::eval(&n.dsn, &c, true)?, "lock release")? == 1)
        });
        self.released(&results)
    }

    /// True if the lock was released on enough nodes. A release cannot be
    /// undone, so when too few Redlock servers answered, the ones that did
    /// are released all the same (the others keep the lock until its TTL
    /// ends) and the error says so.
    fn released(&self, results: &[Result<bool>]) -> Result<bool> {
        let need = self.count_reachable_or(
            results,
            "; the lock is released on the ones that answered (a release is not undone) \
             and kept on the others until its TTL ends",
        )?;
        Ok(results.iter().filter(|r| matches!(r, Ok(true))).count() >= need)
    }

    /// Releases the lease this object holds, if any, without reporting errors
    /// (destructor and request end: the TTL is the backstop). Never in a
    /// forked child: the lease there is the parent's.
    fn auto_release(&self) {
        if !self.at_home() {
            return;
        }
        let lease = self.lease.swap(0, SeqCst);
        if lease != 0 && lease & LOST == 0 && !self.adopted {
            self.hold_ended();
            let _ = self.release_nodes(&self.token());
        }
    }
}

/// `inspect()`: the lock as an operator sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct LockView {
    /// The owner token holding it, None when free.
    pub holder: Option<Vec<u8>>,
    /// Seconds until it expires (None when free).
    pub ttl: Option<f64>,
    /// Free, but kept for the fair queue's first waiter.
    pub reserved: bool,
    /// The last fencing token handed out for it (None: none asked for yet).
    pub fencing_token: Option<i64>,
    /// Waiters alive now (both modes).
    pub waiters: i64,
    /// The fair queue's first tokens, in arrival order.
    pub queue: Vec<Vec<u8>>,
}

/// A lock on one resource, as one PHP object sees it.
#[derive(Debug)]
pub struct Lock {
    sh: Arc<Shared>,
}

fn parse_connection(connection: &Connection, settings: &Settings) -> Result<Vec<Arc<Dsn>>> {
    match connection {
        Connection::List(list) => {
            if list.len() < 3 {
                return Err(Error::invalid(format!(
                    "RedisLock: Redlock needs a list of at least 3 DSNs (independent masters), got {}",
                    list.len()
                )));
            }
            let mut out = Vec::with_capacity(list.len());
            for s in list {
                let d = Dsn::parse(s, settings.timeouts)?;
                if out.iter().any(|o: &Arc<Dsn>| o.pool_key() == d.pool_key()) {
                    return Err(Error::invalid(format!(
                        "RedisLock: the Redlock list names the same server twice ({})",
                        d.redacted()
                    )));
                }
                out.push(Arc::new(d));
            }
            Ok(out)
        }
        other => Ok(vec![other.single(settings)?]),
    }
}

fn ms_of(d: Duration) -> u64 {
    (d.as_micros().div_ceil(1000) as u64).max(1)
}

/// A waiter's deadline after a wait: now, when PHP has a signal handler or a
/// timeout (max_execution_time) to run, so that acquire() makes its last
/// attempt and returns, as at its deadline, and PHP runs it (a worker's
/// SIGTERM is not held up for the whole $wait).
fn deadline_unless_interrupted(deadline: Instant) -> Instant {
    if conn::interrupted() {
        deadline.min(Instant::now())
    } else {
        deadline
    }
}

/// A few random milliseconds (Redlock's retry jitter after a split vote).
fn jitter() -> Duration {
    let b = uuid::Uuid::new_v4();
    Duration::from_micros(1000 + u64::from(b.as_bytes()[0]) * 40)
}

impl Lock {
    pub fn new(
        resource: &[u8],
        connection: &Connection,
        mut opts: Options,
        settings: &Settings,
    ) -> Result<Lock> {
        if resource.is_empty() {
            return Err(Error::invalid(
                "RedisLock: the resource name must not be empty",
            ));
        }
        let ttl = opts.seconds("ttl")?.unwrap_or(DEFAULT_TTL);
        let watchdog = opts.bool("watchdog", true)?;
        let fair = opts.bool("fair", false)?;
        let adopted = opts.bytes("token")?;
        let prefix = opts
            .bytes("prefix")?
            .unwrap_or_else(|| settings.prefix.clone().into_bytes());
        let (replicas, replica_wait) = opts.replication()?;
        opts.finish("RedisLock", OPTIONS)?;
        if let Some(t) = &adopted {
            if t.is_empty() || t.len() > MAX_TOKEN || t.contains(&0) {
                return Err(Error::invalid(format!(
                    "RedisLock: option 'token' must be a non-empty string of at most {MAX_TOKEN} bytes, without NUL bytes"
                )));
            }
        }
        let dsns = parse_connection(connection, settings)?;
        // the DSN's default (`?wait_replicas=`) for one master, never Redlock's
        let (replicas, replica_wait) = match dsns.as_slice() {
            [one] => (
                replicas.unwrap_or(one.wait_replicas),
                replica_wait.unwrap_or(one.wait_timeout),
            ),
            _ => (
                replicas.unwrap_or(0),
                replica_wait.unwrap_or(conn::DEFAULT_WAIT_TIMEOUT),
            ),
        };
        if dsns.len() > 1 && fair {
            return Err(Error::invalid(
                "RedisLock: 'fair' mode is not available with Redlock (a list of servers)",
            ));
        }
        if dsns.len() > 1 && replicas > 0 {
            return Err(Error::invalid(
                "RedisLock: 'wait_replicas' is for one replicated master (cluster or sentinel), not Redlock",
            ));
        }
        let ttl_ms = ms_of(ttl);
        let dsns = if dsns.len() > 1 {
            // Redlock: a server that does not answer must not eat the validity
            // time; give each at most a tenth of the TTL.
            let cap = (ttl / 10).max(Duration::from_millis(5));
            dsns.into_iter()
                .map(|d| {
                    let mut d = (*d).clone();
                    d.connect_timeout = d.connect_timeout.min(cap);
                    d.read_timeout = d.read_timeout.min(cap);
                    Arc::new(d)
                })
                .collect()
        } else {
            dsns
        };
        let registration = crate::registry::Registration::new(
            crate::registry::Kind::Lock,
            prefix.len(),
            resource.len(),
        );
        let mut key = prefix;
        key.extend_from_slice(resource);
        let nodes = dsns.into_iter().map(|d| Node::new(d, &key)).collect();
        let token = match &adopted {
            Some(t) => Arc::from(t.as_slice()),
            None => new_token(),
        };
        // Fork detection must work before this process opens its first
        // connection: an object made now may be inherited by a child.
        conn::stats::ensure_fork_handler();
        Ok(Lock {
            sh: Arc::new(Shared {
                nodes,
                owner: Mutex::new(Owner {
                    token,
                    home: Process::current(),
                }),
                adopted: adopted.is_some(),
                fair,
                watchdog,
                ttl_ms: AtomicU64::new(ttl_ms),
                lease: AtomicU64::new(0),
                fence: AtomicI64::new(NO_FENCE),
                replicas,
                replica_wait,
                metrics: metrics::series(metrics::Kind::Lock, resource),
                resource: resource.into(),
                held_since: AtomicU64::new(0),
                registration,
            }),
        })
    }

    pub fn key(&self) -> &[u8] {
        self.sh.nodes[0].lock()
    }

    /// The owner token: in a forked child, the parent's until the child's
    /// first `acquire()` gives the object one of its own.
    pub fn token(&self) -> Arc<[u8]> {
        self.sh.token()
    }

    /// The fencing token of the last successful acquire. On one server it is
    /// issued when first asked for (one round trip), and only while this
    /// owner still holds that lease: strictly greater than every token issued
    /// before for this lock, and tokens follow the order of the leases. None
    /// before an acquire, or when the lease ended (released, lost) before the
    /// token was asked for.
    pub fn fencing_token(&self) -> Result<Option<i64>> {
        let sh = &self.sh;
        let f = sh.fence.load(SeqCst);
        if f != NO_FENCE {
            return Ok(Some(f));
        }
        let epoch = self.epoch();
        if epoch == 0 || sh.redlock() {
            return Ok(None);
        }
        let node = &sh.nodes[0];
        let mut c = ScriptCall::new(&scripts::LOCK_TOKEN);
        c.key(node.lock())
            .key(node.fence())
            .arg(sh.token())
            .int(sh.ttl_ms.load(SeqCst) as i64);
        let issued = int(conn::eval(&node.dsn, &c, true)?, "lock fencing token")?;
        if issued <= 0 {
            sh.mark_lost(epoch);
            return Ok(None);
        }
        // (a new acquire meanwhile has a new epoch and a token of its own)
        if sh.lease_here() == epoch {
            let _ = sh.fence.compare_exchange(NO_FENCE, issued, SeqCst, SeqCst);
        }
        Ok(Some(issued))
    }

    /// Epoch of the lease this object holds now in this process (0: none,
    /// and always 0 in a forked child for the parent's lease).
    pub fn epoch(&self) -> u64 {
        match self.sh.lease_here() {
            l if l & LOST != 0 => 0,
            l => l,
        }
    }

    /// True if the lease of `epoch` was found lost (by the watchdog, or by
    /// `extend()`/`isAcquired()` asking Redis).
    pub fn was_lost(&self, epoch: u64) -> bool {
        epoch != 0 && self.sh.lease_here() == epoch | LOST
    }

    /// The token to take the lock with. In a forked child an inherited
    /// object's token is the parent's, and whatever Redis holds under it is
    /// the parent's lock: the object gets a new token first, so the child
    /// competes for the lock like any other process (and never "takes",
    /// renews or later releases the parent's). An adopted token is the
    /// caller's explicit choice and is kept.
    fn own_token(&self) -> Arc<[u8]> {
        let sh = &self.sh;
        let here = Process::current();
        let mut o = locked(&sh.owner);
        if o.home != here && !sh.adopted {
            o.token = new_token();
            o.home = here;
            sh.lease.store(0, SeqCst);
            sh.fence.store(NO_FENCE, SeqCst);
        }
        o.token.clone()
    }

    /// Takes the lock, waiting up to `wait` seconds (0: one attempt).
    pub fn acquire(&self, wait: f64) -> Result<bool> {
        let wait = crate::options::non_negative_secs("RedisLock::acquire(): $wait", wait)?;
        let t0 = match self.sh.metrics {
            Some(_) => metrics::now_ns(),
            None => 0,
        };
        let start = Instant::now();
        let deadline = start + wait;
        let waiting = !wait.is_zero();
        let token = self.own_token();
        let busy = Cell::new(false);
        let r = if self.sh.redlock() {
            self.acquire_redlock(&token, waiting, deadline, &busy)
        } else {
            self.acquire_single(&token, waiting, deadline, &busy)
        };
        stats::count(Event::LockContended, u64::from(busy.get()));
        if r.is_ok() {
            let sh = &self.sh;
            sh.registration
                .done(&sh.nodes[0].dsn, &sh.nodes[0].keys, || {
                    format!(
                        "ttl={}&fair={}&watchdog={}&servers={}",
                        sh.ttl_ms.load(SeqCst) as f64 / 1000.0,
                        u8::from(sh.fair),
                        u8::from(sh.watchdog),
                        sh.nodes.len()
                    )
                });
        }
        let m = self.sh.metrics;
        metrics::add(m, mlock::CONTENDED, u64::from(busy.get()));
        if m.is_some() {
            metrics::hot_key(Hot::Lock, &[&self.sh.resource]);
        }
        match r {
            Ok(Some(fence)) => {
                stats::count(Event::LockAcquired, 1);
                if m.is_some() {
                    let now = metrics::now_ns();
                    metrics::add(m, mlock::ACQUIRED, 1);
                    metrics::observe_ns(m, mlock::WAIT, now.saturating_sub(t0));
                    self.sh.held_since.store(now, SeqCst);
                }
                self.acquired(fence, token);
                Ok(true)
            }
            Ok(None) => {
                stats::count(Event::LockTimedOut, u64::from(waiting));
                metrics::add(m, mlock::TIMED_OUT, u64::from(waiting));
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    fn acquired(&self, fence: i64, token: Arc<[u8]>) {
        let sh = &self.sh;
        // 0: not issued yet (single server: issued when first asked for)
        sh.fence
            .store(if fence > 0 { fence } else { NO_FENCE }, SeqCst);
        // (An adopted token's lease is this process's now.)
        locked(&sh.owner).home = Process::current();
        let epoch = next_epoch();
        sh.lease.store(epoch, SeqCst);
        REQUEST.with(|r| {
            let mut r = r.borrow_mut();
            r.retain(|w| w.strong_count() > 0);
            if !r.iter().any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(sh))) {
                r.push(Arc::downgrade(sh));
            }
        });
        if sh.watchdog {
            watchdog::watch(sh, epoch, token);
        }
    }

    fn acquire_single(
        &self,
        token: &[u8],
        waiting: bool,
        mut deadline: Instant,
        busy: &Cell<bool>,
    ) -> Result<Option<i64>> {
        let sh = &self.sh;
        let node = &sh.nodes[0];
        let mode = match (waiting, sh.fair) {
            (false, _) => "0",
            (true, false) => "1",
            (true, true) => "2",
        };
        let mut wake_key = Vec::new();
        let mut registered = false;
        // The hot path: a free lock is taken with one plain SET NX PX, as the
        // usual hand-written code does (no script to run). Only when the lock
        // is taken does a script look further (our own renewal, the holder's
        // PTTL, the waiters). Not for fair waiters (they check the queue
        // first), nor with wait_replicas (the script path confirms it).
        if !(waiting && sh.fair) && sh.replicas == 0 {
            let mut set = Args::cmd("SET");
            set.push(node.lock())
                .push(token)
                .push("NX")
                .push("PX")
                .int(sh.ttl_ms.load(SeqCst) as i64);
            match conn::command(&node.dsn, &set, true)? {
                Value::Nil => {}
                Value::Okay | Value::SimpleString(_) => return Ok(Some(0)),
                v => return Err(Error::unexpected("lock acquire", &v)),
            }
        }
        loop {
            let ttl_ms = sh.ttl_ms.load(SeqCst) as i64;
            let c = if waiting {
                node.acquire_call(token, ttl_ms, mode, false)
            } else {
                // One attempt: the lighter script of the hot path.
                let mut c = ScriptCall::new(&scripts::LOCK_TRY);
                c.key(node.lock()).arg(token).int(ttl_ms);
                c
            };
            let attempt = if sh.replicas > 0 {
                // the attempt and its WAIT in one round trip
                let wait_ms = ms_of(sh.replica_wait) as i64;
                conn::eval_then_wait(&node.dsn, &c, sh.replicas, wait_ms, true).and_then(
                    |(v, acked)| {
                        let a = parse_attempt(v)?;
                        self.confirmed_by_replicas(token, a, acked)
                    },
                )
            } else {
                conn::eval(&node.dsn, &c, true).and_then(parse_attempt)
            };
            let (pttl, head) = match attempt {
                Ok(Attempt::Got(f)) => return Ok(Some(f)),
                Ok(Attempt::Busy { pttl, head }) => {
                    busy.set(true);
                    (pttl, head)
                }
                Err(e) => {
                    if registered {
                        self.leave(token);
                    }
                    return Err(e);
                }
            };
            registered |= waiting;
            let now = Instant::now();
            if !waiting || now >= deadline {
                if registered {
                    self.leave(token);
                }
                return Ok(None);
            }
            // Sleep until woken by a release, until the holder's TTL runs out
            // (only a waiter that may then take it: not a fair waiter behind
            // others), or until the next heartbeat, whichever comes first.
            let mut sleep = (deadline - now).min(SLICE);
            if pttl >= 0 && (!sh.fair || head) {
                sleep = sleep.min(Duration::from_millis(pttl as u64 + 1));
            }
            if wake_key.is_empty() {
                wake_key = if sh.fair {
                    node.private_key(token)
                } else {
                    node.wake().to_vec()
                };
            }
            if let Err(e) = conn::wait_signal(&node.dsn, &wake_key, sleep) {
                self.leave(token);
                return Err(e);
            }
            deadline = deadline_unless_interrupted(deadline);
        }
    }

    /// With `wait_replicas`: the lock counts only once that many replicas
    /// have it (`acked`: the WAIT sent right after the attempt, on the
    /// connection that took it). Otherwise it is given back at once and the
    /// attempt counts as busy.
    fn confirmed_by_replicas(
        &self,
        token: &[u8],
        a: Attempt,
        acked: Result<i64>,
    ) -> Result<Attempt> {
        let sh = &self.sh;
        if !matches!(a, Attempt::Got(_)) {
            return Ok(a);
        }
        let node = &sh.nodes[0];
        if matches!(acked, Ok(n) if n >= sh.replicas) {
            return Ok(a);
        }
        let c = node.waiter_call(&scripts::LOCK_RELEASE, token);
        let _ = conn::eval(&node.dsn, &c, true);
        acked?;
        Ok(Attempt::Busy {
            pttl: -1,
            head: false,
        })
    }

    /// Leaves the waiters after giving up (best effort: a waiter that cannot
    /// say so is dropped when its heartbeat runs out).
    fn leave(&self, token: &[u8]) {
        for n in &self.sh.nodes {
            let c = n.waiter_call(&scripts::LOCK_LEAVE, token);
            let _ = conn::eval(&n.dsn, &c, true);
        }
    }

    /// Redlock: the lock on a majority of independent masters within the
    /// validity time (ttl - elapsed - drift); released everywhere otherwise.
    fn acquire_redlock(
        &self,
        token: &[u8],
        waiting: bool,
        mut deadline: Instant,
        busy: &Cell<bool>,
    ) -> Result<Option<i64>> {
        let sh = &self.sh;
        let mode = if waiting { "1" } else { "0" };
        let quorum = sh.quorum();
        let mut registered = false;
        loop {
            let ttl = sh.ttl();
            let ttl_ms = ms_of(ttl) as i64;
            let start = Instant::now();
            let results = sh.each(|n| {
                let c = n.acquire_call(token, ttl_ms, mode, true);
                conn::eval(&n.dsn, &c, true).and_then(parse_attempt)
            });
            registered |= waiting;
            let reachable = sh.count_reachable(&results);
            let granted: Vec<(usize, i64)> = results
                .iter()
                .enumerate()
                .filter_map(|(i, r)| match r {
                    Ok(Attempt::Got(f)) => Some((i, *f)),
                    _ => None,
                })
                .collect();
            let valid =
                |since: Instant| ttl.saturating_sub(since.elapsed() + sh.drift()) > Duration::ZERO;
            if reachable.is_ok() && granted.len() >= quorum && valid(start) {
                // Fencing token: the highest any granting node handed out,
                // written back to them so the next majority (which shares a
                // node with this one) goes higher.
                let fence = granted.iter().map(|g| g.1).max().unwrap_or(NO_FENCE);
                let raised = granted
                    .iter()
                    .filter(|(i, _)| {
                        let n = &sh.nodes[*i];
                        let mut c = ScriptCall::new(&scripts::LOCK_FENCE);
                        c.key(n.fence()).int(fence).int(ttl_ms);
                        conn::eval(&n.dsn, &c, true).is_ok()
                    })
                    .count();
                if raised >= quorum && valid(start) {
                    return Ok(Some(fence));
                }
            }
            // Failed: undo whatever part we got, everywhere (a reply may have
            // been lost on a node that did grant it).
            if !granted.is_empty() || results.iter().any(|r| r.is_err()) {
                let _ = sh.release_nodes(token);
            }
            if let Err(e) = reachable {
                if registered {
                    self.leave(token);
                }
                return Err(e);
            }
            busy.set(true);
            let now = Instant::now();
            if !waiting || now >= deadline {
                if registered {
                    self.leave(token);
                }
                return Ok(None);
            }
            // When will a majority be free by expiry? The quorum-th smallest
            // PTTL (0 for a free node). If a majority is free already (a split
            // vote), retry after a little random delay.
            let mut pttls: Vec<u64> = results
                .iter()
                .filter_map(|r| match r {
                    Ok(Attempt::Busy { pttl, .. }) if *pttl >= 0 => Some(*pttl as u64),
                    Ok(Attempt::Busy { .. }) => Some(SLICE.as_millis() as u64),
                    Ok(Attempt::Got(_)) => Some(0),
                    Err(_) => None,
                })
                .collect();
            pttls.sort_unstable();
            let free_at = pttls.get(quorum - 1).copied().unwrap_or(0);
            let mut sleep = (deadline - now).min(SLICE);
            sleep = sleep.min(if free_at == 0 {
                jitter()
            } else {
                Duration::from_millis(free_at + 1)
            });
            // Block on the wake-up list of the first server that answered.
            let Some(i) = results.iter().position(|r| r.is_ok()) else {
                continue;
            };
            let n = &sh.nodes[i];
            if let Err(e) = conn::wait_signal(&n.dsn, n.wake(), sleep) {
                // That server went away while we waited: try again at once.
                if !matches!(e, Error::Connection(_)) {
                    self.leave(token);
                    return Err(e);
                }
            }
            deadline = deadline_unless_interrupted(deadline);
        }
    }

    /// Releases the lock if this owner (token) holds it; true if it did.
    /// False, with nothing sent, on an object inherited through fork: what
    /// its token holds is the parent's lock.
    pub fn release(&self) -> Result<bool> {
        if !self.sh.acts_here() {
            return Ok(false);
        }
        self.end_lease();
        self.sh.release_nodes(&self.sh.token())
    }

    /// Ends this object's lease and stops the watchdog for it, before a
    /// release can land, so the watchdog never takes the released lock for a
    /// lost one.
    fn end_lease(&self) {
        if self.sh.lease.swap(0, SeqCst) & LOST == 0 {
            self.sh.hold_ended();
        }
        if self.sh.watchdog {
            watchdog::forget(&self.sh);
        }
    }

    /// Releases the lock whoever holds it (an operator's or a framework's
    /// "force release"), and wakes the next waiter. True if it was held (on a
    /// majority for Redlock). If this object held it, its lease ends here.
    pub fn force_release(&self) -> Result<bool> {
        if self.sh.at_home() {
            self.end_lease();
        }
        let results = self.sh.each(|n| {
            let mut c = ScriptCall::new(&scripts::LOCK_FORCE);
            c.key(n.lock())
                .key(n.waiters())
                .key(n.queue())
                .key(n.wake());
            c.int(HEARTBEAT_MS).arg(n.private());
            Ok(int(conn::eval(&n.dsn, &c, true)?, "lock force release")? == 1)
        });
        self.sh.released(&results)
    }

    /// An operator's view of the lock on one server, in one round trip:
    /// holder, TTL, the last fencing token handed out, live waiters and the
    /// fair queue's first `queue_limit` tokens. Not for Redlock (several
    /// servers, no single answer): `holder()` and `remaining_ttl()` are.
    pub fn inspect(&self, queue_limit: i64) -> Result<LockView> {
        if self.sh.redlock() {
            return Err(Error::invalid(
                "RedisLock::inspect() reads one server; on Redlock use holder() and remainingTtl()",
            ));
        }
        if !(0..=1000).contains(&queue_limit) {
            return Err(Error::invalid(format!(
                "RedisLock::inspect(): $queueLimit must be between 0 and 1000, got {queue_limit}"
            )));
        }
        let n = &self.sh.nodes[0];
        let mut c = ScriptCall::new(&scripts::LOCK_INSPECT);
        c.key(n.lock())
            .key(n.fence())
            .key(n.waiters())
            .key(n.queue());
        c.int(queue_limit);
        let v = conn::eval(&n.dsn, &c, true)?;
        let Value::Array(items) = v else {
            return Err(Error::unexpected("lock inspect", &v));
        };
        let mut it = items.into_iter();
        let mut next = || it.next().unwrap_or(Value::Nil);
        let value = match next() {
            Value::Nil => None,
            Value::BulkString(b) => Some(b),
            v => return Err(Error::unexpected("lock inspect", &v)),
        };
        let pttl = int(next(), "lock inspect")?;
        let fence = match next() {
            Value::Nil => None,
            Value::BulkString(b) => std::str::from_utf8(&b)
                .ok()
                .and_then(|s| s.parse::<i64>().ok()),
            v => return Err(Error::unexpected("lock inspect", &v)),
        };
        let waiters = int(next(), "lock inspect")?;
        let queue = match next() {
            Value::Array(q) => q
                .into_iter()
                .map(|t| crate::conn::bytes(t, "lock inspect"))
                .collect::<Result<Vec<_>>>()?,
            v => return Err(Error::unexpected("lock inspect", &v)),
        };
        // "<token>", "<token>\0w" (waiters registered), "\0q" (free, kept for
        // the fair queue's head)
        let (holder, reserved) = match value {
            Some(v) if v.as_slice() == b"\0q" => (None, true),
            Some(mut v) => {
                if v.ends_with(b"\0w") {
                    v.truncate(v.len() - 2);
                }
                (Some(v), false)
            }
            None => (None, false),
        };
        Ok(LockView {
            ttl: (holder.is_some() && pttl >= 0).then(|| pttl as f64 / 1000.0),
            holder,
            reserved,
            fencing_token: fence,
            waiters,
            queue,
        })
    }

    /// The owner token holding the lock now, whoever it is (on a majority for
    /// Redlock); None when it is free (or no token has a majority).
    pub fn holder(&self) -> Result<Option<Vec<u8>>> {
        let results = self.sh.each(|n| {
            let mut a = Args::cmd("GET");
            a.push(n.lock());
            match conn::command(&n.dsn, &a, true)? {
                Value::Nil => Ok(None),
                v => {
                    // "<token>" or "<token>\0w" (waiters registered); "\0q"
                    // (free, reserved for the fair queue's head)
                    let mut t = conn::bytes(v, "lock holder")?;
                    if t.first() == Some(&0) {
                        return Ok(None);
                    }
                    if t.ends_with(b"\0w") {
                        t.truncate(t.len() - 2);
                    }
                    Ok(Some(t))
                }
            }
        });
        let need = self.sh.count_reachable(&results)?;
        let held: Vec<&Vec<u8>> = results
            .iter()
            .filter_map(|r| r.as_ref().ok().and_then(|o| o.as_ref()))
            .collect();
        Ok(held
            .iter()
            .find(|t| held.iter().filter(|u| u == t).count() >= need)
            .map(|t| (*t).clone()))
    }

    /// Resets the TTL (to `ttl` seconds, which also becomes the TTL the
    /// watchdog renews with) if this owner still holds the lock. False, with
    /// nothing sent, on an object inherited through fork (as `release()`).
    pub fn extend(&self, ttl: Option<f64>) -> Result<bool> {
        let ttl_ms = match ttl {
            Some(t) => ms_of(crate::options::positive_secs(
                "RedisLock::extend(): $ttl",
                t,
            )?),
            None => self.sh.ttl_ms.load(SeqCst),
        };
        if !self.sh.acts_here() {
            return Ok(false);
        }
        let ok = self.sh.extend_nodes(&self.sh.token(), ttl_ms)?;
        if ok {
            self.sh.ttl_ms.store(ttl_ms, SeqCst);
        } else {
            self.forget_lease();
        }
        Ok(ok)
    }

    /// Redis says this owner does not hold the lock: the lease is lost (the
    /// watchdog stops renewing it, `run()` reports it). Nothing to do in a
    /// forked child (the lease is the parent's).
    fn forget_lease(&self) {
        let l = self.sh.lease_here();
        if l != 0 && l & LOST == 0 {
            self.sh.mark_lost(l);
        }
    }

    /// Remaining TTL per node (None: not this owner's there).
    fn ttls(&self) -> Result<Vec<Option<u64>>> {
        let sh = &self.sh;
        let token = sh.token();
        let results = sh.each(|n| {
            let mut c = ScriptCall::new(&scripts::LOCK_TTL);
            c.key(n.lock()).arg(&token);
            let ms = int(conn::eval(&n.dsn, &c, true)?, "lock ttl")?;
            Ok(if ms == -3 {
                None
            } else if ms < 0 {
                Some(u64::MAX) // no expiry set (not by us): as long as it lasts
            } else {
                Some(ms as u64)
            })
        });
        sh.count_reachable(&results)?;
        Ok(results.into_iter().map(|r| r.unwrap_or(None)).collect())
    }

    /// Asks Redis whether this owner holds the lock (on a majority for Redlock).
    pub fn is_acquired(&self) -> Result<bool> {
        Ok(self.remaining_ttl()?.is_some())
    }

    /// Seconds until the lock expires, None when this owner does not hold it.
    /// For Redlock: until fewer than a majority would hold it, minus the drift.
    pub fn remaining_ttl(&self) -> Result<Option<f64>> {
        let mut owned: Vec<u64> = self.ttls()?.into_iter().flatten().collect();
        let quorum = self.sh.quorum();
        if owned.len() < quorum {
            self.forget_lease();
            return Ok(None);
        }
        owned.sort_unstable_by(|a, b| b.cmp(a));
        let ms = owned[quorum - 1];
        if !self.sh.redlock() {
            return Ok(Some(ms as f64 / 1000.0));
        }
        let left = ms.saturating_sub(self.sh.drift().as_millis() as u64);
        if left == 0 {
            self.forget_lease();
            return Ok(None);
        }
        Ok(Some(left as f64 / 1000.0))
    }

    /// Destructor: releases what this object took itself (not an adopted
    /// token's lock, nor in a forked child its parent's) and stops the
    /// watchdog for it.
    pub fn destruct(&self) {
        self.sh.auto_release();
        self.sh.lease.store(0, SeqCst);
        if self.sh.watchdog {
            watchdog::forget(&self.sh);
        }
    }
}

impl Drop for Lock {
    /// The object is freed: normally right after `__destruct`, but after a
    /// fatal error PHP frees objects without calling destructors (and after
    /// memory exhaustion possibly before the request-end hook runs).
    fn drop(&mut self) {
        self.destruct();
    }
}

/// End of request: release every lease taken during it that is still held,
/// except adopted tokens' (only their watchdog stops).
pub fn release_request_locks() {
    let list = REQUEST.with(|r| std::mem::take(&mut *r.borrow_mut()));
    for w in list {
        if let Some(sh) = w.upgrade() {
            sh.auto_release();
            sh.lease.store(0, SeqCst);
        }
    }
}

#[cfg(test)]
mod tests;
