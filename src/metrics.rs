//! Host-wide metrics: counters and histograms in one shared-memory segment.
//!
//! The segment is mapped once per process at module start-up
//! (`mmap(MAP_SHARED|MAP_ANONYMOUS)`), before PHP-FPM, Apache's prefork MPM
//! or a CLI script's `pcntl_fork()` makes its children, so every worker of a
//! pool counts into the same memory, as APCu and opcache share theirs. Every
//! update is an atomic add on memory that is already mapped: no round trip,
//! no lock, no allocation.
//!
//! A series is one object of one kind (a lock's, a queue's, a limiter's or a
//! cache's name, a connection target) with a fixed set of counters and
//! histograms. Objects look their series up once, when they are made; a
//! lookup claims a free slot for a name seen the first time. Past
//! `max_names` names of a kind, and when the table is full, a name is
//! counted in its kind's `_other` series (never an error).
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering::*};
use std::time::Duration;

/// The kinds of series, in the order of `KINDS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Lock,
    Queue,
    Limiter,
    Cache,
    Connection,
}

/// What a kind counts: counter names (and an optional `class` label for a
/// family of counters), histogram names, and the label its name goes in.
pub struct Def {
    pub kind: Kind,
    pub prefix: &'static str,
    pub label: &'static str,
    pub counters: &'static [Counter],
    pub histograms: &'static [Histo],
    /// Per-minute counts over the last hour (`per_minute`), by name.
    pub minutes: &'static [&'static str],
}

pub struct Counter {
    pub name: &'static str,
    pub class: Option<&'static str>,
    pub help: &'static str,
}

pub struct Histo {
    pub name: &'static str,
    pub help: &'static str,
}

const fn c(name: &'static str, help: &'static str) -> Counter {
    Counter {
        name,
        class: None,
        help,
    }
}

const fn e(class: &'static str) -> Counter {
    Counter {
        name: "errors",
        class: Some(class),
        help: "Failed requests, by class (connect, timeout, lost, server)",
    }
}

/// Counter and histogram indexes of each kind.
pub mod lock {
    pub const ACQUIRED: usize = 0;
    pub const CONTENDED: usize = 1;
    pub const TIMED_OUT: usize = 2;
    pub const LOST: usize = 3;
    pub const WAIT: usize = 0;
    pub const HOLD: usize = 1;
}
pub mod queue {
    pub const PUSHED: usize = 0;
    pub const CLAIMED: usize = 1;
    pub const ACKED: usize = 2;
    pub const RETRIED: usize = 3;
    pub const REDELIVERED: usize = 4;
    pub const DEAD: usize = 5;
    pub const LAG: usize = 0;
    pub const HANDLER: usize = 1;
    pub const PUSHED_PER_MINUTE: usize = 0;
    pub const ACKED_PER_MINUTE: usize = 1;
}
pub mod limiter {
    pub const ALLOWED: usize = 0;
    pub const DENIED: usize = 1;
    pub const LOCAL_BLOCKS: usize = 2;
    pub const FAIL_OPEN: usize = 3;
}
pub mod cache {
    pub const HITS: usize = 0;
    pub const MISSES: usize = 1;
    pub const COMPUTES: usize = 2;
    pub const WAITS: usize = 3;
    pub const EARLY_REFRESHES: usize = 4;
    pub const STALE_SERVED: usize = 5;
    pub const LOCAL_HITS: usize = 6;
    pub const COMPUTE: usize = 0;
}
pub mod connection {
    pub const COMMANDS: usize = 0;
    pub const ROUND_TRIPS: usize = 1;
    pub const RECONNECTS: usize = 2;
    pub const ERR_CONNECT: usize = 3;
    pub const ERR_TIMEOUT: usize = 4;
    pub const ERR_LOST: usize = 5;
    pub const ERR_SERVER: usize = 6;
    pub const ROUND_TRIP: usize = 0;
}

pub static KINDS: [Def; 5] = [
    Def {
        kind: Kind::Lock,
        prefix: "rediskit_lock",
        label: "name",
        counters: &[
            c("acquired", "Locks acquired"),
            c("contended", "Acquire calls that found the lock held"),
            c("timed_out", "Acquire calls that gave up waiting"),
            c(
                "lost",
                "Held locks found lost (expired or taken) before release",
            ),
        ],
        histograms: &[
            Histo {
                name: "acquire_wait_seconds",
                help: "Time from an acquire call to the lock being held",
            },
            Histo {
                name: "hold_seconds",
                help: "Time a lock was held, from acquire to release",
            },
        ],
        minutes: &[],
    },
    Def {
        kind: Kind::Queue,
        prefix: "rediskit_queue",
        label: "queue",
        counters: &[
            c("pushed", "Jobs pushed"),
            c("claimed", "Jobs handed to a consumer"),
            c("acked", "Jobs acknowledged as done"),
            c("retried", "Jobs given back for another attempt"),
            c("redelivered", "Claims of a job that had an earlier attempt"),
            c("dead_lettered", "Jobs moved to the dead letters"),
        ],
        histograms: &[
            Histo {
                name: "lag_seconds",
                help: "Time from a job being due to its claim (this host's clock)",
            },
            Histo {
                name: "handler_seconds",
                help: "Time from a claim to its ack or retry in the same worker",
            },
        ],
        minutes: &["pushed", "acked"],
    },
    Def {
        kind: Kind::Limiter,
        prefix: "rediskit_limiter",
        label: "name",
        counters: &[
            c("allowed", "Attempts allowed"),
            c("denied", "Attempts denied"),
            c(
                "local_blocks",
                "Denials answered from the worker's memory, without Redis",
            ),
            c(
                "fail_open",
                "Attempts allowed because Redis could not be reached (on_error allow)",
            ),
        ],
        histograms: &[],
        minutes: &[],
    },
    Def {
        kind: Kind::Cache,
        prefix: "rediskit_cache",
        label: "namespace",
        counters: &[
            c("hits", "Reads that found a value (local hits included)"),
            c("misses", "Reads that found nothing"),
            c("computes", "Values computed by a remember() callback"),
            c("waits", "Misses that waited for another worker's compute"),
            c("early_refreshes", "Values recomputed before they expired"),
            c(
                "stale_served",
                "Stale values served while another worker computed",
            ),
            c("local_hits", "Hits served by the worker's local tier"),
        ],
        histograms: &[Histo {
            name: "compute_seconds",
            help: "Time a remember() callback took",
        }],
        minutes: &[],
    },
    Def {
        kind: Kind::Connection,
        prefix: "rediskit_connection",
        label: "target",
        counters: &[
            c("commands", "Commands sent"),
            c("round_trips", "Requests that waited for the server's reply"),
            c("reconnects", "Connections opened again after one broke"),
            e("connect"),
            e("timeout"),
            e("lost"),
            e("server"),
        ],
        histograms: &[Histo {
            name: "round_trip_seconds",
            help: "Time from sending a request to its first reply",
        }],
        minutes: &[],
    },
];

const COUNTERS: usize = 8;
const HISTOGRAMS: usize = 2;
const RINGS: usize = 2;
/// Minutes kept by a per-minute ring: the last hour.
pub const MINUTES: usize = 60;
/// A ring's cell: the minute it counts (Unix minutes, low 28 bits) above a
/// 36-bit count, so that one compare-and-swap moves it to a new minute.
const COUNT_BITS: u32 = 36;
const COUNT_MAX: u64 = (1 << COUNT_BITS) - 1;
const TAG_MAX: u64 = (1 << (64 - COUNT_BITS)) - 1;
/// Histogram bounds at most (the `+Inf` bucket is the count).
pub const MAX_BOUNDS: usize = 15;
/// Prometheus's default buckets, in seconds.
pub const DEFAULT_BOUNDS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];
/// Bytes of a name kept in a series (longer names end in `~` and a hash).
pub const NAME_MAX: usize = 96;
const OTHER: &[u8] = b"_other";
const MAGIC: u64 = 0x7264_6b5f_6d65_7431; // "rdk_met1"

const FREE: u32 = 0;
const CLAIMING: u32 = 1;
const READY: u32 = 2;

#[repr(C)]
struct Hist {
    buckets: [AtomicU64; MAX_BOUNDS],
    count: AtomicU64,
    sum_ns: AtomicU64,
}

#[repr(C, align(64))]
struct Slot {
    state: AtomicU32,
    kind: UnsafeCell<u32>,
    len: UnsafeCell<u32>,
    hash: UnsafeCell<u64>,
    name: UnsafeCell<[u8; NAME_MAX]>,
    /// The per-minute rings' index + 1 in the ring area (0: none), for
    /// the kinds that have rings.
    rings: UnsafeCell<u32>,
    counters: [AtomicU64; COUNTERS],
    hists: [Hist; HISTOGRAMS],
}

/// A series' per-minute rings, in their own area after the slots: only the
/// kinds with rings (queues) use one, so the other series stay small.
#[repr(C, align(64))]
struct Rings([[AtomicU64; MINUTES]; RINGS]);

/// One ring area entry per this many slots (at least 16 entries).
const SLOTS_PER_RINGS: usize = 16;

#[repr(C, align(64))]
struct Header {
    magic: u64,
    slots: u32,
    max_names: u32,
    bounds_len: u32,
    bounds_ns: [u64; MAX_BOUNDS],
    /// Names claimed per kind (its `_other` not included).
    names: [AtomicU32; 5],
    /// `_other` slot of each kind.
    other: [u32; 5],
    /// Names counted in `_other` because the table had no free slot.
    full: AtomicU64,
    /// Names counted in `_other` because their kind had `max_names`.
    capped: AtomicU64,
    /// The hottest keys of locks, limiters and caches.
    hot: [hot::Table; 3],
    /// Entries of the ring area, and how many are taken.
    rings: u32,
    rings_used: AtomicU32,
}

// SAFETY: the non-atomic fields of a slot are written only by the one
// thread that moved it from FREE to CLAIMING, before it publishes READY
// (Release); they are read only after seeing READY (Acquire).
unsafe impl Sync for Slot {}

struct Segment {
    header: *mut Header,
    slots: *mut Slot,
    bytes: usize,
}

/// How `bytes` are laid out: (slots, ring entries); the header first, the
/// slots after it, the rings after them.
fn layout(bytes: usize) -> (usize, usize) {
    let room = bytes.saturating_sub(std::mem::size_of::<Header>());
    let slot = std::mem::size_of::<Slot>();
    let ring = std::mem::size_of::<Rings>();
    let rings = (room / (slot * SLOTS_PER_RINGS + ring)).max(16);
    let slots = room.saturating_sub(rings * ring) / slot;
    (slots, rings)
}

static BASE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static BYTES: AtomicU64 = AtomicU64::new(0);

fn segment() -> Option<Segment> {
    let base = BASE.load(Acquire);
    if base.is_null() {
        return None;
    }
    let bytes = BYTES.load(Relaxed) as usize;
    Some(Segment {
        header: base.cast(),
        // SAFETY: the slots follow the header inside the mapping.
        slots: unsafe { base.add(std::mem::size_of::<Header>()) }.cast(),
        bytes,
    })
}

impl Segment {
    fn header(&self) -> &Header {
        // SAFETY: mapped for the life of the module, initialised by `init`.
        unsafe { &*self.header }
    }
    fn slot(&self, i: u32) -> &Slot {
        debug_assert!(i < self.header().slots);
        // SAFETY: i < slots, all inside the mapping.
        unsafe { &*self.slots.add(i as usize) }
    }
    /// The rings of a READY slot, if it has them.
    fn rings(&self, s: &Slot) -> Option<&Rings> {
        // SAFETY: written before READY, read after seeing it.
        let r = unsafe { *s.rings.get() };
        let hd = self.header();
        if r == 0 || r > hd.rings {
            return None;
        }
        // SAFETY: r - 1 < rings: inside the mapping, after the slots.
        unsafe {
            let base = self.slots.add(hd.slots as usize).cast::<Rings>();
            Some(&*base.add(r as usize - 1))
        }
    }
}

/// Why the segment was not made.
#[derive(Debug)]
pub struct InitError(pub String);

/// Parses a size such as `4M`, `512K`, `0` (off).
pub fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (num, mul) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 1usize << 10),
        b'm' | b'M' => (&s[..s.len() - 1], 1 << 20),
        b'g' | b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mul)
}

/// Parses histogram bounds in seconds: `0.001,0.01,0.1` (ascending, > 0).
pub fn parse_bounds(s: &str) -> Option<Vec<f64>> {
    let s = s.trim();
    if s.is_empty() {
        return Some(DEFAULT_BOUNDS.to_vec());
    }
    let v: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>().ok())
        .collect::<Option<_>>()?;
    let ok = !v.is_empty()
        && v.len() <= MAX_BOUNDS
        && v.iter().all(|b| b.is_finite() && *b > 0.0 && *b < 1e6)
        && v.windows(2).all(|w| w[0] < w[1]);
    ok.then_some(v)
}

/// Maps the segment (module start-up; once per process). `bytes` 0: off.
pub fn init(bytes: usize, max_names: u32, bounds: &[f64]) -> Result<(), InitError> {
    if bytes == 0 || !BASE.load(Acquire).is_null() {
        return Ok(());
    }
    let header = std::mem::size_of::<Header>();
    let min = header + std::mem::size_of::<Slot>() * 32 + std::mem::size_of::<Rings>() * 16;
    if bytes < min || bytes > 1 << 32 {
        return Err(InitError(format!(
            "rediskit.metrics_size must be 0 (off) or between {min} and 4G bytes, got {bytes}"
        )));
    }
    if bounds.is_empty() || bounds.len() > MAX_BOUNDS {
        return Err(InitError("bad histogram bounds".into()));
    }
    // SAFETY: a fresh anonymous shared mapping; checked for failure below.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(InitError(format!(
            "cannot map {bytes} bytes of shared memory for metrics: {}",
            std::io::Error::last_os_error()
        )));
    }
    let (slots, rings) = layout(bytes);
    // SAFETY: the mapping is zeroed, large enough, aligned to a page; no
    // other thread sees it before BASE is published below.
    unsafe {
        let h = p.cast::<Header>();
        (*h).magic = MAGIC;
        (*h).slots = slots as u32;
        (*h).rings = rings as u32;
        (*h).max_names = max_names.max(1);
        (*h).bounds_len = bounds.len() as u32;
        for (i, b) in bounds.iter().enumerate() {
            (*h).bounds_ns[i] = (b * 1e9).round() as u64;
        }
    }
    BYTES.store(bytes as u64, Relaxed);
    BASE.store(p.cast(), Release);
    let Some(seg) = segment() else {
        return Err(InitError("metrics segment vanished".into()));
    };
    for (k, def) in KINDS.iter().enumerate() {
        let i = claim(&seg, def.kind, OTHER, hash(def.kind, OTHER), false)
            .ok_or_else(|| InitError("metrics segment too small".into()))?;
        // SAFETY: written before any worker exists (start-up).
        unsafe { (*seg.header).other[k] = i };
    }
    Ok(())
}

/// Unmaps the segment (module shutdown: no request runs any more).
pub fn shutdown() {
    let p = BASE.swap(std::ptr::null_mut(), AcqRel);
    if !p.is_null() {
        // SAFETY: the mapping made by `init`, no longer reachable.
        unsafe { libc::munmap(p.cast(), BYTES.load(Relaxed) as usize) };
    }
}

pub fn enabled() -> bool {
    !BASE.load(Relaxed).is_null()
}

fn hash(kind: Kind, name: &[u8]) -> u64 {
    // eight bytes at a time (the same in every process: it is kept in the
    // segment), the length and kind first
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = (name.len() as u64) << 8 | kind as u64;
    let mut words = name.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    }
    let mut b = [0u8; 8];
    b[..words.remainder().len()].copy_from_slice(words.remainder());
    h = (h.rotate_left(5) ^ u64::from_le_bytes(b)).wrapping_mul(K);
    h ^ h >> 29
}

/// The name as kept: at most NAME_MAX bytes.
fn kept(name: &[u8], h: u64) -> std::borrow::Cow<'_, [u8]> {
    if name.len() <= NAME_MAX {
        return name.into();
    }
    let mut cut = NAME_MAX - 9;
    // never split a UTF-8 sequence
    while cut > 0 && (name[cut] & 0xc0) == 0x80 {
        cut -= 1;
    }
    let mut v = name[..cut].to_vec();
    v.extend_from_slice(format!("~{:08x}", h as u32).as_bytes());
    v.into()
}

/// Finds or claims the slot of (kind, name). `capped`: counts against the
/// kind's `max_names`.
fn claim(seg: &Segment, kind: Kind, name: &[u8], h: u64, capped: bool) -> Option<u32> {
    let hd = seg.header();
    let n = hd.slots;
    let mut i = (h % u64::from(n)) as u32;
    let mut counted = false;
    for _ in 0..n {
        let s = seg.slot(i);
        let mut st = s.state.load(Acquire);
        if st == CLAIMING {
            // another worker is writing a name here: a few hundred
            // nanoseconds, unless it died in between (then it is skipped)
            for spin in 0..100_000u32 {
                std::hint::spin_loop();
                if spin % 64 == 63 {
                    std::thread::yield_now();
                }
                st = s.state.load(Acquire);
                if st != CLAIMING {
                    break;
                }
            }
        }
        if st == READY {
            // SAFETY: READY seen with Acquire: the fields are written.
            let same = unsafe {
                *s.hash.get() == h
                    && *s.kind.get() == kind as u32
                    && (&(*s.name.get()))[..*s.len.get() as usize] == *name
            };
            if same {
                if counted {
                    hd.names[kind as usize].fetch_sub(1, Relaxed);
                }
                return Some(i);
            }
        } else if st == FREE {
            if capped && !counted {
                let had = hd.names[kind as usize].fetch_add(1, Relaxed);
                if had >= hd.max_names {
                    hd.names[kind as usize].fetch_sub(1, Relaxed);
                    hd.capped.fetch_add(1, Relaxed);
                    return None;
                }
                counted = true;
            }
            if s.state
                .compare_exchange(FREE, CLAIMING, Acquire, Relaxed)
                .is_ok()
            {
                // SAFETY: this thread owns the slot until it publishes READY.
                unsafe {
                    *s.kind.get() = kind as u32;
                    *s.hash.get() = h;
                    *s.len.get() = name.len() as u32;
                    (&mut (*s.name.get()))[..name.len()].copy_from_slice(name);
                    // per-minute rings for the kinds that keep them, while
                    // the area lasts (then the series has none: its counts
                    // per minute go to its kind's `_other`)
                    *s.rings.get() = if KINDS[kind as usize].minutes.is_empty() {
                        0
                    } else {
                        let r = hd.rings_used.fetch_add(1, Relaxed);
                        if r < hd.rings {
                            r + 1
                        } else {
                            hd.rings_used.fetch_sub(1, Relaxed);
                            0
                        }
                    };
                }
                s.state.store(READY, Release);
                return Some(i);
            }
            continue; // lost the race for this slot: look at it again
        }
        i = (i + 1) % n;
    }
    if counted {
        hd.names[kind as usize].fetch_sub(1, Relaxed);
    }
    hd.full.fetch_add(1, Relaxed);
    None
}

/// The monotonic clock in nanoseconds (never 0): one `clock_gettime`, no
/// conversion through `Instant`, for the timings the metrics take on every
/// call.
#[inline]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to write to; CLOCK_MONOTONIC always exists.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
        .max(1)
}

/// Counts one use of a key in its kind's hot-key sketch (sampled: about one
/// call in `hot::SAMPLE` does more than draw a random number).
#[inline]
pub fn hot_key(kind: hot::Hot, parts: &[&[u8]]) {
    if let Some(seg) = segment() {
        hot::note(&seg.header().hot[kind as usize], parts);
    }
}

/// The hottest keys of each kind, hottest first (empty when metrics are off).
pub fn hot_keys() -> Vec<(hot::Hot, Vec<hot::HotKey>)> {
    let Some(seg) = segment() else {
        return Vec::new();
    };
    hot::HOT
        .iter()
        .map(|(k, _)| (*k, hot::read(&seg.header().hot[*k as usize])))
        .collect()
}

/// One series: a slot of the segment. Copy it into the object it counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Series(u32);

/// The series of (kind, name); None when metrics are off.
pub fn series(kind: Kind, name: &[u8]) -> Option<Series> {
    let seg = segment()?;
    let h = hash(kind, name);
    let name = kept(name, h);
    let i = claim(&seg, kind, &name, h, true).unwrap_or_else(|| seg.header().other[kind as usize]);
    Some(Series(i))
}

/// Adds `n` to counter `c` of a series (no-op for None).
#[inline]
pub fn add(s: Option<Series>, c: usize, n: u64) {
    if let (Some(Series(i)), true) = (s, n > 0) {
        if let Some(seg) = segment() {
            seg.slot(i).counters[c].fetch_add(n, Relaxed);
        }
    }
}

/// Adds `n` to this minute's count of per-minute ring `r` of a series (no
/// clock read, nothing else, when metrics are off or `n` is 0).
pub fn add_per_minute(s: Option<Series>, r: usize, n: u64) {
    if let (Some(Series(i)), true) = (s, n > 0) {
        if let Some(seg) = segment() {
            let slot = seg.slot(i);
            // a series claimed after the ring area ran out counts its
            // minutes in its kind's `_other` (which has rings from start-up)
            let rings = seg.rings(slot).or_else(|| {
                // SAFETY: a series' slot is READY: its kind is written.
                let kind = unsafe { *slot.kind.get() } as usize;
                let other = *seg.header().other.get(kind)?;
                seg.rings(seg.slot(other))
            });
            if let Some(rings) = rings {
                bump(&rings.0[r], unix_minute(), n);
            }
        }
    }
}

fn unix_minute() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 60)
}

fn bump(ring: &[AtomicU64; MINUTES], minute: u64, n: u64) {
    let cell = &ring[(minute % MINUTES as u64) as usize];
    let tag = minute & TAG_MAX;
    let mut cur = cell.load(Relaxed);
    loop {
        let next = match cur >> COUNT_BITS {
            t if t == tag => {
                (tag << COUNT_BITS) | (cur & COUNT_MAX).saturating_add(n).min(COUNT_MAX)
            }
            // an hour ago (or never): this minute starts here
            t if t < tag => (tag << COUNT_BITS) | n.min(COUNT_MAX),
            // a newer minute already (a clock set back): not counted
            _ => return,
        };
        match cell.compare_exchange_weak(cur, next, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(v) => cur = v,
        }
    }
}

/// A ring's last hour, oldest minute first, ending with `minute` (counted so far).
fn read_ring(ring: &[AtomicU64; MINUTES], minute: u64) -> Vec<u64> {
    (0..MINUTES as u64)
        .map(|k| {
            let m = (minute + k + 1).wrapping_sub(MINUTES as u64);
            let v = ring[(m % MINUTES as u64) as usize].load(Relaxed);
            if v >> COUNT_BITS == m & TAG_MAX {
                v & COUNT_MAX
            } else {
                0
            }
        })
        .collect()
}

/// Records one observation in histogram `h` of a series.
#[inline]
pub fn observe(s: Option<Series>, h: usize, d: Duration) {
    let ns = d
        .as_secs()
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::from(d.subsec_nanos()));
    observe_ns(s, h, ns);
}

/// `observe` of a duration in nanoseconds.
#[inline]
pub fn observe_ns(s: Option<Series>, h: usize, ns: u64) {
    let (Some(Series(i)), Some(seg)) = (s, segment()) else {
        return;
    };
    let hd = seg.header();
    let hist = &seg.slot(i).hists[h];
    let n = (hd.bounds_len as usize).min(MAX_BOUNDS);
    // the first bucket whose bound holds it (cumulative at export)
    if let Some(b) = hd.bounds_ns[..n].iter().position(|&b| ns <= b) {
        hist.buckets[b].fetch_add(1, Relaxed);
    }
    hist.count.fetch_add(1, Relaxed);
    hist.sum_ns.fetch_add(ns, Relaxed);
}

/// One histogram as read: cumulative counts per bound, count, sum.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramValue {
    pub buckets: Vec<(f64, u64)>,
    pub count: u64,
    pub sum: f64,
}

/// One series as read.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesValue {
    pub kind: Kind,
    pub name: Vec<u8>,
    pub counters: Vec<u64>,
    pub histograms: Vec<HistogramValue>,
    /// The kind's per-minute rings: the last hour, oldest first, the
    /// current minute (counted so far) last.
    pub per_minute: Vec<Vec<u64>>,
}

/// The segment as read.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub bytes: u64,
    pub capacity: u64,
    pub max_names: u64,
    pub series: Vec<SeriesValue>,
    /// Names counted in `_other`: table full, kind at `max_names`.
    pub full: u64,
    pub capped: u64,
    /// Named series that can keep per-minute counts (queues), and how many do.
    pub rings: u64,
    pub rings_used: u64,
}

pub fn def(kind: Kind) -> &'static Def {
    &KINDS[kind as usize]
}

/// Everything counted on this host (None when metrics are off). Series of a
/// kind come together, by name.
pub fn snapshot() -> Option<Snapshot> {
    let seg = segment()?;
    let hd = seg.header();
    let bounds: Vec<f64> = hd.bounds_ns[..hd.bounds_len as usize]
        .iter()
        .map(|&b| b as f64 / 1e9)
        .collect();
    let minute = unix_minute();
    let mut series = Vec::new();
    for i in 0..hd.slots {
        let s = seg.slot(i);
        if s.state.load(Acquire) != READY {
            continue;
        }
        // SAFETY: READY seen with Acquire.
        let (kind, name) = unsafe {
            (
                *s.kind.get(),
                (&(*s.name.get()))[..*s.len.get() as usize].to_vec(),
            )
        };
        let Some(d) = KINDS.get(kind as usize) else {
            continue;
        };
        let counters = (0..d.counters.len())
            .map(|c| s.counters[c].load(Relaxed))
            .collect();
        let histograms = (0..d.histograms.len())
            .map(|h| {
                let hist = &s.hists[h];
                let mut acc = 0;
                let buckets = bounds
                    .iter()
                    .enumerate()
                    .map(|(b, &le)| {
                        acc += hist.buckets[b].load(Relaxed);
                        (le, acc)
                    })
                    .collect::<Vec<_>>();
                // the count is read after the buckets: never below their sum
                let count = hist.count.load(Relaxed).max(acc);
                HistogramValue {
                    buckets,
                    count,
                    sum: hist.sum_ns.load(Relaxed) as f64 / 1e9,
                }
            })
            .collect();
        let rings = seg.rings(s);
        let per_minute = (0..d.minutes.len())
            .map(|r| rings.map_or_else(|| vec![0; MINUTES], |x| read_ring(&x.0[r], minute)))
            .collect();
        let v = SeriesValue {
            kind: d.kind,
            name,
            counters,
            histograms,
            per_minute,
        };
        // a kind's `_other` is listed once something was counted in it
        let unused = v.counters.iter().all(|&n| n == 0)
            && v.histograms.iter().all(|h| h.count == 0)
            && v.per_minute.iter().flatten().all(|&n| n == 0);
        if !(unused && v.name == OTHER) {
            series.push(v);
        }
    }
    series.sort_by(|a, b| (a.kind as u8, &a.name).cmp(&(b.kind as u8, &b.name)));
    Some(Snapshot {
        bytes: seg.bytes as u64,
        capacity: u64::from(hd.slots),
        max_names: u64::from(hd.max_names),
        series,
        full: hd.full.load(Relaxed),
        capped: hd.capped.load(Relaxed),
        // not counting the queues' `_other`, which has one from start-up
        rings: u64::from(hd.rings.saturating_sub(1)),
        rings_used: u64::from(hd.rings_used.load(Relaxed).min(hd.rings).saturating_sub(1)),
    })
}

/// A label value of the text format: `\`, `"` and newlines escaped, bytes
/// that are not UTF-8 replaced.
fn label(v: &[u8]) -> String {
    let mut out = String::with_capacity(v.len());
    for ch in String::from_utf8_lossy(v).chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

fn float(v: f64) -> String {
    if v.is_infinite() {
        "+Inf".into()
    } else {
        // shortest form that reads back the same
        let s = format!("{v}");
        if s.contains('e') || s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    }
}

/// The Prometheus text exposition format (version 0.0.4, which OpenMetrics
/// parsers read too): HELP and TYPE per family, counters ending in
/// `_total`, histograms in seconds with cumulative `le` buckets.
pub fn exposition() -> String {
    use std::fmt::Write;
    let Some(snap) = snapshot() else {
        return String::new();
    };
    let mut out = String::new();
    let extra = |d: &Def| {
        if d.kind == Kind::Connection {
            ",db_system_name=\"redis\""
        } else {
            ""
        }
    };
    for d in &KINDS {
        let of_kind: Vec<&SeriesValue> = snap.series.iter().filter(|s| s.kind == d.kind).collect();
        let mut done: Vec<&str> = Vec::new();
        for (ci, c) in d.counters.iter().enumerate() {
            let family = format!("{}_{}_total", d.prefix, c.name);
            if !done.contains(&c.name) {
                done.push(c.name);
                let _ = writeln!(out, "# HELP {family} {}", c.help);
                let _ = writeln!(out, "# TYPE {family} counter");
            } else if d.counters[ci - 1].name != c.name {
                continue; // a family's members are listed together in KINDS
            }
            for s in &of_kind {
                let class = c
                    .class
                    .map(|k| format!(",class=\"{k}\""))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{family}{{{}=\"{}\"{}{class}}} {}",
                    d.label,
                    label(&s.name),
                    extra(d),
                    s.counters[ci]
                );
            }
        }
        for (hi, h) in d.histograms.iter().enumerate() {
            let family = format!("{}_{}", d.prefix, h.name);
            let _ = writeln!(out, "# HELP {family} {}", h.help);
            let _ = writeln!(out, "# TYPE {family} histogram");
            for s in &of_kind {
                let v = &s.histograms[hi];
                let l = format!("{}=\"{}\"{}", d.label, label(&s.name), extra(d));
                for (le, n) in &v.buckets {
                    let _ = writeln!(out, "{family}_bucket{{{l},le=\"{}\"}} {n}", float(*le));
                }
                let _ = writeln!(out, "{family}_bucket{{{l},le=\"+Inf\"}} {}", v.count);
                let _ = writeln!(out, "{family}_sum{{{l}}} {}", float(v.sum));
                let _ = writeln!(out, "{family}_count{{{l}}} {}", v.count);
            }
        }
    }
    let families = [
        (
            "rediskit_metrics_series",
            "gauge",
            "Series in the shared segment",
            snap.series.len() as u64,
        ),
        (
            "rediskit_metrics_series_capacity",
            "gauge",
            "Series the shared segment can hold",
            snap.capacity,
        ),
        (
            "rediskit_metrics_segment_bytes",
            "gauge",
            "Size of the shared metrics segment",
            snap.bytes,
        ),
    ];
    for (name, ty, help, v) in families {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {ty}\n{name} {v}");
    }
    let _ = writeln!(
        out,
        "# HELP rediskit_metrics_names_other_total Names counted in _other: the segment was full, or their kind had max_names\n# TYPE rediskit_metrics_names_other_total counter\nrediskit_metrics_names_other_total{{reason=\"full\"}} {}\nrediskit_metrics_names_other_total{{reason=\"max_names\"}} {}",
        snap.full, snap.capped
    );
    out
}

pub mod hot;
#[cfg(test)]
mod tests;
