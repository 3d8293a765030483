//! Rankings on a sorted set. Every read is one round trip; writes that must
//! keep side structures in step (earliest-first ties, dense ranks, period
//! boards, TTL) are one script each.
//!
//! Key layout (main key `K` = prefix . name):
//! - `K`: the sorted set. With `ties = lexical` it is the plain `member ->
//!   score` set phpredis code writes; with `ties = earliest` each member is
//!   stored as a 14-hex-digit sequence number followed by the member, so
//!   Redis's own order of equal scores is arrival order, exact for any score.
//! - `{K}:seq` (earliest): member -> its sequence prefix.
//! - `{K}:clock` (earliest): last sequence number handed out.
//! - `{K}:ds`, `{K}:dc` (dense): the distinct scores and how many hold each.
//! - `{K}:daily:2026-11-29`, `{K}:weekly:2026-W48`, `{K}:monthly:2026-11`:
//!   period boards, each with the same layout.
use crate::conn::{self, aux_key, bytes, float, int, Args, Dsn, Error, Result, ScriptCall, Value};
use crate::local::{self, Tier};
use crate::options::{Connection, OptValue, Options, Settings};
use crate::scripts;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    Ordinal,
    Competition,
    Dense,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Daily,
    Weekly,
    Monthly,
}

impl Period {
    pub fn parse(s: &str) -> Result<Period> {
        match s {
            "daily" => Ok(Period::Daily),
            "weekly" => Ok(Period::Weekly),
            "monthly" => Ok(Period::Monthly),
            _ => Err(Error::invalid(format!(
                "unknown period '{}' (use 'daily', 'weekly' or 'monthly')",
                conn::shown(s.as_bytes())
            ))),
        }
    }

    fn letter(self) -> char {
        match self {
            Period::Daily => 'd',
            Period::Weekly => 'w',
            Period::Monthly => 'm',
        }
    }

    fn name(self) -> &'static str {
        match self {
            Period::Daily => "daily",
            Period::Weekly => "weekly",
            Period::Monthly => "monthly",
        }
    }

    /// The id of the period containing `unix_secs` (UTC): `2026-11-29`,
    /// `2026-W48` (ISO week) or `2026-11`. Same arithmetic as `_lb_write.lua`.
    pub fn id_at(self, unix_secs: i64) -> String {
        let days = unix_secs.div_euclid(86_400);
        match self {
            Period::Daily => {
                let (y, m, d) = civil_from_days(days);
                format!("{y:04}-{m:02}-{d:02}")
            }
            Period::Weekly => {
                let wd = (days + 3).rem_euclid(7) + 1;
                let thu = days - wd + 4;
                let (y, _, _) = civil_from_days(thu);
                let week = (thu - days_from_civil(y, 1, 1)).div_euclid(7) + 1;
                format!("{y:04}-W{week:02}")
            }
            Period::Monthly => {
                let (y, m, _) = civil_from_days(days);
                format!("{y:04}-{m:02}")
            }
        }
    }

    fn valid_id(self, id: &str) -> bool {
        let b = id.as_bytes();
        let digits =
            |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
        match self {
            Period::Daily => {
                b.len() == 10
                    && digits(0..4)
                    && b[4] == b'-'
                    && digits(5..7)
                    && b[7] == b'-'
                    && digits(8..10)
            }
            Period::Weekly => b.len() == 8 && digits(0..4) && &b[4..6] == b"-W" && digits(6..8),
            Period::Monthly => b.len() == 7 && digits(0..4) && b[4] == b'-' && digits(5..7),
        }
    }
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[derive(Debug, Clone)]
pub struct Config {
    pub desc: bool,
    pub ranking: Ranking,
    pub earliest: bool,
    pub ttl: Option<Duration>,
    pub periods: Vec<Period>,
    pub retention: i64,
    /// Seconds east of UTC of the calendar periods follow.
    pub utc_offset: i64,
}

pub const OPTIONS: &[&str] = &[
    "order",
    "ranking",
    "ties",
    "prefix",
    "ttl",
    "periods",
    "retention",
    "utc_offset",
    "local",
];

/// `utc_offset`: seconds east of UTC (int) or "+08:00" / "-05:30", within ±14 h.
fn parse_utc_offset(v: Option<OptValue>) -> Result<i64> {
    const MAX: i64 = 14 * 3600;
    let bad = |got: String| {
        Error::invalid(format!(
            "option 'utc_offset' must be seconds east of UTC or '+HH:MM' within ±14:00, got {got}"
        ))
    };
    let secs = match v {
        None | Some(OptValue::Null) => return Ok(0),
        Some(OptValue::Int(i)) => i,
        Some(OptValue::Str(s)) => {
            let t = String::from_utf8_lossy(&s).to_string();
            let (sign, rest) = match t.as_bytes().first() {
                Some(b'+') => (1, &t[1..]),
                Some(b'-') => (-1, &t[1..]),
                _ => return Err(bad(format!("'{}'", conn::shown(&s)))),
            };
            let (h, m) = rest
                .split_once(':')
                .ok_or_else(|| bad(format!("'{}'", conn::shown(&s))))?;
            let secs = match (h.parse::<i64>(), m.parse::<i64>()) {
                (Ok(h), Ok(m))
                    if h.to_string().len() <= 2
                        && (0..60).contains(&m)
                        && m.to_string().len() <= 2 =>
                {
                    sign * (h * 3600 + m * 60)
                }
                _ => return Err(bad(format!("'{}'", conn::shown(&s)))),
            };
            if secs.abs() > MAX {
                return Err(bad(format!("'{}'", conn::shown(&s))));
            }
            secs
        }
        Some(other) => return Err(bad(format!("{other:?}"))),
    };
    if secs.unsigned_abs() > MAX as u64 {
        return Err(bad(secs.to_string()));
    }
    Ok(secs)
}

impl Config {
    /// The config string the scripts parse: "order;ranking;ties;ttl_ms;periods;retention".
    fn encode(&self) -> String {
        let periods: String = if self.periods.is_empty() {
            "-".into()
        } else {
            self.periods.iter().map(|p| p.letter()).collect()
        };
        format!(
            "{};{};{};{};{};{};{}",
            if self.desc { 'd' } else { 'a' },
            match self.ranking {
                Ranking::Ordinal => 'o',
                Ranking::Competition => 'c',
                Ranking::Dense => 'd',
            },
            if self.earliest { 'e' } else { 'l' },
            self.ttl.map(|t| t.as_millis().max(1)).unwrap_or(0),
            periods,
            self.retention,
            self.utc_offset
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub member: Vec<u8>,
    pub score: f64,
    pub rank: i64,
}

#[derive(Debug, Clone)]
pub struct Leaderboard {
    dsn: Arc<Dsn>,
    key: Vec<u8>,
    cfg: Config,
    cfg_arg: String,
    /// Plain sorted set, no side structures: writes and reads can be single commands.
    plain_reads: bool,
    plain_writes: bool,
    keys: [Vec<u8>; 5],
    period_base: Vec<u8>,
    /// The local tier of `top()`, `page()` and `between()` on a plain board,
    /// and the tracking connection it reads through (period boards share
    /// their board's).
    local: Option<(Tier, Arc<Dsn>)>,
}

/// Members per command or script call in bulk writes.
const CHUNK: usize = 1000;

/// The last 0-based position a read asks Redis for: 2^53 - 1. The scripts
/// hold positions in Lua numbers (doubles, exact only up to 2^53), and Redis
/// reads a number a script passes to a command as `%.17g` text, which is not
/// an integer past 10^17. No board holds 2^53 members, so clamping a range
/// there changes no result: `top(PHP_INT_MAX)` is the whole board.
const MAX_POSITION: i64 = (1 << 53) - 1;

impl Leaderboard {
    pub fn new(
        name: &[u8],
        connection: &Connection,
        mut opts: Options,
        settings: &Settings,
    ) -> Result<Self> {
        if name.is_empty() {
            return Err(Error::invalid(
                "RedisLeaderboard: the board name must not be empty",
            ));
        }
        let desc = opts.choice("order", &["desc", "asc"], "desc")? == "desc";
        let ranking =
            match opts.choice("ranking", &["ordinal", "competition", "dense"], "ordinal")? {
                "competition" => Ranking::Competition,
                "dense" => Ranking::Dense,
                _ => Ranking::Ordinal,
            };
        let earliest = opts.choice("ties", &["lexical", "earliest"], "lexical")? == "earliest";
        let prefix = opts
            .bytes("prefix")?
            .unwrap_or_else(|| settings.prefix.clone().into_bytes());
        let ttl = opts.seconds("ttl")?;
        let mut periods = Vec::new();
        for p in opts.string_list("periods")? {
            let p = Period::parse(&p)?;
            if !periods.contains(&p) {
                periods.push(p);
            }
        }
        let retention = opts.int("retention", 0, 10_000, 2)?;
        let utc_offset = parse_utc_offset(opts.take("utc_offset"))?;
        let local = opts.nested("local")?;
        opts.finish("RedisLeaderboard", OPTIONS)?;
        let local = local::options("RedisLeaderboard", local, local::DEFAULT_BYTES)?;
        let dsn = connection.single(settings)?;
        let mut key = prefix;
        key.extend_from_slice(name);
        let local = local.map(|(max, recheck)| local::tier_on(&dsn, "board", &key, max, recheck));
        Ok(Self::with_key(
            dsn,
            key,
            local,
            Config {
                desc,
                ranking,
                earliest,
                ttl,
                periods,
                retention,
                utc_offset,
            },
        ))
    }

    fn with_key(dsn: Arc<Dsn>, key: Vec<u8>, local: Option<(Tier, Arc<Dsn>)>, cfg: Config) -> Self {
        let keys = [
            key.clone(),
            aux_key(&key, "clock"),
            aux_key(&key, "seq"),
            aux_key(&key, "ds"),
            aux_key(&key, "dc"),
        ];
        let period_base = aux_key(&key, "");
        let plain_reads = !cfg.earliest && cfg.ranking == Ranking::Ordinal;
        let plain_writes = plain_reads && cfg.periods.is_empty() && cfg.ttl.is_none();
        Leaderboard {
            cfg_arg: cfg.encode(),
            dsn,
            key,
            cfg,
            plain_reads,
            plain_writes,
            keys,
            period_base,
            local,
        }
    }

    /// This worker is about to write the board: its local reads go first
    /// (its period boards' too: one store).
    fn forget(&self) {
        if let Some((tier, _)) = &self.local {
            tier.clear();
        }
    }

    pub fn key(&self) -> &[u8] {
        &self.key
    }

    fn call<'a>(&self, script: &'a conn::Script) -> ScriptCall<'a> {
        let mut c = ScriptCall::new(script);
        for k in &self.keys {
            c.key(k);
        }
        c.arg(&self.cfg_arg).arg(&self.period_base);
        c
    }

    pub fn set_score(&self, member: &[u8], score: f64) -> Result<()> {
        check_score(score)?;
        self.set_scores(&[(member, score)]).map(|_| ())
    }

    /// Writes many scores in one round trip, all of them or none; returns
    /// how many members were new.
    ///
    /// Up to `CHUNK` members are one command or one script call. A bigger
    /// batch is several chunks in one MULTI/EXEC: pipelined chunks alone could
    /// half-apply when Redis reaches its maxmemory part-way (with
    /// `noeviction`, each command is checked when it starts). Inside a
    /// transaction a command refused while queueing aborts it, and EXEC
    /// itself is refused when it holds a command that may use memory: ZADD,
    /// or a script with a shebang (`lb_set.lua`; a script without one is
    /// only checked at its first write and could let one chunk through).
    pub fn set_scores(&self, entries: &[(&[u8], f64)]) -> Result<i64> {
        self.forget();
        for (_, s) in entries {
            check_score(*s)?;
        }
        if entries.is_empty() {
            return Ok(0);
        }
        // Setting a score is idempotent in every mode (same score: time kept),
        // so a lost reply can safely be retried on a new connection.
        let zadd = |chunk: &[(&[u8], f64)]| {
            let mut a = Args::cmd("ZADD");
            a.push(&self.key);
            for (m, s) in chunk {
                a.float(*s).push(m);
            }
            a
        };
        let set = |chunk: &[(&[u8], f64)]| {
            let mut c = self.call(&scripts::LB_SET);
            for (m, s) in chunk {
                c.arg(m).float(*s);
            }
            c
        };
        let replies = match (self.plain_writes, entries.len() <= CHUNK) {
            (true, true) => vec![conn::command(&self.dsn, &zadd(entries), true)?],
            (false, true) => vec![conn::eval(&self.dsn, &set(entries), true)?],
            (true, false) => {
                let cmds: Vec<Args> = entries.chunks(CHUNK).map(zadd).collect();
                conn::transaction(&self.dsn, &cmds, true)?
            }
            (false, false) => {
                let calls: Vec<ScriptCall> = entries.chunks(CHUNK).map(set).collect();
                conn::eval_transaction(&self.dsn, &calls, true)?
            }
        };
        let mut added = 0;
        for r in replies {
            added += int(conn::check(r)?, "setScores")?;
        }
        Ok(added)
    }

    pub fn set_score_if_better(&self, member: &[u8], score: f64) -> Result<bool> {
        self.forget();
        check_score(score)?;
        let mut c = self.call(&scripts::LB_SET_BETTER);
        c.arg(member).float(score);
        Ok(int(conn::eval(&self.dsn, &c, true)?, "setScoreIfBetter")? == 1)
    }

    pub fn increment_score(&self, member: &[u8], delta: f64) -> Result<f64> {
        self.forget();
        check_score(delta)?;
        if self.plain_writes {
            let mut a = Args::cmd("ZINCRBY");
            a.push(&self.key).float(delta).push(member);
            return float(conn::command(&self.dsn, &a, false)?, "incrementScore");
        }
        let mut c = self.call(&scripts::LB_INCR);
        c.arg(member).float(delta);
        float(conn::eval(&self.dsn, &c, false)?, "incrementScore")
    }

    pub fn remove(&self, members: &[&[u8]]) -> Result<i64> {
        self.forget();
        if members.is_empty() {
            return Ok(0);
        }
        if self.plain_writes {
            let mut a = Args::cmd("ZREM");
            a.push(&self.key);
            for m in members {
                a.push(m);
            }
            return int(conn::command(&self.dsn, &a, true)?, "remove");
        }
        let mut c = self.call(&scripts::LB_REMOVE);
        for m in members {
            c.arg(m);
        }
        int(conn::eval(&self.dsn, &c, true)?, "remove")
    }

    pub fn score(&self, member: &[u8]) -> Result<Option<f64>> {
        if self.plain_reads {
            let mut a = Args::cmd("ZSCORE");
            a.push(&self.key).push(member);
            return match conn::command(&self.dsn, &a, true)? {
                Value::Nil => Ok(None),
                v => float(v, "score").map(Some),
            };
        }
        Ok(self.lookup(member)?.map(|l| l.score))
    }

    pub fn rank(&self, member: &[u8]) -> Result<Option<i64>> {
        if self.plain_reads {
            let mut a = Args::cmd(if self.cfg.desc { "ZREVRANK" } else { "ZRANK" });
            a.push(&self.key).push(member);
            return match conn::command(&self.dsn, &a, true)? {
                Value::Nil => Ok(None),
                v => Ok(Some(int(v, "rank")? + 1)),
            };
        }
        Ok(self.lookup(member)?.map(|l| l.rank))
    }

    pub fn entry(&self, member: &[u8]) -> Result<Option<Entry>> {
        Ok(self.lookup(member)?.map(|l| Entry {
            member: member.to_vec(),
            score: l.score,
            rank: l.rank,
        }))
    }

    /// Share of the board (0..100) this member is ahead of or tied with.
    pub fn percentile(&self, member: &[u8]) -> Result<Option<f64>> {
        Ok(self.lookup(member)?.map(|l| {
            if l.count == 0 {
                100.0
            } else {
                (l.count - l.better) as f64 * 100.0 / l.count as f64
            }
        }))
    }

    fn lookup(&self, member: &[u8]) -> Result<Option<Lookup>> {
        let mut c = self.call(&scripts::LB_ENTRY);
        c.arg(member);
        match conn::eval(&self.dsn, &c, true)? {
            Value::Nil => Ok(None),
            Value::Array(v) if v.len() == 4 => {
                let mut it = v.into_iter();
                let mut next = || it.next().unwrap_or(Value::Nil);
                Ok(Some(Lookup {
                    score: float(next(), "entry")?,
                    rank: int(next(), "entry")?,
                    count: int(next(), "entry")?,
                    better: int(next(), "entry")?,
                }))
            }
            v => Err(Error::unexpected("entry", &v)),
        }
    }

    pub fn top(&self, limit: i64) -> Result<Vec<Entry>> {
        if limit < 1 {
            return Err(Error::invalid(format!("limit must be >= 1, got {limit}")));
        }
        self.range(0, limit - 1)
    }

    pub fn page(&self, page: i64, per_page: i64) -> Result<Vec<Entry>> {
        if page < 1 {
            return Err(Error::invalid(format!("page must be >= 1, got {page}")));
        }
        if per_page < 1 {
            return Err(Error::invalid(format!(
                "perPage must be >= 1, got {per_page}"
            )));
        }
        // Past i64::MAX the page lies beyond any board: saturate, range() clamps.
        let start = (page - 1).saturating_mul(per_page);
        self.range(start, start.saturating_add(per_page - 1))
    }

    pub fn between(&self, from: i64, to: i64) -> Result<Vec<Entry>> {
        if from < 1 {
            return Err(Error::invalid(format!("fromRank must be >= 1, got {from}")));
        }
        if from > to {
            return Err(Error::invalid(format!(
                "fromRank ({from}) must not be greater than toRank ({to})"
            )));
        }
        self.range(from - 1, to - 1)
    }

    /// Entries at 0-based positions `start..=stop` (`0 <= start <= stop`).
    fn range(&self, start: i64, stop: i64) -> Result<Vec<Entry>> {
        let (start, stop) = (start.min(MAX_POSITION), stop.min(MAX_POSITION));
        if self.plain_reads {
            let mut a = Args::cmd(if self.cfg.desc { "ZREVRANGE" } else { "ZRANGE" });
            a.push(&self.key).int(start).int(stop).push("WITHSCORES");
            if let Some(found) = self.local_range(&a, start, stop)? {
                return Ok(found);
            }
            return plain_entries(conn::command(&self.dsn, &a, true)?, start);
        }
        let mut c = self.call(&scripts::LB_RANGE);
        c.int(start).int(stop);
        entries(conn::eval(&self.dsn, &c, true)?)
    }

    /// A range read through the local tier, `None` without one (or when the
    /// server refused tracking: read as without the tier).
    fn local_range(&self, read: &Args, start: i64, stop: i64) -> Result<Option<Vec<Entry>>> {
        let Some((tier, track)) = &self.local else {
            return Ok(None);
        };
        if local::is_refused(track.pool_key()) {
            return Ok(None);
        }
        let variant = format!("{}{start}:{stop}", if self.cfg.desc { 'd' } else { 'a' });
        if let local::Lookup::Hit(raw, _) = tier.get_read(&self.key, variant.as_bytes()) {
            if let Some(found) = decode_range(&raw, start) {
                conn::stats::count(conn::stats::Event::BoardLocalHit, 1);
                return Ok(Some(found));
            }
        }
        match conn::tracked_read(track, &self.key, read) {
            Ok(r) => {
                let found = pairs_entries(r.value, start)?;
                tier.put_read(
                    &self.key,
                    variant.as_bytes(),
                    &encode_range(&found),
                    [0; 4],
                    r.session,
                    r.pttl_ms,
                );
                Ok(Some(found))
            }
            Err(e) => match conn::tracking::take_refusal() {
                Some(why) => {
                    local::refuse_tracking("RedisLeaderboard", &self.dsn, track, &why);
                    Ok(None)
                }
                None => Err(e),
            },
        }
    }

    pub fn around(&self, member: &[u8], radius: i64) -> Result<Vec<Entry>> {
        if radius < 0 {
            return Err(Error::invalid(format!("radius must be >= 0, got {radius}")));
        }
        if radius > 10_000 {
            return Err(Error::invalid(format!(
                "radius must be <= 10000, got {radius}"
            )));
        }
        if self.plain_reads {
            // Two plain commands, as the seed's code: the member's position,
            // then a range wide enough to shift the window at either edge
            // (idx-2r ..= idx+2r). The range must show the member where the
            // first said: otherwise the board moved between them, try again
            // (and after a few such races, one script does it atomically).
            for _ in 0..3 {
                if let Some(window) = self.around_plain(member, radius)? {
                    return Ok(window);
                }
            }
            let mut c = ScriptCall::new(&scripts::LB_AROUND_PLAIN);
            c.key(&self.key)
                .arg(if self.cfg.desc { "d" } else { "a" })
                .arg(member)
                .int(radius);
            return match conn::eval(&self.dsn, &c, true)? {
                Value::Array(v) if v.is_empty() => Ok(Vec::new()),
                Value::Array(v) if v.len() == 3 => {
                    let mut it = v.into_iter();
                    let first = int(it.next().unwrap_or(Value::Nil), "around")?;
                    let idx = int(it.next().unwrap_or(Value::Nil), "around")?;
                    let all = plain_entries(it.next().unwrap_or(Value::Nil), first)?;
                    Ok(around_window(all, first, idx, radius))
                }
                v => Err(Error::unexpected("around", &v)),
            };
        }
        let mut c = self.call(&scripts::LB_AROUND);
        c.arg(member).int(radius);
        entries(conn::eval(&self.dsn, &c, true)?)
    }

    /// `around()` on a plain board in two plain commands; None when the
    /// board changed between them.
    fn around_plain(&self, member: &[u8], radius: i64) -> Result<Option<Vec<Entry>>> {
        let desc = self.cfg.desc;
        let mut a = Args::cmd(if desc { "ZREVRANK" } else { "ZRANK" });
        a.push(&self.key).push(member);
        let idx = match conn::command(&self.dsn, &a, true)? {
            Value::Nil => return Ok(Some(Vec::new())),
            v => int(v, "around")?,
        };
        let first = (idx - 2 * radius).max(0);
        let mut r = Args::cmd(if desc { "ZREVRANGE" } else { "ZRANGE" });
        r.push(&self.key)
            .int(first)
            .int(idx + 2 * radius)
            .push("WITHSCORES");
        let all = plain_entries(conn::command(&self.dsn, &r, true)?, first)?;
        match all.get((idx - first) as usize) {
            Some(e) if e.member == member => Ok(Some(around_window(all, first, idx, radius))),
            _ => Ok(None),
        }
    }

    pub fn count(&self) -> Result<i64> {
        let mut a = Args::cmd("ZCARD");
        a.push(&self.key);
        int(conn::command(&self.dsn, &a, true)?, "count")
    }

    /// Deletes the board and its side keys (not its period boards).
    pub fn clear(&self) -> Result<()> {
        self.forget();
        let mut a = Args::cmd("DEL");
        for k in &self.keys {
            a.push(k);
        }
        conn::command(&self.dsn, &a, true).map(|_| ())
    }

    /// The board of one period: the current one (by the Redis server's clock)
    /// when `id` is `None`.
    pub fn period(&self, period: &str, id: Option<&str>) -> Result<Leaderboard> {
        let p = Period::parse(period)?;
        if !self.cfg.periods.contains(&p) {
            return Err(Error::invalid(format!(
                "period '{}' is not kept by this board (add it to the 'periods' option)",
                conn::shown(period.as_bytes())
            )));
        }
        let id = match id {
            Some(id) if p.valid_id(id) => id.to_string(),
            Some(id) => {
                return Err(Error::invalid(format!(
                    "invalid {period} period id '{id}' (expected {})",
                    match p {
                        Period::Daily => "YYYY-MM-DD",
                        Period::Weekly => "YYYY-Www (ISO week)",
                        Period::Monthly => "YYYY-MM",
                    }
                )))
            }
            None => p.id_at(server_time(&self.dsn)? + self.cfg.utc_offset),
        };
        let mut key = self.period_base.clone();
        key.extend_from_slice(format!("{}:{id}", p.name()).as_bytes());
        let cfg = Config {
            periods: Vec::new(),
            ttl: None,
            ..self.cfg.clone()
        };
        Ok(Self::with_key(
            self.dsn.clone(),
            key,
            self.local.clone(),
            cfg,
        ))
    }
}

struct Lookup {
    score: f64,
    rank: i64,
    count: i64,
    better: i64,
}

/// Unix seconds on the Redis server's clock.
pub fn server_time(dsn: &Dsn) -> Result<i64> {
    match conn::command(dsn, &Args::cmd("TIME"), true)? {
        Value::Array(v) if !v.is_empty() => int(v.into_iter().next().unwrap_or(Value::Nil), "TIME"),
        v => Err(Error::unexpected("TIME", &v)),
    }
}

fn check_score(s: f64) -> Result<()> {
    if s.is_nan() {
        Err(Error::invalid("score must be a number, got NAN"))
    } else {
        Ok(())
    }
}

/// Cuts the 2r+1 window around position `idx` out of the entries at
/// positions `first..` (which reach idx+2r, or the end of the board): the
/// window starts r before idx and is shifted up at the bottom edge.
fn around_window(all: Vec<Entry>, first: i64, idx: i64, r: i64) -> Vec<Entry> {
    let last = first + all.len() as i64 - 1; // the board's end, or idx+2r
    let mut start = (idx - r).max(0);
    let mut stop = start + 2 * r;
    if stop > last {
        stop = last;
        start = (stop - 2 * r).max(0);
    }
    all.into_iter()
        .skip((start - first) as usize)
        .take((stop - start + 1) as usize)
        .collect()
}

/// A WITHSCORES reply of a plain board starting at 0-based position `start`:
/// ordinal ranks follow from the position.
/// A `WITHSCORES` range as RESP3 sends it: `[member, score]` pairs (a flat
/// list, as RESP2 sends it, is read too).
fn pairs_entries(v: Value, start: i64) -> Result<Vec<Entry>> {
    let Value::Array(items) = v else {
        return Err(Error::unexpected("range", &v));
    };
    if !items.iter().all(|i| matches!(i, Value::Array(_))) {
        return plain_entries(Value::Array(items), start);
    }
    let mut out = Vec::with_capacity(items.len());
    let mut rank = start;
    for pair in items {
        let Value::Array(p) = pair else { continue };
        let mut it = p.into_iter();
        let (Some(m), Some(s)) = (it.next(), it.next()) else {
            return Err(Error::Redis("unexpected range pair from Redis".into()));
        };
        rank += 1;
        out.push(range_entry(m, s, rank)?);
    }
    Ok(out)
}

/// One entry of a range reply: its member and score, at `rank`.
fn range_entry(member: Value, score: Value, rank: i64) -> Result<Entry> {
    Ok(Entry {
        member: bytes(member, "range")?,
        score: float(score, "range")?,
        rank,
    })
}

/// A range as the local tier keeps it: per entry, the member's length (u32
/// LE), the member, the score (f64 LE); ranks follow from the start.
fn encode_range(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(entries.iter().map(|e| e.member.len() + 12).sum());
    for e in entries {
        out.extend_from_slice(&(e.member.len() as u32).to_le_bytes());
        out.extend_from_slice(&e.member);
        out.extend_from_slice(&e.score.to_le_bytes());
    }
    out
}

fn decode_range(mut b: &[u8], start: i64) -> Option<Vec<Entry>> {
    let mut out = Vec::new();
    let mut rank = start;
    while !b.is_empty() {
        let n = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
        let member = b.get(4..4 + n)?.to_vec();
        let score = f64::from_le_bytes(b.get(4 + n..12 + n)?.try_into().ok()?);
        b = &b[12 + n..];
        rank += 1;
        out.push(Entry {
            member,
            score,
            rank,
        });
    }
    Some(out)
}

fn plain_entries(v: Value, start: i64) -> Result<Vec<Entry>> {
    let Value::Array(items) = v else {
        return Err(Error::unexpected("range", &v));
    };
    let mut out = Vec::with_capacity(items.len() / 2);
    let mut it = items.into_iter();
    let mut rank = start;
    while let (Some(m), Some(s)) = (it.next(), it.next()) {
        rank += 1;
        out.push(range_entry(m, s, rank)?);
    }
    Ok(out)
}

fn entries(v: Value) -> Result<Vec<Entry>> {
    let Value::Array(items) = v else {
        return Err(Error::unexpected("leaderboard range", &v));
    };
    let mut out = Vec::with_capacity(items.len() / 3);
    let mut it = items.into_iter();
    while let (Some(m), Some(s), Some(r)) = (it.next(), it.next(), it.next()) {
        out.push(Entry {
            member: bytes(m, "range")?,
            score: float(s, "range")?,
            rank: int(r, "range")?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_kept_locally_read_back_as_they_were() {
        let e = |m: &str, score: f64, rank: i64| Entry {
            member: m.as_bytes().to_vec(),
            score,
            rank,
        };
        let range = vec![
            e("a", 1.5, 11),
            e("", f64::INFINITY, 12),
            e("b\0c", -0.0, 13),
        ];
        let back = decode_range(&encode_range(&range), 10).unwrap();
        assert_eq!(back.len(), 3);
        for (x, y) in range.iter().zip(&back) {
            assert_eq!(
                (&x.member, x.score.to_bits(), x.rank),
                (&y.member, y.score.to_bits(), y.rank)
            );
        }
        assert!(decode_range(&[1, 0, 0], 0).is_none());
        // RESP3's pairs, and RESP2's flat list
        let pairs = Value::Array(vec![
            Value::Array(vec![Value::BulkString(b"x".to_vec()), Value::Double(2.5)]),
            Value::Array(vec![Value::BulkString(b"y".to_vec()), Value::Double(1.0)]),
        ]);
        let got = pairs_entries(pairs, 0).unwrap();
        assert_eq!(
            (got[1].member.as_slice(), got[1].score, got[1].rank),
            (&b"y"[..], 1.0, 2)
        );
        let flat = Value::Array(vec![
            Value::BulkString(b"x".to_vec()),
            Value::BulkString(b"2.5".to_vec()),
        ]);
        assert_eq!(pairs_entries(flat, 4).unwrap()[0].rank, 5);
    }

    #[test]
    fn period_ids() {
        // 2026-11-29 is a Sunday in ISO week 48.
        let t = days_from_civil(2026, 11, 29) * 86_400 + 3600;
        assert_eq!(Period::Daily.id_at(t), "2026-11-29");
        assert_eq!(Period::Weekly.id_at(t), "2026-W48");
        assert_eq!(Period::Monthly.id_at(t), "2026-11");
        // ISO week years differ from calendar years at the edges.
        assert_eq!(
            Period::Weekly.id_at(days_from_civil(2027, 1, 1) * 86_400),
            "2026-W53"
        );
        assert_eq!(
            Period::Weekly.id_at(days_from_civil(2024, 12, 30) * 86_400),
            "2025-W01"
        );
        assert_eq!(Period::Weekly.id_at(0), "1970-W01");
        for d in -1000..30_000 {
            assert_eq!(
                days_from_civil(
                    civil_from_days(d).0,
                    civil_from_days(d).1,
                    civil_from_days(d).2
                ),
                d
            );
        }
        assert!(Period::Weekly.valid_id("2026-W48"));
        assert!(!Period::Weekly.valid_id("2026-48"));
        assert!(Period::Daily.valid_id("2026-11-29"));
        assert!(!Period::Monthly.valid_id("2026-1"));
    }

    /// The Lua calendar (what the write scripts use) and the Rust one (what
    /// `period()` uses) must agree on every period id, across year and ISO
    /// week-year boundaries and with UTC offsets.
    #[test]
    fn lua_and_rust_calendars_agree() {
        let dsn = crate::conn::test_dsn();
        let read = |f: &str| {
            std::fs::read_to_string(format!("{}/src/lua/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap()
        };
        let harness = "local out = {}\n\
            for i = 3, #ARGV do\n\
              NOW_S = tonumber(ARGV[i]); NOW_MS = NOW_S * 1000\n\
              for _, c in ipairs({'d', 'w', 'm'}) do\n\
                local id, exp = period(c); out[#out + 1] = id; out[#out + 1] = string.format('%d', exp)\n\
              end\n\
            end\n\
            return out\n";
        let script = format!(
            "{}{}{}",
            read("_lb_common.lua"),
            read("_lb_write.lua"),
            harness
        );
        for offset in [0i64, 28_800, -19_800] {
            let cfg = format!("d;o;l;0;dwm;1;{offset}");
            let mut t = days_from_civil(1999, 12, 20) * 86_400;
            let end = days_from_civil(2041, 1, 10) * 86_400;
            while t < end {
                let mut a = Args::cmd("EVAL");
                a.push(&script).push("0").push(&cfg).push("");
                let mut batch = Vec::new();
                for _ in 0..500 {
                    batch.push(t);
                    a.int(t);
                    t += 86_400 * 3 / 7 + 3_601; // walks through every weekday and hour
                }
                let v = conn::command(&dsn, &a, true).unwrap();
                let Value::Array(items) = v else {
                    panic!("{v:?}")
                };
                let mut it = items
                    .into_iter()
                    .map(|v| String::from_utf8(bytes(v, "t").unwrap()).unwrap());
                for ts in batch {
                    let local = ts + offset;
                    for p in [Period::Daily, Period::Weekly, Period::Monthly] {
                        let id = it.next().unwrap();
                        let expire_ms: i64 = it.next().unwrap().parse().unwrap();
                        assert_eq!(
                            id,
                            format!("{}:{}", p.name(), p.id_at(local)),
                            "at {ts} offset {offset}"
                        );
                        // retention 1: the board lives through one more period and
                        // expires when the period after that starts (local time).
                        let expected = next_start(p, next_start(p, local));
                        assert_eq!(
                            expire_ms / 1000 + offset,
                            expected,
                            "{id} at {ts} offset {offset}"
                        );
                    }
                }
            }
        }
    }

    /// Start (local seconds) of the period after the one holding `local`.
    fn next_start(p: Period, local: i64) -> i64 {
        let day = local.div_euclid(86_400);
        let start_day = match p {
            Period::Daily => day + 1,
            Period::Weekly => (day + 1..day + 8)
                .find(|d| (d + 3).rem_euclid(7) == 0)
                .unwrap(),
            Period::Monthly => {
                let (y, m, _) = civil_from_days(day);
                if m == 12 {
                    days_from_civil(y + 1, 1, 1)
                } else {
                    days_from_civil(y, m + 1, 1)
                }
            }
        };
        start_day * 86_400
    }

    fn test_board(name: &str, cfg: Config) -> Leaderboard {
        let key = format!("rkt:cargo:{}:{name}", std::process::id()).into_bytes();
        Leaderboard::with_key(Arc::new(crate::conn::test_dsn()), key, None, cfg)
    }

    /// Ranges past what a Lua number or an i64 holds read as the whole board
    /// (or nothing), the same on every board shape as on a plain one.
    #[test]
    fn huge_ranges_on_every_shape() {
        let big = [(1i64 << 53) + 1, 1 << 62, i64::MAX];
        for desc in [true, false] {
            for ranking in [Ranking::Ordinal, Ranking::Competition, Ranking::Dense] {
                for earliest in [false, true] {
                    let cfg = Config {
                        desc,
                        ranking,
                        earliest,
                        ttl: None,
                        periods: Vec::new(),
                        retention: 2,
                        utc_offset: 0,
                    };
                    let lb = test_board(&format!("huge:{desc}:{ranking:?}:{earliest}"), cfg);
                    lb.clear().unwrap();
                    let scores: [(&[u8], f64); 4] =
                        [(b"a", 3.0), (b"b", 2.0), (b"c", 2.0), (b"d", 1.0)];
                    lb.set_scores(&scores).unwrap();
                    let all = lb.top(4).unwrap();
                    assert_eq!(all.len(), 4);
                    for n in big {
                        let shape = format!("desc={desc} {ranking:?} earliest={earliest} n={n}");
                        assert_eq!(lb.top(n).unwrap(), all, "top {shape}");
                        assert_eq!(lb.between(3, n).unwrap(), all[2..], "between {shape}");
                        assert_eq!(lb.page(1, n).unwrap(), all, "page(1, n) {shape}");
                        assert!(lb.page(2, n).unwrap().is_empty(), "page(2, n) {shape}");
                        assert!(lb.page(n, n).unwrap().is_empty(), "page(n, n) {shape}");
                        assert!(
                            lb.between(n, n).unwrap().is_empty(),
                            "between(n, n) {shape}"
                        );
                    }
                    lb.clear().unwrap();
                }
            }
        }
    }

    #[test]
    fn config_string() {
        let c = Config {
            desc: false,
            ranking: Ranking::Dense,
            earliest: true,
            ttl: Some(Duration::from_millis(1500)),
            periods: vec![Period::Weekly, Period::Daily],
            retention: 3,
            utc_offset: -19800,
        };
        assert_eq!(c.encode(), "a;d;e;1500;wd;3;-19800");
        assert_eq!(
            parse_utc_offset(Some(OptValue::Str(b"+08:00".to_vec()))).unwrap(),
            28800
        );
        assert_eq!(
            parse_utc_offset(Some(OptValue::Str(b"-05:30".to_vec()))).unwrap(),
            -19800
        );
        assert_eq!(parse_utc_offset(Some(OptValue::Int(3600))).unwrap(), 3600);
        for bad in ["08:00", "+8", "+15:00", "+08:60", "+x:00"] {
            assert!(
                parse_utc_offset(Some(OptValue::Str(bad.as_bytes().to_vec()))).is_err(),
                "{bad}"
            );
        }
        assert!(parse_utc_offset(Some(OptValue::Int(50_401))).is_err());
    }
}
