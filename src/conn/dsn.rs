//! DSN parsing: `redis://[user[:password]@]host[:port][/db][?query]`,
//! `rediss://...` (TLS) and `unix://[user[:password]@]/path/to.sock[?db=N]`.
//!
//! Query parameters: `timeout` (connect, seconds), `read_timeout` (seconds),
//! `db` (unix sockets, or instead of the path segment), `user` and
//! `password` (instead of the userinfo), and for TLS `cafile` (PEM bundle to
//! trust instead of the system roots), `cert` and `key` (PEM client
//! certificate and its private key, for servers that require one) and
//! `verify_peer` (`0` to skip certificate checks, for tests only), and the
//! default of every writer's `wait_replicas` and `wait_timeout` (replicas
//! that must confirm a write, and how long to wait for them).
//!
//! Whatever a caller passes, a DSN is only ever echoed redacted: the parsed
//! form prints `***` for the password, and text that does not parse is
//! redacted before anything else looks at it (`redact_raw`): everything up
//! to the last `@` may be credentials, and so may the value of `password`
//! and of any query parameter we do not know. Every echoed piece goes
//! through `shown` (escaped, capped).
use super::error::{shown, shown_path, Error, Result};
use super::topology::Topology;
use std::sync::Arc;
use std::time::Duration;

/// `shown`, except that a piece holding an `@` or the word "password" is not
/// echoed at all: in a malformed DSN it may be, or hold, a secret.
fn shown_piece(b: &[u8]) -> String {
    let lower = b.to_ascii_lowercase();
    if b.contains(&b'@') || lower.windows(8).any(|w| w == b"password") {
        "***".to_string()
    } else {
        shown(b)
    }
}

/// TLS settings of a `rediss://` DSN.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TlsOpts {
    /// PEM file of the CAs to trust (else the system roots).
    pub cafile: Option<String>,
    /// PEM client certificate (chain) and its private key, sent when the
    /// server asks for one (`tls-auth-clients yes|optional`).
    pub cert: Option<String>,
    pub key: Option<String>,
    /// `false`: no certificate checks at all (test set-ups only).
    pub verify: bool,
}

impl Default for TlsOpts {
    fn default() -> Self {
        TlsOpts {
            cafile: None,
            cert: None,
            key: None,
            verify: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Addr {
    Tcp {
        host: String,
        port: u16,
    },
    Tls {
        host: String,
        port: u16,
        tls: TlsOpts,
    },
    Unix {
        path: String,
    },
}

/// Timeouts used when the DSN does not set its own (from the ini settings).
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: Duration,
    pub read: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(1),
            read: Duration::from_secs(2),
        }
    }
}

#[derive(Clone, PartialEq, Eq)]
pub struct Dsn {
    /// `pool_key()`, computed once at parse time.
    pub(crate) key: String,
    pub addr: Addr,
    pub user: Option<String>,
    pub password: Option<String>,
    pub db: i64,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    /// `None` for one server; a cluster or a sentinel-watched master otherwise
    /// (then `addr` is only the first seed, and calls are routed to nodes).
    pub topology: Option<Arc<Topology>>,
    /// Verify with ROLE at connect time that the server is a master (nodes
    /// resolved through Sentinel).
    pub check_master: bool,
    /// Connections of their own, in RESP3 with client tracking on (see
    /// `conn::tracking`); the nodes of a cluster or the master behind
    /// Sentinel inherit it.
    pub tracking: bool,
    /// The writers' default `wait_replicas` / `wait_timeout` (a DSN's
    /// `?wait_replicas=N&wait_timeout=S`): replicas that must confirm a
    /// write (WAIT), and how long to wait for them. Not part of the pool key.
    pub wait_replicas: i64,
    pub wait_timeout: Duration,
}

/// `wait_timeout` when neither the object nor its DSN gives one.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_millis(100);
/// Most replicas a write may ask for.
pub const MAX_WAIT_REPLICAS: i64 = 100;

impl std::fmt::Debug for Dsn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the password, not even in debug output.
        f.write_str(&self.redacted())
    }
}

/// Query parameters a DSN may carry (in this order in messages).
const KNOWN: &[&str] = &[
    "timeout",
    "connect_timeout",
    "read_timeout",
    "db",
    "cafile",
    "verify_peer",
    "cert",
    "key",
    "user",
    "password",
    "wait_replicas",
    "wait_timeout",
];
/// Accepted too, not advertised.
const ALIASES: &[&str] = &["database", "username"];
/// Parameters whose value is a secret: never echoed.
const SECRET: &[&str] = &["password"];
/// Query parameters an echo shows at most.
const SHOWN_PARAMS: usize = 8;

fn is_known(k: &str) -> bool {
    KNOWN.contains(&k) || ALIASES.contains(&k)
}

/// One `key=value` of a query (`value` still %-encoded; `None`: no `=`).
struct Param {
    key: String,
    value: Option<String>,
}

/// Splits a query at `&`. The value of a secret parameter, and of any
/// parameter we do not know (it may be a misspelt `password`), runs up to
/// the next `&` that starts a known parameter: a password with an unencoded
/// `&` (or `=`) keeps its tail, which never becomes a parameter name that a
/// message would echo.
fn query_params(q: &str) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    let mut absorbing = false;
    for seg in q.split('&') {
        let (k, v) = match seg.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (seg, None),
        };
        let known = is_known(k);
        if absorbing && !known {
            if let Some(last) = out.last_mut() {
                let val = last.value.get_or_insert_with(String::new);
                val.push('&');
                val.push_str(seg);
            }
            continue;
        }
        if seg.is_empty() {
            continue;
        }
        absorbing = !known || SECRET.contains(&k);
        out.push(Param {
            key: k.to_string(),
            value: v.map(str::to_string),
        });
    }
    out
}

/// A query as messages echo it: known values shown, secrets and the values
/// of unknown parameters as `***`, at most `SHOWN_PARAMS` parameters.
fn shown_query(q: &str) -> String {
    let params = query_params(q);
    let mut parts: Vec<String> = Vec::new();
    for p in params.iter().take(SHOWN_PARAMS) {
        let known = is_known(&p.key);
        parts.push(
            match (&p.value, known && !SECRET.contains(&p.key.as_str())) {
                (Some(v), true) if matches!(p.key.as_str(), "cafile" | "cert" | "key") => {
                    format!("{}={}", p.key, shown_path(v))
                }
                (Some(v), true) => format!("{}={}", p.key, shown_piece(v.as_bytes())),
                (None, true) => p.key.clone(),
                (Some(_), false) if known || plain_name(&p.key) => {
                    format!("{}=***", shown_piece(p.key.as_bytes()))
                }
                _ => "***".to_string(),
            },
        );
    }
    if params.len() > SHOWN_PARAMS {
        parts.push(format!("... ({} parameters)", params.len()));
    }
    parts.join("&")
}

/// A name worth echoing: short, letters, digits and `_-.` only (a bare
/// `?S3cr3t` or a %-encoded name is not echoed).
fn plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// `-?[0-9]+`: a port or database number we may echo.
fn numeric(s: &str) -> bool {
    let d = s.strip_prefix('-').unwrap_or(s);
    !d.is_empty() && d.len() <= 20 && d.bytes().all(|b| b.is_ascii_digit())
}

fn is_scheme(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 16
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.')
}

impl Dsn {
    /// The pool key: everything that makes two connections different
    /// (timeouts are applied per call and do not split the pool).
    pub fn pool_key(&self) -> &str {
        &self.key
    }

    pub(crate) fn compute_key(&self) -> String {
        let topo = match &self.topology {
            None => String::new(),
            Some(t) => t.key(),
        };
        format!(
            "{topo}{:?}|{}|{}|{}{}",
            self.addr,
            self.user.as_deref().unwrap_or(""),
            self.password.as_deref().unwrap_or(""),
            self.db,
            if self.tracking { "|tracking" } else { "" }
        )
    }

    /// The same servers, reached over tracking connections of their own
    /// (`conn::tracking`).
    pub fn with_tracking(&self) -> Dsn {
        let mut d = Dsn {
            tracking: true,
            ..self.clone()
        };
        d.key = d.compute_key();
        d
    }

    /// The same credentials and timeouts, for another server.
    pub(crate) fn node(&self, host: &str, port: u16) -> Dsn {
        let addr = match &self.addr {
            Addr::Tls { tls, .. } => Addr::Tls {
                host: host.to_string(),
                port,
                tls: tls.clone(),
            },
            _ => Addr::Tcp {
                host: host.to_string(),
                port,
            },
        };
        let mut d = Dsn {
            key: String::new(),
            addr,
            topology: None,
            ..self.clone()
        };
        d.key = d.compute_key();
        d
    }

    /// The DSN with the password replaced by `***`: safe for messages and logs.
    pub fn redacted(&self) -> String {
        if let Some(t) = &self.topology {
            return t.describe();
        }
        self.redacted_node()
    }

    pub(crate) fn redacted_node(&self) -> String {
        let auth = match (&self.user, &self.password) {
            (Some(u), Some(_)) => format!("{}:***@", shown_piece(u.as_bytes())),
            (None, Some(_)) => ":***@".to_string(),
            (Some(u), None) => format!("{}@", shown_piece(u.as_bytes())),
            (None, None) => String::new(),
        };
        match &self.addr {
            Addr::Tcp { host, port } => {
                format!("redis://{auth}{}:{port}/{}", bracket(host), self.db)
            }
            Addr::Tls { host, port, .. } => {
                format!("rediss://{auth}{}:{port}/{}", bracket(host), self.db)
            }
            Addr::Unix { path } => {
                let path = shown_piece(path.as_bytes());
                if self.db == 0 {
                    format!("unix://{auth}{path}")
                } else {
                    format!("unix://{auth}{path}?db={}", self.db)
                }
            }
        }
    }

    /// `parse`, remembered per thread: objects built again and again from
    /// the same DSN string (one per request, one per lock) share one parsed
    /// `Dsn` instead of parsing it each time. Parsing is pure (no files, no
    /// lookups), so a remembered result is exactly what a new parse gives;
    /// only successful parses are kept, and only the last few DSNs.
    pub fn parse_shared(input: &str, defaults: Timeouts) -> Result<Arc<Dsn>> {
        const REMEMBERED: usize = 16;
        /// A DSN string and the default timeouts, with what they parsed to.
        type Parsed = (String, Duration, Duration, Arc<Dsn>);
        thread_local! {
            static PARSED: std::cell::RefCell<Vec<Parsed>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        let found = PARSED.with(|p| {
            p.borrow()
                .iter()
                .find(|(s, c, r, _)| s == input && *c == defaults.connect && *r == defaults.read)
                .map(|e| e.3.clone())
        });
        if let Some(d) = found {
            return Ok(d);
        }
        let d = Arc::new(Dsn::parse(input, defaults)?);
        PARSED.with(|p| {
            let mut p = p.borrow_mut();
            if p.len() >= REMEMBERED {
                p.remove(0);
            }
            p.push((
                input.to_string(),
                defaults.connect,
                defaults.read,
                d.clone(),
            ));
        });
        Ok(d)
    }

    pub fn parse(input: &str, defaults: Timeouts) -> Result<Dsn> {
        let bad =
            |why: &str| Error::invalid(format!("invalid Redis DSN '{}': {why}", redact_raw(input)));
        let (scheme, rest) = input.split_once("://").ok_or_else(|| {
            bad("expected redis://host[:port][/db], rediss://... or unix:///path/to.sock")
        })?;
        let scheme = scheme.to_ascii_lowercase();
        let is_unix = match scheme.as_str() {
            "redis" | "rediss" | "tcp" | "tls" => false,
            "unix" => true,
            other if is_scheme(other) => {
                return Err(bad(&format!(
                    "unknown scheme '{other}' (use redis, rediss or unix)"
                )))
            }
            _ => return Err(bad("unknown scheme (use redis, rediss or unix)")),
        };

        let mut dsn = Dsn {
            key: String::new(),
            addr: Addr::Unix {
                path: String::new(),
            },
            user: None,
            password: None,
            db: 0,
            connect_timeout: defaults.connect,
            read_timeout: defaults.read,
            topology: None,
            check_master: false,
            tracking: false,
            wait_replicas: 0,
            wait_timeout: DEFAULT_WAIT_TIMEOUT,
        };

        // userinfo: everything before the last '@' (before the last "@/" of
        // a unix DSN) ahead of the query, so a password may hold '/' or '@'
        // unencoded.
        let (pre, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (rest, None),
        };
        let at = if is_unix {
            pre.rfind("@/")
        } else {
            pre.rfind('@')
        };
        let (userinfo, hostpart) = match at {
            Some(i) => (Some(&pre[..i]), &pre[i + 1..]),
            None => (None, pre),
        };
        if let Some(ui) = userinfo {
            let (u, p) = match ui.split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (ui, None),
            };
            let u = percent_decode(u).map_err(|e| bad(&format!("in the userinfo: {e}")))?;
            if !u.is_empty() {
                dsn.user = Some(u);
            }
            if let Some(p) = p {
                dsn.password =
                    Some(percent_decode(p).map_err(|e| bad(&format!("in the password: {e}")))?);
            } else if dsn.user.is_some() {
                // `redis://secret@host` is the common "password only" form.
                dsn.password = dsn.user.take();
            }
        }

        if is_unix {
            if !hostpart.starts_with('/') || hostpart.len() < 2 {
                return Err(bad(
                    "a unix socket DSN needs an absolute path: unix:///path/to.sock",
                ));
            }
            dsn.addr = Addr::Unix {
                path: percent_decode(hostpart).map_err(|e| bad(&format!("in the path: {e}")))?,
            };
        } else {
            let (hostport, path) = match hostpart.find('/') {
                Some(i) => (&hostpart[..i], &hostpart[i + 1..]),
                None => (hostpart, ""),
            };
            let (host, port) = split_host_port(hostport).map_err(|e| bad(&e))?;
            if !path.is_empty() {
                dsn.db = parse_db(path, numeric(path)).map_err(|e| bad(&e))?;
            }
            dsn.addr = if scheme == "rediss" || scheme == "tls" {
                Addr::Tls {
                    host,
                    port,
                    tls: TlsOpts::default(),
                }
            } else {
                Addr::Tcp { host, port }
            };
        }

        for p in query_params(query.unwrap_or("")) {
            let k = p.key.as_str();
            if !is_known(k) {
                return Err(bad(&if p.value.is_some() && plain_name(k) {
                    format!(
                        "unknown query parameter '{k}' (known: {})",
                        KNOWN.join(", ")
                    )
                } else {
                    format!(
                        "a query parameter we do not know (known: {}; write key=value)",
                        KNOWN.join(", ")
                    )
                }));
            }
            let Some(raw) = p.value else {
                return Err(bad(&format!("'{k}' needs a value ({k}=...)")));
            };
            let secret = SECRET.contains(&k);
            let v = percent_decode(&raw).map_err(|e| {
                bad(&if secret {
                    format!("in the password: {e}")
                } else {
                    format!("in '{k}': {e}")
                })
            })?;
            match k {
                "timeout" | "connect_timeout" => {
                    dsn.connect_timeout = parse_secs(k, &v).map_err(|e| bad(&e))?
                }
                "read_timeout" => dsn.read_timeout = parse_secs(k, &v).map_err(|e| bad(&e))?,
                "wait_replicas" => {
                    dsn.wait_replicas = v
                        .parse::<i64>()
                        .ok()
                        .filter(|n| (0..=MAX_WAIT_REPLICAS).contains(n))
                        .ok_or_else(|| {
                            bad(&format!(
                                "wait_replicas must be an integer from 0 to {MAX_WAIT_REPLICAS}, got '{}'",
                                shown_piece(v.as_bytes())
                            ))
                        })?
                }
                "wait_timeout" => dsn.wait_timeout = parse_secs(k, &v).map_err(|e| bad(&e))?,
                "db" | "database" => dsn.db = parse_db(&v, true).map_err(|e| bad(&e))?,
                "user" | "username" => {
                    if v.is_empty() {
                        return Err(bad("'user' must not be empty"));
                    }
                    dsn.user = Some(v);
                }
                "password" => {
                    if dsn.password.is_some() {
                        return Err(bad(
                            "the password is given twice (in the userinfo and as password=)",
                        ));
                    }
                    dsn.password = Some(v);
                }
                "cafile" | "verify_peer" | "cert" | "key" => {
                    let Addr::Tls { tls, .. } = &mut dsn.addr else {
                        return Err(bad(&format!("'{k}' only applies to rediss:// DSNs")));
                    };
                    if k == "verify_peer" {
                        tls.verify =
                            parse_bool(&v).ok_or_else(|| bad("verify_peer must be 0 or 1"))?;
                    } else if v.is_empty() {
                        return Err(bad(&format!("'{k}' must name a file")));
                    } else if k == "cafile" {
                        tls.cafile = Some(v);
                    } else if k == "cert" {
                        tls.cert = Some(v);
                    } else {
                        tls.key = Some(v);
                    }
                }
                _ => unreachable!("every known parameter is handled"),
            }
        }
        if let Addr::Tls { tls, .. } = &dsn.addr {
            if tls.cert.is_some() != tls.key.is_some() {
                return Err(bad(
                    "a client certificate needs both cert= and key= (PEM files)",
                ));
            }
        }
        dsn.key = dsn.compute_key();
        Ok(dsn)
    }
}

fn bracket(host: &str) -> String {
    let h = shown_piece(host.as_bytes());
    if host.contains(':') {
        format!("[{h}]")
    } else {
        h
    }
}

/// A DSN we could not parse (or must not parse) as messages may echo it:
/// everything up to its last `@` is replaced by `***` (credentials, however
/// malformed), so are the values of `password` and of unknown query
/// parameters, and a port or database that is not a number (it may be a
/// password whose `@host` was forgotten). Every piece is escaped and capped.
pub fn redact_raw(input: &str) -> String {
    // Whatever follows the word "password" may be one, however malformed the
    // rest is (`?db=/?password=...`, `_?password=@@@/...`): never echoed.
    // ASCII lowercasing keeps byte offsets, so `i` is a char boundary.
    if let Some(i) = input.to_ascii_lowercase().find("password") {
        return format!("{}***", redact_raw_parts(&input[..i]));
    }
    redact_raw_parts(input)
}

fn redact_raw_parts(input: &str) -> String {
    let (scheme, rest) = match input.split_once("://") {
        Some((s, r)) if is_scheme(s) => (Some(s), r),
        _ => (None, input),
    };
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push_str("://");
    }
    // The user info ends at the last '@' (a password may hold '/', '?' or
    // '@'), unless the text after the first '?' names a secret parameter:
    // then that is the query, which may hold '@' itself (`?password=a@b`),
    // and the user info ends at the last '@' before it.
    let query_start = rest.find('?').filter(|&i| {
        query_params(&rest[i + 1..])
            .iter()
            .any(|p| SECRET.contains(&p.key.as_str()))
    });
    let (authority, forced_query) = match query_start {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let tail = match authority.rfind('@') {
        Some(i) => {
            out.push_str("***@");
            &authority[i + 1..]
        }
        None => authority,
    };
    let (hostpath, query) = match forced_query {
        Some(q) => (tail, Some(q)),
        None => match tail.split_once('?') {
            Some((h, q)) => (h, Some(q)),
            None => (tail, None),
        },
    };
    let unix = scheme.is_some_and(|s| s.eq_ignore_ascii_case("unix"));
    if unix || (scheme.is_none() && hostpath.starts_with('/')) {
        out.push_str(&shown_piece(hostpath.as_bytes()));
    } else {
        let (hostport, path) = match hostpath.split_once('/') {
            Some((h, p)) => (h, Some(p)),
            None => (hostpath, None),
        };
        let (host, port) = if hostport.starts_with('[') {
            match hostport.find(']') {
                Some(i) => {
                    let after = &hostport[i + 1..];
                    (
                        &hostport[..=i],
                        (!after.is_empty()).then(|| after.strip_prefix(':').unwrap_or("***")),
                    )
                }
                None => (hostport, None),
            }
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            }
        };
        out.push_str(&shown_piece(host.as_bytes()));
        if let Some(p) = port {
            out.push(':');
            out.push_str(if numeric(p) { p } else { "***" });
        }
        if let Some(p) = path {
            out.push('/');
            out.push_str(if p.is_empty() || numeric(p) { p } else { "***" });
        }
    }
    if let Some(q) = query {
        out.push('?');
        out.push_str(&shown_query(q));
    }
    out
}

fn split_host_port(s: &str) -> std::result::Result<(String, u16), String> {
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let (h, after) = rest
            .split_once(']')
            .ok_or("unterminated '[' in IPv6 host")?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err("unexpected text after the IPv6 host (want [addr]:port)".into()),
        };
        (h.to_string(), port)
    } else {
        match s.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (s.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err("missing host".into());
    }
    let port = match port {
        None => 6379,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => n,
            _ if numeric(p) => return Err(format!("invalid port '{p}' (1..65535)")),
            // not echoed: it may be a password whose "@host" is missing
            _ => return Err("invalid port (a number 1..65535)".into()),
        },
    };
    Ok((host, port))
}

/// `echo`: whether the text may appear in the message (a path segment that
/// is not a number may be the tail of a password).
fn parse_db(s: &str, echo: bool) -> std::result::Result<i64, String> {
    match s.parse::<i64>() {
        Ok(n) if n >= 0 => Ok(n),
        _ if echo => Err(format!(
            "invalid database number '{}' (a non-negative integer)",
            shown_piece(s.as_bytes())
        )),
        _ => Err("invalid database number (a non-negative integer)".into()),
    }
}

fn parse_secs(name: &str, s: &str) -> std::result::Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v < 1e9 => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!(
            "{name} must be a positive number of seconds, got '{}'",
            shown_piece(s.as_bytes())
        )),
    }
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Errors never quote the text: it may be (part of) a password.
fn percent_decode(s: &str) -> std::result::Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3).ok_or("truncated %-escape")?;
            let hex = std::str::from_utf8(hex).map_err(|_| "bad %-escape".to_string())?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| "bad %-escape".to_string())?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "%-escapes must decode to UTF-8".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Dsn> {
        Dsn::parse(s, Timeouts::default())
    }

    #[test]
    fn tcp_forms() {
        let d = p("redis://127.0.0.1").unwrap();
        assert_eq!(
            d.addr,
            Addr::Tcp {
                host: "127.0.0.1".into(),
                port: 6379
            }
        );
        assert_eq!(d.db, 0);
        let d = p("redis://user:p%40ss@example.com:7000/3?timeout=0.5&read_timeout=3").unwrap();
        assert_eq!(
            d.addr,
            Addr::Tcp {
                host: "example.com".into(),
                port: 7000
            }
        );
        assert_eq!(d.user.as_deref(), Some("user"));
        assert_eq!(d.password.as_deref(), Some("p@ss"));
        assert_eq!(d.db, 3);
        assert_eq!(d.connect_timeout, Duration::from_millis(500));
        assert_eq!(d.read_timeout, Duration::from_secs(3));
        assert_eq!(d.redacted(), "redis://user:***@example.com:7000/3");
        let d = p("redis://:secret@[::1]:6380").unwrap();
        assert_eq!(
            d.addr,
            Addr::Tcp {
                host: "::1".into(),
                port: 6380
            }
        );
        assert_eq!(d.user, None);
        assert_eq!(d.password.as_deref(), Some("secret"));
        let d = p("redis://secret@host").unwrap();
        assert_eq!(d.password.as_deref(), Some("secret"));
        assert_eq!(d.user, None);
    }

    #[test]
    fn tls_and_unix() {
        let d = p("rediss://h:6390?cafile=/tmp/ca.pem&verify_peer=0").unwrap();
        assert_eq!(
            d.addr,
            Addr::Tls {
                host: "h".into(),
                port: 6390,
                tls: TlsOpts {
                    cafile: Some("/tmp/ca.pem".into()),
                    verify: false,
                    ..TlsOpts::default()
                }
            }
        );
        let d =
            p("rediss://h?cafile=/c/ca.pem&cert=/c/client.pem&key=/c/client%2Bkey.pem").unwrap();
        let Addr::Tls { tls, .. } = &d.addr else {
            panic!("{d:?}")
        };
        assert_eq!(tls.cert.as_deref(), Some("/c/client.pem"));
        assert_eq!(tls.key.as_deref(), Some("/c/client+key.pem"));
        assert!(tls.verify);
        for half in [
            "rediss://h?cert=/c.pem",
            "rediss://h?key=/k.pem",
            "rediss://h?cafile=",
        ] {
            assert!(matches!(p(half), Err(Error::Invalid(_))), "{half}");
        }
        let e = p("redis://h?cert=/c.pem&key=/k.pem").unwrap_err();
        assert!(e.message().contains("only applies to rediss://"), "{e}");
        let d = p("unix:///var/run/redis.sock?db=2").unwrap();
        assert_eq!(
            d.addr,
            Addr::Unix {
                path: "/var/run/redis.sock".into()
            }
        );
        assert_eq!(d.db, 2);
        let d = p("unix://:pw@/tmp/r.sock").unwrap();
        assert_eq!(d.password.as_deref(), Some("pw"));
        assert_eq!(d.redacted(), "unix://:***@/tmp/r.sock");
        // the last "@/" ends the userinfo: a password may hold "@/"
        let d = p("unix://:ab@/cd@/tmp/r.sock").unwrap();
        assert_eq!(d.password.as_deref(), Some("ab@/cd"));
        assert_eq!(d.redacted(), "unix://:***@/tmp/r.sock");
    }

    #[test]
    fn passwords_with_special_characters_and_in_the_query() {
        // '/' and '@' unencoded in a password (base64 passwords have '/')
        let d = p("redis://:S3cr3t/PW@127.0.0.1:6512").unwrap();
        assert_eq!(d.password.as_deref(), Some("S3cr3t/PW"));
        assert_eq!(d.redacted(), "redis://:***@127.0.0.1:6512/0");
        let d = p("redis://u:a@b/c@h:1/2").unwrap();
        assert_eq!(d.password.as_deref(), Some("a@b/c"));
        assert_eq!(d.db, 2);
        // password= and user= in the query; an '&' inside the password stays in it
        let d = p("redis://127.0.0.1:6512?password=S3cr3tPW").unwrap();
        assert_eq!(d.password.as_deref(), Some("S3cr3tPW"));
        assert_eq!(d.user, None);
        let d = p("redis://h?user=app&password=a&b=c&d&timeout=2").unwrap();
        assert_eq!(d.user.as_deref(), Some("app"));
        assert_eq!(d.password.as_deref(), Some("a&b=c&d"));
        assert_eq!(d.connect_timeout, Duration::from_secs(2));
        assert_eq!(d.redacted(), "redis://app:***@h:6379/0");
        let e = p("redis://:x@h?password=y").unwrap_err();
        assert!(e.message().contains("given twice"), "{e}");
    }

    #[test]
    fn raw_redaction_hides_everything_that_may_be_a_secret() {
        for (raw, want) in [
            (
                "redis://:S3cr3t/PW@127.0.0.1:6512",
                "redis://***@127.0.0.1:6512",
            ),
            (
                "redis://127.0.0.1:6512?password=S3cr3t",
                "redis://127.0.0.1:6512?***",
            ),
            ("unix://:S3cr3t@rel/sock", "unix://***@rel/sock"),
            ("redis://u:S3cr3t@h:port", "redis://***@h:***"),
            ("redis://default:S3cr3t", "redis://default:***"),
            ("redis://default:123/S3cr3t", "redis://default:123/***"),
            ("redis:/:S3cr3t@h", "***@h"),
            (":S3cr3t@127.0.0.1:6379", "***@127.0.0.1:6379"),
            ("x:S3cr3t@h://127.0.0.1", "***@h:***/***"),
            ("redis://:S3cr3t@[::1]cr3t", "redis://***@[::1]:***"),
            ("redis://:S3cr3t?x@h", "redis://***@h"),
            (
                "redis://h?timeout=1&pass=S3cr3t&x=2",
                "redis://h?timeout=1&pass=***",
            ),
            ("redis://h?S3cr3t", "redis://h?***"),
            (
                "redis://h?db=1&colour=blue&timeout=2",
                "redis://h?db=1&colour=***&timeout=2",
            ),
            ("redis://[::1]:6379/2", "redis://[::1]:6379/2"),
            (
                "redis://u:S3cr3t@h\0\n:1?db=x",
                "redis://***@h\\0\\n:1?db=x",
            ),
        ] {
            assert_eq!(redact_raw(raw), want, "{raw}");
        }
        let long = format!(
            "redis://:S3cr3t@{}:1?{}",
            "h".repeat(1 << 20),
            "a=1&".repeat(1000)
        );
        let r = redact_raw(&long);
        assert!(r.len() < 200, "{r}");
        assert!(!r.contains("cr3t"), "{r}");
    }

    #[test]
    fn parse_errors_never_echo_a_secret() {
        for bad in [
            "redis://u:S3cr3t@h:port",
            "redis://default:S3cr3t",
            "redis://default:123/S3cr3t",
            "redis://:S3cr3t%zz@h",
            "redis://S3cr3t%zz@h",
            "redis://h?password=S3cr3t%zz",
            "redis://h?S3cr3t",
            "redis://h?timeout=1&S3cr3t",
            "redis://h?pass=S3cr3t&cr3t=1",
            "redis://:S3cr3t@[::1",
            "redis://:S3cr3t@[::1]cr3t",
            "x:S3cr3t@h://127.0.0.1",
            "unix://:S3cr3t@rel/sock",
            "redis://:S3cr3t@h?cert=/c.pem",
        ] {
            let e = p(bad).unwrap_err();
            assert!(matches!(e, Error::Invalid(_)), "{bad}: {e}");
            assert!(!e.message().contains("cr3t"), "{bad}: {e}");
        }
    }

    #[test]
    fn pool_key_separates_credentials_and_db_not_timeouts() {
        let a = p("redis://h/1?timeout=1").unwrap();
        let b = p("redis://h/1?timeout=2").unwrap();
        let c = p("redis://h/2").unwrap();
        let d = p("redis://x:y@h/1").unwrap();
        assert_eq!(a.pool_key(), b.pool_key());
        assert_ne!(a.pool_key(), c.pool_key());
        assert_ne!(a.pool_key(), d.pool_key());
    }

    #[test]
    fn wait_replicas_is_a_default_for_writers_not_a_pool() {
        let plain = p("redis://h").unwrap();
        assert_eq!(
            (plain.wait_replicas, plain.wait_timeout),
            (0, DEFAULT_WAIT_TIMEOUT)
        );
        let w = p("redis://h?wait_replicas=2&wait_timeout=0.25").unwrap();
        assert_eq!(
            (w.wait_replicas, w.wait_timeout),
            (2, Duration::from_millis(250))
        );
        assert_eq!(w.pool_key(), plain.pool_key());
        for bad in [
            "wait_replicas=-1",
            "wait_replicas=101",
            "wait_replicas=1.5",
            "wait_timeout=0",
        ] {
            let e = p(&format!("redis://h?{bad}")).unwrap_err().to_string();
            assert!(e.contains(bad.split('=').next().unwrap()), "{e}");
        }
    }
}
