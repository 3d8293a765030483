//! The hottest keys of a kind (lock names, rate-limiter keys, cache keys):
//! a space-saving sketch of `ENTRIES` entries in the shared segment, so
//! "which key is hot" is answerable in bounded memory however many keys
//! there are.
//!
//! One call in `SAMPLE` updates it, drawn at random per thread (a heavy
//! hitter stays one in the sample, whatever rhythm the calls have); an
//! update of a key already kept is one atomic add; a new key takes the
//! table's spin lock, spinning a few hundred times at most, and is dropped
//! when another worker still holds it (a key new to the sketch is not a hot
//! one yet), so no call waits for long. A worker that died holding the lock loses it after
//! `STALE_NS`.
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

/// Entries per table.
pub const ENTRIES: usize = 32;
/// Bytes of a key kept (longer keys are cut; their hash tells them apart).
pub const KEY_MAX: usize = 64;
/// One call in SAMPLE is counted; estimates are scaled back up.
pub const SAMPLE: u64 = 16;
const STALE_NS: u64 = 1_000_000_000;
/// Tries for the lock before a sample is dropped: the holder keeps it for a
/// scan of `ENTRIES` entries, so a short spin finds it free unless the
/// holder was descheduled (then the sample is dropped, never waited for).
const SPINS: u32 = 256;

/// The kinds with a hot-key table, in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hot {
    Lock,
    Limiter,
    Cache,
}

pub const HOT: [(Hot, &str); 3] = [
    (Hot::Lock, "lock"),
    (Hot::Limiter, "limiter"),
    (Hot::Cache, "cache"),
];

/// A key kept, and its sampled count: a count is added to without the lock
/// (a key already kept, the usual case for a hot one); the key itself, and
/// which key an entry holds, change only under it.
#[repr(C)]
struct Entry {
    hash: AtomicU64,
    count: AtomicU64,
    error: AtomicU64,
    len: AtomicU32,
    key: UnsafeCell<[u8; KEY_MAX]>,
}

#[repr(C, align(64))]
pub struct Table {
    /// 0: free; otherwise the `now_ns` of the holder's acquisition.
    lock: AtomicU64,
    entries: [Entry; ENTRIES],
}

// SAFETY: an entry's `key` bytes are only read or written by the holder of
// `lock`; every other field is atomic.
unsafe impl Sync for Table {}

impl Table {
    /// Runs `f` on the entries if the lock is free (or stale), else None.
    fn with<R>(&self, spins: u32, f: impl FnOnce(&[Entry; ENTRIES]) -> R) -> Option<R> {
        let now = super::now_ns();
        let mut got = false;
        for _ in 0..=spins {
            let held = self.lock.load(Relaxed);
            let free = held == 0 || now.saturating_sub(held) > STALE_NS;
            if free
                && self
                    .lock
                    .compare_exchange(held, now, Acquire, Relaxed)
                    .is_ok()
            {
                got = true;
                break;
            }
            std::hint::spin_loop();
        }
        if !got {
            return None;
        }
        let r = f(&self.entries);
        self.lock.store(0, Release);
        Some(r)
    }
}

thread_local! {
    /// xorshift64 state, seeded per thread from its address and the clock.
    static RNG: Cell<u64> = const { Cell::new(0) };
}

/// Counts one event of the key `parts` joined by ':' (sampled).
#[inline]
pub(super) fn note(table: &Table, parts: &[&[u8]]) {
    let x = RNG.with(|c| {
        let mut x = c.get();
        if x == 0 {
            x = (c as *const Cell<u64> as u64) ^ super::now_ns() | 1;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c.set(x);
        x
    });
    if x.is_multiple_of(SAMPLE) {
        note_sampled(table, parts);
    }
}

#[cold]
fn note_sampled(table: &Table, parts: &[&[u8]]) {
    let key = parts.join(&b':');
    let h = super::hash(super::Kind::Lock, &key);
    let kept = &key[..key.len().min(KEY_MAX)];
    let kept_here = |entries: &[Entry; ENTRIES]| {
        entries
            .iter()
            .find(|e| e.count.load(Relaxed) > 0 && e.hash.load(Acquire) == h)
            .map(|e| e.count.fetch_add(1, Relaxed))
            .is_some()
    };
    // a key already kept: counted without the lock, so many workers counting
    // one hot key never drop each other's samples
    if kept_here(&table.entries) {
        return;
    }
    table.with(SPINS, |entries| {
        if kept_here(entries) {
            return; // kept meanwhile
        }
        // a free entry, else the smallest one (space-saving: the new key
        // inherits its count as the bound of its error)
        let Some(e) = entries.iter().min_by_key(|e| e.count.load(Relaxed)) else {
            return;
        };
        let min = e.count.load(Relaxed);
        // SAFETY: the key bytes are written under the lock only.
        unsafe { (&mut *e.key.get())[..kept.len()].copy_from_slice(kept) };
        e.len.store(kept.len() as u32, Relaxed);
        e.error.store(min, Relaxed);
        e.count.store(min + 1, Relaxed);
        e.hash.store(h, Release);
    });
}

/// One hot key as read: its estimated events (sampled, scaled up) and the
/// most the estimate may be above the truth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotKey {
    pub key: Vec<u8>,
    pub count: u64,
    pub error: u64,
}

/// The table's keys, hottest first (empty if a worker holds it for long).
pub(super) fn read(table: &Table) -> Vec<HotKey> {
    let mut out = table
        .with(100_000, |entries| {
            entries
                .iter()
                .filter(|e| e.count.load(Relaxed) > 0)
                .map(|e| HotKey {
                    // SAFETY: the key bytes are read under the lock.
                    key: unsafe { &*e.key.get() }[..(e.len.load(Relaxed) as usize).min(KEY_MAX)]
                        .to_vec(),
                    count: e.count.load(Relaxed) * SAMPLE,
                    error: e.error.load(Relaxed) * SAMPLE,
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
    out
}
