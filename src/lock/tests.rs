//! Core tests against the real redis-server in `REDIS_URL` (test.sh starts one).
use super::*;
use crate::conn::aux_key;
use crate::conn::Args;
use crate::options::OptValue;

use crate::conn::test_url as url;

fn ns(name: &str) -> Vec<u8> {
    crate::conn::test_ns("lock", name)
}

fn lock(resource: &[u8], opts: Vec<(&str, OptValue)>) -> Lock {
    let opts = Options::new(opts.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    Lock::new(
        resource,
        &Connection::Dsn(url()),
        opts,
        &Settings::default(),
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

#[test]
fn mutual_exclusion_and_owner_checks() {
    let r = ns("basic");
    let a = lock(
        &r,
        vec![
            ("ttl", OptValue::Float(5.0)),
            ("watchdog", OptValue::Bool(false)),
        ],
    );
    let b = lock(&r, vec![]);
    assert!(a.acquire(0.0).unwrap());
    assert!(!b.acquire(0.0).unwrap());
    assert!(!b.release().unwrap(), "a non-owner cannot release");
    assert!(!b.extend(None).unwrap(), "a non-owner cannot extend");
    let ttl = a.remaining_ttl().unwrap().unwrap();
    assert!(ttl > 4.0 && ttl <= 5.0, "{ttl}");
    assert!(a.extend(Some(20.0)).unwrap());
    assert!(a.remaining_ttl().unwrap().unwrap() > 19.0);
    assert!(b.remaining_ttl().unwrap().is_none());
    let f1 = a.fencing_token().unwrap().unwrap();
    assert!(a.release().unwrap());
    assert!(!a.release().unwrap());
    assert!(b.acquire(0.0).unwrap());
    assert!(b.fencing_token().unwrap().unwrap() > f1);
    assert!(b.release().unwrap());
}

#[test]
fn adopted_token_releases_anothers_lock() {
    let r = ns("adopt");
    let a = lock(&r, vec![("watchdog", OptValue::Bool(false))]);
    assert!(a.acquire(0.0).unwrap());
    let b = lock(&r, vec![("token", OptValue::Str(a.token().to_vec()))]);
    assert!(b.is_acquired().unwrap());
    assert!(b.extend(Some(3.0)).unwrap());
    assert!(b.release().unwrap());
    assert!(!a.is_acquired().unwrap());
}

#[test]
fn fencing_tokens_respect_the_stored_counter() {
    let r = ns("fence");
    let a = lock(&r, vec![("watchdog", OptValue::Bool(false))]);
    // A counter far ahead of the clock (as if the clock had stepped back).
    let ahead: i64 = 9_000_000_000_000_000;
    let fence = aux_key(&r, "fence");
    raw(&[b"SET", &fence, ahead.to_string().as_bytes()]);
    assert!(a.acquire(0.0).unwrap());
    assert_eq!(a.fencing_token().unwrap(), Some(ahead + 1));
    assert!(a.release().unwrap());
    // Lost counter: the server clock (microseconds) is the floor.
    raw(&[b"DEL", &fence]);
    assert!(a.acquire(0.0).unwrap());
    let f = a.fencing_token().unwrap().unwrap();
    assert!(f > 1_700_000_000_000_000 && f < ahead, "{f}");
    a.release().unwrap();
}

#[test]
fn waiter_is_woken_by_release_and_gives_up_on_time() {
    let r = ns("wake");
    let a = lock(&r, vec![("watchdog", OptValue::Bool(false))]);
    assert!(a.acquire(0.0).unwrap());
    let r2 = r.clone();
    let t = std::thread::spawn(move || {
        let b = lock(&r2, vec![]);
        let t0 = Instant::now();
        let got = b.acquire(10.0).unwrap();
        (got, t0.elapsed(), b) // still held: dropping the object would release it
    });
    std::thread::sleep(Duration::from_millis(300));
    let released_at = Instant::now();
    assert!(a.release().unwrap());
    let (got, _, _holder) = t.join().unwrap();
    assert!(got);
    assert!(released_at.elapsed() < Duration::from_secs(1));

    // Giving up: false shortly after the wait, and the waiter left the set.
    let c = lock(&r, vec![]);
    let t0 = Instant::now();
    assert!(!c.acquire(0.2).unwrap());
    let took = t0.elapsed();
    assert!(
        took >= Duration::from_millis(200),
        "gave up early: {took:?}"
    );
    let waiters = aux_key(&r, "waiters");
    assert_eq!(raw(&[b"ZSCORE", &waiters, &c.token()]), Value::Nil);
}

#[test]
fn bad_input() {
    let r = ns("bad");
    let o = |v: Vec<(&str, OptValue)>| {
        Options::new(v.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };
    let s = Settings::default();
    let c = Connection::Dsn(url());
    assert!(matches!(
        Lock::new(b"", &c, o(vec![]), &s),
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        Lock::new(&r, &c, o(vec![("ttl", OptValue::Float(0.0))]), &s),
        Err(Error::Invalid(_))
    ));
    assert!(matches!(
        Lock::new(&r, &c, o(vec![("colour", OptValue::Int(1))]), &s),
        Err(Error::Invalid(_))
    ));
    let two = Connection::List(vec![url(), "redis://127.0.0.1:1".into()]);
    assert!(matches!(
        Lock::new(&r, &two, o(vec![]), &s),
        Err(Error::Invalid(_))
    ));
    let l = lock(&r, vec![]);
    assert!(matches!(l.acquire(-1.0), Err(Error::Invalid(_))));
    assert!(matches!(l.acquire(f64::NAN), Err(Error::Invalid(_))));
    assert!(matches!(l.extend(Some(0.0)), Err(Error::Invalid(_))));
}

/// One attempt of a waiter, exactly as `acquire_single` sends it after a
/// wake-up (mode '1', or '2' in fair mode).
fn attempt(l: &Lock, mode: &str) -> Attempt {
    let n = &l.sh.nodes[0];
    let c = n.acquire_call(&l.sh.token(), l.sh.ttl_ms.load(SeqCst) as i64, mode, false);
    parse_attempt(conn::eval(&n.dsn, &c, true).unwrap()).unwrap()
}

fn leave(l: &Lock) {
    let n = &l.sh.nodes[0];
    let c = n.waiter_call(&scripts::LOCK_LEAVE, &l.sh.token());
    conn::eval(&n.dsn, &c, true).unwrap();
}

/// The keys of resource `r` that exist, sorted.
fn keys_of(r: &[u8]) -> Vec<Vec<u8>> {
    let mut pat = b"*".to_vec();
    pat.extend_from_slice(r);
    pat.push(b'*');
    let Value::Array(items) = raw(&[b"KEYS", &pat]) else {
        panic!("KEYS")
    };
    let mut keys: Vec<Vec<u8>> = items
        .into_iter()
        .map(|v| conn::bytes(v, "KEYS").unwrap())
        .collect();
    keys.sort();
    keys
}

#[test]
fn no_wake_hint_outlives_the_waiters() {
    let nowd = || vec![("watchdog", OptValue::Bool(false))];
    let r = ns("hints");
    let wake = aux_key(&r, "wake");
    // nothing at all: no fencing token was asked for
    let only_fence: Vec<Vec<u8>> = vec![];
    let a = lock(&r, nowd());
    let b = lock(&r, nowd());
    // B waits; A's release pushes a hint for it; B's BLPOP had just timed
    // out, so its next attempt takes the lock without popping the hint.
    assert!(a.acquire(0.0).unwrap());
    assert!(matches!(attempt(&b, "1"), Attempt::Busy { .. }));
    assert!(a.release().unwrap());
    assert_eq!(raw(&[b"LLEN", &wake]), Value::Int(1));
    assert!(matches!(attempt(&b, "1"), Attempt::Got(_)));
    assert_eq!(raw(&[b"EXISTS", &wake]), Value::Int(0), "hint left behind");
    assert!(b.release().unwrap());
    assert_eq!(keys_of(&r), only_fence);

    // A waiter that gives up, and one that died (heartbeat long gone): the
    // hint pushed for them goes with them.
    let c = lock(&r, nowd());
    assert!(a.acquire(0.0).unwrap());
    assert!(matches!(attempt(&b, "1"), Attempt::Busy { .. }));
    assert!(matches!(attempt(&c, "1"), Attempt::Busy { .. }));
    assert!(a.release().unwrap());
    assert_eq!(raw(&[b"LLEN", &wake]), Value::Int(1));
    raw(&[b"ZADD", &aux_key(&r, "waiters"), b"1", &c.token()]);
    leave(&b);
    assert_eq!(keys_of(&r), only_fence);

    // Fair mode: the head's own hint goes when the head is dropped as dead.
    let fair = || {
        vec![
            ("watchdog", OptValue::Bool(false)),
            ("fair", OptValue::Bool(true)),
        ]
    };
    let (f1, f2) = (lock(&r, fair()), lock(&r, fair()));
    assert!(a.acquire(0.0).unwrap());
    assert!(matches!(
        attempt(&f1, "2"),
        Attempt::Busy { head: true, .. }
    ));
    assert!(a.release().unwrap());
    let mut private = aux_key(&r, "wake:");
    private.extend_from_slice(&f1.token());
    assert_eq!(raw(&[b"LLEN", &private]), Value::Int(1));
    raw(&[b"ZADD", &aux_key(&r, "waiters"), b"1", &f1.token()]);
    assert!(matches!(attempt(&f2, "2"), Attempt::Got(_)));
    assert!(f2.release().unwrap());
    assert_eq!(keys_of(&r), only_fence);
}

/// What a child forked with pcntl_fork() sees of an object it inherited:
/// simulated by moving the object's home to another process (no such pid).
fn as_if_inherited(l: &Lock) {
    locked(&l.sh.owner).home = Process {
        pid: 0,
        generation: u64::MAX,
    };
}

fn get(key: &[u8]) -> Value {
    raw(&[b"GET", key])
}

#[test]
fn an_inherited_object_never_writes_with_its_parents_token() {
    let r = ns("fork");
    let a = lock(&r, vec![("ttl", OptValue::Float(30.0))]);
    assert!(a.acquire(0.0).unwrap());
    let parent = a.token();
    let held = Value::BulkString(parent.to_vec());
    as_if_inherited(&a);
    // run() sees no lease of this process: it neither releases nor reports a loss
    assert_eq!(a.epoch(), 0);
    // explicit calls: false, nothing written
    assert!(!a.release().unwrap());
    assert!(!a.extend(Some(100.0)).unwrap());
    assert!(matches!(a.extend(Some(0.0)), Err(Error::Invalid(_))));
    // reads tell Redis's truth about the token
    assert!(a.is_acquired().unwrap());
    // the automatic paths: destructor, end of request
    a.destruct();
    release_request_locks();
    assert_eq!(get(&r), held);
    let pttl = int(raw(&[b"PTTL", &r]), "PTTL").unwrap();
    assert!(pttl > 0 && pttl <= 30_000, "{pttl}");
    // acquire(): a token of its own, so the parent's lock is busy for it
    assert!(!a.acquire(0.0).unwrap());
    assert_ne!(a.token(), parent);
    assert_eq!(a.fencing_token().unwrap(), None);
    assert_eq!(get(&r), held);
    assert!(!a.acquire(0.05).unwrap());
    assert_eq!(raw(&[b"EXISTS", &aux_key(&r, "waiters")]), Value::Int(0));
    assert!(!a.is_acquired().unwrap());
    assert!(!a.release().unwrap());
    // still the parent's, exactly (the child's wait left no mark behind)
    assert_eq!(get(&r), held);
    assert_eq!(a.holder().unwrap().as_deref(), Some(&parent[..]));
    // once the parent's lock is gone, the child takes it as its own
    raw(&[b"DEL", &r]);
    assert!(a.acquire(0.0).unwrap());
    assert_eq!(get(&r), Value::BulkString(a.token().to_vec()));
    assert_ne!(a.epoch(), 0);
    assert!(a.release().unwrap());
}

#[test]
fn an_inherited_adopted_token_acts_only_when_asked() {
    let r = ns("fork-adopted");
    let owner = lock(&r, vec![("watchdog", OptValue::Bool(false))]);
    assert!(owner.acquire(0.0).unwrap());
    let b = lock(
        &r,
        vec![
            ("token", OptValue::Str(owner.token().to_vec())),
            ("watchdog", OptValue::Bool(false)),
        ],
    );
    assert!(b.acquire(0.0).unwrap()); // same owner: renews
    as_if_inherited(&b);
    assert_eq!(b.epoch(), 0);
    b.destruct(); // never released automatically
    assert!(owner.is_acquired().unwrap());
    // explicit calls act: the token was handed over on purpose
    assert!(b.extend(Some(5.0)).unwrap());
    assert_eq!(b.token(), owner.token());
    assert!(b.release().unwrap());
    assert!(!owner.is_acquired().unwrap());
}

#[test]
fn a_loss_seen_by_is_acquired_or_extend_is_a_loss() {
    let r = ns("seen");
    let nowd = || vec![("watchdog", OptValue::Bool(false))];
    for how in ["is_acquired", "extend", "remaining_ttl"] {
        let a = lock(&r, nowd());
        assert!(a.acquire(0.0).unwrap());
        let epoch = a.epoch();
        raw(&[b"SET", &r, b"intruder", b"PX", b"5000"]);
        let held = match how {
            "is_acquired" => a.is_acquired().unwrap(),
            "extend" => a.extend(None).unwrap(),
            _ => a.remaining_ttl().unwrap().is_some(),
        };
        assert!(!held, "{how}");
        assert!(a.was_lost(epoch), "{how}");
        assert_eq!(a.epoch(), 0, "{how}");
        a.destruct(); // a lost lease is not released: the intruder keeps it
        assert_eq!(get(&r), Value::BulkString(b"intruder".to_vec()), "{how}");
        raw(&[b"DEL", &r]);
    }
}

#[test]
fn release_and_drop_take_the_lease_off_the_watchdog_board() {
    // Short cycles on new objects must leave nothing on the board: an entry
    // keeps its object alive until the watchdog wakes, a third of the TTL later.
    for i in 0..50 {
        let l = lock(&ns("board"), vec![("ttl", OptValue::Float(30.0))]);
        assert!(l.acquire(0.0).unwrap());
        assert!(
            watchdog::watched(&l.sh),
            "cycle {i}: an acquired lease is watched"
        );
        let sh = l.sh.clone();
        if i % 2 == 0 {
            assert!(l.release().unwrap());
            assert!(
                !watchdog::watched(&sh),
                "cycle {i}: release() leaves the entry"
            );
            drop(l);
        } else {
            drop(l); // the destructor releases
            assert!(
                !watchdog::watched(&sh),
                "cycle {i}: the destructor leaves the entry"
            );
        }
        assert_eq!(
            Arc::strong_count(&sh),
            1,
            "cycle {i}: the object is kept alive"
        );
    }
}

#[test]
fn force_release_frees_anyones_lock_and_wakes_a_waiter() {
    let r = ns("force");
    let a = lock(&r, vec![("ttl", OptValue::Float(30.0))]);
    let b = lock(&r, vec![("watchdog", OptValue::Bool(false))]);
    assert_eq!(b.holder().unwrap(), None);
    assert!(!b.force_release().unwrap(), "nothing to release");
    assert!(a.acquire(0.0).unwrap());
    assert_eq!(b.holder().unwrap().as_deref(), Some(&*a.token()));
    let r2 = r.clone();
    let t = std::thread::spawn(move || {
        let c = lock(&r2, vec![("watchdog", OptValue::Bool(false))]);
        let t0 = Instant::now();
        let got = c.acquire(20.0).unwrap();
        (got, t0.elapsed(), c)
    });
    // wait for the waiter to be registered, then force the release from b
    let waiters = aux_key(&r, "waiters");
    let deadline = Instant::now() + Duration::from_secs(10);
    while int(raw(&[b"ZCARD", &waiters]), "zcard").unwrap() == 0 {
        assert!(Instant::now() < deadline, "the waiter never registered");
        std::thread::sleep(Duration::from_millis(2));
    }
    let t0 = Instant::now();
    assert!(b.force_release().unwrap());
    let (got, _, c) = t.join().unwrap();
    assert!(got, "the waiter got the lock");
    assert!(
        t0.elapsed() < Duration::from_millis(600),
        "woken by the force release, not by its 1 s re-check"
    );
    assert_eq!(b.holder().unwrap().as_deref(), Some(&*c.token()));
    assert!(!a.is_acquired().unwrap());
    assert!(
        !a.release().unwrap(),
        "a's lease ended with the force release"
    );
    assert!(c.release().unwrap());
    // the holder's own force release ends its lease and the watchdog's entry
    assert!(a.acquire(0.0).unwrap());
    assert!(a.force_release().unwrap());
    assert_eq!(a.epoch(), 0);
    assert_eq!(b.holder().unwrap(), None);
}

#[test]
fn fencing_tokens_are_issued_when_asked_and_only_to_the_holder() {
    let r = ns("lazy-fence");
    let nowd = || vec![("watchdog", OptValue::Bool(false))];
    let (a, b) = (lock(&r, nowd()), lock(&r, nowd()));
    // an acquire nobody asks a token of writes only the lock
    assert!(a.acquire(0.0).unwrap());
    assert_eq!(keys_of(&r), vec![r.clone()]);
    let fa = a.fencing_token().unwrap().unwrap();
    assert_eq!(
        a.fencing_token().unwrap(),
        Some(fa),
        "asked twice: the same"
    );
    // a lease that ended before its token was asked for gets none
    assert!(a.release().unwrap());
    assert!(b.acquire(0.0).unwrap());
    assert!(b.release().unwrap());
    assert_eq!(b.fencing_token().unwrap(), None);
    // taken over meanwhile: none either, and the lease counts as lost
    assert!(a.acquire(0.0).unwrap());
    raw(&[b"SET", &r, b"someone-else"]);
    assert_eq!(a.fencing_token().unwrap(), None);
    assert_eq!(a.epoch(), 0);
    raw(&[b"DEL", &r]);
    // the next holder's token is above every one issued before
    assert!(b.acquire(0.0).unwrap());
    assert!(b.fencing_token().unwrap().unwrap() > fa);
    assert!(b.release().unwrap());
}

#[test]
fn a_release_reserves_the_lock_for_the_fair_queues_head() {
    let r = ns("reserve");
    let nowd = || vec![("watchdog", OptValue::Bool(false))];
    let fair = || {
        vec![
            ("watchdog", OptValue::Bool(false)),
            ("fair", OptValue::Bool(true)),
        ]
    };
    let (a, f, c) = (lock(&r, nowd()), lock(&r, fair()), lock(&r, nowd()));
    assert!(a.acquire(0.0).unwrap());
    assert!(matches!(attempt(&f, "2"), Attempt::Busy { head: true, .. }));
    assert!(a.release().unwrap());
    // free, but the head's: nobody else takes it, nobody holds it
    assert_eq!(get(&r), Value::BulkString(b"\0q".to_vec()));
    assert_eq!(a.holder().unwrap(), None);
    assert!(!c.acquire(0.0).unwrap());
    assert!(!c.force_release().unwrap());
    assert!(matches!(attempt(&f, "2"), Attempt::Got(_)));
    assert_eq!(get(&r), Value::BulkString(f.token().to_vec()));
    assert!(f.release().unwrap());
    assert_eq!(keys_of(&r), Vec::<Vec<u8>>::new());
}

#[test]
fn threads_are_workers_of_their_own_under_one_watchdog() {
    // As on a thread-safe PHP: 8 request threads, each with its own pooled
    // connection, take turns on one lock (a read-modify-write under it loses
    // no update) while the process's one watchdog thread renews every lease
    // held past its TTL.
    let r = ns("threads");
    let counter = [r.as_slice(), b":counter"].concat();
    const THREADS: usize = 8;
    const ROUNDS: usize = 6;
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let (r, counter) = (r.clone(), counter.clone());
            std::thread::spawn(move || {
                crate::conn::close_all();
                let l = lock(&r, vec![("ttl", OptValue::Float(1.0))]);
                let mut tokens = Vec::new();
                for _ in 0..ROUNDS {
                    assert!(l.acquire(30.0).unwrap(), "thread {t}: acquired within 30 s");
                    tokens.push(l.fencing_token().unwrap().unwrap());
                    let n = match raw(&[b"GET", &counter]) {
                        Value::BulkString(b) => {
                            String::from_utf8(b).unwrap().parse::<u64>().unwrap()
                        }
                        _ => 0,
                    };
                    // two threads hold it past its 1 s TTL once: only the
                    // watchdog's renewals keep it theirs
                    let hold = if t < 2 && tokens.len() == 1 { 1300 } else { 2 };
                    std::thread::sleep(Duration::from_millis(hold));
                    raw(&[b"SET", &counter, (n + 1).to_string().as_bytes()]);
                    assert!(
                        l.release().unwrap(),
                        "thread {t}: still the holder at release"
                    );
                }
                assert!(
                    tokens.windows(2).all(|w| w[0] < w[1]),
                    "thread {t}: tokens grow: {tokens:?}"
                );
                // this thread's own connections: main and blocking (waits)
                let own = crate::conn::pooled();
                assert!(
                    (1..=2).contains(&own),
                    "thread {t}: {own} pooled connections"
                );
                tokens
            })
        })
        .collect();
    let mut all: Vec<i64> = Vec::new();
    for h in handles {
        all.extend(h.join().expect("a lock thread panicked"));
    }
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "no fencing token was issued twice");
    assert_eq!(
        raw(&[b"GET", &counter]),
        Value::BulkString((THREADS * ROUNDS).to_string().into_bytes()),
        "no update lost under the lock"
    );
    raw(&[b"DEL", &counter]);
}

#[test]
fn stats_are_each_threads_own_and_renewals_count_for_the_holder() {
    // RedisKit\stats() is per worker, and under ZTS a worker is a thread:
    // a thread sees its own commands and events only, and the watchdog's
    // renewals of a lock count for the thread that holds it.
    let get = |k: &str| {
        stats::snapshot()
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| *v)
            .unwrap_or(u64::MAX)
    };
    let r = ns("stats-threads");
    let holder = std::thread::spawn(move || {
        let l = lock(&r, vec![("ttl", OptValue::Float(0.3))]);
        assert!(l.acquire(0.0).unwrap());
        let held = get("commands");
        // 0.5 s past a 0.3 s TTL: only the watchdog's renewals (every 0.1 s)
        // keep it, and this thread sends nothing meanwhile
        std::thread::sleep(Duration::from_millis(500));
        let renewals = get("commands") - held;
        assert!(l.release().unwrap(), "still the holder at release");
        (renewals, get("lock_acquired"), get("connections_opened"))
    });
    let idle = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(600));
        (
            get("commands"),
            get("lock_acquired"),
            get("live_connections"),
        )
    });
    let (renewals, acquired, opened) = holder.join().expect("the holder panicked");
    assert!(
        renewals >= 2,
        "the watchdog's renewals count for the holder: {renewals}"
    );
    assert_eq!(acquired, 1, "the holder's own acquire");
    assert!(opened >= 1, "the holder's connections: {opened}");
    assert_eq!(
        idle.join().expect("the idle thread panicked"),
        (0, 0, 0),
        "a thread that sent nothing counts nothing"
    );
}
