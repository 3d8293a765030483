//! Option parsing: the `$connection` and `$options` arguments of the four
//! constructors, as the PHP bindings hand them to the core (`Options` of
//! `OptValue`s, `Connection`), plus `RedisLeaderboard::period($p, $id)`.
//! None of this does any I/O: a constructor only validates and remembers.
//!
//! Invariants: no panic (arithmetic overflow included), every failure is
//! `Error::Invalid` (a ValueError: nothing was sent), and neither a message
//! nor a resolved connection's redacted (or Debug) form shows a marked
//! password (passwords of DSNs, of the 'password' / 'sentinel_password'
//! keys, of the ini default DSN).
#![no_main]
mod common;

use common::{assert_no_leak, Cursor, SECRET};
use libfuzzer_sys::fuzz_target;
use rediskit::conn::{Error, Timeouts};
use rediskit::leaderboard::Leaderboard;
use rediskit::lock::Lock;
use rediskit::options::{Connection, OptValue, Options, Settings};
use rediskit::queue::DelayQueue;
use rediskit::ratelimit::RateLimiter;
use std::time::Duration;

const KEYS: &[&str] = &[
    // RedisLeaderboard
    "order",
    "ranking",
    "ties",
    "prefix",
    "ttl",
    "periods",
    "retention",
    "utc_offset",
    // RedisLock
    "watchdog",
    "fair",
    "token",
    "wait_replicas",
    "wait_timeout",
    // DelayQueue
    "visibility_timeout",
    "max_attempts",
    "backoff",
    "consumer",
    // RateLimiter
    "algorithm",
    "burst",
    "on_error",
    "local_block",
    // cluster / sentinel connection arrays
    "cluster",
    "sentinel",
    "service",
    "user",
    "password",
    "sentinel_user",
    "sentinel_password",
    "db",
    "read_timeout",
    "connect_timeout",
    "tls",
];

const WORDS: &[&str] = &[
    "desc",
    "asc",
    "ordinal",
    "competition",
    "dense",
    "lexical",
    "earliest",
    "daily",
    "weekly",
    "monthly",
    "sliding_window",
    "fixed_window",
    "token_bucket",
    "gcra",
    "throw",
    "allow",
    "deny",
    "local",
    "+05:30",
    "-14:00",
    "+14:01",
    "+1:5",
    "-00:60",
    "+99999999999:00",
    "-9223372036854775808:00",
    "2026-11-29",
    "2026-W48",
    "2026-W53",
    "2026-02-30",
    "2026-11",
    "0000-00",
    "9999-W99",
    "",
    "|",
    "a|b",
    "{tag}",
    "prefix:",
    "\u{0}",
];

const INTS: &[i64] = &[
    0,
    1,
    -1,
    2,
    3,
    100,
    10_000,
    10_001,
    1_000_000_000,
    1_000_000_001,
    i32::MAX as i64,
    i64::MAX,
    i64::MIN,
    i64::MAX - 1,
    i64::MIN + 1,
    86_400,
    50_400,
    50_401,
];

const FLOATS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    0.5,
    1e-9,
    1e-300,
    5e-324,
    1e9,
    1e9 - 1.0,
    999_999_999.999_999,
    1e15,
    1e308,
    -1e308,
    f64::MAX,
    f64::MIN_POSITIVE,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    -1.0,
    9.007_199_254_740_993e15,
    0.000_999,
    0.001,
];

/// A value that never shows the secret (the secret goes only where a
/// password belongs: see `password_value`).
fn value(c: &mut Cursor, depth: u32) -> OptValue {
    match c.below(if depth > 2 { 8 } else { 9 }) {
        0 => OptValue::Null,
        1 => OptValue::Bool(c.chance(128)),
        2 => OptValue::Int(c.pick(INTS)),
        3 => OptValue::Int(c.u64() as i64),
        4 => OptValue::Float(c.pick(FLOATS)),
        5 => OptValue::Float(f64::from_bits(c.u64())),
        6 => OptValue::Str(c.pick(WORDS).as_bytes().to_vec()),
        7 => {
            let mut b = c.bytes(12);
            b.iter_mut()
                .filter(|x| matches!(**x, b'~' | b'\''))
                .for_each(|x| *x = b'_');
            if c.chance(16) {
                OptValue::Other(c.pick(&["object", "resource"]))
            } else {
                OptValue::Str(common::scrub(&String::from_utf8_lossy(&b)).into_bytes())
            }
        }
        _ => OptValue::List((0..c.below(5)).map(|_| value(c, depth + 1)).collect()),
    }
}

fn password_value(c: &mut Cursor) -> OptValue {
    match c.below(6) {
        0 => OptValue::Int(1),
        1 => {
            // a password that is not UTF-8
            let mut b = common::password(c, "").into_bytes();
            b.push(0xff);
            OptValue::Str(b)
        }
        _ => OptValue::Str(common::password(c, "").into_bytes()),
    }
}

fn dsn_list(c: &mut Cursor) -> OptValue {
    OptValue::List(
        (0..c.below(5))
            .map(|_| match c.below(8) {
                0 => value(c, 3),
                1 => OptValue::Str(b"127.0.0.1:7000".to_vec()),
                // the seed form without a scheme, with a password
                2 => OptValue::Str(
                    format!("{}@127.0.0.1:7001", common::password(c, ":")).into_bytes(),
                ),
                _ => OptValue::Str(common::dsn(c).into_bytes()),
            })
            .collect(),
    )
}

fn options(c: &mut Cursor, multi: bool) -> Options {
    let mut entries = Vec::new();
    if multi {
        let k = c.pick(&["cluster", "sentinel", "cluster", "sentinel", "service"]);
        entries.push((k.to_string(), dsn_list(c)));
    }
    for _ in 0..c.below(7) {
        let key = if c.chance(24) {
            common::scrub(&c.text(8))
        } else {
            c.pick(KEYS).to_string()
        };
        let v = match key.as_str() {
            "password" | "sentinel_password" if c.chance(200) => password_value(c),
            "cluster" | "sentinel" if c.chance(200) => dsn_list(c),
            _ => value(c, 0),
        };
        entries.push((key, v));
    }
    Options::new(entries)
}

fn connection(c: &mut Cursor) -> Result<Connection, Error> {
    Ok(match c.below(8) {
        0 => Connection::Default,
        1 | 2 => Connection::Dsn(common::dsn(c)),
        3 => Connection::Dsn("redis://127.0.0.1:6379".into()),
        4 => Connection::List((0..c.below(6)).map(|_| common::dsn(c)).collect()),
        5 => Connection::List(
            (0..c.below(6))
                .map(|i| format!("redis://:{SECRET}@127.0.0.1:{}", 7000 + i % 3))
                .collect(),
        ),
        _ => Connection::multi(options(c, true))?,
    })
}

fn settings(c: &mut Cursor) -> Settings {
    Settings {
        default_dsn: if c.chance(128) {
            format!("redis://:{SECRET}@127.0.0.1:6379")
        } else {
            common::dsn(c)
        },
        prefix: common::scrub(&c.text(4)),
        timeouts: Timeouts {
            connect: Duration::from_millis(1 + c.below(3000) as u64),
            read: Duration::from_millis(1 + c.below(3000) as u64),
        },
    }
}

fn name(c: &mut Cursor) -> Vec<u8> {
    match c.below(4) {
        0 => Vec::new(),
        1 => b"board".to_vec(),
        _ => {
            let mut b = c.bytes(8);
            b.iter_mut()
                .filter(|x| matches!(**x, b'~' | b'\''))
                .for_each(|x| *x = b'_');
            b
        }
    }
}

/// A result as the bindings see it: an error's message must not show the
/// password. (What was built is not shown to users; only a `Dsn` promises
/// a redacted Debug form, checked below.)
fn outcome<T>(what: &str, r: Result<T, Error>) -> Option<T> {
    // (one `what` for every constructor: the DSN parser behind them is the same)
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            assert!(
                matches!(e, Error::Invalid(_)),
                "{what}: a constructor does no I/O, so it can only fail with Error::Invalid, got {e:?}"
            );
            assert_no_leak(what, "(options)", e.message());
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Cursor::new(data);
    let which = c.byte();
    let settings = settings(&mut c);
    let Some(conn) = outcome("the error message", connection(&mut c)) else {
        return;
    };
    match which % 6 {
        0 => {
            let n = name(&mut c);
            let o = options(&mut c, false);
            if let Some(b) = outcome(
                "the error message",
                Leaderboard::new(&n, &conn, o, &settings),
            ) {
                for _ in 0..c.below(4) {
                    let p = if c.chance(200) {
                        c.pick(&["daily", "weekly", "monthly"]).to_string()
                    } else {
                        common::scrub(&c.text(8))
                    };
                    let id = if c.chance(200) {
                        c.pick(WORDS).to_string()
                    } else {
                        common::scrub(&c.text(12))
                    };
                    outcome("the error message", b.period(&p, Some(&id)));
                }
            }
        }
        1 => {
            let n = name(&mut c);
            let o = options(&mut c, false);
            outcome("the error message", Lock::new(&n, &conn, o, &settings));
        }
        2 => {
            let n = name(&mut c);
            let o = options(&mut c, false);
            outcome(
                "the error message",
                DelayQueue::new(&n, &conn, o, &settings),
            );
        }
        3 => {
            let n = name(&mut c);
            let limit = if c.chance(128) {
                c.pick(INTS)
            } else {
                c.u64() as i64
            };
            let window = if c.chance(128) {
                c.pick(FLOATS)
            } else {
                f64::from_bits(c.u64())
            };
            let o = options(&mut c, false);
            outcome(
                "the error message",
                RateLimiter::new(&n, limit, window, &conn, o, &settings),
            );
        }
        _ => {
            if let Some(d) = outcome("the error message", conn.single(&settings)) {
                // a cluster's or a sentinel group's description included
                assert_no_leak("Dsn::redacted()", "(connection)", &d.redacted());
                assert_no_leak("Debug of a Dsn", "(connection)", &format!("{d:?}"));
            }
        }
    }
});
