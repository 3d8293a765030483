//! The four algorithms in plain Rust, on in-process state: the same rules,
//! with the same integer arithmetic, as `src/lua/_rl_common.lua`. Used by the
//! `on_error => 'local'` fallback, and by the unit tests as the executable
//! statement of what each algorithm guarantees.
use super::{Algorithm, Params};
use std::collections::VecDeque;

#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Times (µs) of the allowed units, oldest first, as (time, units) runs.
    Sliding {
        log: VecDeque<(i64, i64)>,
        count: i64,
    },
    /// Window index (time / window) and units used in it.
    Fixed { idx: i64, count: i64 },
    /// first_hit: the window's start (µs) and units used in it.
    FirstHit { start: i64, count: i64 },
    /// Tokens in 1/W units (`W` = window_us / gcd) at time `t`.
    Bucket { n: i128, t: i64 },
    /// Theoretical arrival time in 1/L microseconds (`L` = limit / gcd).
    Gcra { tat: i128 },
}

/// The verdict on one attempt, durations in microseconds from `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    pub ok: bool,
    pub remaining: i64,
    pub retry_us: i64,
    pub reset_us: i64,
    /// How long an attempt of cost 1 would still be refused (0: it would pass).
    pub block_us: i64,
}

fn ceil_div(x: i128, y: i128) -> i128 {
    if x <= 0 {
        0
    } else {
        (x + y - 1) / y
    }
}

fn narrow(x: i128) -> i64 {
    x.clamp(0, i64::MAX as i128) as i64
}

/// Decides an attempt of `cost` at `now_us`; when allowed and `commit`, the
/// units are consumed. `state` is `None` for a subject with no history.
pub fn check(p: &Params, state: &mut Option<State>, now_us: i64, cost: i64, commit: bool) -> Check {
    let mut c = match p.alg {
        Algorithm::SlidingWindow => sliding(p, state, now_us, cost, commit),
        Algorithm::FixedWindow => fixed(p, state, now_us, cost, commit),
        Algorithm::FixedWindowFirstHit => first_hit(p, state, now_us, cost, commit),
        Algorithm::TokenBucket => bucket(p, state, now_us, cost, commit),
        Algorithm::Gcra => gcra(p, state, now_us, cost, commit),
    };
    c.remaining = c.remaining.max(0);
    c
}

/// Shifts durations measured from `eff` (the time the state was judged at,
/// never before its newest entry) to durations from `now`.
fn shifted(mut c: Check, eff: i64, now: i64) -> Check {
    let shift = eff - now;
    for d in [&mut c.retry_us, &mut c.reset_us, &mut c.block_us] {
        if *d > 0 {
            *d += shift;
        }
    }
    c
}

fn sliding(p: &Params, state: &mut Option<State>, now: i64, cost: i64, commit: bool) -> Check {
    let (log, count) = match state {
        Some(State::Sliding { log, count }) => (log, count),
        _ => {
            *state = Some(State::Sliding {
                log: VecDeque::new(),
                count: 0,
            });
            match state {
                Some(State::Sliding { log, count }) => (log, count),
                _ => unreachable!(),
            }
        }
    };
    let eff = log.back().map_or(now, |&(t, _)| t.max(now));
    let cut = eff - p.window_us;
    while let Some(&(t, n)) = log.front() {
        if t > cut {
            break;
        }
        log.pop_front();
        *count -= n;
    }
    // time of the k-th oldest unit (1-based)
    let kth = |log: &VecDeque<(i64, i64)>, mut k: i64| -> i64 {
        for &(t, n) in log.iter() {
            if k <= n {
                return t;
            }
            k -= n;
        }
        eff
    };
    let mut c = Check {
        ok: *count + cost <= p.limit,
        remaining: p.limit - *count,
        retry_us: 0,
        reset_us: 0,
        block_us: 0,
    };
    if !c.ok {
        c.retry_us = kth(log, *count + cost - p.limit) + p.window_us - eff;
    }
    if *count + 1 > p.limit {
        c.block_us = kth(log, *count + 1 - p.limit) + p.window_us - eff;
    }
    if let Some(&(t, _)) = log.back() {
        c.reset_us = t + p.window_us - eff;
    }
    if c.ok && commit {
        match log.back_mut() {
            Some((t, n)) if *t == eff => *n += cost,
            _ => log.push_back((eff, cost)),
        }
        *count += cost;
        c.remaining -= cost;
        c.reset_us = p.window_us;
    }
    shifted(c, eff, now)
}

/// A window that starts with the first unit admitted: `[start, start + window)`.
fn first_hit(p: &Params, state: &mut Option<State>, now: i64, cost: i64, commit: bool) -> Check {
    let (start, count) = match state {
        Some(State::FirstHit { start, count }) if now < *start + p.window_us => (*start, *count),
        _ => (now, 0),
    };
    let c = window_check(p, count, cost, start + p.window_us - now, commit);
    if c.ok && commit {
        *state = Some(State::FirstHit {
            start,
            count: count + cost,
        });
    }
    c
}

fn fixed(p: &Params, state: &mut Option<State>, now: i64, cost: i64, commit: bool) -> Check {
    let mut eff = now;
    let mut idx = now.div_euclid(p.window_us);
    let mut count = 0;
    if let Some(State::Fixed { idx: si, count: sc }) = state {
        if *si > idx {
            idx = *si;
            eff = idx * p.window_us;
        }
        if *si == idx {
            count = *sc;
        }
    }
    let c = window_check(p, count, cost, (idx + 1) * p.window_us - eff, commit);
    if c.ok && commit {
        *state = Some(State::Fixed {
            idx,
            count: count + cost,
        });
    }
    shifted(c, eff, now)
}

/// Both fixed windows: the verdict with `count` units used and `left` µs of
/// the window to run (the caller stores the units when allowed and `commit`).
fn window_check(p: &Params, count: i64, cost: i64, left: i64, commit: bool) -> Check {
    let mut c = Check {
        ok: count + cost <= p.limit,
        remaining: p.limit - count,
        retry_us: 0,
        reset_us: 0,
        block_us: 0,
    };
    if !c.ok {
        c.retry_us = left;
    }
    if count + 1 > p.limit {
        c.block_us = left;
    }
    if count > 0 {
        c.reset_us = left;
    }
    if c.ok && commit {
        c.remaining -= cost;
        c.reset_us = left;
    }
    c
}

/// The bucket's tokens (1/W units) and the time they are judged at (never
/// before the state's own time).
fn bucket_level(p: &Params, state: &Option<State>, now: i64) -> (i128, i64) {
    let rate = p.l_red as i128;
    let cap = p.burst as i128 * p.w_red as i128;
    match state {
        Some(State::Bucket { n: sn, t }) => {
            let eff = now.max(*t);
            let sn = (*sn).clamp(0, cap);
            let e = (eff - *t) as i128;
            let n = if e >= ceil_div(cap - sn, rate) {
                cap
            } else {
                sn + e * rate
            };
            (n, eff)
        }
        _ => (cap, now),
    }
}

fn bucket(p: &Params, state: &mut Option<State>, now: i64, cost: i64, commit: bool) -> Check {
    let rate = p.l_red as i128;
    let unit = p.w_red as i128;
    let cap = p.burst as i128 * unit;
    let need = cost as i128 * unit;
    let (n, eff) = bucket_level(p, state, now);
    let mut c = Check {
        ok: n >= need,
        remaining: narrow(n / unit),
        retry_us: 0,
        reset_us: narrow(ceil_div(cap - n, rate)),
        block_us: 0,
    };
    if !c.ok {
        c.retry_us = narrow(ceil_div(need - n, rate));
    }
    if n < unit {
        c.block_us = narrow(ceil_div(unit - n, rate));
    }
    if c.ok && commit {
        let left = n - need;
        *state = Some(State::Bucket { n: left, t: eff });
        c.remaining = narrow(left / unit);
        c.reset_us = narrow(ceil_div(cap - left, rate));
    }
    shifted(c, eff, now)
}

fn gcra(p: &Params, state: &mut Option<State>, now: i64, cost: i64, commit: bool) -> Check {
    let l = p.l_red as i128;
    let t = p.w_red as i128; // the emission interval, in 1/L µs
    let bt = p.burst as i128 * t;
    let now_s = now as i128 * l;
    let tat = match state {
        Some(State::Gcra { tat }) => (*tat).max(now_s),
        _ => now_s,
    };
    let new_tat = tat + cost as i128 * t;
    let allow_at = new_tat - bt;
    let remaining = |tat: i128| narrow((now_s + bt - tat).max(0) / t);
    let mut c = Check {
        ok: allow_at <= now_s,
        remaining: remaining(tat),
        retry_us: narrow(ceil_div(allow_at - now_s, l)),
        reset_us: narrow(ceil_div(tat - now_s, l)),
        block_us: narrow(ceil_div(tat + t - bt - now_s, l)),
    };
    if c.ok && commit {
        *state = Some(State::Gcra { tat: new_tat });
        c.remaining = remaining(new_tat);
        c.reset_us = narrow(ceil_div(new_tat - now_s, l));
    }
    c
}

/// A reservation (token_bucket and gcra only): `cost` units taken now if
/// they are there, otherwise taken from the future (the state moves to when
/// they will have refilled) and `retry_us` is the wait until then. Refused,
/// with nothing changed, only when that wait is above `max_wait_us`.
/// `remaining` counts the units there now; `block_us` is always 0.
pub fn reserve(
    p: &Params,
    state: &mut Option<State>,
    now: i64,
    cost: i64,
    max_wait_us: Option<i64>,
) -> Check {
    let probe = check(p, state, now, cost, false);
    let mut c = if probe.ok {
        check(p, state, now, cost, true)
    } else if max_wait_us.is_some_and(|m| probe.retry_us > m) {
        probe
    } else {
        match p.alg {
            Algorithm::TokenBucket => {
                let rate = p.l_red as i128;
                let cap = p.burst as i128 * p.w_red as i128;
                let need = cost as i128 * p.w_red as i128;
                let (n, eff) = bucket_level(p, state, now);
                let w = ceil_div(need - n, rate);
                // taken at the exact instant they are there, then refilling
                // until `at` (the next whole microsecond)
                let left = (n + w * rate - need).min(cap);
                let at = eff + narrow(w);
                *state = Some(State::Bucket { n: left, t: at });
                Check {
                    ok: true,
                    remaining: 0,
                    retry_us: at - now,
                    reset_us: narrow(ceil_div(cap - left, rate)) + (at - now),
                    block_us: 0,
                }
            }
            Algorithm::Gcra => {
                let l = p.l_red as i128;
                let now_s = now as i128 * l;
                let tat = match state {
                    Some(State::Gcra { tat }) => (*tat).max(now_s),
                    _ => now_s,
                };
                let new_tat = tat + cost as i128 * p.w_red as i128;
                *state = Some(State::Gcra { tat: new_tat });
                Check {
                    ok: true,
                    remaining: 0,
                    retry_us: probe.retry_us,
                    reset_us: narrow(ceil_div(new_tat - now_s, l)),
                    block_us: 0,
                }
            }
            // the window algorithms cannot take units they do not have
            _ => probe,
        }
    };
    c.block_us = 0;
    c
}

/// When the state can be forgotten: the time (µs) after which it is
/// equivalent to no state at all.
pub fn idle_after(p: &Params, state: &State) -> i64 {
    match state {
        State::Sliding { log, .. } => log.back().map_or(0, |&(t, _)| t + p.window_us),
        State::Fixed { idx, .. } => (idx + 1) * p.window_us,
        State::FirstHit { start, .. } => start + p.window_us,
        State::Bucket { n, t } => {
            let cap = p.burst as i128 * p.w_red as i128;
            t + narrow(ceil_div(cap - n, p.l_red as i128))
        }
        State::Gcra { tat } => narrow(ceil_div(*tat, p.l_red as i128)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(alg: Algorithm, limit: i64, window: f64, burst: Option<i64>) -> Params {
        Params::new(alg, limit, window, burst).unwrap()
    }

    const ALL: [Algorithm; 5] = [
        Algorithm::SlidingWindow,
        Algorithm::FixedWindow,
        Algorithm::FixedWindowFirstHit,
        Algorithm::TokenBucket,
        Algorithm::Gcra,
    ];

    /// A tiny deterministic generator (no dependency for tests).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[test]
    fn fresh_subject_gets_the_full_allowance() {
        for alg in ALL {
            let p = params(alg, 5, 1.0, None);
            let mut s = None;
            let t0 = 1_700_000_000_000_000;
            for i in 0..5 {
                let c = check(&p, &mut s, t0, 1, true);
                assert!(c.ok, "{alg:?} attempt {i}");
                assert_eq!(c.remaining, 4 - i, "{alg:?}");
            }
            let c = check(&p, &mut s, t0, 1, true);
            assert!(!c.ok, "{alg:?}");
            assert!(c.retry_us > 0 && c.block_us == c.retry_us, "{alg:?} {c:?}");
        }
    }

    /// Trying again exactly retry_after later passes; one microsecond earlier does not.
    /// first_hit: the window is [first admitted unit, + window), and the
    /// next unit after it starts a new one.
    #[test]
    fn first_hit_window_starts_with_its_first_unit() {
        let p = params(Algorithm::FixedWindowFirstHit, 2, 1.0, None);
        let mut s = None;
        let t0 = 1_700_000_000_123_457;
        let c = check(&p, &mut s, t0, 1, true);
        assert!(c.ok && c.remaining == 1 && c.reset_us == 1_000_000, "{c:?}");
        assert!(check(&p, &mut s, t0 + 400_000, 1, true).ok);
        let c = check(&p, &mut s, t0 + 999_999, 1, true);
        assert!(!c.ok && c.retry_us == 1 && c.reset_us == 1, "{c:?}");
        let c = check(&p, &mut s, t0 + 1_000_000, 2, true);
        assert!(c.ok && c.remaining == 0 && c.reset_us == 1_000_000, "{c:?}");
        assert_eq!(
            s,
            Some(State::FirstHit {
                start: t0 + 1_000_000,
                count: 2
            })
        );
    }

    #[test]
    fn retry_after_is_exact() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for alg in ALL {
            for (limit, window, burst) in [
                (3, 1.0, None),
                (7, 0.35, None),
                (10, 2.5, Some(4)),
                (1000, 60.0, None),
                (3, 0.001, None),
            ] {
                let burst = if matches!(alg, Algorithm::TokenBucket | Algorithm::Gcra) {
                    burst
                } else {
                    None
                };
                let p = params(alg, limit, window, burst);
                let mut s = None;
                let mut now = 1_700_000_000_123_457;
                for _ in 0..300 {
                    let cost = 1 + rng.below(p.burst as u64) as i64;
                    let c = check(&p, &mut s, now, cost, true);
                    if !c.ok {
                        let mut before = s.clone();
                        assert!(
                            !check(&p, &mut before, now + c.retry_us - 1, cost, false).ok,
                            "{alg:?} {limit}/{window}: 1 µs early"
                        );
                        let mut at = s.clone();
                        assert!(
                            check(&p, &mut at, now + c.retry_us, cost, false).ok,
                            "{alg:?} {limit}/{window}: on time"
                        );
                        if c.block_us > 0 {
                            let mut b = s.clone();
                            assert!(!check(&p, &mut b, now + c.block_us - 1, 1, false).ok);
                            assert!(check(&p, &mut b, now + c.block_us, 1, false).ok);
                        }
                    }
                    now += rng.below(p.window_us as u64 / 2 + 2) as i64;
                }
            }
        }
    }

    /// The guarantee of each algorithm, checked over random traffic.
    #[test]
    fn never_allows_more_than_the_limit() {
        let mut rng = Rng(12345);
        for alg in ALL {
            for (limit, window, burst) in [
                (5, 0.01, None),
                (13, 0.7, Some(3)),
                (100, 1.0, None),
                (2, 3.0, Some(2)),
            ] {
                let burst = if matches!(alg, Algorithm::TokenBucket | Algorithm::Gcra) {
                    burst
                } else {
                    None
                };
                let p = params(alg, limit, window, burst);
                let mut s = None;
                let mut now: i64 = 1_700_000_000_000_000;
                let mut allowed: Vec<(i64, i64)> = Vec::new();
                for _ in 0..3000 {
                    let cost = 1 + rng.below(p.burst.min(3) as u64) as i64;
                    if check(&p, &mut s, now, cost, true).ok {
                        allowed.push((now, cost));
                    }
                    now += rng.below(p.window_us as u64 / 10 + 1) as i64;
                }
                assert!(allowed.len() > 10, "{alg:?}");
                let w = p.window_us;
                for i in 0..allowed.len() {
                    let start = allowed[i].0;
                    let mut sum = 0;
                    for &(t, c) in &allowed[i..] {
                        match alg {
                            Algorithm::SlidingWindow => {
                                if t >= start + w {
                                    break;
                                }
                                sum += c;
                                assert!(sum <= limit, "sliding window over {start}");
                            }
                            Algorithm::FixedWindow => {
                                if t.div_euclid(w) != start.div_euclid(w) {
                                    break;
                                }
                                sum += c;
                                assert!(sum <= limit, "fixed window at {start}");
                            }
                            _ => {
                                // burst + rate * elapsed, exactly: units * window <= burst * window + limit * elapsed
                                sum += c;
                                let lhs = sum as i128 * w as i128;
                                let rhs = p.burst as i128 * w as i128
                                    + limit as i128 * (t - start) as i128;
                                assert!(lhs <= rhs, "{alg:?}: {sum} units in {} µs", t - start);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn bucket_and_gcra_agree() {
        let mut rng = Rng(777);
        for (limit, window, burst) in [
            (3, 1.0, 3),
            (7, 0.35, 2),
            (1000, 3600.0, 50),
            (9, 0.000_9, 9),
        ] {
            let tb = params(Algorithm::TokenBucket, limit, window, Some(burst));
            let gc = params(Algorithm::Gcra, limit, window, Some(burst));
            let (mut a, mut b) = (None, None);
            let mut now = 1_700_000_000_000_001;
            for _ in 0..2000 {
                let cost = 1 + rng.below(burst as u64) as i64;
                let x = check(&tb, &mut a, now, cost, true);
                let y = check(&gc, &mut b, now, cost, true);
                assert_eq!(x, y, "{limit}/{window} burst {burst} at {now}");
                now += rng.below(tb.window_us as u64 / limit as u64 * 2 + 1) as i64;
            }
        }
    }

    /// Reservations: token_bucket and gcra agree, reserved units come in
    /// at the refill rate (never more than burst + rate * elapsed in all),
    /// and a refused reservation changes nothing.
    #[test]
    fn reservations_agree_and_keep_the_rate() {
        let mut rng = Rng(4242);
        for (limit, window, burst) in [(3, 1.0, 3), (7, 0.35, 2), (1000, 3600.0, 50)] {
            let tb = params(Algorithm::TokenBucket, limit, window, Some(burst));
            let gc = params(Algorithm::Gcra, limit, window, Some(burst));
            let (mut a, mut b) = (None, None);
            let start = 1_700_000_000_000_001;
            let mut now = start;
            let mut last_use = start;
            let mut units = 0i128;
            for _ in 0..2000 {
                let cost = 1 + rng.below(burst as u64) as i64;
                let max = match rng.below(3) {
                    0 => None,
                    1 => Some(0),
                    _ => Some(rng.below(tb.window_us as u64 * 2) as i64),
                };
                let before = a.clone();
                let x = reserve(&tb, &mut a, now, cost, max);
                let y = reserve(&gc, &mut b, now, cost, max);
                assert_eq!(x, y, "{limit}/{window} burst {burst} at {now}");
                if x.ok {
                    assert!(max.is_none_or(|m| x.retry_us <= m));
                    units += cost as i128;
                    last_use = last_use.max(now + x.retry_us);
                    // all the units reserved so far are usable by then only if the rate allows them
                    let elapsed = (last_use - start) as i128;
                    assert!(
                        units <= burst as i128 + elapsed * limit as i128 / tb.window_us as i128 + 1,
                        "{units} units by {elapsed} us"
                    );
                } else {
                    assert_eq!(a, before, "a refused reservation changes nothing");
                    assert!(max.is_some_and(|m| x.retry_us > m));
                }
                now += rng.below(tb.window_us as u64 / limit as u64 * 2 + 1) as i64;
            }
        }
    }

    #[test]
    fn clock_stepping_back_never_allows_more() {
        for alg in ALL {
            let p = params(alg, 3, 1.0, None);
            let mut s = None;
            let t0 = 1_700_000_000_500_000;
            for _ in 0..3 {
                assert!(check(&p, &mut s, t0, 1, true).ok);
            }
            // one second later, but the clock now reads 10 s earlier
            let c = check(&p, &mut s, t0 - 10_000_000, 1, true);
            assert!(!c.ok, "{alg:?}");
            assert!(
                c.retry_us > 10_000_000,
                "{alg:?}: retry measured from the earlier reading"
            );
        }
    }

    #[test]
    fn state_is_idle_after_its_horizon() {
        for alg in ALL {
            let p = params(alg, 4, 0.5, None);
            let mut s = None;
            let t0 = 1_700_000_000_000_000;
            check(&p, &mut s, t0, 3, true);
            let st = s.clone().unwrap();
            let idle = idle_after(&p, &st);
            let mut fresh = None;
            let mut old = s.clone();
            assert_eq!(
                check(&p, &mut old, idle, 4, false),
                check(&p, &mut fresh, idle, 4, false),
                "{alg:?}"
            );
        }
    }
}
