//! The Lua scripts against the Rust model, exactly, on a real redis-server
//! (`REDIS_URL`).
//!
//! The scripts read the server's clock, which a test cannot set. So each
//! case writes a state lying in the future: every algorithm then judges it
//! at the state's own time (never before its newest entry) and reports
//! durations from the script's real time, i.e. all shifted by one unknown
//! constant. The model is run at its own "now" below the state: its
//! durations must differ from the script's by one and the same constant,
//! while verdicts, remaining counts and the state written back must be equal
//! to the microsecond and to the fraction.
use super::model::{self, State};
use super::*;
use crate::conn::test_dsn;
use std::collections::VecDeque;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: i64) -> i64 {
        (self.next() % n.max(1) as u64) as i64
    }
}

fn run(dsn: &Dsn, a: &Args) -> Value {
    conn::command(dsn, a, true).unwrap()
}

fn cmd(parts: &[&[u8]]) -> Args {
    let mut a = Args::new();
    for p in parts {
        a.push(p);
    }
    a
}

fn server_now(dsn: &Dsn) -> i64 {
    match run(dsn, &Args::cmd("TIME")) {
        Value::Array(v) => {
            let mut it = v.into_iter();
            let s = conn::int(it.next().unwrap(), "TIME").unwrap();
            let us = conn::int(it.next().unwrap(), "TIME").unwrap();
            s * 1_000_000 + us
        }
        v => panic!("TIME: {v:?}"),
    }
}

/// A random state whose times all lie in [base - 2 window, base], half the
/// time right at the edge of what an attempt of `cost` (or 1) needs.
fn random_state(p: &Params, rng: &mut Rng, base: i64, cost: i64) -> Option<State> {
    if rng.below(8) == 0 {
        return None;
    }
    let w = p.window_us;
    let edge = rng.below(2) == 0;
    let need = if rng.below(2) == 0 { cost } else { 1 };
    Some(match p.alg {
        Algorithm::SlidingWindow => {
            let mut times: Vec<i64> = Vec::new();
            if edge {
                // exactly limit - need + {-1, 0, 1} units inside the window, some stale ones
                let inside = (p.limit - need + rng.below(3) - 1).max(1);
                times.push(base);
                times.extend((1..inside).map(|_| base - rng.below(w)));
                times.extend((0..rng.below(5)).map(|_| base - w - rng.below(w)));
                // units exactly one window old (out) and one microsecond younger (in)
                let at_edge = base - w + rng.below(2);
                times.extend((0..rng.below(3)).map(|_| at_edge));
            } else {
                let n = rng.below(p.limit + 3);
                times.extend((0..n).map(|_| base - rng.below(2 * w)));
                times.push(base);
            }
            times.sort();
            let mut log: VecDeque<(i64, i64)> = VecDeque::new();
            for t in times {
                match log.back_mut() {
                    Some((lt, c)) if *lt == t => *c += 1,
                    _ => log.push_back((t, 1)),
                }
            }
            let count = log.iter().map(|&(_, c)| c).sum();
            State::Sliding { log, count }
        }
        Algorithm::FixedWindow => {
            let count = if edge {
                (p.limit - need + rng.below(3) - 1).max(0)
            } else {
                rng.below(p.limit + 2)
            };
            State::Fixed {
                idx: base.div_euclid(w),
                count,
            }
        }
        // its state is a count and the key's TTL (whole milliseconds): not a
        // time this test can shift; fixed_window_first_hit_matches_its_rules covers it
        Algorithm::FixedWindowFirstHit => panic!("first_hit is not in the model cases"),
        Algorithm::TokenBucket => {
            let cap = p.burst as i128 * p.w_red as i128;
            let n = if edge {
                (need as i128 * p.w_red as i128 + rng.below(3) as i128 - 1).clamp(0, cap)
            } else {
                (rng.next() as i128).rem_euclid(cap + 1)
            };
            State::Bucket { n, t: base }
        }
        Algorithm::Gcra => {
            let l = p.l_red as i128;
            let bt = p.burst as i128 * p.w_red as i128;
            let tat = base as i128 * l + (rng.next() as i128).rem_euclid(bt + 1);
            State::Gcra { tat }
        }
    })
}

fn write_state(dsn: &Dsn, key: &[u8], p: &Params, s: &Option<State>) {
    run(dsn, &cmd(&[b"DEL", key]));
    let Some(s) = s else { return };
    match s {
        State::Sliding { log, .. } => {
            for &(t, n) in log {
                for _ in 0..n {
                    run(dsn, &cmd(&[b"RPUSH", key, t.to_string().as_bytes()]));
                }
            }
        }
        State::Fixed { idx, count } => {
            run(
                dsn,
                &cmd(&[b"SET", key, format!("{idx}:{count}").as_bytes()]),
            );
        }
        State::FirstHit { .. } => panic!("first_hit is not in the model cases"),
        State::Bucket { n, t } => {
            run(
                dsn,
                &cmd(&[
                    b"HSET",
                    key,
                    b"n",
                    n.to_string().as_bytes(),
                    b"t",
                    t.to_string().as_bytes(),
                ]),
            );
        }
        State::Gcra { tat } => {
            let l = p.l_red as i128;
            let v = if tat % l == 0 {
                format!("{}", tat / l)
            } else {
                format!("{}:{}", tat / l, tat % l)
            };
            run(dsn, &cmd(&[b"SET", key, v.as_bytes()]));
        }
    }
    run(dsn, &cmd(&[b"PEXPIRE", key, b"60000"]));
}

/// The state as the model would store it, read back from Redis.
fn read_state(dsn: &Dsn, key: &[u8], p: &Params) -> Option<String> {
    let v = match p.alg {
        Algorithm::SlidingWindow => run(dsn, &cmd(&[b"LRANGE", key, b"0", b"-1"])),
        Algorithm::TokenBucket => run(dsn, &cmd(&[b"HMGET", key, b"n", b"t"])),
        _ => run(dsn, &cmd(&[b"GET", key])),
    };
    let text = |v: Value| String::from_utf8(conn::bytes(v, "state").unwrap()).unwrap();
    match v {
        Value::Nil => None,
        Value::Array(items) if items.is_empty() => None,
        Value::Array(items) if items.iter().all(|i| *i == Value::Nil) => None,
        Value::Array(items) => Some(items.into_iter().map(text).collect::<Vec<_>>().join(" ")),
        v => Some(text(v)),
    }
}

fn model_text(p: &Params, s: &Option<State>) -> Option<String> {
    match s.as_ref()? {
        State::Sliding { log, .. } if log.is_empty() => None,
        State::Sliding { log, .. } => Some(
            log.iter()
                .flat_map(|&(t, n)| std::iter::repeat_n(t.to_string(), n as usize))
                .collect::<Vec<_>>()
                .join(" "),
        ),
        State::Fixed { idx, count } => Some(format!("{idx}:{count}")),
        State::FirstHit { count, .. } => Some(format!("{count}")),
        State::Bucket { n, t } => Some(format!("{n} {t}")),
        State::Gcra { tat } => {
            let l = p.l_red as i128;
            Some(if tat % l == 0 {
                format!("{}", tat / l)
            } else {
                format!("{}:{}", tat / l, tat % l)
            })
        }
    }
}

fn call(dsn: &Dsn, key: &[u8], p: &Params, cost: i64, script: &conn::Script) -> model::Check {
    call_with(dsn, key, p, cost, script, None)
}

/// A limiter script on one limiter; `extra`: one more argument after the
/// limiter's (rl_reserve.lua's maximum wait).
fn call_with(
    dsn: &Dsn,
    key: &[u8],
    p: &Params,
    cost: i64,
    script: &conn::Script,
    extra: Option<i64>,
) -> model::Check {
    let mut c = ScriptCall::new(script);
    c.key(key).int(1);
    p.push_args(&mut c, cost);
    if let Some(x) = extra {
        c.int(x);
    }
    let (ok, parts) = parse_reply(conn::eval(dsn, &c, false).unwrap(), 1).unwrap();
    let [remaining, retry_us, reset_us, block_us] = parts[0];
    model::Check {
        ok,
        remaining,
        retry_us,
        reset_us,
        block_us,
    }
}

/// A limiter's settings: algorithm, limit, window (s), burst.
type Case = (Algorithm, i64, f64, Option<i64>);

/// token_bucket and gcra settings the attempt and reserve scripts are checked
/// on (3,000,000 per second with a burst of 1 refills a whole bucket within
/// a microsecond).
const BUCKETS: &[Case] = &[
    (Algorithm::TokenBucket, 3, 1.0, Some(3)),
    (Algorithm::TokenBucket, 7, 0.35, Some(2)),
    (Algorithm::TokenBucket, 3_000_000, 1.0, Some(1)),
    (Algorithm::TokenBucket, 1000, 3600.0, Some(50)),
    (Algorithm::Gcra, 3, 1.0, Some(3)),
    (Algorithm::Gcra, 7, 0.35, Some(2)),
    (Algorithm::Gcra, 999_983, 86_400.0, Some(1_000_000)),
    (Algorithm::Gcra, 1000, 3600.0, Some(50)),
];

#[test]
fn scripts_match_the_model_exactly() {
    let dsn = test_dsn();
    let key = format!("rkcargo:{}:rl:{{k}}", std::process::id()).into_bytes();
    let mut rng = Rng(0x2545F4914F6CDD1D);
    let windows: &[Case] = &[
        (Algorithm::SlidingWindow, 5, 1.0, None),
        (Algorithm::SlidingWindow, 40, 0.333333, None),
        (Algorithm::FixedWindow, 3, 0.7, None),
        (Algorithm::FixedWindow, 1000, 3600.0, None),
    ];
    let mut checked = 0;
    for &(alg, limit, window, burst) in windows.iter().chain(BUCKETS) {
        let p = Params::new(alg, limit, window, burst).unwrap();
        for _ in 0..150 {
            // ten seconds (or two windows) ahead of the server's clock
            let now = server_now(&dsn);
            let base = now + 10_000_000 + 2 * p.window_us + rng.below(1_000_000);
            let cost = 1 + rng.below(p.burst.min(1000));
            let state = random_state(&p, &mut rng, base, cost);
            let model_now = now - 1_000_000;
            let what =
                format!("{alg:?} {limit}/{window} burst {burst:?} cost {cost} state {state:?}");
            let scripts = [
                (&scripts::RL_PEEK, false),
                (&scripts::RL_ATTEMPT, true),
                (p.alg.attempt_script(), true),
            ];
            for (script, attempt) in scripts {
                let what = format!("{what} script {}", script.name);
                write_state(&dsn, &key, &p, &state);
                let lua = call(&dsn, &key, &p, if attempt { cost } else { 1 }, script);
                let mut st = state.clone();
                let m = model::check(
                    &p,
                    &mut st,
                    model_now,
                    if attempt { cost } else { 1 },
                    attempt,
                );
                assert_eq!(
                    (lua.ok, lua.remaining),
                    (m.ok, m.remaining),
                    "{what} attempt={attempt}"
                );
                if state.is_none() {
                    // nothing in the future to judge at: the two clocks differ
                    continue;
                }
                // every duration shifted by the same constant (the model's now is earlier)
                let mut shift = None;
                for (a, b) in [
                    (lua.retry_us, m.retry_us),
                    (lua.reset_us, m.reset_us),
                    (lua.block_us, m.block_us),
                ] {
                    assert_eq!(a == 0, b == 0, "{what} attempt={attempt}: {lua:?} vs {m:?}");
                    if b != 0 {
                        let d = b - a;
                        assert!(
                            shift.is_none_or(|s| s == d),
                            "{what} attempt={attempt}: {lua:?} vs {m:?}"
                        );
                        shift = Some(d);
                    }
                }
                if let Some(d) = shift {
                    assert!(
                        d > 0,
                        "{what} attempt={attempt}: the model's now is earlier: {lua:?} vs {m:?}"
                    );
                }
                if attempt {
                    let lua_state = read_state(&dsn, &key, &p);
                    let model_state = model_text(&p, &st);
                    if p.alg == Algorithm::SlidingWindow {
                        // the model trims stale entries on every check; rl_sw
                        // only once 8 have gathered: the live entries are the
                        // model's, after fewer than 8 stale ones
                        let l: Vec<&str> = lua_state
                            .as_deref()
                            .unwrap_or("")
                            .split_whitespace()
                            .collect();
                        let m: Vec<&str> = model_state
                            .as_deref()
                            .unwrap_or("")
                            .split_whitespace()
                            .collect();
                        assert!(
                            l.len() >= m.len() && l.len() - m.len() < 8 && l.ends_with(&m),
                            "{what}: state written back: {l:?} vs the model's {m:?}"
                        );
                    } else {
                        assert_eq!(lua_state, model_state, "{what}: state written back");
                    }
                    checked += 1;
                }
            }
        }
    }
    run(&dsn, &cmd(&[b"DEL", &key]));
    assert!(checked > 2500);
}

/// first_hit on the server: a window starts with the first unit admitted and
/// ends with the key's expiry (whole milliseconds); limiters with another
/// limit or window share the state; a window that ran out starts over.
#[test]
fn fixed_window_first_hit_matches_its_rules() {
    // the general script and the single-limiter one
    for script in [&scripts::RL_ATTEMPT, &scripts::RL_FWH] {
        first_hit_rules(script);
    }
}

fn first_hit_rules(attempt: &conn::Script) {
    let dsn = test_dsn();
    let key = format!("rkcargo:{}:rlfh:{{k}}", std::process::id()).into_bytes();
    run(&dsn, &cmd(&[b"DEL", &key]));
    let p = Params::new(Algorithm::FixedWindowFirstHit, 3, 0.25, None).unwrap();
    let big = Params::new(Algorithm::FixedWindowFirstHit, 1000, 3600.0, None).unwrap();
    let c = call(&dsn, &key, &p, 2, attempt);
    assert!(c.ok && c.remaining == 1 && c.reset_us == 250_000, "{c:?}");
    let pttl = conn::int(run(&dsn, &cmd(&[b"PTTL", &key])), "pttl").unwrap();
    assert!(pttl > 0 && pttl <= 250, "{pttl}");
    // another limit and window: the same count, the same end
    let c = call(&dsn, &key, &big, 1, &scripts::RL_PEEK);
    assert!(c.ok && c.remaining == 998 && c.reset_us <= 250_000, "{c:?}");
    let c = call(&dsn, &key, &p, 2, attempt);
    assert!(
        !c.ok && c.remaining == 1 && c.retry_us > 0 && c.retry_us <= 250_000,
        "{c:?}"
    );
    let c = call(&dsn, &key, &big, 5, attempt);
    assert!(c.ok && c.remaining == 993, "{c:?}");
    assert_eq!(read_state(&dsn, &key, &p).as_deref(), Some("7"));
    assert!(conn::int(run(&dsn, &cmd(&[b"PTTL", &key])), "pttl").unwrap() <= 250);
    // the key expires with the window; the next unit starts a new one
    let deadline = Instant::now() + std::time::Duration::from_secs(10);
    while conn::int(run(&dsn, &cmd(&[b"EXISTS", &key])), "exists").unwrap() == 1 {
        assert!(Instant::now() < deadline, "the window's key never expired");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let c = call(&dsn, &key, &p, 1, attempt);
    assert!(c.ok && c.remaining == 2 && c.reset_us == 250_000, "{c:?}");
    run(&dsn, &cmd(&[b"DEL", &key]));
}

/// rl_reserve.lua against `model::reserve`, on the same random states as the
/// attempt scripts. The maximum wait is none, 0 or far above any wait: a
/// maximum near the wait would be judged on two clocks (see the module
/// comment); the PHP tests check that edge on the server alone.
#[test]
fn reserve_matches_the_model_exactly() {
    let dsn = test_dsn();
    let key = format!("rkcargo:{}:rlres:{{k}}", std::process::id()).into_bytes();
    let mut rng = Rng(0x9E3779B97F4A7C15);
    let (mut reserved_ahead, mut refused) = (0, 0);
    for &(alg, limit, window, burst) in BUCKETS {
        let p = Params::new(alg, limit, window, burst).unwrap();
        for _ in 0..150 {
            let now = server_now(&dsn);
            let base = now + 10_000_000 + 2 * p.window_us + rng.below(1_000_000);
            let cost = 1 + rng.below(p.burst.min(1000));
            let mut state = random_state(&p, &mut rng, base, cost);
            let max_wait = match rng.below(3) {
                0 => None,
                1 => Some(0),
                _ => Some(1_000_000_000_000),
            };
            let what = format!(
                "{alg:?} {limit}/{window} burst {burst:?} cost {cost} max {max_wait:?} state {state:?}"
            );
            // twice in a row: the second one starts from the first one's debt
            for round in 0..2 {
                let fresh = state.is_none();
                write_state(&dsn, &key, &p, &state);
                let lua = call_with(
                    &dsn,
                    &key,
                    &p,
                    cost,
                    &scripts::RL_RESERVE,
                    Some(max_wait.unwrap_or(-1)),
                );
                let m = model::reserve(&p, &mut state, now - 1_000_000, cost, max_wait);
                let what = format!("{what} round {round}: {lua:?} vs {m:?}");
                assert_eq!(
                    (lua.ok, lua.remaining, lua.block_us),
                    (m.ok, m.remaining, 0),
                    "{what}"
                );
                if lua.ok && lua.retry_us > 0 {
                    reserved_ahead += 1;
                }
                if !lua.ok {
                    refused += 1;
                }
                if fresh {
                    // nothing in the future to judge at: the two clocks differ
                    break;
                }
                if m.retry_us > 0 || m.reset_us > 0 {
                    // durations shifted by one constant (the model's now is earlier)
                    let d = m.reset_us - lua.reset_us;
                    assert!(d > 0, "{what}");
                    if m.retry_us > 0 {
                        assert_eq!(m.retry_us - lua.retry_us, d, "{what}");
                    }
                }
                assert_eq!(
                    read_state(&dsn, &key, &p),
                    model_text(&p, &state),
                    "{what}: state"
                );
            }
        }
    }
    run(&dsn, &cmd(&[b"DEL", &key]));
    assert!(
        reserved_ahead > 100 && refused > 50,
        "{reserved_ahead} {refused}"
    );
}
