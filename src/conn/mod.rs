//! The connection layer every primitive goes through: DSNs, the per-worker
//! pool, fork safety, scripts (EVALSHA with a one-round-trip EVAL fallback),
//! blocking waits that wake on time, and key naming.
mod dsn;
mod error;
mod pool;
mod resp;
pub mod slot;
pub mod stats;
mod tls;
mod topology;
pub mod tracking;
mod wire;

#[cfg(test)]
mod tests;

pub use dsn::{redact_raw, Addr, Dsn, Timeouts, TlsOpts, DEFAULT_WAIT_TIMEOUT, MAX_WAIT_REPLICAS};
pub use error::{shown, shown_float, Error, Result};
pub use pool::{close_all, nothing_sent, pooled};
pub use redis::Value;
pub use topology::{cluster_dsn, master_routes, node_address, sentinel_dsn, MultiSpec, Topology};
pub use wire::decode_replies;

use pool::Slot;
use std::time::{Duration, Instant};
use topology::dispatch;
use wire::{server_error_text, write_bulk, write_bulk_int, write_header, Fail, Wire};

/// A Lua script embedded at build time with the SHA1 of its body.
#[derive(Debug)]
pub struct Script {
    pub name: &'static str,
    pub body: &'static str,
    pub sha: &'static str,
}

/// Arguments of one command or script call, RESP-encoded as they are pushed.
#[derive(Debug, Default, Clone)]
pub struct Args {
    buf: Vec<u8>,
    n: usize,
    /// The key that decides the cluster node, when it is not the first argument.
    pub route: Option<Vec<u8>>,
}

impl Args {
    pub fn new() -> Self {
        Args {
            // most commands and script calls fit: no regrowth while pushing
            buf: Vec::with_capacity(512),
            n: 0,
            route: None,
        }
    }

    pub fn cmd(name: &str) -> Self {
        let mut a = Args::new();
        a.push(name);
        a
    }

    pub fn push(&mut self, b: impl AsRef<[u8]>) -> &mut Self {
        write_bulk(&mut self.buf, b.as_ref());
        self.n += 1;
        self
    }

    /// One argument of two pieces (a prefix and a key), written without
    /// building it first.
    pub fn push_joined(&mut self, a: &[u8], b: &[u8]) -> &mut Self {
        self.buf.reserve(a.len() + b.len() + 16);
        write_header(&mut self.buf, b'$', (a.len() + b.len()) as u64);
        self.buf.extend_from_slice(a);
        self.buf.extend_from_slice(b);
        self.buf.extend_from_slice(b"\r\n");
        self.n += 1;
        self
    }

    pub fn int(&mut self, v: i64) -> &mut Self {
        write_bulk_int(&mut self.buf, v);
        self.n += 1;
        self
    }

    /// A double, written so Redis and Lua read back the same value: an
    /// integral one below 1e15 as an integer (formatted without allocating),
    /// any other in `%.17g` style.
    pub fn float(&mut self, v: f64) -> &mut Self {
        if v == v.trunc() && v.abs() < 1e15 {
            return self.int(v as i64);
        }
        self.push(fmt_float(v))
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// The key a cluster routes this command by: the explicit `route`, else
    /// the first argument of commands that take a key first; `None` for
    /// keyless commands (any node will do).
    pub fn route(&self) -> Option<&[u8]> {
        if let Some(r) = &self.route {
            return Some(r);
        }
        let mut parts = BulkIter { buf: &self.buf };
        let name = parts.next()?;
        const KEYLESS: &[&[u8]] = &[
            b"TIME",
            b"PING",
            b"CLIENT",
            b"SCRIPT",
            b"INFO",
            b"CLUSTER",
            b"ROLE",
            b"CONFIG",
            b"DEBUG",
            b"FLUSHDB",
            b"FLUSHALL",
            b"WAIT",
            b"ECHO",
            b"SELECT",
            b"DBSIZE",
        ];
        if KEYLESS.iter().any(|k| k.eq_ignore_ascii_case(name)) {
            return None;
        }
        if name.eq_ignore_ascii_case(b"MEMORY") || name.eq_ignore_ascii_case(b"OBJECT") {
            parts.next();
        }
        parts.next()
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// "command ZADD on key 'k'", for messages (the name and key escaped and capped).
    fn describe(&self) -> String {
        let mut parts = BulkIter { buf: &self.buf };
        let name = parts.next().unwrap_or_default().to_ascii_uppercase();
        match self.route() {
            Some(k) => format!("command {} on key '{}'", shown(&name), shown(k)),
            None => format!("command {}", shown(&name)),
        }
    }

    fn packed(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.buf.len() + 16);
        self.pack_into(&mut out, &[]);
        out
    }

    /// `packed` into this thread's reusable send buffer (see `Scratch`).
    fn packed_scratch(&self) -> Scratch {
        let mut s = Scratch::take();
        self.pack_into(&mut s.0, &[]);
        s
    }

    fn pack_into(&self, out: &mut Vec<u8>, head: &[&[u8]]) {
        out.reserve(self.buf.len() + 16);
        write_header(out, b'*', (head.len() + self.n) as u64);
        for h in head {
            write_bulk(out, h);
        }
        out.extend_from_slice(&self.buf);
    }
}

/// A send buffer borrowed from this thread for one request and given back
/// when dropped, so packing a command allocates nothing once warm. A nested
/// request (CLIENT UNBLOCK sent while a wait is packed) finds it taken and
/// gets a fresh one.
struct Scratch(Vec<u8>);

thread_local! {
    static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Scratch {
    fn take() -> Scratch {
        Scratch(SCRATCH.with(|s| s.take()))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // a buffer grown for one huge request is not kept
        if self.0.capacity() <= 64 * 1024 {
            let mut v = std::mem::take(&mut self.0);
            v.clear();
            SCRATCH.with(|s| s.set(v));
        }
    }
}

/// Walks the bulk strings of an `Args` buffer.
struct BulkIter<'a> {
    buf: &'a [u8],
}

impl<'a> Iterator for BulkIter<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.buf.strip_prefix(b"$")?;
        let nl = rest.iter().position(|&b| b == b'\r')?;
        let len: usize = std::str::from_utf8(&rest[..nl]).ok()?.parse().ok()?;
        let start = nl + 2;
        let item = rest.get(start..start + len)?;
        self.buf = rest.get(start + len + 2..).unwrap_or(&[]);
        Some(item)
    }
}

/// `%.17g`-style: the shortest text that parses back to the same double
/// (`Args::float` writes integral values below 1e15 itself).
fn fmt_float(v: f64) -> String {
    if v == f64::INFINITY {
        "inf".into()
    } else if v == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        format!("{v:e}")
    }
}

/// One invocation of a script: its keys, then its arguments.
#[derive(Debug)]
pub struct ScriptCall<'s> {
    script: &'s Script,
    keys: usize,
    tail: Args,
}

impl<'s> ScriptCall<'s> {
    pub fn new(script: &'s Script) -> Self {
        ScriptCall {
            script,
            keys: 0,
            tail: Args::new(),
        }
    }

    pub fn key(&mut self, k: impl AsRef<[u8]>) -> &mut Self {
        debug_assert_eq!(
            self.keys,
            self.tail.len(),
            "keys must come before arguments"
        );
        self.tail.push(k);
        self.keys += 1;
        self
    }

    pub fn arg(&mut self, a: impl AsRef<[u8]>) -> &mut Self {
        self.tail.push(a);
        self
    }

    pub fn int(&mut self, v: i64) -> &mut Self {
        self.tail.int(v);
        self
    }

    pub fn float(&mut self, v: f64) -> &mut Self {
        self.tail.float(v);
        self
    }

    /// The first key: a script's keys all live in one cluster slot.
    fn route(&self) -> Option<&[u8]> {
        if self.keys == 0 {
            return None;
        }
        BulkIter {
            buf: &self.tail.buf,
        }
        .next()
    }

    /// "script lock_try, sent as EVALSHA, on key 'k' and 2 more", for messages.
    fn describe(&self, by_body: bool) -> String {
        let how = if by_body {
            "not in the server's script cache, sent again as EVAL"
        } else {
            "sent as EVALSHA"
        };
        let keys = match (self.route(), self.keys) {
            (None, _) => String::new(),
            (Some(k), 1) => format!(", on key '{}'", shown(k)),
            (Some(k), n) => format!(", on key '{}' and {} more", shown(k), n - 1),
        };
        format!("script {}, {how}{keys}", self.script.name)
    }

    fn pack(&self, out: &mut Vec<u8>, by_body: bool) {
        let (verb, what): (&[u8], &[u8]) = if by_body {
            (b"EVAL", self.script.body.as_bytes())
        } else {
            (b"EVALSHA", self.script.sha.as_bytes())
        };
        out.reserve(self.tail.buf.len() + what.len() + 48);
        write_header(out, b'*', (3 + self.tail.n) as u64);
        write_bulk(out, verb);
        write_bulk(out, what);
        write_bulk_int(out, self.keys as i64);
        out.extend_from_slice(&self.tail.buf);
    }
}

fn is_noscript(v: &Value) -> bool {
    matches!(v, Value::ServerError(e) if e.code() == "NOSCRIPT")
}

/// Turns a Redis error reply into `Error::Redis` carrying Redis's own text.
pub fn check(v: Value) -> Result<Value> {
    match v {
        Value::ServerError(e) => {
            stats::error();
            let text = server_error_text(&e);
            // Missing or revoked credentials: a connection problem, not a data one.
            if matches!(e.code(), "NOAUTH" | "WRONGPASS") {
                return Err(Error::Connection(format!(
                    "Redis refused the command: {text} (check the DSN's credentials)"
                )));
            }
            Err(Error::Redis(text))
        }
        v => Ok(v),
    }
}

/// An error the server's ACL raised: the command itself (NOPERM), one of
/// its keys, or a command a script ran (an ERR from inside the script).
fn is_acl_refusal(e: &redis::ServerError) -> bool {
    e.code() == "NOPERM"
        || e.details().is_some_and(|d| {
            d.contains("user executing the script can't") || d.starts_with("ACL failure")
        })
}

/// `check`, with `what` (the operation) appended to an ACL refusal: Redis's
/// text names neither the script nor the key.
fn check_as(v: Value, what: impl FnOnce() -> String) -> Result<Value> {
    match &v {
        Value::ServerError(e) if is_acl_refusal(e) => {
            stats::error();
            Err(Error::Redis(format!(
                "{} ({})",
                server_error_text(e),
                what()
            )))
        }
        _ => check(v),
    }
}

/// The first ACL refusal among pipelined replies, as an error naming its operation.
fn refused_in(replies: &[Value], what: impl Fn(usize, &Value) -> String) -> Result<()> {
    for (i, v) in replies.iter().enumerate() {
        if let Value::ServerError(e) = v {
            if is_acl_refusal(e) {
                stats::error();
                return Err(Error::Redis(format!(
                    "{} ({})",
                    server_error_text(e),
                    what(i, v)
                )));
            }
        }
    }
    Ok(())
}

/// Sends a script by SHA, and by body when the server answers NOSCRIPT
/// (only that: a NOPERM on EVALSHA is the answer, not a reason to try EVAL).
/// `by_body` tells which of the two the reply is for.
fn run_script(
    w: &mut Wire,
    call: &ScriptCall,
    timeout: Duration,
    by_body: &std::cell::Cell<bool>,
) -> std::result::Result<Value, Fail> {
    let mut packed = Scratch::take();
    let packed = &mut packed.0;
    call.pack(packed, false);
    by_body.set(false);
    let v = w.request(packed, timeout)?;
    if !is_noscript(&v) {
        return Ok(v);
    }
    // The server lost its script cache (restart, SCRIPT FLUSH, failover):
    // send the body in the same call, one extra round trip.
    stats::noscript_fallback();
    stats::script_loaded();
    packed.clear();
    call.pack(packed, true);
    by_body.set(true);
    w.request(packed, timeout)
}

/// Runs one script (EVALSHA, falling back to EVAL on NOSCRIPT).
pub fn eval(dsn: &Dsn, call: &ScriptCall, retry_safe: bool) -> Result<Value> {
    let timeout = dsn.read_timeout;
    let by_body = std::cell::Cell::new(false);
    let v = dispatch(
        dsn,
        || call.route(),
        Slot::Main,
        retry_safe,
        |w| run_script(w, call, timeout, &by_body),
    )?;
    check_as(v, || call.describe(by_body.get()))
}

/// Runs a script of the extension's own bookkeeping (`crate::registry`):
/// by body (it runs once per object and process, so caching its SHA would
/// save nothing), counted in `stats()['registrations']`, not in `commands`,
/// and its error replies are not counted as the caller's errors.
pub fn bookkeeping_eval(dsn: &Dsn, call: &ScriptCall) -> Result<Value> {
    let timeout = dsn.read_timeout;
    let mut packed = Vec::new();
    call.pack(&mut packed, true);
    dispatch(
        dsn,
        || call.route(),
        Slot::Main,
        false,
        |w| w.bookkeeping_request(&packed, timeout),
    )
}

/// Runs one script and then `WAIT replicas timeout_ms` on the same
/// connection, in one round trip (plus one more if the server had lost the
/// script): the script's reply, and how many replicas confirmed the writes
/// made so far on that connection (the script's included). The read allows
/// for the WAIT's own timeout.
pub fn eval_then_wait(
    dsn: &Dsn,
    call: &ScriptCall,
    replicas: i64,
    timeout_ms: i64,
    retry_safe: bool,
) -> Result<(Value, Result<i64>)> {
    let timeout = dsn.read_timeout + Duration::from_millis(timeout_ms.max(0) as u64);
    let by_body = std::cell::Cell::new(false);
    let mut wait = Args::cmd("WAIT");
    wait.int(replicas).int(timeout_ms);
    let wait = wait.packed();
    let v = dispatch(
        dsn,
        || call.route(),
        Slot::Main,
        retry_safe,
        |w| {
            let mut packed = Scratch::take();
            let packed = &mut packed.0;
            call.pack(packed, false);
            packed.extend_from_slice(&wait);
            by_body.set(false);
            let mut replies = w.pipeline(packed, 2, timeout)?;
            if is_noscript(&replies[0]) {
                // the server lost its script cache: the body, and WAIT again
                stats::noscript_fallback();
                stats::script_loaded();
                packed.clear();
                call.pack(packed, true);
                packed.extend_from_slice(&wait);
                by_body.set(true);
                replies = w.pipeline(packed, 2, timeout)?;
            }
            // a script refused by MOVED, ASK, TRYAGAIN or READONLY did not
            // run: that reply alone, for dispatch to follow (to the slot's
            // node, again once a migration has moved all its keys, or to the
            // new master) and send both again; the WAIT answered for nothing
            // says nothing
            if matches!(replies.first(), Some(Value::ServerError(e)) if matches!(e.code(), "MOVED" | "ASK" | "TRYAGAIN" | "READONLY"))
            {
                return Ok(replies.swap_remove(0));
            }
            Ok(Value::Array(replies))
        },
    )?;
    if !matches!(v, Value::Array(_)) {
        // a redirect dispatch could not follow (a single server's READONLY)
        check_as(v.clone(), || call.describe(by_body.get()))?;
    }
    let mut replies = array(v, 2)?.into_iter();
    let script = replies.next().unwrap_or(Value::Nil);
    let acked = check_as(replies.next().unwrap_or(Value::Nil), || "WAIT".to_string())
        .and_then(|v| int(v, "WAIT"));
    Ok((check_as(script, || call.describe(by_body.get()))?, acked))
}

/// Runs many script calls in one pipeline (one round trip, plus one more if
/// the server had lost a script). Returns one reply per call, errors included
/// as `Value::ServerError` so the caller can report which one failed.
pub fn eval_many(dsn: &Dsn, calls: &[ScriptCall]) -> Result<Vec<Value>> {
    if calls.is_empty() {
        return Ok(Vec::new());
    }
    let timeout = dsn.read_timeout;
    let resent: std::cell::RefCell<Vec<usize>> = Default::default();
    let replies = dispatch(
        dsn,
        || calls[0].route(),
        Slot::Main,
        false,
        |w| {
            let mut packed = Vec::new();
            for c in calls {
                c.pack(&mut packed, false);
            }
            let mut replies = w.pipeline(&packed, calls.len(), timeout)?;
            let missing: Vec<usize> = (0..replies.len())
                .filter(|&i| is_noscript(&replies[i]))
                .collect();
            resent.replace(missing.clone());
            if !missing.is_empty() {
                stats::noscript_fallback();
                packed.clear();
                let mut loaded: Vec<&str> = Vec::new();
                for &i in &missing {
                    let body = !loaded.contains(&calls[i].script.sha);
                    if body {
                        loaded.push(calls[i].script.sha);
                        stats::script_loaded();
                    }
                    calls[i].pack(&mut packed, body);
                }
                let again = w.pipeline(&packed, missing.len(), timeout)?;
                for (i, v) in missing.into_iter().zip(again) {
                    replies[i] = v;
                }
            }
            Ok(Value::Array(replies))
        },
    )?;
    let replies = array(replies, calls.len())?;
    let resent = resent.into_inner();
    refused_in(&replies, |i, _| calls[i].describe(resent.contains(&i)))?;
    Ok(replies)
}

fn array(v: Value, n: usize) -> Result<Vec<Value>> {
    match v {
        Value::Array(items) if items.len() == n => Ok(items),
        v => Err(Error::unexpected("pipeline", &v)),
    }
}

/// Sends one plain command.
pub fn command(dsn: &Dsn, args: &Args, retry_safe: bool) -> Result<Value> {
    let packed = args.packed_scratch();
    let packed = &packed.0;
    let timeout = dsn.read_timeout;
    let v = dispatch(
        dsn,
        || args.route(),
        Slot::Main,
        retry_safe,
        |w| w.request(packed, timeout),
    )?;
    check_as(v, || args.describe())
}

/// A read through a tracking connection (`Dsn::with_tracking`).
#[derive(Debug)]
pub struct TrackedRead<T> {
    /// The read's reply.
    pub value: T,
    /// `PTTL`'s reply: ms left, -1 for no expiry, -2 for no key.
    pub pttl_ms: i64,
    /// The tracking session that read it (see `tracking`).
    pub session: u64,
}

/// `GET key` through a tracking connection (`tracked_read`).
pub fn tracked_get(dsn: &Dsn, key: &[u8]) -> Result<TrackedRead<Option<Vec<u8>>>> {
    let mut a = Args::cmd("GET");
    a.push(key);
    let r = tracked_read(dsn, key, &a)?;
    let value = match r.value {
        Value::BulkString(b) => Some(b),
        Value::Nil => None,
        v => return Err(Error::unexpected("GET", &v)),
    };
    Ok(TrackedRead {
        value,
        pttl_ms: r.pttl_ms,
        session: r.session,
    })
}

/// A value (`None`: no such key) and its `PTTL`.
pub type ValueAndTtl = (Option<Vec<u8>>, i64);

/// `MGET keys` and `PTTL` of each through a tracking connection, in one
/// round trip (`keys` in one hash slot on a cluster): each value with its
/// PTTL, and the session.
pub fn tracked_mget(dsn: &Dsn, keys: &[Vec<u8>]) -> Result<(Vec<ValueAndTtl>, u64)> {
    let Some(first) = keys.first() else {
        return Ok((Vec::new(), 0));
    };
    let mut read = Args::cmd("MGET");
    for k in keys {
        read.push(k);
    }
    let (reply, ttls, session) = tracked(dsn, first, &read, keys)?;
    let values = match reply {
        Value::Array(v) if v.len() == keys.len() => v,
        v => return Err(Error::unexpected("MGET", &v)),
    };
    let out = values
        .into_iter()
        .zip(ttls)
        .map(|(v, ttl)| match v {
            Value::BulkString(b) => (Some(b), ttl),
            _ => (None, ttl),
        })
        .collect();
    Ok((out, session))
}

/// `read` (a read-only command of `key` alone) and `PTTL key` after `CLIENT
/// CACHING yes`, in one round trip on `dsn`'s tracking connection (cluster:
/// the key's node), so Redis tells that connection when the key changes.
/// The reply is RESP3's (a `WITHSCORES` range is pairs, scores are doubles).
/// `dsn` must be a `Dsn::with_tracking()`; a server that refuses tracking
/// fails the connect (`tracking::take_refusal()` says why).
pub fn tracked_read(dsn: &Dsn, key: &[u8], read: &Args) -> Result<TrackedRead<Value>> {
    let (value, ttls, session) = tracked(dsn, key, read, &[key])?;
    Ok(TrackedRead {
        value,
        pttl_ms: ttls.first().copied().unwrap_or(-2),
        session,
    })
}

/// `CLIENT CACHING yes`, `read`, and `PTTL` of each of `keys`, in one round
/// trip routed by `route`: the read's reply, the PTTLs, the session.
fn tracked<K: AsRef<[u8]>>(
    dsn: &Dsn,
    route: &[u8],
    read: &Args,
    keys: &[K],
) -> Result<(Value, Vec<i64>, u64)> {
    let mut packed = Vec::with_capacity(read.len() * 16 + keys.len() * 32 + 60);
    packed.extend_from_slice(b"*3\r\n$6\r\nCLIENT\r\n$7\r\nCACHING\r\n$3\r\nyes\r\n");
    read.pack_into(&mut packed, &[]);
    for k in keys {
        wire::pack_into(&mut packed, [&b"PTTL"[..], k.as_ref()].into_iter());
    }
    let n = 2 + keys.len();
    let timeout = dsn.read_timeout;
    let session = std::cell::Cell::new(0);
    let v = dispatch(
        dsn,
        || Some(route),
        Slot::Main,
        true,
        |w| {
            let mut r = w.pipeline(&packed, n, timeout)?;
            session.set(w.session);
            // an error of the read (a redirect, too) decides the call
            Ok(match r.get(1) {
                Some(Value::ServerError(_)) => r.swap_remove(1),
                _ => Value::Array(r),
            })
        },
    )?;
    let r = array(check_as(v, || read.describe())?, n)?;
    refused_in(&r, |_, _| read.describe())?;
    let mut it = r.into_iter().skip(1);
    let reply = it.next().unwrap_or(Value::Nil);
    let ttls = it.map(|v| int(v, "PTTL")).collect::<Result<_>>()?;
    Ok((reply, ttls, session.get()))
}

/// Sends several plain commands in one round trip; one reply each.
pub fn pipeline(dsn: &Dsn, cmds: &[Args], retry_safe: bool) -> Result<Vec<Value>> {
    let mut packed = Vec::new();
    for c in cmds {
        c.pack_into(&mut packed, &[]);
    }
    let timeout = dsn.read_timeout;
    let replies = dispatch(
        dsn,
        || cmds.first().and_then(Args::route),
        Slot::Main,
        retry_safe,
        |w| w.pipeline(&packed, cmds.len(), timeout).map(Value::Array),
    )?;
    let replies = array(replies, cmds.len())?;
    refused_in(&replies, |i, _| cmds[i].describe())?;
    Ok(replies)
}

/// `MULTI`, the `n` packed commands and `EXEC`, written at once: one round
/// trip, and every command runs or none does. A command Redis refuses while
/// queueing (OOM, MOVED, READONLY, a bad argument) aborts the transaction;
/// that refusal is what this returns, so the caller's error names the cause
/// and a cluster redirect is followed. Otherwise EXEC's own reply: the array
/// of the commands' replies, or its error (EXECABORT, OOM at EXEC time).
///
/// A `MULTI` that Redis refuses (an ACL user without it) would leave the
/// commands behind it to run one by one, outside any transaction. So the
/// first transaction of a connection sends `MULTI` alone and sends the
/// commands only once it was accepted (one more round trip per connection);
/// a refusal is returned with nothing written.
fn transact(
    w: &mut Wire,
    cmds: &[u8],
    n: usize,
    timeout: Duration,
) -> std::result::Result<Value, Fail> {
    const MULTI: &[u8] = b"*1\r\n$5\r\nMULTI\r\n";
    const EXEC: &[u8] = b"*1\r\n$4\r\nEXEC\r\n";
    let mut packed = Vec::with_capacity(cmds.len() + MULTI.len() + EXEC.len());
    let mut expected = n + 1;
    if w.multi_allowed {
        packed.extend_from_slice(MULTI);
        expected += 1;
    } else {
        let first = w.pipeline(MULTI, 1, timeout)?;
        if let Some(refused @ Value::ServerError(_)) = first.into_iter().next() {
            return Ok(refused);
        }
        w.multi_allowed = true;
    }
    packed.extend_from_slice(cmds);
    packed.extend_from_slice(EXEC);
    let mut replies = w.pipeline(&packed, expected, timeout)?;
    let exec = replies.pop().unwrap_or(Value::Nil);
    if let Some(refused) = replies
        .into_iter()
        .find(|v| matches!(v, Value::ServerError(_)))
    {
        return Ok(refused);
    }
    Ok(exec)
}

/// The read timeout once per command of a transaction.
fn transaction_timeout(dsn: &Dsn, n: usize) -> Duration {
    dsn.read_timeout
        .saturating_mul(u32::try_from(n.max(1)).unwrap_or(u32::MAX))
}

/// Several plain commands as one MULTI/EXEC: all of them are applied or none
/// is, whatever happens between them (a maxmemory limit reached part-way
/// through refuses the whole transaction). One reply per command; a command
/// that failed while running inside EXEC (e.g. WRONGTYPE) is its
/// `Value::ServerError`, checked by the caller. The commands must share one
/// cluster slot. EXEC answers only once all of them ran, so the read timeout
/// counts once per command, as it would for their replies in a pipeline.
pub fn transaction(dsn: &Dsn, cmds: &[Args], retry_safe: bool) -> Result<Vec<Value>> {
    let mut packed = Vec::new();
    for c in cmds {
        c.pack_into(&mut packed, &[]);
    }
    let timeout = transaction_timeout(dsn, cmds.len());
    let v = dispatch(
        dsn,
        || cmds.iter().find_map(Args::route),
        Slot::Main,
        retry_safe,
        |w| transact(w, &packed, cmds.len(), timeout),
    )?;
    array(check(v)?, cmds.len())
}

/// Several calls of one script as one MULTI/EXEC (see `transaction`). For
/// the transaction to be refused whole when Redis is over its maxmemory at
/// EXEC time, the script must declare a shebang (`#!lua`, no `allow-oom`):
/// only then does Redis count the EVALSHA as a command that may use memory.
/// A server that lost the script answers NOSCRIPT to every call (one
/// script, one atomic EXEC: none ran), and the transaction is sent again
/// with the body in its first call.
pub fn eval_transaction(dsn: &Dsn, calls: &[ScriptCall], retry_safe: bool) -> Result<Vec<Value>> {
    let Some(first) = calls.first() else {
        return Ok(Vec::new());
    };
    debug_assert!(calls.iter().all(|c| c.script.sha == first.script.sha));
    let timeout = transaction_timeout(dsn, calls.len());
    let v = dispatch(
        dsn,
        || first.route(),
        Slot::Main,
        retry_safe,
        |w| {
            let mut packed = Vec::new();
            for c in calls {
                c.pack(&mut packed, false);
            }
            let v = transact(w, &packed, calls.len(), timeout)?;
            let lost = match &v {
                Value::Array(items) => !items.is_empty() && items.iter().all(is_noscript),
                _ => false,
            };
            if !lost {
                return Ok(v);
            }
            stats::noscript_fallback();
            stats::script_loaded();
            packed.clear();
            for (i, c) in calls.iter().enumerate() {
                c.pack(&mut packed, i == 0);
            }
            transact(w, &packed, calls.len(), timeout)
        },
    )?;
    array(check(v)?, calls.len())
}

static INTERRUPT: std::sync::OnceLock<fn() -> bool> = std::sync::OnceLock::new();

/// Installs the check blocking waits make when a signal interrupts them (the
/// PHP binding: "does the engine have a signal handler or timeout to run?").
pub fn set_interrupt_check(f: fn() -> bool) {
    let _ = INTERRUPT.set(f);
}

thread_local! {
    /// Set on the extension's own threads (the lock watchdog): they are not
    /// PHP's, and must never read the engine's state (under ZTS, a thread
    /// without a PHP context has none).
    static OWN_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as one of the extension's own (never PHP's).
pub fn mark_own_thread() {
    OWN_THREAD.with(|t| t.set(true));
}

/// True when a blocking wait should give control back to the caller early
/// (never on the extension's own threads).
pub fn interrupted() -> bool {
    !OWN_THREAD.with(|t| t.get()) && INTERRUPT.get().is_some_and(|f| f())
}

/// Blocks until an element is pushed to the list `key` (returned) or until
/// `timeout` has passed (`None`), whichever comes first.
///
/// Redis checks blocking timeouts only about every 100 ms, so the deadline is
/// kept here instead: the wait runs as `BLPOP` on this worker's blocking
/// connection and, when the deadline comes first, is cut short with
/// `CLIENT UNBLOCK` over the main connection. Wake-ups are on time to the
/// millisecond either way. A signal that `interrupted()` says PHP must handle
/// ends the wait early (as if the deadline had come).
pub fn wait_signal(dsn: &Dsn, key: &[u8], timeout: Duration) -> Result<Option<Vec<u8>>> {
    // The deadline counts from the call, not from after the set-up round
    // trips (connect, CLIENT ID, a retry on a new connection).
    let deadline = Instant::now() + timeout;
    let read_timeout = dsn.read_timeout;
    // Server-side timeout as a backstop only (if the unblock got lost).
    let server_timeout = timeout.as_secs_f64().ceil() + 1.0;
    let mut blpop = Args::cmd("BLPOP");
    blpop.push(key).push(format!("{server_timeout}"));
    let packed = blpop.packed();
    // which command an ACL refusal answered
    let client_id_refused = std::cell::Cell::new(false);
    let unblock_refused: std::cell::RefCell<Option<Error>> = Default::default();
    let reply = dispatch(
        dsn,
        || Some(key),
        Slot::Blocking,
        false,
        |w| {
            if let Some(refused) = client_id(w, read_timeout)? {
                client_id_refused.set(true);
                return Ok(refused);
            }
            w.send(&packed, 1)?;
            if !w.wait_readable(deadline.saturating_duration_since(Instant::now()))? {
                // Deadline first: unblock BLPOP over the main connection, then
                // read its reply (nil, or an element that raced with us: kept).
                let mut unblock = Args::cmd("CLIENT");
                unblock.push("UNBLOCK").int(w.client_id.unwrap_or_default());
                unblock.route = Some(key.to_vec()); // the node that holds the wait
                                                    // 0: the client was not blocked: the BLPOP has been answered
                                                    // (its reply is on its way) or has not reached Redis yet (the
                                                    // two connections' packets travel independently). Until the
                                                    // reply shows up, unblock again, for up to the read timeout.
                let until = Instant::now() + read_timeout;
                loop {
                    match command(dsn, &unblock, true) {
                        Ok(Value::Int(0)) => {}
                        Ok(_) => break,
                        // refused (ACL): closing this connection ends the BLPOP
                        Err(e @ Error::Redis(_)) => {
                            let msg = format!("could not end a blocking wait: {e}");
                            unblock_refused.replace(Some(Error::Redis(format!(
                                "{} (blocking waits need CLIENT ID and CLIENT UNBLOCK)",
                                e.message()
                            ))));
                            return Err(Fail::Lost(msg));
                        }
                        Err(e) => {
                            return Err(Fail::Lost(format!("could not end a blocking wait: {e}")))
                        }
                    }
                    let left = until.saturating_duration_since(Instant::now());
                    if left.is_zero() || w.wait_readable(left.min(Duration::from_millis(10)))? {
                        break;
                    }
                }
            }
            w.recv(read_timeout)
        },
    );
    if let Some(e) = unblock_refused.into_inner() {
        return Err(e);
    }
    let reply = reply?;
    if matches!(&reply, Value::ServerError(e) if e.code() == "UNBLOCKED") {
        // the server ended the wait (a master demoted to a replica in a
        // failover): nothing was taken; a wake-up, the caller looks again
        return Ok(None);
    }
    let reply = check_as(reply, || {
        if client_id_refused.get() {
            "command CLIENT ID: blocking waits need CLIENT ID and CLIENT UNBLOCK".into()
        } else {
            blpop.describe()
        }
    })?;
    match reply {
        Value::Array(mut kv) if kv.len() == 2 => match kv.pop() {
            Some(Value::BulkString(b)) => Ok(Some(b)),
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// The blocking connection's CLIENT ID (for CLIENT UNBLOCK), asked once per
/// connection; `Some(reply)` when Redis refused it (ACL: an answer, not a
/// broken connection, and nothing was started).
fn client_id(w: &mut Wire, read_timeout: Duration) -> std::result::Result<Option<Value>, Fail> {
    if w.client_id.is_none() {
        match w.request(&Args::cmd("CLIENT").push("ID").packed(), read_timeout)? {
            Value::Int(id) => w.client_id = Some(id),
            Value::ServerError(e) => return Ok(Some(Value::ServerError(e))),
            other => return Err(Fail::Lost(format!("unexpected CLIENT ID reply {other:?}"))),
        }
    }
    Ok(None)
}

/// Makes sure the blocking connection `wait_signal(dsn, key, ...)` will use
/// is there (connected, its CLIENT ID known): a call that writes and then
/// may wait calls it first, so that a server it cannot reach for waiting
/// fails the call before anything is written. No round trip once the
/// connection exists.
pub fn blocking_ready(dsn: &Dsn, key: &[u8]) -> Result<()> {
    let read_timeout = dsn.read_timeout;
    let reply = dispatch(
        dsn,
        || Some(key),
        Slot::Blocking,
        false,
        |w| Ok(client_id(w, read_timeout)?.unwrap_or(Value::Okay)),
    )?;
    check_as(reply, || {
        "command CLIENT ID: blocking waits need CLIENT ID and CLIENT UNBLOCK".into()
    })
    .map(drop)
}

/// Reply helpers: an integer, a double or a byte string, whatever form Redis
/// (or a script) sent it in.
pub fn int(v: Value, what: &str) -> Result<i64> {
    match v {
        Value::Int(i) => Ok(i),
        Value::BulkString(ref b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| Error::unexpected(what, &v)),
        v => Err(Error::unexpected(what, &v)),
    }
}

pub fn float(v: Value, what: &str) -> Result<f64> {
    match v {
        Value::Int(i) => Ok(i as f64),
        Value::Double(d) => Ok(d),
        Value::BulkString(ref b) => std::str::from_utf8(b)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| Error::unexpected(what, &v)),
        v => Err(Error::unexpected(what, &v)),
    }
}

pub fn bytes(v: Value, what: &str) -> Result<Vec<u8>> {
    match v {
        Value::BulkString(b) => Ok(b),
        Value::SimpleString(s) => Ok(s.into_bytes()),
        v => Err(Error::unexpected(what, &v)),
    }
}

/// The key of an object: the prefix and the name exactly as given.
pub fn main_key(prefix: &str, name: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(prefix.len() + name.len());
    k.extend_from_slice(prefix.as_bytes());
    k.extend_from_slice(name);
    k
}

/// An auxiliary key of the object whose main key is `main`, in the same Redis
/// Cluster hash slot: `{main}:suffix`, or `main:suffix` when `main` already
/// carries a hash tag of its own.
pub fn aux_key(main: &[u8], suffix: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(main.len() + suffix.len() + 3);
    aux_key_into(&mut k, main, suffix);
    k
}

/// `aux_key`, appended to `out`.
pub fn aux_key_into(out: &mut Vec<u8>, main: &[u8], suffix: &str) {
    if has_hash_tag(main) {
        out.extend_from_slice(main);
    } else {
        out.push(b'{');
        out.extend_from_slice(main);
        out.push(b'}');
    }
    out.push(b':');
    out.extend_from_slice(suffix.as_bytes());
}

fn has_hash_tag(key: &[u8]) -> bool {
    slot::hash_tag(key).len() < key.len()
}

/// The redis-server of `make test` (REDIS_URL), for the core's own tests.
#[cfg(test)]
pub fn test_url() -> String {
    std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

#[cfg(test)]
pub fn test_dsn() -> Dsn {
    Dsn::parse(&test_url(), Timeouts::default()).expect("REDIS_URL must be a valid DSN")
}

/// A name no other test (or earlier run) uses: `rkt:<kind>:<pid>:<uuid>:<name>`.
#[cfg(test)]
pub fn test_ns(kind: &str, name: &str) -> Vec<u8> {
    format!(
        "rkt:{kind}:{}:{}:{name}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    )
    .into_bytes()
}
