//! The hottest keys of a kind (lock names, rate-limiter keys, cache keys):
//! a space-saving sketch of `ENTRIES` entries in the shared segment, so
//! "which key is hot" is answerable in bounded memory however many keys
//! there are.
//!
//! One call in `SAMPLE` updates it, drawn at random per thread (a heavy
//! hitter stays one in the sample, whatever rhythm the calls have); an update takes the table's spin lock with one
//! compare-and-swap and skips the sample when another worker holds it, so no
//! call ever waits. A worker that died holding the lock loses it after
//! `STALE_NS`.
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicU64, Ordering::*};

/// Entries per table.
pub const ENTRIES: usize = 32;
/// Bytes of a key kept (longer keys are cut; their hash tells them apart).
pub const KEY_MAX: usize = 64;
/// One call in SAMPLE is counted; estimates are scaled back up.
pub const SAMPLE: u64 = 16;
const STALE_NS: u64 = 1_000_000_000;

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

#[repr(C)]
struct Entry {
    hash: u64,
    count: u64,
    error: u64,
    len: u32,
    key: [u8; KEY_MAX],
}

#[repr(C, align(64))]
pub struct Table {
    /// 0: free; otherwise the `now_ns` of the holder's acquisition.
    lock: AtomicU64,
    entries: UnsafeCell<[Entry; ENTRIES]>,
}

// SAFETY: `entries` is only read or written by the holder of `lock`.
unsafe impl Sync for Table {}

impl Table {
    /// Runs `f` on the entries if the lock is free (or stale), else None.
    fn with<R>(&self, spins: u32, f: impl FnOnce(&mut [Entry; ENTRIES]) -> R) -> Option<R> {
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
        // SAFETY: this thread holds the lock.
        let r = f(unsafe { &mut *self.entries.get() });
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
    table.with(0, |entries| {
        if let Some(e) = entries.iter_mut().find(|e| e.count > 0 && e.hash == h) {
            e.count += 1;
            return;
        }
        // a free entry, else the smallest one (space-saving: the new key
        // inherits its count as the bound of its error)
        let Some(e) = entries.iter_mut().min_by_key(|e| e.count) else {
            return;
        };
        e.error = e.count;
        e.count += 1;
        e.hash = h;
        e.len = kept.len() as u32;
        e.key[..kept.len()].copy_from_slice(kept);
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
                .filter(|e| e.count > 0)
                .map(|e| HotKey {
                    key: e.key[..(e.len as usize).min(KEY_MAX)].to_vec(),
                    count: e.count * SAMPLE,
                    error: e.error * SAMPLE,
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
    out
}
