//! The tier's bookkeeping, and the tier against the real redis-server in
//! `REDIS_URL`: what invalidates a value, and what keeps one.
use super::*;
use crate::conn::{self, test_ns, tracked_get, Args, Dsn, Value};
use std::time::Duration;

#[test]
fn a_store_keeps_to_its_bytes_and_drops_the_least_recently_used() {
    let item = 2 * 2 + 10 + OVERHEAD; // key "k?", 10 bytes
    let mut st = Store::new(3 * item);
    for k in [b"k1", b"k2", b"k3"] {
        st.insert(k, b"", &[0; 10], [0; 4], 1, None);
    }
    assert_eq!((st.items.len(), st.bytes), (3, 3 * item));
    st.touch(b"k1", b""); // k2 is now the oldest
    st.insert(b"k4", b"", &[0; 10], [0; 4], 1, None);
    assert!(st.items.contains_key(&b"k1"[..]) && !st.items.contains_key(&b"k2"[..]));
    assert_eq!((st.items.len(), st.bytes), (3, 3 * item));
    // a value bigger than the whole tier is not kept, and evicts nothing
    st.insert(b"big", b"", &[0; 1000], [0; 4], 1, None);
    assert_eq!(st.items.len(), 3);
    // replacing a value counts its new size only
    st.insert(b"k4", b"", &[0; 10], [0; 4], 2, None);
    assert_eq!((st.items.len(), st.bytes, st.lru.len()), (3, 3 * item, 3));
    // a flush or a closed connection drops that session's values only
    st.apply(&Event::Flush(2));
    assert_eq!(st.items.len(), 2);
    st.apply(&Event::Invalidate(
        1,
        vec![b"k1".to_vec(), b"nope".to_vec()],
    ));
    assert_eq!(st.items.len(), 1);
    st.apply(&Event::Overflow);
    assert_eq!((st.items.len(), st.bytes, st.lru.len()), (0, 0, 0));

    // several reads of one key: an invalidation of the key drops them all
    let mut st = Store::new(1 << 20);
    st.insert(b"board", b"0:9", &[1; 10], [0; 4], 1, None);
    st.insert(b"board", b"10:19", &[2; 10], [0; 4], 1, None);
    st.insert(b"other", b"0:9", &[3; 10], [0; 4], 1, None);
    assert_eq!(st.len, 3);
    assert_eq!(&*st.find(b"board", b"10:19").unwrap().raw, &[2; 10]);
    st.insert(b"board", b"10:19", &[4; 10], [0; 4], 1, None);
    assert_eq!((st.len, st.lru.len()), (3, 3));
    st.apply(&Event::Invalidate(1, vec![b"board".to_vec()]));
    assert_eq!((st.len, st.lru.len(), st.items.len()), (1, 1, 1));
    assert!(st.find(b"other", b"0:9").is_some());
}

/// Database 11: this file's FLUSHDB leaves the other tests' keys alone.
fn db11() -> Dsn {
    let url = conn::test_url();
    let base = url.split('?').next().unwrap_or(&url).trim_end_matches('/');
    Dsn::parse(&format!("{base}/11"), Default::default()).unwrap()
}

fn tracking_dsn() -> Dsn {
    db11().with_tracking()
}

fn plain(args: &[&[u8]]) -> Value {
    let mut a = Args::new();
    for x in args {
        a.push(x);
    }
    conn::command(&db11(), &a, false).unwrap()
}

/// Reads `key` the way a cache does: the tier, else a tracked GET kept in it.
fn read(tier: &Tier, dsn: &Dsn, key: &[u8]) -> (Option<Vec<u8>>, bool) {
    if let Lookup::Hit(raw, _) = tier.get(key) {
        return (Some(raw.to_vec()), true);
    }
    let r = tracked_get(dsn, key).unwrap();
    if let Some(v) = &r.value {
        tier.put(key, v, [0; 4], r.session, r.pttl_ms);
    }
    (r.value, false)
}

fn until(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(5);
    while !f() {
        assert!(Instant::now() < end, "{what}: not within 5 s");
        std::thread::sleep(Duration::from_millis(2));
    }
}

// One test: a FLUSHDB sends every tracking connection of the server a null
// invalidation, which would disturb a test running beside it.
#[test]
fn the_tier_serves_what_redis_has_and_drops_what_it_may_have_missed() {
    let dsn = tracking_dsn();
    let ns = test_ns("local", "tier");
    let key = |s: &str| [&ns[..], s.as_bytes()].concat();
    let (a, b, c) = (key("a"), key("b"), key("c"));
    let tier = Tier::new(
        format!("test\0{}", String::from_utf8_lossy(&ns)),
        1 << 20,
        Duration::from_secs(60),
    );

    // a missing key is not kept; a present one is, and is then served locally
    assert_eq!(read(&tier, &dsn, &a), (None, false));
    plain(&[b"SET", &a, b"1"]);
    assert_eq!(read(&tier, &dsn, &a), (Some(b"1".to_vec()), false));
    let commands = conn::stats::snapshot()
        .into_iter()
        .find(|(n, _)| *n == "commands")
        .unwrap()
        .1;
    for _ in 0..100 {
        assert_eq!(read(&tier, &dsn, &a), (Some(b"1".to_vec()), true));
    }
    let after = conn::stats::snapshot()
        .into_iter()
        .find(|(n, _)| *n == "commands")
        .unwrap()
        .1;
    assert_eq!(after, commands, "local hits sent commands");

    // another connection's write: gone from the tier once this worker's
    // tracking connection made a round trip after it
    plain(&[b"SET", &a, b"2"]);
    assert_eq!(read(&tier, &dsn, &b), (None, false)); // the round trip
    assert_eq!(read(&tier, &dsn, &a), (Some(b"2".to_vec()), false));
    assert_eq!(read(&tier, &dsn, &a), (Some(b"2".to_vec()), true));
    // ... and without a round trip, as soon as the push arrives
    plain(&[b"DEL", &a]);
    until("a delete seen locally", || {
        read(&tier, &dsn, &a).0.is_none()
    });

    // Redis's TTL holds locally too
    plain(&[b"SET", &c, b"x", b"PX", b"150"]);
    assert_eq!(read(&tier, &dsn, &c), (Some(b"x".to_vec()), false));
    assert_eq!(read(&tier, &dsn, &c), (Some(b"x".to_vec()), true));
    until("an expired value dropped", || {
        !matches!(tier.get(&c), Lookup::Hit(..))
    });

    // FLUSHDB: everything read on the connection goes
    plain(&[b"SET", &a, b"3"]);
    read(&tier, &dsn, &a);
    assert!(read(&tier, &dsn, &a).1);
    plain(&[b"FLUSHDB"]);
    until("a flush seen locally", || !read(&tier, &dsn, &a).1);
    plain(&[b"SET", &a, b"4"]);
    assert_eq!(read(&tier, &dsn, &a), (Some(b"4".to_vec()), false));

    // the tracking connection killed: nothing read on it is served again
    assert!(read(&tier, &dsn, &a).1);
    let list = match plain(&[b"CLIENT", b"LIST"]) {
        Value::BulkString(b) => String::from_utf8(b).unwrap(),
        v => panic!("{v:?}"),
    };
    let mut killed = 0;
    for line in list.lines().filter(|l| l.contains(" resp=3")) {
        // every RESP3 client with tracking on ("t" flag): ours among them
        let flags = line.split(' ').find(|f| f.starts_with("flags=")).unwrap();
        if flags.contains('t') {
            let id = line.split(' ').next().unwrap().trim_start_matches("id=");
            plain(&[b"CLIENT", b"KILL", b"ID", id.as_bytes()]);
            killed += 1;
        }
    }
    assert!(killed >= 1, "no tracking client in {list}");
    until("a closed connection's values dropped", || {
        !matches!(tier.get(&a), Lookup::Hit(..))
    });
    assert_eq!(read(&tier, &dsn, &a), (Some(b"4".to_vec()), false));

    // a connection not heard from for `recheck` is not trusted
    let quick = Tier::new(
        format!("quick\0{}", String::from_utf8_lossy(&ns)),
        1 << 20,
        Duration::from_millis(30),
    );
    read(&quick, &dsn, &b);
    plain(&[b"SET", &b, b"5"]);
    assert_eq!(read(&quick, &dsn, &b), (Some(b"5".to_vec()), false));
    until("a silent connection's values re-read", || {
        !read(&quick, &dsn, &b).1
    });
    assert_eq!(read(&quick, &dsn, &b), (Some(b"5".to_vec()), true));
}

#[test]
fn a_server_that_refuses_tracking_says_so() {
    // an ACL user without HELLO / CLIENT
    let user = format!("rk-notrack-{}", std::process::id());
    plain(&[
        b"ACL",
        b"SETUSER",
        user.as_bytes(),
        b"on",
        b">pw",
        b"~*",
        b"+@all",
        b"-hello",
        b"-client",
    ]);
    let url = conn::test_url();
    let with_user = url.replacen("redis://", &format!("redis://{user}:pw@"), 1);
    let dsn = Dsn::parse(&with_user, Default::default())
        .unwrap()
        .with_tracking();
    let e = tracked_get(&dsn, b"x").unwrap_err();
    assert!(e.message().contains("client tracking refused"), "{e}");
    let why = conn::tracking::take_refusal().expect("a refusal");
    assert!(
        why.contains("NOPERM") || why.contains("permission"),
        "{why}"
    );
    assert_eq!(conn::tracking::take_refusal(), None);
    plain(&[b"ACL", b"DELUSER", user.as_bytes()]);
}
