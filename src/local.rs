//! The local read tier: values read from Redis kept in the worker's own
//! memory, invalidated by Redis itself (client tracking, `conn::tracking`),
//! never by a guess.
//!
//! A tier is one worker's (one PHP process, one thread under ZTS), named by
//! its owner (a `RedisCache` namespace on a DSN), and bounded in bytes: the
//! least recently used values go first. A value is served from it only when
//! all of these hold:
//! - it was read on a tracking connection that is still open (a connection
//!   that closes, for any reason, takes every value read on it along: an
//!   invalidation may have been lost with it);
//! - every invalidation that connection had received was applied first
//!   (`conn::tracking::drain`: one non-blocking `recv` per connection);
//! - that connection received something from Redis within `recheck` (a
//!   link that went silent could be losing invalidations: the read goes to
//!   Redis, which answers or fails);
//! - its Redis TTL (read with it) has not run out.
//!
//! So a local hit is never older than the last write Redis had completed
//! before this worker's previous round trip on that connection: Redis
//! queues an invalidation ahead of any later reply on the same connection.
use crate::conn::tracking::{self, Event};
use crate::conn::Dsn;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bytes counted per value on top of its key and bytes: what the map, the
/// LRU order and their allocations take per value, as measured (a tier of
/// 4 MiB of 12-byte values: RSS grew by the budget, not three times it).
const OVERHEAD: usize = 352;

/// FxHash (rustc's): the keys are ours, not an attacker's choice of
/// collisions in a table of one worker, and SipHash cost more than the
/// rest of a local hit.
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// One value held locally.
struct Item {
    /// Which read of the key it is (`b""` for the key's value; a range of a
    /// sorted set, for instance).
    variant: Box<[u8]>,
    raw: Rc<[u8]>,
    /// What the owner worked out from `raw` once (a parsed header).
    meta: Meta,
    session: u64,
    /// When Redis expires it (`None`: no TTL).
    dies: Option<Instant>,
    /// Its place in the LRU order.
    tick: u64,
    bytes: usize,
}

/// One tier: values by full Redis key (one or a few reads of each key).
struct Store {
    max_bytes: usize,
    bytes: usize,
    len: usize,
    items: FxMap<Vec<u8>, Vec<Item>>,
    lru: BTreeMap<u64, (Vec<u8>, Box<[u8]>)>,
    tick: u64,
}

impl Store {
    fn new(max_bytes: usize) -> Self {
        Store {
            max_bytes,
            bytes: 0,
            len: 0,
            items: FxMap::default(),
            lru: BTreeMap::new(),
            tick: 0,
        }
    }

    /// Drops every read of `key`.
    fn remove(&mut self, key: &[u8]) {
        if let Some(all) = self.items.remove(key) {
            for it in all {
                self.lru.remove(&it.tick);
                self.bytes -= it.bytes;
                self.len -= 1;
            }
        }
    }

    /// Drops one read of `key`.
    fn remove_one(&mut self, key: &[u8], variant: &[u8]) {
        let Some(all) = self.items.get_mut(key) else {
            return;
        };
        if let Some(i) = all.iter().position(|it| &*it.variant == variant) {
            let it = all.swap_remove(i);
            self.lru.remove(&it.tick);
            self.bytes -= it.bytes;
            self.len -= 1;
            if all.is_empty() {
                self.items.remove(key);
            }
        }
    }

    fn retain(&mut self, keep: impl Fn(&Item) -> bool) {
        let gone: Vec<(Vec<u8>, Box<[u8]>)> = self
            .items
            .iter()
            .flat_map(|(k, all)| {
                all.iter()
                    .filter(|it| !keep(it))
                    .map(move |it| (k.clone(), it.variant.clone()))
            })
            .collect();
        for (k, v) in gone {
            self.remove_one(&k, &v);
        }
    }

    fn clear(&mut self) {
        self.items.clear();
        self.lru.clear();
        self.bytes = 0;
        self.len = 0;
    }

    fn apply(&mut self, e: &Event) {
        match e {
            Event::Invalidate(_, keys) => {
                for k in keys {
                    self.remove(k);
                }
            }
            Event::Flush(s) | Event::Closed(s) => self.retain(|it| it.session != *s),
            Event::Overflow => self.clear(),
        }
    }

    fn find(&mut self, key: &[u8], variant: &[u8]) -> Option<&mut Item> {
        self.items
            .get_mut(key)?
            .iter_mut()
            .find(|it| &*it.variant == variant)
    }

    #[allow(clippy::too_many_arguments)]
    fn insert(
        &mut self,
        key: &[u8],
        variant: &[u8],
        raw: &[u8],
        meta: Meta,
        session: u64,
        dies: Option<Instant>,
    ) {
        self.remove_one(key, variant);
        let bytes = 2 * (key.len() + variant.len()) + raw.len() + OVERHEAD;
        if bytes > self.max_bytes {
            return;
        }
        while self.bytes + bytes > self.max_bytes {
            let Some((_, (k, v))) = self.lru.pop_first() else {
                break;
            };
            // (its LRU entry is gone already: remove_one finds none)
            self.remove_one(&k, &v);
        }
        self.tick += 1;
        self.lru.insert(self.tick, (key.to_vec(), variant.into()));
        let item = Item {
            variant: variant.into(),
            raw: raw.into(),
            meta,
            session,
            dies,
            tick: self.tick,
            bytes,
        };
        match self.items.get_mut(key) {
            Some(all) => all.push(item),
            None => {
                self.items.insert(key.to_vec(), vec![item]);
            }
        }
        self.bytes += bytes;
        self.len += 1;
    }

    /// Marks a read as just used. Only a value in the older half of the LRU
    /// order moves (an approximation that keeps a hot value's hit free of
    /// reordering: it cannot reach the eviction end without passing the
    /// middle first, where it moves).
    fn touch(&mut self, key: &[u8], variant: &[u8]) {
        let (len, tick) = (self.len as u64, self.tick);
        let Some(it) = self.find(key, variant) else {
            return;
        };
        if tick - it.tick <= len / 2 {
            return;
        }
        let old = it.tick;
        it.tick = tick + 1;
        self.tick += 1;
        if let Some(k) = self.lru.remove(&old) {
            self.lru.insert(self.tick, k);
        }
    }
}

thread_local! {
    /// This thread's tiers, by name (few: a linear search, and each `Tier`
    /// remembers where its own is).
    static STORES: RefCell<Vec<(String, Store)>> = const { RefCell::new(Vec::new()) };
    /// Tracking DSNs whose server refused tracking.
    static REFUSED: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
    /// A notice for the caller to raise (the binding's job), once.
    static NOTICE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Applies every tracking event to every tier of this thread: those the
/// connections received by now (`drain`), or only those already read
/// with replies.
fn sync(drain: bool) {
    let events = if drain {
        tracking::drain()
    } else {
        tracking::take_events()
    };
    if events.is_empty() {
        return;
    }
    STORES.with(|s| {
        for (_, store) in s.borrow_mut().iter_mut() {
            for e in &events {
                store.apply(e);
            }
        }
    });
}

/// Numbers the owner keeps with a value (what it parsed from it once).
pub type Meta = [u64; 4];

/// A tier's settings, as its owner holds them.
#[derive(Debug)]
pub struct Tier {
    name: String,
    max_bytes: usize,
    recheck: Duration,
    /// Where its store was in `STORES` when last looked up.
    slot: AtomicUsize,
}

impl Clone for Tier {
    fn clone(&self) -> Self {
        Tier {
            name: self.name.clone(),
            max_bytes: self.max_bytes,
            recheck: self.recheck,
            slot: AtomicUsize::new(self.slot.load(Relaxed)),
        }
    }
}

/// The tier of an object (`kind`, `name`: one store per worker) on `dsn`,
/// and the tracking connection's DSN it reads through.
pub fn tier_on(
    dsn: &Dsn,
    kind: &str,
    name: &[u8],
    max: usize,
    recheck: Duration,
) -> (Tier, Arc<Dsn>) {
    let track = Arc::new(dsn.with_tracking());
    let mut full = track.pool_key().to_string();
    full.push('\0');
    full.push_str(kind);
    full.push('\0');
    full.push_str(&String::from_utf8_lossy(name));
    (Tier::new(full, max, recheck), track)
}

/// `refuse` for `class`'s tier on `dsn`, with the notice's text.
pub fn refuse_tracking(class: &str, dsn: &Dsn, track: &Dsn, why: &str) {
    refuse(
        track.pool_key(),
        format!(
            "{class}: local tier turned off for {}: the server refused client tracking ({why}); reading from Redis instead",
            dsn.redacted()
        ),
    );
}

/// The `local` option of an object that has a tier: `max_bytes` (default
/// `default_bytes`) and `recheck_after` (default 1 s), read from
/// `opts.nested("local")`. Errors name `class`.
pub fn options(
    class: &str,
    local: Option<crate::options::Options>,
    default_bytes: i64,
) -> crate::conn::Result<Option<(usize, Duration)>> {
    let Some(mut lo) = local else {
        return Ok(None);
    };
    let mut read = || -> crate::conn::Result<(usize, Duration)> {
        let max = lo.int("max_bytes", 1024, 1 << 40, default_bytes)?;
        let recheck = lo
            .seconds("recheck_after")?
            .unwrap_or(Duration::from_secs(1));
        Ok((max as usize, recheck))
    };
    let got = read().map_err(|e| {
        crate::conn::Error::invalid(format!("{class}: in option 'local', {}", e.message()))
    })?;
    lo.finish(&format!("{class} option 'local'"), OPTIONS)?;
    Ok(Some(got))
}

/// The options of a `local` option.
pub const OPTIONS: &[&str] = &["max_bytes", "recheck_after"];
/// A tier's default size (per worker and object name).
pub const DEFAULT_BYTES: i64 = 4 << 20;

/// What `Tier::get` found.
pub enum Lookup {
    /// The value as Redis had it (its raw bytes), and its owner's `Meta`.
    Hit(Rc<[u8]>, Meta),
    /// Not held (or no longer valid): read it from Redis.
    Miss,
}

impl Tier {
    /// A tier named `name` (one per owner and connection), holding at most
    /// `max_bytes`, trusting a silent connection for `recheck`.
    pub fn new(name: String, max_bytes: usize, recheck: Duration) -> Tier {
        let tier = Tier {
            name,
            max_bytes,
            recheck,
            slot: AtomicUsize::new(0),
        };
        tier.with(|st| {
            if st.max_bytes != max_bytes {
                st.max_bytes = max_bytes;
                if st.bytes > max_bytes {
                    st.clear();
                }
            }
        });
        tier
    }

    fn with<R>(&self, f: impl FnOnce(&mut Store) -> R) -> R {
        STORES.with(|s| {
            let mut s = s.borrow_mut();
            let at = self.slot.load(Relaxed);
            let i = match s.get(at) {
                Some((n, _)) if *n == self.name => at,
                _ => match s.iter().position(|(n, _)| *n == self.name) {
                    Some(i) => i,
                    None => {
                        s.push((self.name.clone(), Store::new(self.max_bytes)));
                        s.len() - 1
                    }
                },
            };
            self.slot.store(i, Relaxed);
            f(&mut s[i].1)
        })
    }

    /// The value of `key` if it may be served locally (see the module).
    pub fn get(&self, key: &[u8]) -> Lookup {
        self.get_read(key, b"")
    }

    /// `get` of many keys (one drain of the connections for all).
    pub fn get_all<K: AsRef<[u8]>>(&self, keys: &[K]) -> Vec<Lookup> {
        sync(true);
        keys.iter().map(|k| self.lookup(k.as_ref(), b"")).collect()
    }

    /// One read (`variant`) of `key`, if it may be served locally.
    pub fn get_read(&self, key: &[u8], variant: &[u8]) -> Lookup {
        sync(true);
        self.lookup(key, variant)
    }

    fn lookup(&self, key: &[u8], variant: &[u8]) -> Lookup {
        let recheck = self.recheck;
        self.with(|st| {
            let Some(it) = st.find(key, variant) else {
                return Lookup::Miss;
            };
            let now = Instant::now();
            let fresh = tracking::last_heard(it.session).is_some_and(|t| t + recheck > now);
            if !fresh || it.dies.is_some_and(|d| d <= now) {
                st.remove_one(key, variant);
                return Lookup::Miss;
            }
            let hit = Lookup::Hit(it.raw.clone(), it.meta);
            st.touch(key, variant);
            hit
        })
    }

    /// Keeps what a tracked read returned (`pttl_ms` as `PTTL` gave it).
    pub fn put(&self, key: &[u8], raw: &[u8], meta: Meta, session: u64, pttl_ms: i64) {
        self.put_read(key, b"", raw, meta, session, pttl_ms)
    }

    /// `put` of one read (`variant`) of `key`.
    pub fn put_read(
        &self,
        key: &[u8],
        variant: &[u8],
        raw: &[u8],
        meta: Meta,
        session: u64,
        pttl_ms: i64,
    ) {
        // the invalidations read ahead of the reply are older than the
        // value; any behind it (maybe in the buffer already) are newer, and
        // wait for the next `get`
        sync(false);
        if session == 0 || tracking::last_heard(session).is_none() || pttl_ms == -2 {
            return;
        }
        let dies = (pttl_ms >= 0).then(|| Instant::now() + Duration::from_millis(pttl_ms as u64));
        self.with(|st| st.insert(key, variant, raw, meta, session, dies));
    }

    /// This worker is about to change `key`: its local copy goes first.
    pub fn forget(&self, key: &[u8]) {
        self.with(|st| st.remove(key));
    }

    /// Drops every value of this tier.
    pub fn clear(&self) {
        self.with(Store::clear);
    }
}

/// A notice waits in some thread (checked before the thread-local).
static NOTICE_PENDING: AtomicBool = AtomicBool::new(false);

/// The server behind `dsn_key` (a tracking DSN's pool key) refused client
/// tracking: every tier on it is off in this worker from now on, and one
/// notice says why.
pub fn refuse(dsn_key: &str, notice: String) {
    let first = REFUSED.with(|r| r.borrow_mut().insert(dsn_key.to_string()));
    if first {
        NOTICE.with(|n| *n.borrow_mut() = Some(notice));
        NOTICE_PENDING.store(true, Relaxed);
    }
}

/// True once the server behind `dsn_key` refused tracking (`refuse`).
pub fn is_refused(dsn_key: &str) -> bool {
    REFUSED.with(|r| {
        let r = r.borrow();
        !r.is_empty() && r.contains(dsn_key)
    })
}

/// The notice to raise, once.
pub fn take_notice() -> Option<String> {
    if !NOTICE_PENDING.load(Relaxed) {
        return None;
    }
    NOTICE.with(|n| n.borrow_mut().take())
}

#[cfg(test)]
mod tests;
