//! Cache-aside on Redis: `remember()` is single-flight across processes and
//! servers (one caller computes a missing value, the others block until its
//! write wakes them), with negative caching, TTL jitter, probabilistic early
//! refresh (XFetch) and stale-while-revalidate.
//!
//! Key layout (main key `K` = prefix . namespace . ':' . key; the others share
//! its Redis Cluster hash slot):
//! - `K`: the value, a string `rk1:<format>:<compute ms>:<expires at>:<payload>`
//!   (`redis-cli GET K` shows it; format `p` PHP serialize, `i` igbinary,
//!   `j` JSON, `s` a plain string, `n` a cached null; expires at: unix ms of
//!   the jittered TTL's end on the writer's clock, 0 for none). Its Redis TTL
//!   is the jittered TTL plus the stale window, so a hit is one plain GET:
//!   whether the value is stale, or due for an early refresh, is read from
//!   the value itself.
//! - `{K}:claim`: the token of the caller computing `K`, for `lock_timeout`.
//! - `{K}:waiters`: how many callers block for that compute.
//! - `{K}:wake`: their wake-up tokens (`v:`, `n:` or `x:` and the writer's
//!   claim token), a short-lived list.
//!
//! The PHP values are serialized by the binding; this module sees bytes.
use crate::conn::{self, aux_key, int, shown, shown_float, Args, Dsn, Error, Result};
use crate::conn::{ScriptCall, Value};
use crate::local::{self, Lookup, Tier};
use crate::metrics::{self, cache as mc, hot::Hot, Series};
use crate::options::{Connection, OptValue, Options, Settings};
use crate::scripts;
use parking_lot::Mutex;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const OPTIONS: &[&str] = &[
    "ttl",
    "jitter",
    "null_ttl",
    "lock_timeout",
    "on_lock_timeout",
    "early_refresh",
    "stale_ttl",
    "serializer",
    "prefix",
    "local",
];

/// The options `remember()` takes per call.
pub const CALL_OPTIONS: &[&str] = &[
    "ttl_of",
    "jitter",
    "null_ttl",
    "lock_timeout",
    "on_lock_timeout",
    "early_refresh",
    "stale_ttl",
];

/// Longest TTL accepted, in seconds (about 31 years).
const MAX_TTL: f64 = 1e9;
/// Keys per `MGET`, `DEL` or write transaction.
const SLICE: usize = 1000;
/// Keys `clear()` asks `SCAN` for per call.
const SCAN_COUNT: &str = "1000";

/// How a value is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Php,
    Igbinary,
    Json,
    /// A string stored as it is (serializer `none`).
    Raw,
    /// A cached null (negative caching).
    Null,
}

impl Format {
    fn tag(self) -> u8 {
        match self {
            Format::Php => b'p',
            Format::Igbinary => b'i',
            Format::Json => b'j',
            Format::Raw => b's',
            Format::Null => b'n',
        }
    }

    fn of_tag(t: u8) -> Option<Format> {
        Some(match t {
            b'p' => Format::Php,
            b'i' => Format::Igbinary,
            b'j' => Format::Json,
            b's' => Format::Raw,
            b'n' => Format::Null,
            _ => return None,
        })
    }

    /// The `serializer` option's names.
    pub fn name(self) -> &'static str {
        match self {
            Format::Php => "php",
            Format::Igbinary => "igbinary",
            Format::Json => "json",
            Format::Raw => "none",
            Format::Null => "null",
        }
    }
}

/// A value as read from Redis.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub format: Format,
    pub payload: Vec<u8>,
    /// How long its compute took (ms; 0 for `set()`).
    pub delta_ms: u64,
    /// Unix ms its TTL ends at (the writer's clock; 0: never). Past it, the
    /// value is stale: only kept for the stale window.
    pub expires_ms: u64,
}

const MAGIC: &[u8] = b"rk1:";

impl Entry {
    /// The stored form: `rk1:<format>:<delta>:<expires at>:<payload>`.
    pub fn encode(format: Format, payload: &[u8], delta_ms: u64, expires_ms: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(payload.len() + 40);
        out.extend_from_slice(MAGIC);
        out.push(format.tag());
        out.extend_from_slice(format!(":{delta_ms}:{expires_ms}:").as_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// Reads a stored value. A value RedisCache did not write is a plain
    /// string for serializer `none` (`raw_ok`), and `None` otherwise.
    pub fn decode(mut raw: Vec<u8>, raw_ok: bool) -> Option<Entry> {
        match Self::header(&raw) {
            Some((format, delta_ms, expires_ms, at)) => {
                raw.drain(..at);
                Some(Entry {
                    format,
                    payload: raw,
                    delta_ms,
                    expires_ms,
                })
            }
            None if raw_ok => Some(Entry {
                format: Format::Raw,
                payload: raw,
                delta_ms: 0,
                expires_ms: 0,
            }),
            None => None,
        }
    }

    /// `decode` of a value held elsewhere: only the payload is copied.
    pub fn decode_slice(raw: &[u8], raw_ok: bool) -> Option<Entry> {
        match Self::header(raw) {
            Some((format, delta_ms, expires_ms, at)) => Some(Entry {
                format,
                payload: raw[at..].to_vec(),
                delta_ms,
                expires_ms,
            }),
            None if raw_ok => Some(Entry {
                format: Format::Raw,
                payload: raw.to_vec(),
                delta_ms: 0,
                expires_ms: 0,
            }),
            None => None,
        }
    }

    /// The format, compute ms, expiry and where the payload starts.
    fn header(raw: &[u8]) -> Option<(Format, u64, u64, usize)> {
        let rest = raw.strip_prefix(MAGIC)?;
        let format = Format::of_tag(*rest.first()?)?;
        let rest = rest.get(1..)?.strip_prefix(b":")?;
        let (delta, rest) = number(rest)?;
        let (expires, rest) = number(rest)?;
        Some((format, delta, expires, raw.len() - rest.len()))
    }

    /// Past its TTL, kept only for the stale window.
    pub fn is_stale(&self, now_ms: u64) -> bool {
        self.expires_ms > 0 && self.expires_ms <= now_ms
    }
}

/// What the local tier keeps with a value: its parsed header (format tag,
/// compute ms, expiry, payload offset), all 0 for a value RedisCache did not
/// write.
fn header_meta(raw: &[u8]) -> local::Meta {
    match Entry::header(raw) {
        Some((f, delta, expires, at)) => [u64::from(f.tag()), delta, expires, at as u64],
        None => [0; 4],
    }
}

/// Unix time in ms (this machine's clock).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `<digits>:` at the start of `b`: the number and what follows the colon.
/// One pass (it runs twice per value read): at most 19 digits, which always
/// fit a u64.
fn number(b: &[u8]) -> Option<(u64, &[u8])> {
    let mut n: u64 = 0;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0'..=b'9' if i < 19 => n = n * 10 + u64::from(c - b'0'),
            b':' if i > 0 => return Some((n, &b[i + 1..])),
            _ => return None,
        }
    }
    None
}

/// How `remember()` behaves: the instance's options, or a call's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// TTLs are multiplied by a uniform factor in [1 - jitter, 1 + jitter].
    pub jitter: f64,
    /// How long a null result is cached (ms; 0: not cached).
    pub null_ttl_ms: u64,
    /// How long a caller waits for another's compute (and how long a claim lasts).
    pub lock_timeout: Duration,
    /// After `lock_timeout`: throw (true) or compute without the claim.
    pub throw_on_lock_timeout: bool,
    /// XFetch's beta (0: no early refresh).
    pub beta: f64,
    /// How long an expired value is still served while one caller refreshes it (ms).
    pub stale_ms: u64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            jitter: 0.1,
            null_ttl_ms: 60_000,
            lock_timeout: Duration::from_secs(10),
            throw_on_lock_timeout: false,
            beta: 0.0,
            stale_ms: 0,
        }
    }
}

impl Policy {
    /// Applies `jitter`, `null_ttl`, ... from `o` over `self`.
    fn read(mut self, o: &mut Options) -> Result<Policy> {
        if let Some(j) = number_option(o, "jitter")? {
            if !(0.0..1.0).contains(&j) {
                return Err(bad_number("'jitter'", "in [0, 1)", j));
            }
            self.jitter = j;
        }
        if let Some(t) = ttl_option(o, "null_ttl")? {
            self.null_ttl_ms = t;
        }
        if let Some(t) = number_option(o, "lock_timeout")? {
            self.lock_timeout =
                crate::options::positive_secs("RedisCache: option 'lock_timeout'", t)?;
            if self.lock_timeout < Duration::from_millis(1) {
                return Err(bad_number("'lock_timeout'", "at least 0.001 seconds", t));
            }
        }
        match o.string("on_lock_timeout")?.as_deref() {
            None => {}
            Some("compute") => self.throw_on_lock_timeout = false,
            Some("throw") => self.throw_on_lock_timeout = true,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "RedisCache: option 'on_lock_timeout' must be 'compute' or 'throw', got '{}'",
                    shown(other.as_bytes())
                )))
            }
        }
        if let Some(b) = number_option(o, "early_refresh")? {
            if b.is_nan() || b < 0.0 {
                return Err(bad_number(
                    "'early_refresh' (XFetch's beta)",
                    "a number >= 0 (INF: refresh now)",
                    b,
                ));
            }
            self.beta = b;
        }
        if let Some(t) = ttl_option(o, "stale_ttl")? {
            self.stale_ms = t;
        }
        Ok(self)
    }

    fn claim_ms(&self) -> u64 {
        (self.lock_timeout.as_millis() as u64).max(1)
    }
}

/// "RedisCache: option 'x' must be ..., got <value>".
fn bad_number(option: &str, must: &str, got: f64) -> Error {
    Error::invalid(format!(
        "RedisCache: option {option} must be {must}, got {}",
        shown_float(got)
    ))
}

/// A number option (int or float), `None` when absent.
fn number_option(o: &mut Options, key: &str) -> Result<Option<f64>> {
    match o.take(key) {
        None | Some(OptValue::Null) => Ok(None),
        Some(OptValue::Int(i)) => Ok(Some(i as f64)),
        Some(OptValue::Float(f)) => Ok(Some(f)),
        Some(v) => Err(Error::invalid(format!(
            "RedisCache: option '{key}' must be a number, got {}",
            v.type_name()
        ))),
    }
}

/// A TTL option in seconds (>= 0) as ms.
fn ttl_option(o: &mut Options, key: &str) -> Result<Option<u64>> {
    match number_option(o, key)? {
        None => Ok(None),
        Some(t) => ttl_ms(&format!("option '{key}'"), t).map(Some),
    }
}

/// Seconds (finite, >= 0, below 1e9) to whole milliseconds, rounded up so
/// that a tiny TTL is not "no expiry".
pub fn ttl_ms(what: &str, secs: f64) -> Result<u64> {
    if !(secs.is_finite() && (0.0..MAX_TTL).contains(&secs)) {
        return Err(Error::invalid(format!(
            "RedisCache: {what} must be a number of seconds >= 0 and below 1e9, got {}",
            shown_float(secs)
        )));
    }
    Ok((secs * 1000.0).ceil() as u64)
}

/// This worker's counters for one namespace (`stats()`).
#[derive(Debug, Default)]
pub struct Counters {
    generation: AtomicU64,
    pub hits: AtomicU64,
    pub misses: AtomicU64,
    pub computes: AtomicU64,
    pub waits: AtomicU64,
    pub early_refreshes: AtomicU64,
    pub stale_served: AtomicU64,
    pub local_hits: AtomicU64,
    /// The namespace's series in the host's metrics.
    metrics: Option<Series>,
}

#[derive(Clone, Copy)]
enum Count {
    LocalHit,
    Hit,
    Miss,
    Compute,
    Wait,
    EarlyRefresh,
    StaleServed,
}

impl Counters {
    fn all(&self) -> [&AtomicU64; 7] {
        [
            &self.hits,
            &self.misses,
            &self.computes,
            &self.waits,
            &self.early_refreshes,
            &self.stale_served,
            &self.local_hits,
        ]
    }

    /// Zeroes the counters inherited from the parent in a forked child.
    fn current(&self) -> &Self {
        let generation = conn::stats::fork_generation();
        if self.generation.load(Relaxed) != generation {
            for c in self.all() {
                c.store(0, Relaxed);
            }
            self.generation.store(generation, Relaxed);
        }
        self
    }

    fn add(&self, what: Count, n: u64) {
        let c = self.current();
        use conn::stats::Event as E;
        let (mine, total, host) = match what {
            Count::Hit => (&c.hits, E::CacheHit, mc::HITS),
            Count::Miss => (&c.misses, E::CacheMiss, mc::MISSES),
            Count::Compute => (&c.computes, E::CacheCompute, mc::COMPUTES),
            Count::Wait => (&c.waits, E::CacheWait, mc::WAITS),
            Count::EarlyRefresh => (
                &c.early_refreshes,
                E::CacheEarlyRefresh,
                mc::EARLY_REFRESHES,
            ),
            Count::StaleServed => (&c.stale_served, E::CacheStaleServed, mc::STALE_SERVED),
            Count::LocalHit => (&c.local_hits, E::CacheLocalHit, mc::LOCAL_HITS),
        };
        mine.fetch_add(n, Relaxed);
        conn::stats::count(total, n);
        metrics::add(self.metrics, host, n);
    }

    /// (name, value) in a stable order.
    pub fn snapshot(&self) -> Vec<(&'static str, u64)> {
        let c = self.current();
        const NAMES: [&str; 7] = [
            "hits",
            "misses",
            "computes",
            "waits",
            "early_refreshes",
            "stale_served",
            "local_hits",
        ];
        NAMES
            .iter()
            .zip(c.all())
            .map(|(n, v)| (*n, v.load(Relaxed)))
            .collect()
    }
}

/// One `Counters` per namespace (main key prefix) and worker process.
static COUNTERS: Mutex<Vec<(Vec<u8>, Arc<Counters>)>> = Mutex::new(Vec::new());

fn counters_for(base: &[u8], namespace: &[u8]) -> Arc<Counters> {
    let mut all = COUNTERS.lock();
    if let Some((_, c)) = all.iter().find(|(b, _)| b == base) {
        return c.clone();
    }
    let c = Arc::new(Counters {
        metrics: metrics::series(metrics::Kind::Cache, namespace),
        ..Counters::default()
    });
    c.generation.store(conn::stats::fork_generation(), Relaxed);
    all.push((base.to_vec(), c.clone()));
    c
}

thread_local! {
    static RNG: Cell<u64> = const { Cell::new(0) };
    /// `get()`'s key, built here rather than allocated per call.
    static KEY: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A uniform number in (0, 1] (xorshift64*, seeded from the OS).
fn uniform() -> f64 {
    RNG.with(|r| {
        let mut x = r.get();
        if x == 0 {
            x = (uuid::Uuid::new_v4().as_u128() as u64) | 1;
        }
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        r.set(x);
        let v = x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        (v as f64 + 1.0) / (1u64 << 53) as f64
    })
}

/// A claim token: this process's random base (new in a forked child) and a
/// sequence number; no system call.
fn new_token() -> String {
    static BASE: Mutex<(u32, u64)> = Mutex::new((0, 0));
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    let base = {
        let mut b = BASE.lock();
        if b.0 != pid || b.1 == 0 {
            *b = (pid, uuid::Uuid::new_v4().as_u128() as u64 | 1);
        }
        b.1
    };
    format!("{base:016x}.{:x}", SEQ.fetch_add(1, Relaxed))
}

/// `ttl_ms` times a uniform factor in [1 - jitter, 1 + jitter] (0 stays 0: no expiry).
pub fn jittered(ttl_ms: u64, jitter: f64) -> u64 {
    if ttl_ms == 0 || jitter == 0.0 {
        return ttl_ms;
    }
    let factor = 1.0 - jitter + 2.0 * jitter * uniform();
    ((ttl_ms as f64 * factor).round() as u64).max(1)
}

/// XFetch (Vattani et al., VLDB 2015): refresh now, with a probability that
/// grows as expiry nears, scaled by the compute time and beta.
/// An infinite beta refreshes at once (Symfony's `$beta = INF`).
fn xfetch(delta_ms: u64, beta: f64, remaining_ms: i64) -> bool {
    beta == f64::INFINITY
        || beta > 0.0
            && delta_ms > 0
            && -(delta_ms as f64) * beta * uniform().ln() >= remaining_ms as f64
}

/// What a value to write is: its format and bytes, or a null.
pub type Stored = Option<(Format, Vec<u8>)>;

/// What a compute produced.
#[derive(Debug)]
pub struct Computed<T> {
    /// The value to store (`None`: a null).
    pub value: Stored,
    /// False: not cached at all (the waiters compute in turn).
    pub save: bool,
    /// A TTL (ms, 0: no expiry) that replaces the call's, decided from the value.
    pub ttl_ms: Option<u64>,
    /// The caller's own copy of the value.
    pub out: T,
}

impl<T> Computed<T> {
    pub fn new(value: Stored, out: T) -> Self {
        Computed {
            value,
            save: true,
            ttl_ms: None,
            out,
        }
    }
}

/// What `remember()` ends with.
#[derive(Debug)]
pub enum Got<T> {
    /// A cached value (a cached null included).
    Cached(Entry),
    /// This call computed the value.
    Computed(T),
    /// The compute this call waited for returned a null that is not cached.
    Null,
    /// `lock_timeout` passed while another caller computed (on_lock_timeout: throw).
    TimedOut,
}

enum Fetch {
    /// A value from the local tier (no round trip), with its parsed header.
    Local(std::rc::Rc<[u8]>, local::Meta),
    Hit(Vec<u8>),
    Miss,
    Claimed,
    Busy(u64, Vec<u8>),
}

/// The keys of one cached value.
struct Keys {
    value: Vec<u8>,
}

impl Keys {
    // made when needed: a hit only uses the value's key
    fn claim(&self) -> Vec<u8> {
        aux_key(&self.value, "claim")
    }

    fn waiters(&self) -> Vec<u8> {
        aux_key(&self.value, "waiters")
    }

    fn wake(&self) -> Vec<u8> {
        aux_key(&self.value, "wake")
    }
}

#[derive(Debug)]
pub struct Cache {
    dsn: Arc<Dsn>,
    /// prefix . namespace . ':'
    base: Vec<u8>,
    /// Bytes of the prefix at the start of `base`.
    prefix_len: usize,
    /// The `ttl` option (ms; 0: no expiry).
    default_ttl_ms: u64,
    policy: Policy,
    serializer: Format,
    counters: Arc<Counters>,
    /// The local tier and the tracking connection it reads through.
    local: Option<(Tier, Arc<Dsn>)>,
    /// Its entry in the registry (`RedisKit\registry()`).
    registration: crate::registry::Registration,
}

impl Cache {
    /// Records the cache in the registry, once per process: after a call
    /// that reached Redis.
    #[inline]
    fn registered(&self) {
        self.registration.done(&self.dsn, &self.base, || {
            format!(
                "ttl={}&serializer={}&local={}",
                self.default_ttl_ms as f64 / 1000.0,
                self.serializer.name(),
                u8::from(self.local.is_some())
            )
        });
    }

    /// `serializers`: the serializers this PHP can use (igbinary only when loaded).
    pub fn new(
        namespace: &[u8],
        connection: &Connection,
        mut opts: Options,
        settings: &Settings,
        serializers: &[Format],
    ) -> Result<Cache> {
        if namespace.is_empty() {
            return Err(Error::invalid(
                "RedisCache: the namespace must not be empty",
            ));
        }
        let default_ttl_ms = ttl_option(&mut opts, "ttl")?.unwrap_or(0);
        let policy = Policy::default().read(&mut opts)?;
        let serializer = match opts.string("serializer")?.as_deref() {
            None | Some("php") => Format::Php,
            Some("igbinary") => Format::Igbinary,
            Some("json") => Format::Json,
            Some("none") => Format::Raw,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "RedisCache: option 'serializer' must be 'php', 'igbinary', 'json' or 'none', got '{}'",
                    shown(other.as_bytes())
                )))
            }
        };
        if !serializers.contains(&serializer) {
            return Err(Error::invalid(format!(
                "RedisCache: serializer '{}' needs the {} extension, which is not loaded",
                serializer.name(),
                serializer.name()
            )));
        }
        let prefix = opts
            .string("prefix")?
            .unwrap_or_else(|| settings.prefix.clone());
        let local = opts.nested("local")?;
        opts.finish("RedisCache", OPTIONS)?;
        let local = local::options("RedisCache", local, local::DEFAULT_BYTES)?;
        let dsn = connection.single(settings)?;
        let mut base = conn::main_key(&prefix, namespace);
        base.push(b':');
        let counters = counters_for(&base, namespace);
        let registration = crate::registry::Registration::new(
            crate::registry::Kind::Cache,
            prefix.len(),
            namespace.len(),
        );
        let local = local.map(|(max, recheck)| local::tier_on(&dsn, "cache", &base, max, recheck));
        Ok(Cache {
            dsn,
            prefix_len: prefix.len(),
            base,
            default_ttl_ms,
            policy,
            serializer,
            counters,
            local,
            registration,
        })
    }

    pub fn serializer(&self) -> Format {
        self.serializer
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// The instance's policy with a call's options over it.
    pub fn call_policy(&self, mut opts: Options) -> Result<Policy> {
        let p = self.policy.read(&mut opts)?;
        opts.finish("RedisCache::remember()", CALL_OPTIONS)?;
        Ok(p)
    }

    pub fn stats(&self) -> Vec<(&'static str, u64)> {
        self.counters.snapshot()
    }

    fn key(&self, key: &[u8]) -> Result<Vec<u8>> {
        if key.is_empty() {
            return Err(Error::invalid("RedisCache: a key must not be empty"));
        }
        let mut k = Vec::with_capacity(self.base.len() + key.len());
        k.extend_from_slice(&self.base);
        k.extend_from_slice(key);
        self.note_hot(key);
        Ok(k)
    }

    /// A use of `key` in the hot-key sketch, as namespace:key.
    #[inline]
    fn note_hot(&self, key: &[u8]) {
        if self.counters.metrics.is_some() {
            let end = self.base.len().saturating_sub(1);
            let ns = &self.base[self.prefix_len.min(end)..end];
            metrics::hot_key(Hot::Cache, &[ns, key]);
        }
    }

    fn keys(&self, key: &[u8]) -> Result<Keys> {
        Ok(Keys {
            value: self.key(key)?,
        })
    }

    /// A TTL argument (seconds; `None`: the `ttl` option) as ms, 0: no expiry.
    pub fn ttl_arg(&self, ttl: Option<f64>) -> Result<u64> {
        match ttl {
            None => Ok(self.default_ttl_ms),
            Some(t) => ttl_ms("the TTL", t),
        }
    }

    /// The stored bytes and the Redis PX (0: no expiry) of a value written
    /// now: the TTL jittered, then the stale window on top (not for nulls).
    fn stored(&self, value: &Stored, ttl_ms: u64, delta_ms: u64, p: &Policy) -> (Vec<u8>, u64) {
        let px = jittered(ttl_ms, p.jitter);
        let expires = if px == 0 { 0 } else { now_ms() + px };
        match value {
            Some((format, payload)) => (
                Entry::encode(*format, payload, delta_ms, expires),
                if px == 0 { 0 } else { px + p.stale_ms },
            ),
            None => (Entry::encode(Format::Null, b"", delta_ms, expires), px),
        }
    }

    fn decode(&self, raw: Vec<u8>) -> Option<Entry> {
        Entry::decode(raw, self.serializer == Format::Raw)
    }

    /// The value a hit read (`None`: not one RedisCache wrote), and whether
    /// it came from the local tier.
    fn decode_hit(&self, f: Fetch) -> (Option<Entry>, bool) {
        match f {
            Fetch::Hit(raw) => (self.decode(raw), false),
            Fetch::Local(raw, [tag, delta_ms, expires_ms, at]) => {
                let entry = match Format::of_tag(tag as u8) {
                    // parsed when it was kept
                    Some(format) if tag != 0 => Some(Entry {
                        format,
                        payload: raw.get(at as usize..).unwrap_or_default().to_vec(),
                        delta_ms,
                        expires_ms,
                    }),
                    _ => Entry::decode_slice(&raw, self.serializer == Format::Raw),
                };
                (entry, true)
            }
            _ => (None, false),
        }
    }

    /// The value of `key`, `None` on a miss (a value past its TTL that is
    /// only kept for its stale window is a miss here).
    pub fn get(&self, key: &[u8]) -> Result<Option<Entry>> {
        if key.is_empty() {
            return Err(Error::invalid("RedisCache: a key must not be empty"));
        }
        self.note_hot(key);
        // the key written into this thread's scratch buffer: no allocation
        let fetched = KEY.with(|buf| {
            // (a reentrant call, impossible here, would just allocate)
            let mut own = Vec::new();
            let mut guard = buf.try_borrow_mut();
            let k = guard.as_deref_mut().unwrap_or(&mut own);
            k.clear();
            k.extend_from_slice(&self.base);
            k.extend_from_slice(key);
            self.read_raw(k)
        })?;
        // recorded in the registry after a call that succeeded (a failed
        // call writes nothing, that record included)
        self.registered();
        let (found, local) = self.decode_hit(fetched);
        let now = now_ms();
        let found = found.filter(|e| !e.is_stale(now));
        self.counters.add(
            if found.is_some() {
                Count::Hit
            } else {
                Count::Miss
            },
            1,
        );
        if local && found.is_some() {
            self.counters.add(Count::LocalHit, 1);
        }
        Ok(found)
    }

    /// Many values, in the order of `keys` (`MGET`: one round trip per 1000
    /// keys, and per hash slot on a Redis Cluster).
    pub fn get_many<K: AsRef<[u8]>>(&self, keys: &[K]) -> Result<Vec<Option<Entry>>> {
        if keys.iter().any(|k| k.as_ref().is_empty()) {
            return Err(Error::invalid("RedisCache: a key must not be empty"));
        }
        let mut out: Vec<Option<Entry>> = Vec::with_capacity(keys.len());
        out.resize(keys.len(), None);
        let mut local_hit = vec![false; keys.len()];
        // the keys still to read from Redis (all of them without a tier)
        let mut todo: Vec<usize> = (0..keys.len()).collect();
        let mut tier = self
            .local
            .as_ref()
            .filter(|(_, track)| !local::is_refused(track.pool_key()));
        if let Some((t, _)) = tier {
            let full: Vec<Vec<u8>> = keys
                .iter()
                .map(|k| self.key(k.as_ref()))
                .collect::<Result<_>>()?;
            todo.clear();
            for (i, found) in t.get_all(&full).into_iter().enumerate() {
                match found {
                    Lookup::Hit(raw, meta) => {
                        (out[i], local_hit[i]) = self.decode_hit(Fetch::Local(raw, meta));
                    }
                    Lookup::Miss => todo.push(i),
                }
            }
        }
        // the keys are written into MGET as prefix + key, never built
        // (except on a cluster, for their slots)
        let groups: Vec<Vec<usize>> = if self.is_cluster() {
            let full: Vec<Vec<u8>> = todo
                .iter()
                .map(|&i| self.key(keys[i].as_ref()))
                .collect::<Result<_>>()?;
            self.groups(&full)
                .into_iter()
                .map(|g| g.into_iter().map(|j| todo[j]).collect())
                .collect()
        } else {
            todo.chunks(SLICE).map(<[usize]>::to_vec).collect()
        };
        for group in groups {
            if let Some((t, track)) = tier {
                let full: Vec<Vec<u8>> = group
                    .iter()
                    .map(|&i| self.key(keys[i].as_ref()))
                    .collect::<Result<_>>()?;
                match conn::tracked_mget(track, &full) {
                    Ok((values, session)) => {
                        for ((&i, k), (v, pttl)) in group.iter().zip(&full).zip(values) {
                            if let Some(raw) = v {
                                t.put(k, &raw, header_meta(&raw), session, pttl);
                                out[i] = self.decode(raw);
                            }
                        }
                        continue;
                    }
                    Err(e) => match conn::tracking::take_refusal() {
                        Some(why) => {
                            self.refuse(track, &why);
                            tier = None;
                        }
                        None => return Err(e),
                    },
                }
            }
            let mut a = Args::cmd("MGET");
            for &i in &group {
                a.push_joined(&self.base, keys[i].as_ref());
            }
            let replies = match conn::command(&self.dsn, &a, true)? {
                Value::Array(v) if v.len() == group.len() => v,
                v => return Err(Error::unexpected("MGET", &v)),
            };
            for (&i, v) in group.iter().zip(replies) {
                out[i] = match v {
                    Value::BulkString(b) => self.decode(b),
                    _ => None,
                };
            }
        }
        // values kept for their stale window only are misses here
        let now = now_ms();
        for e in out.iter_mut() {
            if e.as_ref().is_some_and(|e| e.is_stale(now)) {
                *e = None;
            }
        }
        let hits = out.iter().filter(|e| e.is_some()).count() as u64;
        let local_hits = out
            .iter()
            .zip(&local_hit)
            .filter(|(e, l)| e.is_some() && **l)
            .count() as u64;
        self.counters.add(Count::Hit, hits);
        self.counters.add(Count::Miss, out.len() as u64 - hits);
        self.counters.add(Count::LocalHit, local_hits);
        self.registered();
        Ok(out)
    }

    fn is_cluster(&self) -> bool {
        self.dsn
            .topology
            .as_deref()
            .is_some_and(|t| matches!(t, conn::Topology::Cluster { .. }))
    }

    /// Indexes of `keys` in batches of `SLICE`, one batch per hash slot on a cluster.
    fn groups(&self, keys: &[Vec<u8>]) -> Vec<Vec<usize>> {
        let mut groups: Vec<(u16, Vec<usize>)> = Vec::new();
        let cluster = self.is_cluster();
        for (i, k) in keys.iter().enumerate() {
            let slot = if cluster { conn::slot::key_slot(k) } else { 0 };
            match groups
                .iter_mut()
                .find(|(s, g)| *s == slot && g.len() < SLICE)
            {
                Some((_, g)) => g.push(i),
                None => groups.push((slot, vec![i])),
            }
        }
        groups.into_iter().map(|(_, g)| g).collect()
    }

    /// Writes a value (`None`: a null, cached like any value).
    pub fn set(&self, key: &[u8], value: &Stored, ttl_ms: u64) -> Result<()> {
        self.set_many(&[(key.to_vec(), value.clone())], ttl_ms)
    }

    /// Writes many values, each with its own jittered TTL: one MULTI/EXEC per
    /// 1000 keys (and per hash slot on a Redis Cluster), so a batch on one
    /// server is written whole or not at all.
    pub fn set_many(&self, values: &[(Vec<u8>, Stored)], ttl_ms: u64) -> Result<()> {
        let full: Vec<Vec<u8>> = values
            .iter()
            .map(|(k, _)| self.key(k))
            .collect::<Result<_>>()?;
        let p = self.policy;
        for k in &full {
            self.forget(k);
        }
        for group in self.groups(&full) {
            let cmds: Vec<Args> = group
                .iter()
                .map(|&i| {
                    let (bytes, px) = self.stored(&values[i].1, ttl_ms, 0, &p);
                    let mut a = Args::cmd("SET");
                    a.push(&full[i]).push(bytes);
                    if px > 0 {
                        a.push("PX").int(px as i64);
                    }
                    a
                })
                .collect();
            conn::transaction(&self.dsn, &cmds, true)?;
        }
        self.registered();
        Ok(())
    }

    /// Adds `by` to an integer value (`set()` of an int, or an earlier
    /// `increment()`), keeping its TTL; a missing key starts from 0 and does
    /// not expire. Atomic (one script). The new value.
    pub fn increment(&self, key: &[u8], by: i64) -> Result<i64> {
        let k = self.key(key)?;
        if by.unsigned_abs() >= 1 << 53 {
            return Err(Error::invalid(format!(
                "RedisCache: the increment must be below 2^53 in magnitude, got {by}"
            )));
        }
        let format = match self.serializer {
            Format::Json => "j",
            Format::Raw => "s",
            _ => "p",
        };
        self.forget(&k);
        let mut c = ScriptCall::new(&scripts::CACHE_INCR);
        c.key(&k).int(by).arg(format);
        int(conn::eval(&self.dsn, &c, false)?, "cache increment")
    }

    /// Gives an existing value a new TTL (ms, jittered; 0: no expiry), in
    /// Redis and in its header. False when the key is missing.
    pub fn touch(&self, key: &[u8], ttl_ms: u64) -> Result<bool> {
        let k = self.key(key)?;
        let p = self.policy;
        let px = jittered(ttl_ms, p.jitter);
        self.forget(&k);
        let mut c = ScriptCall::new(&scripts::CACHE_TOUCH);
        c.key(&k)
            .int(if px == 0 { 0 } else { (now_ms() + px) as i64 })
            .int(if px == 0 { 0 } else { (px + p.stale_ms) as i64 });
        Ok(int(conn::eval(&self.dsn, &c, true)?, "cache touch")? == 1)
    }

    /// Writes a value only if the key holds none (SET NX): true if written.
    pub fn add(&self, key: &[u8], value: &Stored, ttl_ms: u64) -> Result<bool> {
        let k = self.key(key)?;
        let (bytes, px) = self.stored(value, ttl_ms, 0, &self.policy);
        self.forget(&k);
        let mut a = Args::cmd("SET");
        a.push(&k).push(bytes).push("NX");
        if px > 0 {
            a.push("PX").int(px as i64);
        }
        Ok(!matches!(conn::command(&self.dsn, &a, true)?, Value::Nil))
    }

    /// Deletes keys; how many existed.
    pub fn delete(&self, keys: &[Vec<u8>]) -> Result<i64> {
        let full: Vec<Vec<u8>> = keys.iter().map(|k| self.key(k)).collect::<Result<_>>()?;
        for k in &full {
            self.forget(k);
        }
        let mut n = 0;
        for group in self.groups(&full) {
            let mut a = Args::cmd("UNLINK");
            for &i in &group {
                a.push(&full[i]);
            }
            n += int(conn::command(&self.dsn, &a, true)?, "UNLINK")?;
        }
        Ok(n)
    }

    /// Deletes every value of this namespace (SCAN MATCH and UNLINK in
    /// batches, on every master of a cluster; never FLUSHDB); how many there
    /// were.
    pub fn clear(&self) -> Result<i64> {
        let mut pattern = Vec::with_capacity(self.base.len() + 1);
        for &b in &self.base {
            if matches!(b, b'*' | b'?' | b'[' | b']' | b'\\') {
                pattern.push(b'\\');
            }
            pattern.push(b);
        }
        pattern.push(b'*');
        if let Some((tier, _)) = &self.local {
            tier.clear();
        }
        let routes = conn::master_routes(&self.dsn)?;
        let mut n = 0;
        if routes.is_empty() {
            n += self.clear_on(&pattern, None)?;
        }
        for r in routes {
            n += self.clear_on(&pattern, Some(r))?;
        }
        Ok(n)
    }

    /// `clear()` on one server (`route`: a key of the cluster node to scan).
    fn clear_on(&self, pattern: &[u8], route: Option<Vec<u8>>) -> Result<i64> {
        let mut cursor = b"0".to_vec();
        let mut n = 0;
        loop {
            let mut a = Args::cmd("SCAN");
            a.push(&cursor)
                .push("MATCH")
                .push(pattern)
                .push("COUNT")
                .push(SCAN_COUNT);
            a.route = route.clone();
            let (next, found) = match conn::command(&self.dsn, &a, true)? {
                Value::Array(mut v) if v.len() == 2 => {
                    let found = v.pop();
                    (v.pop(), found)
                }
                v => return Err(Error::unexpected("SCAN", &v)),
            };
            let next = conn::bytes(next.unwrap_or(Value::Nil), "SCAN cursor")?;
            if let Some(Value::Array(keys)) = found {
                let keys: Vec<Vec<u8>> = keys
                    .into_iter()
                    .filter_map(|k| conn::bytes(k, "SCAN key").ok())
                    .collect();
                // one UNLINK per key slot (a cluster node holds many)
                for group in self.groups(&keys) {
                    let mut a = Args::cmd("UNLINK");
                    for &i in &group {
                        a.push(&keys[i]);
                    }
                    n += int(conn::command(&self.dsn, &a, true)?, "UNLINK")?;
                }
            }
            if next == b"0" {
                return Ok(n);
            }
            cursor = next;
        }
    }

    /// The hit path: the local tier, else a plain GET (through the tier's
    /// tracking connection when there is a tier, so the value is kept).
    fn read(&self, k: &Keys) -> Result<Fetch> {
        self.read_raw(&k.value)
    }

    fn read_raw(&self, key: &[u8]) -> Result<Fetch> {
        if let Some((tier, track)) = &self.local {
            if !local::is_refused(track.pool_key()) {
                if let Lookup::Hit(raw, meta) = tier.get(key) {
                    return Ok(Fetch::Local(raw, meta));
                }
                match conn::tracked_get(track, key) {
                    Ok(r) => {
                        return Ok(match r.value {
                            Some(v) => {
                                tier.put(key, &v, header_meta(&v), r.session, r.pttl_ms);
                                Fetch::Hit(v)
                            }
                            None => Fetch::Miss,
                        });
                    }
                    Err(e) => match conn::tracking::take_refusal() {
                        // the server will not track: this worker reads
                        // without the tier from now on
                        Some(why) => self.refuse(track, &why),
                        None => return Err(e),
                    },
                }
            }
        }
        let mut a = Args::cmd("GET");
        a.push(key);
        match conn::command(&self.dsn, &a, true)? {
            Value::BulkString(b) => Ok(Fetch::Hit(b)),
            Value::Nil => Ok(Fetch::Miss),
            v => Err(Error::unexpected("GET", &v)),
        }
    }

    /// The server refused tracking: no tier on it for this worker, from now on.
    fn refuse(&self, track: &Dsn, why: &str) {
        local::refuse_tracking("RedisCache", &self.dsn, track, why);
    }

    /// This worker is about to write `key`: its local copy goes first.
    fn forget(&self, key: &[u8]) {
        if let Some((tier, _)) = &self.local {
            tier.forget(key);
        }
    }

    /// The script of a miss: the value, the claim, or the claim's holder.
    fn fetch(&self, k: &Keys, token: &str, p: &Policy) -> Result<Fetch> {
        // it counts this caller as a waiter when another computes: a server
        // it cannot wait on fails the call before that
        conn::blocking_ready(&self.dsn, &k.wake())?;
        let mut c = ScriptCall::new(&scripts::CACHE_FETCH);
        c.key(&k.value).key(k.claim()).key(k.waiters());
        c.arg(token).int(p.claim_ms() as i64);
        match conn::eval(&self.dsn, &c, true)? {
            Value::Int(0) => Ok(Fetch::Claimed),
            Value::BulkString(b) => Ok(Fetch::Hit(b)),
            Value::Array(v) if v.len() == 2 => {
                let mut it = v.into_iter();
                match (it.next(), it.next()) {
                    (Some(Value::Int(left)), Some(holder)) => Ok(Fetch::Busy(
                        left.max(1) as u64,
                        conn::bytes(holder, "cache claim holder").unwrap_or_default(),
                    )),
                    _ => Err(Error::Redis(
                        "unexpected reply from the cache fetch script".into(),
                    )),
                }
            }
            v => Err(Error::unexpected("cache fetch", &v)),
        }
    }

    /// Takes the claim on a value that is there (an early or stale refresh).
    fn try_claim(&self, k: &Keys, token: &str, p: &Policy) -> Result<bool> {
        let mut a = Args::cmd("SET");
        a.push(k.claim())
            .push(token)
            .push("NX")
            .push("PX")
            .int(p.claim_ms() as i64);
        Ok(!matches!(conn::command(&self.dsn, &a, true)?, Value::Nil))
    }

    /// Ends a compute: writes `value` (unless it is a null that is not
    /// cached, or the compute failed: `None`), ends the claim, wakes waiters.
    fn settle(
        &self,
        k: &Keys,
        token: &str,
        write: Option<(Vec<u8>, u64)>,
        wake: u8,
        p: &Policy,
    ) -> Result<()> {
        let mut c = ScriptCall::new(&scripts::CACHE_SETTLE);
        c.key(&k.value)
            .key(k.claim())
            .key(k.waiters())
            .key(k.wake());
        self.forget(&k.value);
        let (bytes, px) = write.unwrap_or_default();
        let mut tok = Vec::with_capacity(token.len() + 2);
        tok.push(wake);
        tok.push(b':');
        tok.extend_from_slice(token.as_bytes());
        c.arg(token)
            .arg(bytes)
            .int(px as i64)
            .int(p.claim_ms() as i64 + 1000)
            .arg(tok);
        conn::eval(&self.dsn, &c, true).map(|_| ())
    }

    /// Runs `compute` and writes what it returned (see `remember`).
    fn compute_and_write<T, E: From<Error>>(
        &self,
        k: &Keys,
        token: &str,
        ttl_ms: u64,
        p: &Policy,
        compute: impl FnOnce() -> std::result::Result<Computed<T>, E>,
    ) -> std::result::Result<Got<T>, E> {
        self.counters.add(Count::Compute, 1);
        let t0 = Instant::now();
        let result = compute();
        let took = t0.elapsed();
        metrics::observe(self.counters.metrics, mc::COMPUTE, took);
        let delta_ms = (took.as_millis() as u64).max(1);
        match result {
            Err(e) => {
                // best effort: the claim's TTL ends it otherwise
                let _ = self.settle(k, token, None, b'x', p);
                Err(e)
            }
            Ok(c) => {
                // a null result: cached for null_ttl (unless ttl_of said otherwise)
                let ttl_ms = match (c.ttl_ms, &c.value) {
                    (Some(t), _) => t,
                    (None, None) => p.null_ttl_ms,
                    (None, Some(_)) => ttl_ms,
                };
                let write = if !c.save || (c.value.is_none() && p.null_ttl_ms == 0) {
                    None
                } else {
                    Some(self.stored(&c.value, ttl_ms, delta_ms, p))
                };
                // waiters: a null not cached is theirs too; a value not
                // saved is not (they compute in turn)
                let wake = match (&write, c.save) {
                    (Some(_), _) => b'v',
                    (None, true) => b'n',
                    (None, false) => b'x',
                };
                self.settle(k, token, write, wake, p)?;
                let out = c.out;
                Ok(Got::Computed(out))
            }
        }
    }

    /// The cached value of `key`, or else `compute`'s, computed by one caller
    /// at a time across processes (the others wait for its write, up to
    /// `lock_timeout`). A hit is one GET; a computed miss three round trips
    /// (the GET, the claim, the write).
    pub fn remember<T, E: From<Error>>(
        &self,
        key: &[u8],
        ttl_ms: u64,
        p: &Policy,
        compute: impl FnOnce() -> std::result::Result<Computed<T>, E>,
    ) -> std::result::Result<Got<T>, E> {
        let r = self.remember_once(key, ttl_ms, p, compute);
        if r.is_ok() {
            // in the registry after a call that succeeded: a compute that
            // failed, or a value that could not be stored, writes nothing
            self.registered();
        }
        r
    }

    fn remember_once<T, E: From<Error>>(
        &self,
        key: &[u8],
        ttl_ms: u64,
        p: &Policy,
        compute: impl FnOnce() -> std::result::Result<Computed<T>, E>,
    ) -> std::result::Result<Got<T>, E> {
        let k = self.keys(key)?;
        let mut token = String::new();
        let mut token = move || -> String {
            if token.is_empty() {
                token = new_token();
            }
            token.clone()
        };
        let deadline = Instant::now() + p.lock_timeout;
        let mut waited = false;
        let mut step = self.read(&k)?;
        loop {
            step = match step {
                hit @ (Fetch::Hit(_) | Fetch::Local(..)) => {
                    let (entry, local) = self.decode_hit(hit);
                    let Some(entry) = entry else {
                        // a value RedisCache did not write: replaced
                        if !waited {
                            self.counters.add(Count::Miss, 1);
                        }
                        let token = token();
                        self.try_claim(&k, &token, p)?;
                        return self.compute_and_write(&k, &token, ttl_ms, p, compute);
                    };
                    if entry.format != Format::Null && entry.expires_ms > 0 {
                        let remaining = entry.expires_ms as i64 - now_ms() as i64;
                        let stale = remaining <= 0;
                        if stale || xfetch(entry.delta_ms, p.beta, remaining) {
                            let token = token();
                            if self.try_claim(&k, &token, p)? {
                                if !stale {
                                    self.counters.add(Count::EarlyRefresh, 1);
                                }
                                self.counters.add(Count::Miss, u64::from(stale));
                                return self.compute_and_write(&k, &token, ttl_ms, p, compute);
                            }
                        }
                        if stale {
                            self.counters.add(Count::StaleServed, 1);
                        }
                    }
                    if !waited {
                        self.counters.add(Count::Hit, 1);
                        if local {
                            self.counters.add(Count::LocalHit, 1);
                        }
                    }
                    return Ok(Got::Cached(entry));
                }
                Fetch::Miss => self.fetch(&k, &token(), p)?,
                Fetch::Claimed => {
                    if !waited {
                        self.counters.add(Count::Miss, 1);
                    }
                    return self.compute_and_write(&k, &token(), ttl_ms, p, compute);
                }
                Fetch::Busy(left_ms, holder) => {
                    if !waited {
                        waited = true;
                        self.counters.add(Count::Miss, 1);
                        self.counters.add(Count::Wait, 1);
                    }
                    let now = Instant::now();
                    if now >= deadline || conn::interrupted() {
                        if p.throw_on_lock_timeout {
                            return Ok(Got::TimedOut);
                        }
                        return self.compute_and_write(&k, &token(), ttl_ms, p, compute);
                    }
                    // until the claim ends (its TTL, +1 ms) or our deadline
                    let wait = Duration::from_millis(left_ms + 1).min(deadline - now);
                    if let Some(tok) = conn::wait_signal(&self.dsn, &k.wake(), wait)? {
                        if tok.len() > 2 && tok.starts_with(b"n:") && tok[2..] == holder[..] {
                            return Ok(Got::Null);
                        }
                    }
                    // woken by the write, most likely: a plain GET (the claim
                    // script again only if the value is still missing)
                    self.read(&k)?
                }
            };
        }
    }
}

#[cfg(test)]
mod tests;
