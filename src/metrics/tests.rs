//! The shared segment: one process-wide mapping for the whole test binary
//! (other tests count into it too, under their own names).
use super::*;
use std::sync::Once;

static INIT: Once = Once::new();
const MAX_NAMES: u32 = 40;

fn setup() {
    INIT.call_once(|| {
        init(256 << 10, MAX_NAMES, &[0.001, 0.01, 0.1]).expect("segment");
    });
}

fn find<'a>(snap: &'a Snapshot, kind: Kind, name: &[u8]) -> Option<&'a SeriesValue> {
    snap.series
        .iter()
        .find(|s| s.kind == kind && s.name == name)
}

#[test]
fn counts_from_many_threads_land_in_one_series() {
    setup();
    let threads: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(|| {
                for _ in 0..10_000 {
                    let s = series(Kind::Queue, b"metrics-test-threads");
                    add(s, queue::PUSHED, 1);
                    add(s, queue::ACKED, 2);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let snap = snapshot().unwrap();
    let s = find(&snap, Kind::Queue, b"metrics-test-threads").unwrap();
    assert_eq!(s.counters[queue::PUSHED], 80_000);
    assert_eq!(s.counters[queue::ACKED], 160_000);
    // one slot for the name, however many threads raced to claim it
    let n = snap
        .series
        .iter()
        .filter(|s| s.name == b"metrics-test-threads")
        .count();
    assert_eq!(n, 1);
}

#[test]
fn histogram_buckets_are_cumulative_and_bounded() {
    setup();
    let s = series(Kind::Lock, b"metrics-test-histogram");
    for us in [500u64, 1000, 5000, 50_000, 2_000_000] {
        observe(s, lock::WAIT, Duration::from_micros(us));
    }
    let snap = snapshot().unwrap();
    let v = &find(&snap, Kind::Lock, b"metrics-test-histogram")
        .unwrap()
        .histograms[lock::WAIT];
    // bounds 1 ms, 10 ms, 100 ms: 0.5 and 1 ms in the first (le is inclusive)
    assert_eq!(v.buckets, vec![(0.001, 2), (0.01, 3), (0.1, 4)]);
    assert_eq!(v.count, 5);
    assert!((v.sum - 2.0565).abs() < 1e-9, "{}", v.sum);
}

#[test]
fn names_past_the_cap_go_to_other() {
    setup();
    let mut got_other = false;
    for i in 0..(MAX_NAMES * 2) {
        let name = format!("metrics-test-cap-{i}");
        let s = series(Kind::Limiter, name.as_bytes());
        add(s, limiter::DENIED, 1);
        let snap = snapshot().unwrap();
        if find(&snap, Kind::Limiter, name.as_bytes()).is_none() {
            got_other = true;
        }
    }
    assert!(got_other);
    let snap = snapshot().unwrap();
    let named = snap
        .series
        .iter()
        .filter(|s| s.kind == Kind::Limiter && s.name != b"_other")
        .count();
    assert_eq!(named, MAX_NAMES as usize);
    let other = find(&snap, Kind::Limiter, b"_other").unwrap();
    assert!(other.counters[limiter::DENIED] >= u64::from(MAX_NAMES));
    assert!(snap.capped >= u64::from(MAX_NAMES));
}

#[test]
fn long_names_are_cut_with_a_hash_and_stay_apart() {
    setup();
    let a = format!("{}a", "x".repeat(200));
    let b = format!("{}b", "x".repeat(200));
    add(series(Kind::Cache, a.as_bytes()), cache::HITS, 1);
    add(series(Kind::Cache, b.as_bytes()), cache::HITS, 2);
    add(series(Kind::Cache, a.as_bytes()), cache::HITS, 4);
    let snap = snapshot().unwrap();
    let cut: Vec<_> = snap
        .series
        .iter()
        .filter(|s| s.kind == Kind::Cache && s.name.starts_with(b"xxxx"))
        .collect();
    assert_eq!(cut.len(), 2);
    assert!(cut.iter().all(|s| s.name.len() == NAME_MAX));
    let mut hits: Vec<u64> = cut.iter().map(|s| s.counters[cache::HITS]).collect();
    hits.sort();
    assert_eq!(hits, vec![2, 5]);
}

#[test]
fn exposition_escapes_and_ends_families_right() {
    setup();
    add(series(Kind::Lock, b"we\"ird\\na\nme"), lock::ACQUIRED, 3);
    add(
        series(Kind::Connection, b"127.0.0.1:1"),
        connection::ERR_TIMEOUT,
        1,
    );
    let text = exposition();
    assert!(
        text.contains("rediskit_lock_acquired_total{name=\"we\\\"ird\\\\na\\nme\"} 3"),
        "{text}"
    );
    assert!(text.contains(
        "rediskit_connection_errors_total{target=\"127.0.0.1:1\",db_system_name=\"redis\",class=\"timeout\"} 1"
    ));
    assert_eq!(
        text.matches("# TYPE rediskit_connection_errors_total counter")
            .count(),
        1
    );
    assert!(text.contains(
        "rediskit_lock_acquire_wait_seconds_bucket{name=\"we\\\"ird\\\\na\\nme\",le=\"0.001\"} 0"
    ));
    // an unused `_other` is not listed
    assert!(!text.contains("rediskit_queue_pushed_total{queue=\"_other\"}"));
    assert!(text.contains("le=\"+Inf\""));
}

#[test]
fn sizes_and_bounds_parse() {
    assert_eq!(parse_size("4M"), Some(4 << 20));
    assert_eq!(parse_size("512k"), Some(512 << 10));
    assert_eq!(parse_size("0"), Some(0));
    assert_eq!(parse_size("lots"), None);
    assert_eq!(parse_bounds(""), Some(DEFAULT_BOUNDS.to_vec()));
    assert_eq!(parse_bounds("0.001, 0.01"), Some(vec![0.001, 0.01]));
    assert_eq!(parse_bounds("0.01,0.001"), None);
    assert_eq!(parse_bounds("-1"), None);
}

#[test]
fn the_hot_key_sketch_finds_heavy_hitters_in_bounded_memory() {
    setup();
    // 8 threads, 40,000 uses: "heavy" a quarter of them, the rest spread
    // over 20,000 keys
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..5_000u64 {
                    let k = if i % 4 == 0 {
                        b"heavy".to_vec()
                    } else {
                        format!("tail-{}", (i * 8 + t) % 20_000).into_bytes()
                    };
                    hot_key(hot::Hot::Limiter, &[b"test", &k]);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let all = hot_keys();
    let (_, lim) = all.iter().find(|(k, _)| *k == hot::Hot::Limiter).unwrap();
    assert!(lim.len() <= hot::ENTRIES);
    assert_eq!(lim[0].key, b"test:heavy");
    // 10,000 true uses; one in 16 sampled: a wide margin
    assert!((6_000..=14_000).contains(&lim[0].count), "{:?}", lim[0]);
    assert!(lim[1].count < lim[0].count / 4, "{:?}", &lim[..2]);
}

#[test]
fn per_minute_rings_keep_the_last_hour() {
    let ring: [AtomicU64; MINUTES] = std::array::from_fn(|_| AtomicU64::new(0));
    let t = 29_500_000; // a Unix minute of 2026
    bump(&ring, t, 3);
    bump(&ring, t, 4);
    bump(&ring, t + 1, 5);
    bump(&ring, t + 59, 1);
    let v = read_ring(&ring, t + 59);
    assert_eq!(v.len(), MINUTES);
    // t + 59's hour starts at t
    assert_eq!((v[0], v[1], v[59]), (7, 5, 1));
    assert_eq!(v.iter().sum::<u64>(), 13);
    // an hour later, t's cell is reused: t + 60 starts from zero
    bump(&ring, t + 60, 2);
    let v = read_ring(&ring, t + 60);
    assert_eq!((v[0], v[58], v[59]), (5, 1, 2));
    // a writer whose clock is behind does not overwrite a newer minute
    bump(&ring, t, 100);
    assert_eq!(read_ring(&ring, t + 60)[59], 2);
    // nothing for two hours: all zero, no stale count shows again
    assert!(read_ring(&ring, t + 180).iter().all(|&n| n == 0));
    // the count saturates, never spills into the minute
    bump(&ring, t + 181, COUNT_MAX);
    bump(&ring, t + 181, 10);
    assert_eq!(read_ring(&ring, t + 181)[59], COUNT_MAX);
}

#[test]
fn queue_series_count_pushes_and_acks_per_minute() {
    setup();
    let s = series(Kind::Queue, b"per-minute-test");
    add_per_minute(s, queue::PUSHED_PER_MINUTE, 5);
    add_per_minute(s, queue::ACKED_PER_MINUTE, 2);
    add_per_minute(s, queue::ACKED_PER_MINUTE, 0);
    let snap = snapshot().expect("on");
    let v = find(&snap, Kind::Queue, b"per-minute-test").expect("series");
    assert_eq!(v.per_minute.len(), 2);
    // the current minute is last (a minute may have turned since: then the one before it)
    let pushed: u64 = v.per_minute[0][58..].iter().sum();
    let acked: u64 = v.per_minute[1][58..].iter().sum();
    assert_eq!((pushed, acked), (5, 2));
    // kinds without rings have none
    let l = series(Kind::Lock, b"per-minute-test");
    add(l, lock::ACQUIRED, 1);
    let snap = snapshot().expect("on");
    assert!(find(&snap, Kind::Lock, b"per-minute-test")
        .expect("lock")
        .per_minute
        .is_empty());

    // the rings have their own area, smaller than the table: once every
    // entry is taken, a new queue counts its minutes in the queues' `_other`
    let (slots, rings) = (snap.capacity, snap.rings);
    assert!(
        rings >= 16 && rings * 8 < slots,
        "{rings} rings, {slots} slots"
    );
    assert!(
        rings < u64::from(MAX_NAMES),
        "the test needs more names than rings"
    );
    let names: Vec<String> = (0..MAX_NAMES).map(|i| format!("ring-test-{i}")).collect();
    let all: Vec<_> = names
        .iter()
        .map(|n| series(Kind::Queue, n.as_bytes()))
        .collect();
    let snap = snapshot().expect("on");
    assert_eq!(snap.rings_used, snap.rings);
    let other = |snap: &Snapshot| -> u64 {
        find(snap, Kind::Queue, OTHER).map_or(0, |o| o.per_minute[0].iter().sum())
    };
    let before = other(&snap);
    // a claimed name without rings (the cap sends the last ones to `_other`
    // anyway: the first named series without rings is the one to watch)
    let ringless = names
        .iter()
        .zip(&all)
        .find(|(n, _)| {
            find(&snap, Kind::Queue, n.as_bytes())
                .is_some_and(|v| v.per_minute[0].len() == MINUTES && seg_rings(n) == 0)
        })
        .expect("a named queue series without rings");
    add_per_minute(*ringless.1, queue::PUSHED_PER_MINUTE, 7);
    let snap = snapshot().expect("on");
    let v = find(&snap, Kind::Queue, ringless.0.as_bytes()).expect("series");
    assert_eq!(v.per_minute[0].iter().sum::<u64>(), 0);
    assert_eq!(other(&snap) - before, 7);
    // the first queue keeps its own
    add_per_minute(s, queue::PUSHED_PER_MINUTE, 1);
    let snap = snapshot().expect("on");
    let v = find(&snap, Kind::Queue, b"per-minute-test").expect("series");
    assert_eq!(v.per_minute[0][58..].iter().sum::<u64>(), 6);
}

/// The ring index of a queue series (0: none).
fn seg_rings(name: &str) -> u32 {
    let seg = segment().expect("on");
    let Some(Series(i)) = series(Kind::Queue, name.as_bytes()) else {
        return 0;
    };
    // SAFETY: a series' slot is READY.
    unsafe { *seg.slot(i).rings.get() }
}
