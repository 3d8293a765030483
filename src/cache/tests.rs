//! Core tests against the real redis-server in `REDIS_URL` (test.sh starts one).
use super::*;
use crate::conn::Args;
use std::sync::atomic::AtomicUsize;

use crate::conn::test_url as url;

fn ns(name: &str) -> Vec<u8> {
    crate::conn::test_ns("cache", name)
}

fn cache(namespace: &[u8], opts: Vec<(&str, OptValue)>) -> Cache {
    let opts = Options::new(opts.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    Cache::new(
        namespace,
        &Connection::Dsn(url()),
        opts,
        &Settings::default(),
        &[Format::Php, Format::Json, Format::Raw],
    )
    .unwrap()
}

fn raw(args: &[&[u8]]) -> Value {
    let dsn = Dsn::parse(&url(), Default::default()).unwrap();
    let mut a = Args::new();
    for x in args {
        a.push(x);
    }
    conn::command(&dsn, &a, false).unwrap()
}

fn pttl(key: &[u8]) -> i64 {
    int(raw(&[b"PTTL", key]), "PTTL").unwrap()
}

fn s(v: &str) -> Stored {
    Some((Format::Raw, v.as_bytes().to_vec()))
}

fn full(ns: &[u8], key: &str) -> Vec<u8> {
    let mut k = ns.to_vec();
    k.push(b':');
    k.extend_from_slice(key.as_bytes());
    k
}

#[test]
fn entries_round_trip_and_foreign_values_are_told_apart() {
    let e = Entry::encode(Format::Php, b"a:1:{i:0;i:1;}", 12, 3000);
    assert_eq!(e, b"rk1:p:12:3000:a:1:{i:0;i:1;}".to_vec());
    let d = Entry::decode(e, false).unwrap();
    assert_eq!(
        (d.format, d.payload.as_slice(), d.delta_ms, d.expires_ms),
        (Format::Php, &b"a:1:{i:0;i:1;}"[..], 12, 3000)
    );
    assert_eq!(Entry::decode(b"legacy".to_vec(), false), None);
    let r = Entry::decode(b"legacy".to_vec(), true).unwrap();
    assert_eq!((r.format, r.payload), (Format::Raw, b"legacy".to_vec()));
    for bad in [
        &b"rk1:"[..],
        b"rk1:z:1:1:",
        b"rk1:p::1:",
        b"rk1:p:1:x:",
        b"rk1:p:1:1",
        b"rk1:p:-1:1:",
        b"rk1:p:1:18446744073709551616:",
        b"rk1:p:1:99999999999999999999:",
    ] {
        assert_eq!(Entry::decode(bad.to_vec(), false), None, "{bad:?}");
    }
    // the widest header number (19 digits) and the largest one it can hold
    let wide = Entry::decode(b"rk1:j:0:9999999999999999999:[]".to_vec(), false).unwrap();
    assert_eq!(
        (wide.expires_ms, wide.payload),
        (9_999_999_999_999_999_999, b"[]".to_vec())
    );
    assert_eq!(
        Entry::decode(Entry::encode(Format::Json, b"1", u64::MAX / 2, 7), false)
            .map(|e| (e.delta_ms, e.expires_ms)),
        Some((u64::MAX / 2, 7))
    );
    let empty = Entry::decode(Entry::encode(Format::Null, b"", 0, 0), false).unwrap();
    assert_eq!((empty.format, empty.payload.len()), (Format::Null, 0));
}

#[test]
fn jitter_spreads_over_the_whole_range_and_no_further() {
    let n = 20_000;
    let xs: Vec<u64> = (0..n).map(|_| jittered(100_000, 0.1)).collect();
    assert!(xs.iter().all(|&x| (90_000..=110_000).contains(&x)));
    // ten buckets of 2,000 ms: each holds about a tenth
    let mut buckets = [0usize; 10];
    for x in &xs {
        buckets[(((x - 90_000) / 2_000) as usize).min(9)] += 1;
    }
    for b in buckets {
        assert!((1_600..=2_400).contains(&b), "{buckets:?}");
    }
    assert_eq!(jittered(0, 0.5), 0, "no expiry stays no expiry");
    assert_eq!(jittered(1000, 0.0), 1000);
}

#[test]
fn options_are_checked() {
    let make = |opts: Vec<(&str, OptValue)>| {
        let opts = Options::new(opts.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
        Cache::new(
            b"n",
            &Connection::Dsn(url()),
            opts,
            &Settings::default(),
            &[Format::Php],
        )
    };
    for (k, v) in [
        ("jitter", OptValue::Float(1.0)),
        ("jitter", OptValue::Float(-0.1)),
        ("ttl", OptValue::Float(-1.0)),
        ("null_ttl", OptValue::Float(f64::NAN)),
        ("lock_timeout", OptValue::Float(0.0)),
        ("early_refresh", OptValue::Float(-1.0)),
        ("stale_ttl", OptValue::Str(b"x".to_vec())),
        ("serializer", OptValue::Str(b"xml".to_vec())),
        ("serializer", OptValue::Str(b"igbinary".to_vec())),
        ("on_lock_timeout", OptValue::Str(b"wait".to_vec())),
        ("colour", OptValue::Int(1)),
    ] {
        let e = make(vec![(k, v.clone())]).unwrap_err();
        assert!(matches!(e, Error::Invalid(_)), "{k} {v:?}: {e}");
    }
    assert!(Cache::new(
        b"",
        &Connection::Dsn(url()),
        Options::default(),
        &Settings::default(),
        &[Format::Php]
    )
    .is_err());
}

#[test]
fn set_get_delete_and_many() {
    let n = ns("basic");
    let c = cache(&n, vec![("serializer", OptValue::Str(b"none".to_vec()))]);
    assert_eq!(c.get(b"a").unwrap(), None);
    c.set(b"a", &s("1"), 10_000).unwrap();
    let t = pttl(&full(&n, "a"));
    assert!((9_000..=11_000).contains(&t), "jittered ±10%: {t}");
    assert_eq!(c.get(b"a").unwrap().unwrap().payload, b"1");
    // rk1:<format>:<compute ms>:<expires at>:<payload>
    let Value::BulkString(stored) = raw(&[b"GET", &full(&n, "a")]) else {
        panic!("not a string")
    };
    let stored = String::from_utf8(stored).unwrap();
    let parts: Vec<&str> = stored.split(':').collect();
    assert_eq!(
        (parts[0], parts[1], parts[2], parts[4]),
        ("rk1", "s", "0", "1"),
        "{stored}"
    );
    let at: u64 = parts[3].parse().unwrap();
    assert!(at > now_ms() + 8_000 && at <= now_ms() + 11_000, "{stored}");
    c.set_many(&[(b"b".to_vec(), s("2")), (b"c".to_vec(), None)], 0)
        .unwrap();
    assert_eq!(pttl(&full(&n, "b")), -1, "ttl 0: no expiry");
    let got = c
        .get_many(&[b"a".to_vec(), b"x".to_vec(), b"b".to_vec(), b"c".to_vec()])
        .unwrap();
    let formats: Vec<Option<Format>> = got.iter().map(|e| e.as_ref().map(|e| e.format)).collect();
    assert_eq!(
        formats,
        vec![
            Some(Format::Raw),
            None,
            Some(Format::Raw),
            Some(Format::Null)
        ]
    );
    assert_eq!(
        c.delete(&[b"a".to_vec(), b"x".to_vec(), b"b".to_vec()])
            .unwrap(),
        2
    );
    assert_eq!(c.get(b"a").unwrap(), None);
    assert!(c.get(b"").is_err(), "empty key");
    let st: std::collections::HashMap<_, _> = c.stats().into_iter().collect();
    assert_eq!((st["hits"], st["misses"]), (4, 3), "{st:?}");
}

#[test]
fn clear_removes_this_namespace_only() {
    let n = ns("clear*[x]");
    let c = cache(&n, vec![]);
    let mut other_ns = n.clone();
    other_ns.extend_from_slice(b"2");
    let other = cache(&other_ns, vec![]);
    let many: Vec<(Vec<u8>, Stored)> = (0..2500)
        .map(|i| (format!("k{i}").into_bytes(), s("v")))
        .collect();
    c.set_many(&many, 60_000).unwrap();
    other.set(b"k1", &s("v"), 60_000).unwrap();
    assert_eq!(c.clear().unwrap(), 2500);
    assert_eq!(c.get(b"k1").unwrap(), None);
    assert!(
        other.get(b"k1").unwrap().is_some(),
        "a namespace that starts the same is kept"
    );
    other.clear().unwrap();
}

#[test]
fn remember_computes_once_then_hits() {
    let n = ns("remember");
    let c = cache(&n, vec![]);
    let p = c.policy();
    let calls = AtomicUsize::new(0);
    let compute = || -> std::result::Result<Computed<&str>, Error> {
        calls.fetch_add(1, Relaxed);
        Ok(Computed::new(s("v1"), "computed"))
    };
    assert!(matches!(
        c.remember(b"k", 5_000, &p, compute).unwrap(),
        Got::Computed("computed")
    ));
    match c.remember(b"k", 5_000, &p, compute).unwrap() {
        Got::Cached(e) => assert_eq!(e.payload, b"v1"),
        other => panic!("{other:?}"),
    }
    assert_eq!(calls.load(Relaxed), 1);
    let k = full(&n, "k");
    assert_eq!(
        raw(&[b"EXISTS", &aux_key(&k, "claim")]),
        Value::Int(0),
        "claim ended"
    );
    // a null is cached for null_ttl
    assert!(matches!(
        c.remember(b"none", 5_000, &p, || Ok::<_, Error>(Computed::new(
            None, 1
        )))
        .unwrap(),
        Got::Computed(1)
    ));
    let t = pttl(&full(&n, "none"));
    assert!(t > 50_000 && t <= 66_000, "null_ttl 60 s ±10%: {t}");
    match c
        .remember(
            b"none",
            5_000,
            &p,
            || -> std::result::Result<Computed<i32>, Error> { panic!("cached") },
        )
        .unwrap()
    {
        Got::Cached(e) => assert_eq!(e.format, Format::Null),
        other => panic!("{other:?}"),
    }
    // a compute that fails ends the claim: the next caller computes
    let r = c.remember(
        b"fails",
        5_000,
        &p,
        || -> std::result::Result<Computed<i32>, Error> { Err(Error::Redis("boom".into())) },
    );
    assert!(r.is_err());
    assert_eq!(
        raw(&[b"EXISTS", &aux_key(&full(&n, "fails"), "claim")]),
        Value::Int(0)
    );
    assert!(matches!(
        c.remember(b"fails", 5_000, &p, || Ok::<_, Error>(Computed::new(
            s("ok"),
            2
        )))
        .unwrap(),
        Got::Computed(2)
    ));
}

#[test]
fn waiters_are_woken_by_the_write_and_get_its_value() {
    let n = ns("wait");
    let c = Arc::new(cache(&n, vec![("lock_timeout", OptValue::Float(5.0))]));
    let p = c.policy();
    let (tx, rx) = std::sync::mpsc::channel();
    let holder = {
        let c = c.clone();
        std::thread::spawn(move || {
            c.remember(b"k", 60_000, &p, || {
                tx.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(300));
                Ok::<_, Error>(Computed::new(s("slow"), Instant::now()))
            })
            .unwrap()
        })
    };
    rx.recv().unwrap();
    let waiters: Vec<_> = (0..4)
        .map(|_| {
            let c = c.clone();
            std::thread::spawn(move || {
                let got = c.remember(
                    b"k",
                    60_000,
                    &p,
                    || -> std::result::Result<Computed<Instant>, Error> {
                        panic!("a waiter computed")
                    },
                );
                (got.unwrap(), Instant::now())
            })
        })
        .collect();
    let written = match holder.join().unwrap() {
        Got::Computed(t) => t,
        other => panic!("{other:?}"),
    };
    for w in waiters {
        let (got, at) = w.join().unwrap();
        match got {
            Got::Cached(e) => assert_eq!(e.payload, b"slow"),
            other => panic!("{other:?}"),
        }
        // woken by the write, not by a poll or the claim's TTL
        assert!(
            at.duration_since(written) < Duration::from_millis(1000),
            "{:?}",
            at.duration_since(written)
        );
    }
}

#[test]
fn a_waiter_past_lock_timeout_computes_or_reports_it() {
    let n = ns("timeout");
    let c = cache(&n, vec![("lock_timeout", OptValue::Float(0.3))]);
    let k = full(&n, "k");
    // someone else's claim, for longer than our lock_timeout
    raw(&[b"SET", &aux_key(&k, "claim"), b"other", b"PX", b"60000"]);
    let t0 = Instant::now();
    let p = c.policy();
    assert!(matches!(
        c.remember(b"k", 1_000, &p, || Ok::<_, Error>(Computed::new(
            s("mine"),
            1
        )))
        .unwrap(),
        Got::Computed(1)
    ));
    assert!(t0.elapsed() >= Duration::from_millis(300));
    assert_eq!(
        raw(&[b"GET", &aux_key(&k, "claim")]),
        Value::BulkString(b"other".to_vec()),
        "not ours to end"
    );
    c.delete(&[b"k".to_vec()]).unwrap();
    let o = Options::new(vec![(
        "on_lock_timeout".into(),
        OptValue::Str(b"throw".to_vec()),
    )]);
    let strict = c.call_policy(o).unwrap();
    assert!(matches!(
        c.remember(
            b"k",
            1_000,
            &strict,
            || -> std::result::Result<Computed<i32>, Error> { panic!("computed") }
        )
        .unwrap(),
        Got::TimedOut
    ));
}

#[test]
fn stale_values_are_served_while_one_caller_refreshes() {
    let n = ns("stale");
    let c = cache(
        &n,
        vec![
            ("stale_ttl", OptValue::Float(30.0)),
            ("jitter", OptValue::Float(0.0)),
        ],
    );
    let p = c.policy();
    c.remember(b"k", 1, &p, || Ok::<_, Error>(Computed::new(s("old"), ())))
        .unwrap();
    let k = full(&n, "k");
    let t = pttl(&k);
    assert!(t > 29_000 && t <= 30_001, "ttl + stale window: {t}");
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(c.get(b"k").unwrap(), None, "get(): past its TTL is a miss");
    // someone is refreshing: the stale value is served
    raw(&[b"SET", &aux_key(&k, "claim"), b"other", b"PX", b"60000"]);
    match c
        .remember(
            b"k",
            60_000,
            &p,
            || -> std::result::Result<Computed<()>, Error> { panic!("computed") },
        )
        .unwrap()
    {
        Got::Cached(e) => assert_eq!(e.payload, b"old"),
        other => panic!("{other:?}"),
    }
    raw(&[b"DEL", &aux_key(&k, "claim")]);
    // nobody is: this caller refreshes
    assert!(matches!(
        c.remember(b"k", 60_000, &p, || Ok::<_, Error>(Computed::new(
            s("new"),
            7
        )))
        .unwrap(),
        Got::Computed(7)
    ));
    let st: std::collections::HashMap<_, _> = c.stats().into_iter().collect();
    assert_eq!(st["stale_served"], 1, "{st:?}");
}

#[test]
fn xfetch_refreshes_early_with_growing_probability() {
    // beta 1, a compute of 100 ms: never with 10 s left, always with 0
    assert!((0..1000).all(|_| !xfetch(100, 1.0, 10_000)));
    assert!((0..1000).all(|_| xfetch(100, 1.0, 0)));
    let near = (0..10_000).filter(|_| xfetch(100, 1.0, 100)).count();
    // P(-ln U >= 1) = e^-1
    assert!((3_300..=4_100).contains(&near), "{near}");
    assert!((0..1000).all(|_| !xfetch(100, 0.0, 0)), "beta 0: off");
}

#[test]
fn increment_keeps_format_and_ttl_and_refuses_non_integers() {
    let n = ns("incr");
    let c = cache(&n, vec![]);
    assert_eq!(c.increment(b"n", 5).unwrap(), 5);
    assert_eq!(pttl(&full(&n, "n")), -1, "a new counter does not expire");
    assert_eq!(
        raw(&[b"GET", &full(&n, "n")]),
        Value::BulkString(b"rk1:p:0:0:i:5;".to_vec())
    );
    c.set(b"t", &Some((Format::Php, b"i:40;".to_vec())), 60_000)
        .unwrap();
    assert_eq!(c.increment(b"t", 2).unwrap(), 42);
    assert!(pttl(&full(&n, "t")) > 50_000, "TTL kept");
    assert_eq!(c.increment(b"t", -50).unwrap(), -8);
    c.set(b"s", &s("text"), 0).unwrap();
    assert!(matches!(c.increment(b"s", 1), Err(Error::Redis(_))));
    assert_eq!(
        c.get(b"s").unwrap().unwrap().payload,
        b"text",
        "nothing written"
    );
    assert!(matches!(c.increment(b"t", 1 << 53), Err(Error::Invalid(_))));
    let j = cache(
        &ns("incr-json"),
        vec![("serializer", OptValue::Str(b"json".to_vec()))],
    );
    assert_eq!(j.increment(b"n", 3).unwrap(), 3);
    assert_eq!(j.get(b"n").unwrap().unwrap().payload, b"3");
}

#[test]
fn touch_sets_a_new_ttl_on_existing_values_only() {
    let n = ns("touch");
    let c = cache(&n, vec![("jitter", OptValue::Float(0.0))]);
    assert!(!c.touch(b"k", 10_000).unwrap());
    c.set(b"k", &s("v"), 0).unwrap();
    assert!(c.touch(b"k", 10_000).unwrap());
    let t = pttl(&full(&n, "k"));
    assert!(t > 9_000 && t <= 10_000, "{t}");
    assert!(c.touch(b"k", 0).unwrap());
    assert_eq!(pttl(&full(&n, "k")), -1);
    assert!(c.touch(b"k", 0).unwrap(), "no TTL already: still there");
}

#[test]
fn a_compute_may_set_its_own_ttl_or_not_be_cached() {
    let n = ns("computed");
    let c = cache(&n, vec![("jitter", OptValue::Float(0.0))]);
    let p = c.policy();
    c.remember(b"k", 60_000, &p, || {
        Ok::<_, Error>(Computed {
            ttl_ms: Some(5_000),
            ..Computed::new(s("v"), ())
        })
    })
    .unwrap();
    let t = pttl(&full(&n, "k"));
    assert!(t > 4_000 && t <= 5_000, "the compute's TTL: {t}");
    c.remember(b"unsaved", 60_000, &p, || {
        Ok::<_, Error>(Computed {
            save: false,
            ..Computed::new(s("v"), ())
        })
    })
    .unwrap();
    assert_eq!(raw(&[b"EXISTS", &full(&n, "unsaved")]), Value::Int(0));
    assert_eq!(
        raw(&[b"EXISTS", &aux_key(&full(&n, "unsaved"), "claim")]),
        Value::Int(0)
    );
    // an infinite beta refreshes at once
    let inf = c
        .call_policy(Options::new(vec![(
            "early_refresh".into(),
            OptValue::Float(f64::INFINITY),
        )]))
        .unwrap();
    assert!(matches!(
        c.remember(b"k", 60_000, &inf, || Ok::<_, Error>(Computed::new(
            s("again"),
            9
        )))
        .unwrap(),
        Got::Computed(9)
    ));
}

#[test]
fn add_writes_only_a_missing_key() {
    let n = ns("add");
    let c = cache(&n, vec![]);
    assert!(c.add(b"k", &s("first"), 10_000).unwrap());
    assert!(!c.add(b"k", &s("second"), 10_000).unwrap());
    assert_eq!(c.get(b"k").unwrap().unwrap().payload, b"first");
    assert!(pttl(&full(&n, "k")) > 8_000);
}
