//! The connection layer against a real redis-server (`REDIS_URL`), with a
//! fault-injecting TCP proxy in front of it where a test needs a connection
//! to break at an exact moment.
use super::*;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

fn key(name: &str) -> Vec<u8> {
    format!("rkcargo:{}:{name}", std::process::id()).into_bytes()
}

fn cmd(parts: &[&[u8]]) -> Args {
    let mut a = Args::new();
    for p in parts {
        a.push(p);
    }
    a
}

/// Forwards to the real server; when `drop_reply` is set, the next reply is
/// swallowed and the client connection closed (the command did run).
struct Proxy {
    port: u16,
    drop_reply: Arc<AtomicBool>,
    accepted: Arc<AtomicUsize>,
}

fn proxy(target: &Dsn) -> Proxy {
    let Addr::Tcp { host, port } = &target.addr else {
        panic!("tcp REDIS_URL needed")
    };
    let upstream = format!("{host}:{port}");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let drop_reply = Arc::new(AtomicBool::new(false));
    let accepted = Arc::new(AtomicUsize::new(0));
    let (d, a) = (drop_reply.clone(), accepted.clone());
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { return };
            a.fetch_add(1, Ordering::SeqCst);
            let mut server = TcpStream::connect(&upstream).unwrap();
            let d = d.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                loop {
                    let n = match client.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    if server.write_all(&buf[..n]).is_err() {
                        return;
                    }
                    let n = match server.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    if d.swap(false, Ordering::SeqCst) {
                        let _ = client.shutdown(std::net::Shutdown::Both);
                        return;
                    }
                    if client.write_all(&buf[..n]).is_err() {
                        return;
                    }
                }
            });
        }
    });
    Proxy {
        port,
        drop_reply,
        accepted,
    }
}

#[test]
fn a_lost_reply_is_retried_only_when_safe() {
    let real = test_dsn();
    let p = proxy(&real);
    let dsn = Dsn::parse(
        &format!("redis://127.0.0.1:{}", p.port),
        Timeouts::default(),
    )
    .unwrap();
    let k = key("lost");
    command(&real, &cmd(&[b"DEL", &k]), true).unwrap();

    // Not retry-safe: the INCR ran once, the caller hears "may or may not have run".
    p.drop_reply.store(true, Ordering::SeqCst);
    let err = command(&dsn, &cmd(&[b"INCR", &k]), false).unwrap_err();
    assert!(
        matches!(err, Error::Connection(ref m) if m.contains("may or may not have run")),
        "{err}"
    );
    assert_eq!(
        command(&real, &cmd(&[b"GET", &k]), true).unwrap(),
        Value::BulkString(b"1".to_vec())
    );

    // Retry-safe: the call is sent again on a new connection and succeeds.
    p.drop_reply.store(true, Ordering::SeqCst);
    let v = command(&dsn, &cmd(&[b"GET", &k]), true).unwrap();
    assert_eq!(v, Value::BulkString(b"1".to_vec()));
    assert_eq!(p.accepted.load(Ordering::SeqCst), 3);
    command(&real, &cmd(&[b"DEL", &k]), true).unwrap();
}

#[test]
fn a_killed_connection_is_replaced_before_writing() {
    let dsn = test_dsn();
    let k = key("killed");
    command(&dsn, &cmd(&[b"DEL", &k]), true).unwrap();
    let id = match command(&dsn, &cmd(&[b"CLIENT", b"ID"]), true).unwrap() {
        Value::Int(i) => i,
        v => panic!("{v:?}"),
    };
    // kill it from another thread (its own pool, its own connection)
    std::thread::spawn(move || {
        let dsn = test_dsn();
        command(
            &dsn,
            &cmd(&[b"CLIENT", b"KILL", b"ID", id.to_string().as_bytes()]),
            false,
        )
        .unwrap();
    })
    .join()
    .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    // a non-retry-safe write still goes through: the dead socket is noticed first
    assert_eq!(
        command(&dsn, &cmd(&[b"INCR", &k]), false).unwrap(),
        Value::Int(1)
    );
    command(&dsn, &cmd(&[b"DEL", &k]), true).unwrap();
}

/// A script whose body this server has never seen (unique per run), so the
/// first call meets NOSCRIPT.
fn fresh_script(name: &'static str, body: String) -> &'static Script {
    let body: &'static str = Box::leak(body.into_boxed_str());
    let sha: &'static str = Box::leak(
        sha1_smol::Sha1::from(body)
            .digest()
            .to_string()
            .into_boxed_str(),
    );
    Box::leak(Box::new(Script { name, body, sha }))
}

#[test]
fn a_script_and_its_wait_in_one_call() {
    let set = fresh_script(
        "set_then_wait",
        format!(
            "-- wait {:?}\nredis.call('SET', KEYS[1], ARGV[1]) return ARGV[1]",
            Instant::now()
        ),
    );
    let dsn = test_dsn();
    let k = key("then-wait");
    let mut c = ScriptCall::new(set);
    c.key(&k).arg("v");
    for _ in 0..2 {
        let (v, acked) = eval_then_wait(&dsn, &c, 0, 10, true).unwrap();
        assert_eq!(v, Value::BulkString(b"v".to_vec()));
        // WAIT 0 answers at once: how many replicas have the write (none
        // or some, whatever the test server has)
        assert!(acked.unwrap() >= 0);
    }
    command(&dsn, &cmd(&[b"DEL", &k]), true).unwrap();
}

#[test]
fn noscript_falls_back_to_eval_in_the_same_call() {
    let echo = fresh_script("echo", format!("-- {:?}\nreturn ARGV[1]", Instant::now()));
    let dsn = test_dsn();
    let mut c = ScriptCall::new(echo);
    c.arg("hi");
    let before = stats::snapshot();
    assert_eq!(
        eval(&dsn, &c, true).unwrap(),
        Value::BulkString(b"hi".to_vec())
    );
    let after = stats::snapshot();
    let get = |s: &[(&str, u64)], k: &str| s.iter().find(|(n, _)| *n == k).unwrap().1;
    assert!(get(&after, "noscript_fallbacks") > get(&before, "noscript_fallbacks"));
    assert_eq!(
        get(&after, "scripts_loaded") - get(&before, "scripts_loaded"),
        1
    );
    // now cached: no fallback
    assert_eq!(
        eval(&dsn, &c, true).unwrap(),
        Value::BulkString(b"hi".to_vec())
    );
    assert_eq!(
        get(&stats::snapshot(), "noscript_fallbacks"),
        get(&after, "noscript_fallbacks")
    );
    // pipelined calls after a flush fall back together, loading the body once
    command(&dsn, &cmd(&[b"SCRIPT", b"FLUSH"]), true).unwrap();
    let calls: Vec<_> = (0..5)
        .map(|i| {
            let mut c = ScriptCall::new(echo);
            c.arg(i.to_string());
            c
        })
        .collect();
    let out = eval_many(&dsn, &calls).unwrap();
    assert_eq!(out.len(), 5);
    assert_eq!(out[4], Value::BulkString(b"4".to_vec()));
}

#[test]
fn wait_signal_wakes_on_push_and_on_time() {
    let dsn = test_dsn();
    let k = key("signal");
    command(&dsn, &cmd(&[b"DEL", &k]), true).unwrap();
    // Deadline first: returns None at the deadline, never before it, and
    // ended by this client (CLIENT UNBLOCK) rather than by Redis's own BLPOP
    // timer, which Redis checks only about every 100 ms and which is set a
    // second past the deadline as a backstop. How late the wake-up is on a
    // loaded machine is for `make bench`, not an assertion here.
    let unblocks = || -> i64 {
        let Value::BulkString(info) =
            command(&dsn, &cmd(&[b"INFO", b"commandstats"]), true).unwrap()
        else {
            panic!("INFO")
        };
        let info = String::from_utf8_lossy(&info).into_owned();
        info.lines()
            .find_map(|l| l.strip_prefix("cmdstat_client|unblock:calls="))
            .map(|rest| rest.split(',').next().unwrap_or("0").parse().unwrap())
            .unwrap_or(0)
    };
    for ms in [15u64, 40] {
        let d = Duration::from_millis(ms);
        for _ in 0..3 {
            let before = unblocks();
            let t = Instant::now();
            assert_eq!(wait_signal(&dsn, &k, d).unwrap(), None);
            let took = t.elapsed();
            assert!(took >= d, "woke early: {took:?} for {ms} ms");
            assert!(
                unblocks() > before,
                "a {ms} ms wait was not ended by CLIENT UNBLOCK"
            );
        }
    }
    // a push from elsewhere wakes it: at its deadline it would return None
    let k2 = k.clone();
    let pusher = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        command(&test_dsn(), &cmd(&[b"LPUSH", &k2, b"tok"]), false).unwrap();
    });
    let got = wait_signal(&dsn, &k, Duration::from_secs(30)).unwrap();
    pusher.join().unwrap();
    assert_eq!(got, Some(b"tok".to_vec()));
    // the connection is still usable afterwards
    assert_eq!(
        wait_signal(&dsn, &k, Duration::from_millis(5)).unwrap(),
        None
    );
}

#[test]
fn a_signal_does_not_break_a_reply_read() {
    extern "C" fn nothing(_: libc::c_int) {}
    // SAFETY: installs a handler that does nothing (as a PHP pcntl_signal
    // handler does at the C level: it only records the signal).
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = nothing as extern "C" fn(libc::c_int) as usize;
        libc::sigaction(libc::SIGUSR1, &sa, std::ptr::null_mut());
    }
    let dsn = test_dsn();
    let k = key("eintr");
    // SAFETY: this thread's own id; it outlives the signals (joined below).
    let me = unsafe { libc::pthread_self() } as usize;
    let signaller = std::thread::spawn(move || {
        for _ in 0..2 {
            std::thread::sleep(Duration::from_millis(50));
            // SAFETY: the test thread is still running (it joins us).
            unsafe { libc::pthread_kill(me as libc::pthread_t, libc::SIGUSR1) };
        }
    });
    // a reply that takes 200 ms: both signals interrupt the read (EINTR)
    let t = Instant::now();
    let r = command(&dsn, &cmd(&[b"BLPOP", &k, b"0.2"]), false);
    let took = t.elapsed();
    signaller.join().unwrap();
    assert!(matches!(r, Ok(Value::Nil)), "{r:?} after {took:?}");
    assert!(took >= Duration::from_millis(200), "{took:?}");
}

#[test]
fn unreachable_hosts_fail_within_the_connect_timeout() {
    // nothing listens on port 1 of loopback: refused at once
    let dsn = Dsn::parse("redis://127.0.0.1:1?timeout=0.3", Timeouts::default()).unwrap();
    let err = command(&dsn, &cmd(&[b"PING"]), true).unwrap_err();
    assert!(matches!(err, Error::Connection(_)), "{err}");
    // refused, not left to the connect timeout (its message would say so)
    assert!(err.to_string().contains("refused"), "{err}");
}

#[test]
fn aux_keys_share_the_main_keys_slot() {
    assert_eq!(aux_key(b"lb:game", "seq"), b"{lb:game}:seq".to_vec());
    assert_eq!(aux_key(b"lb:{g1}", "seq"), b"lb:{g1}:seq".to_vec());
    assert_eq!(aux_key(b"a{}b", "seq"), b"{a{}b}:seq".to_vec());
}

#[test]
fn tls_to_a_plain_text_server_is_recognised_at_once() {
    let real = test_dsn();
    let Addr::Tcp { host, port } = &real.addr else {
        panic!("tcp REDIS_URL needed")
    };
    let dsn = Dsn::parse(
        &format!("rediss://{host}:{port}?timeout=5"),
        Timeouts::default(),
    )
    .unwrap();
    for _ in 0..5 {
        let err = command(&dsn, &cmd(&[b"PING"]), true).unwrap_err();
        assert!(
            matches!(err, Error::Connection(ref m) if m.contains("did not answer TLS: it speaks plain-text Redis")),
            "{err}"
        );
        // the probe's answer, not the 5 s connect timeout: the message above
        // says which, and how long it took is for `make bench`
    }
}

#[test]
fn an_acl_refusal_names_the_operation_and_is_not_a_lost_script() {
    static SET: Script = Script {
        name: "cargo_set",
        body: "return redis.call('SET', KEYS[1], ARGV[1])",
        sha: "0000000000000000000000000000000000000000",
    };
    let admin = test_dsn();
    let user = format!("rkcargo{}", std::process::id());
    let rules: &[&[u8]] = &[
        b"reset",
        b"on",
        b">pw",
        b"~*",
        b"&*",
        b"+@all",
        b"-evalsha",
        b"-eval",
        b"-client",
    ];
    let mut setuser = cmd(&[b"ACL", b"SETUSER", user.as_bytes()]);
    for r in rules {
        setuser.push(r);
    }
    command(&admin, &setuser, true).unwrap();
    let Addr::Tcp { host, port } = &admin.addr else {
        panic!("tcp REDIS_URL needed")
    };
    let dsn = Dsn::parse(
        &format!("redis://{user}:pw@{host}:{port}"),
        Timeouts::default(),
    )
    .unwrap();
    let k = key("acl");
    let mut call = ScriptCall::new(&SET);
    call.key(&k).arg("v");
    let err = eval(&dsn, &call, true).unwrap_err();
    assert!(
        matches!(err, Error::Redis(ref m) if m.starts_with("NOPERM") && m.contains("script cargo_set, sent as EVALSHA")),
        "{err}"
    );
    // refused, so not sent again as EVAL (that is for NOSCRIPT only), and nothing written
    assert!(!err.message().contains("EVAL,"), "{err}");
    assert_eq!(
        command(&admin, &cmd(&[b"EXISTS", &k]), true).unwrap(),
        Value::Int(0)
    );
    // a blocking wait refused CLIENT ID: a Redis error, not a lost connection
    let err = wait_signal(&dsn, &k, Duration::from_millis(50)).unwrap_err();
    assert!(
        matches!(err, Error::Redis(ref m) if m.contains("client|id") && m.contains("blocking waits need")),
        "{err}"
    );
    command(&admin, &cmd(&[b"ACL", b"DELUSER", user.as_bytes()]), true).unwrap();
}

/// MULTI/EXEC: a command refused while queueing aborts the whole
/// transaction, and its refusal is the error; script calls of a server that
/// lost the script are sent again with the body, once.
#[test]
fn transactions_apply_whole_or_not_at_all() {
    let dsn = test_dsn();
    let k = key("tx");
    command(&dsn, &cmd(&[b"DEL", &k]), true).unwrap();
    // the second ZADD has a bad arity: refused when queued, nothing runs
    let bad = [cmd(&[b"ZADD", &k, b"1", b"a"]), cmd(&[b"ZADD", &k])];
    let err = transaction(&dsn, &bad, true).unwrap_err();
    assert!(err.message().contains("wrong number of arguments"), "{err}");
    let exists = command(&dsn, &cmd(&[b"EXISTS", &k]), true).unwrap();
    assert_eq!(exists, Value::Int(0));
    let good = [
        cmd(&[b"ZADD", &k, b"1", b"a"]),
        cmd(&[b"ZADD", &k, b"2", b"b", b"3", b"c"]),
    ];
    assert_eq!(
        transaction(&dsn, &good, true).unwrap(),
        vec![Value::Int(1), Value::Int(2)]
    );

    let add = fresh_script(
        "add",
        format!(
            "#!lua\n-- {:?}\nreturn redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])",
            Instant::now()
        ),
    );
    let calls: Vec<_> = (0..3)
        .map(|i| {
            let mut c = ScriptCall::new(add);
            c.key(&k).arg(i.to_string()).arg(format!("s{i}"));
            c
        })
        .collect();
    let get = |k: &str| stats::snapshot().iter().find(|(n, _)| *n == k).unwrap().1;
    let fallbacks = get("noscript_fallbacks");
    assert_eq!(
        eval_transaction(&dsn, &calls, true).unwrap(),
        vec![Value::Int(1), Value::Int(1), Value::Int(1)]
    );
    assert!(get("noscript_fallbacks") > fallbacks);
    let card = command(&dsn, &cmd(&[b"ZCARD", &k]), true).unwrap();
    assert_eq!(card, Value::Int(6));
    command(&dsn, &cmd(&[b"DEL", &k]), true).unwrap();
}

#[test]
fn a_joined_argument_is_the_concatenation() {
    let mut joined = Args::cmd("MGET");
    joined
        .push_joined(b"pre:", b"key")
        .push_joined(b"", b"")
        .push_joined(b"a\r\n", b"\0b");
    let mut whole = Args::cmd("MGET");
    whole.push(b"pre:key").push(b"").push(b"a\r\n\0b");
    assert_eq!(joined.packed(), whole.packed());
}
