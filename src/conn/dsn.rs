//! DSN parsing: `redis://[user[:password]@]host[:port][/db][?query]`,
//! `rediss://...` (TLS) and `unix://[user[:password]@]/path/to.sock[?db=N]`.
//!
//! Query parameters: `timeout` (connect, seconds), `read_timeout` (seconds),
//! `db` (unix sockets, or instead of the path segment), and for TLS `cafile`
//! (PEM bundle to trust instead of the system roots) and `verify_peer`
//! (`0` to skip certificate checks, for tests only).
use super::error::{Error, Result};
use super::topology::Topology;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Addr {
    Tcp {
        host: String,
        port: u16,
    },
    Tls {
        host: String,
        port: u16,
        cafile: Option<String>,
        verify: bool,
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
}

impl std::fmt::Debug for Dsn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the password, not even in debug output.
        f.write_str(&self.redacted())
    }
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
            "{topo}{:?}|{}|{}|{}",
            self.addr,
            self.user.as_deref().unwrap_or(""),
            self.password.as_deref().unwrap_or(""),
            self.db
        )
    }

    /// The same credentials and timeouts, for another server.
    pub(crate) fn node(&self, host: &str, port: u16) -> Dsn {
        let addr = match &self.addr {
            Addr::Tls { cafile, verify, .. } => Addr::Tls {
                host: host.to_string(),
                port,
                cafile: cafile.clone(),
                verify: *verify,
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
            (Some(u), Some(_)) => format!("{u}:***@"),
            (None, Some(_)) => ":***@".to_string(),
            (Some(u), None) => format!("{u}@"),
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
                if self.db == 0 {
                    format!("unix://{auth}{path}")
                } else {
                    format!("unix://{auth}{path}?db={}", self.db)
                }
            }
        }
    }

    pub fn parse(input: &str, defaults: Timeouts) -> Result<Dsn> {
        let bad =
            |why: &str| Error::invalid(format!("invalid Redis DSN '{}': {why}", redact_raw(input)));
        let (scheme, rest) = input.split_once("://").ok_or_else(|| {
            bad("expected redis://host[:port][/db], rediss://... or unix:///path/to.sock")
        })?;
        let scheme = scheme.to_ascii_lowercase();
        let (rest, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (rest, None),
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
        };

        // userinfo: everything before the last '@' of the authority part.
        let (authority_and_path, is_unix) = match scheme.as_str() {
            "redis" | "rediss" | "tcp" | "tls" => (rest, false),
            "unix" => (rest, true),
            other => {
                return Err(bad(&format!(
                    "unknown scheme '{other}' (use redis, rediss or unix)"
                )))
            }
        };
        let (userinfo, hostpart) = if is_unix {
            match authority_and_path.find("@/") {
                Some(i) => (Some(&authority_and_path[..i]), &authority_and_path[i + 1..]),
                None => (None, authority_and_path),
            }
        } else {
            let auth_end = authority_and_path
                .find('/')
                .unwrap_or(authority_and_path.len());
            match authority_and_path[..auth_end].rfind('@') {
                Some(i) => (Some(&authority_and_path[..i]), &authority_and_path[i + 1..]),
                None => (None, authority_and_path),
            }
        };
        if let Some(ui) = userinfo {
            let (u, p) = match ui.split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (ui, None),
            };
            let u = percent_decode(u).map_err(|e| bad(&e))?;
            if !u.is_empty() {
                dsn.user = Some(u);
            }
            if let Some(p) = p {
                dsn.password = Some(percent_decode(p).map_err(|e| bad(&e))?);
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
                path: percent_decode(hostpart).map_err(|e| bad(&e))?,
            };
        } else {
            let (hostport, path) = match hostpart.find('/') {
                Some(i) => (&hostpart[..i], &hostpart[i + 1..]),
                None => (hostpart, ""),
            };
            let (host, port) = split_host_port(hostport).map_err(|e| bad(&e))?;
            if !path.is_empty() {
                dsn.db = parse_db(path).map_err(|e| bad(&e))?;
            }
            dsn.addr = if scheme == "rediss" || scheme == "tls" {
                Addr::Tls {
                    host,
                    port,
                    cafile: None,
                    verify: true,
                }
            } else {
                Addr::Tcp { host, port }
            };
        }

        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = percent_decode(v).map_err(|e| bad(&e))?;
            match k {
                "timeout" | "connect_timeout" => dsn.connect_timeout = parse_secs(k, &v).map_err(|e| bad(&e))?,
                "read_timeout" => dsn.read_timeout = parse_secs(k, &v).map_err(|e| bad(&e))?,
                "db" | "database" => dsn.db = parse_db(&v).map_err(|e| bad(&e))?,
                "cafile" | "verify_peer" => match &mut dsn.addr {
                    Addr::Tls { cafile, verify, .. } => {
                        if k == "cafile" {
                            *cafile = Some(v);
                        } else {
                            *verify = parse_bool(&v).ok_or_else(|| bad("verify_peer must be 0 or 1"))?;
                        }
                    }
                    _ => return Err(bad(&format!("'{k}' only applies to rediss:// DSNs"))),
                },
                other => {
                    return Err(bad(&format!(
                        "unknown query parameter '{other}' (known: timeout, read_timeout, db, cafile, verify_peer)"
                    )))
                }
            }
        }
        dsn.key = dsn.compute_key();
        Ok(dsn)
    }
}

fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

/// Hide the password of a DSN we could not parse, for the error message.
pub fn redact_raw(input: &str) -> String {
    let Some((scheme, rest)) = input.split_once("://") else {
        return input.to_string();
    };
    let end = if scheme.eq_ignore_ascii_case("unix") {
        rest.find("@/").map(|i| i + 1)
    } else {
        let auth_end = rest.find('/').unwrap_or(rest.len());
        rest[..auth_end].rfind('@').map(|i| i + 1)
    };
    match end {
        Some(at) => {
            let userinfo = &rest[..at - 1];
            let user = userinfo.split_once(':').map(|(u, _)| u).unwrap_or("");
            format!("{scheme}://{user}:***@{}", &rest[at..])
        }
        None => input.to_string(),
    }
}

fn split_host_port(s: &str) -> std::result::Result<(String, u16), String> {
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let (h, after) = rest
            .split_once(']')
            .ok_or("unterminated '[' in IPv6 host")?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(format!("unexpected '{after}' after IPv6 host")),
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
            _ => return Err(format!("invalid port '{p}' (1..65535)")),
        },
    };
    Ok((host, port))
}

fn parse_db(s: &str) -> std::result::Result<i64, String> {
    match s.parse::<i64>() {
        Ok(n) if n >= 0 => Ok(n),
        _ => Err(format!(
            "invalid database number '{s}' (a non-negative integer)"
        )),
    }
}

fn parse_secs(name: &str, s: &str) -> std::result::Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v < 1e9 => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!(
            "{name} must be a positive number of seconds, got '{s}'"
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

fn percent_decode(s: &str) -> std::result::Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3).ok_or("truncated %-escape")?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| format!("bad %-escape '%{hex}'"))?);
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
                cafile: Some("/tmp/ca.pem".into()),
                verify: false
            }
        );
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
    }

    #[test]
    fn bad_dsns_never_show_the_password() {
        for bad in [
            "127.0.0.1:6379",
            "http://host",
            "redis://",
            "redis://host:0",
            "redis://host:99999",
            "redis://host/abc",
            "redis://host/-1",
            "redis://host?timeout=-1",
            "redis://host?timeout=nan",
            "redis://host?bogus=1",
            "redis://host?cafile=/x",
            "unix://relative.sock",
            "redis://[::1",
            "redis://u:%zz@host",
        ] {
            assert!(
                matches!(p(bad), Err(Error::Invalid(_))),
                "{bad} should be rejected"
            );
        }
        let err = p("redis://u:hunter2@host:abc").unwrap_err();
        assert!(!err.message().contains("hunter2"), "{err}");
        assert!(err.message().contains("u:***@"), "{err}");
        let err = p("redis://u:hunter2@host?nope=1").unwrap_err();
        assert!(!err.message().contains("hunter2"), "{err}");
        assert!(err.message().contains("nope"), "{err}");
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
}
