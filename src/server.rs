//! What an operator page shows of the Redis servers themselves
//! (`RedisKit\serverInfo()`): memory against `maxmemory`, evictions,
//! clients, and the slow log's latest entries, per master.
use crate::conn::{self, Args, Dsn, Error, Result, Value};

/// The INFO fields reported, in this order (missing ones are left out: a
/// server of another kind or version may not have them).
pub const FIELDS: &[&str] = &[
    "redis_version",
    "valkey_version",
    "redis_mode",
    "role",
    "uptime_in_seconds",
    "connected_clients",
    "blocked_clients",
    "used_memory",
    "used_memory_peak",
    "maxmemory",
    "maxmemory_policy",
    "mem_fragmentation_ratio",
    "total_commands_processed",
    "instantaneous_ops_per_sec",
    "rejected_connections",
    "expired_keys",
    "evicted_keys",
    "keyspace_hits",
    "keyspace_misses",
];

/// The most slow-log entries asked for per server.
pub const MAX_SLOWLOG: i64 = 128;
/// Bytes of each argument of a slow-log entry kept (Redis keeps 128).
const ARG_BYTES: usize = 128;

/// One slow-log entry.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowEntry {
    pub id: i64,
    /// Unix seconds.
    pub time: i64,
    /// Microseconds of execution.
    pub micros: i64,
    /// The command and its arguments, as Redis logged them (Redis cuts an
    /// argument past 128 bytes and a command past 32 arguments itself).
    pub args: Vec<Vec<u8>>,
    pub client: Vec<u8>,
}

/// One master's view.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerView {
    /// The server: a cluster node's host:port, else the DSN (no password).
    pub address: String,
    /// `FIELDS` that the server reported, as text.
    pub info: Vec<(&'static str, String)>,
    /// Keys per database (`db0` ...).
    pub keys: Vec<(String, i64)>,
    pub slowlog: Vec<SlowEntry>,
    /// `SLOWLOG LEN`.
    pub slowlog_len: i64,
}

/// Every master's view: one round trip per master (INFO, SLOWLOG GET,
/// SLOWLOG LEN, pipelined).
pub fn view(dsn: &Dsn, slowlog: i64) -> Result<Vec<ServerView>> {
    if !(0..=MAX_SLOWLOG).contains(&slowlog) {
        return Err(Error::invalid(format!(
            "serverInfo(): $slowlog must be between 0 and {MAX_SLOWLOG}, got {slowlog}"
        )));
    }
    let routes = conn::master_routes(dsn)?;
    let routes: Vec<Option<Vec<u8>>> = if routes.is_empty() {
        vec![None]
    } else {
        routes.into_iter().map(Some).collect()
    };
    let mut out = Vec::with_capacity(routes.len());
    for route in routes {
        let mut info = Args::cmd("INFO");
        info.push("everything");
        let mut get = Args::cmd("SLOWLOG");
        get.push("GET").int(slowlog);
        let mut len = Args::cmd("SLOWLOG");
        len.push("LEN");
        for a in [&mut info, &mut get, &mut len] {
            // routed to this master (SLOWLOG's "GET" is no key)
            a.route = Some(route.clone().unwrap_or_else(|| b"{0}".to_vec()));
        }
        let replies = conn::pipeline(dsn, &[info, get, len], true)?;
        let mut it = replies.into_iter();
        let text = conn::bytes(conn::check(it.next().unwrap_or(Value::Nil))?, "INFO")?;
        let (info, keys) = parse_info(&String::from_utf8_lossy(&text));
        let address = match &route {
            Some(r) => conn::node_address(dsn, r)?,
            None => None,
        };
        let entries = parse_slowlog(conn::check(it.next().unwrap_or(Value::Nil))?)?;
        let slowlog_len = conn::int(conn::check(it.next().unwrap_or(Value::Nil))?, "SLOWLOG LEN")?;
        out.push(ServerView {
            address: address.unwrap_or_else(|| dsn.redacted()),
            info,
            keys,
            slowlog: entries,
            slowlog_len,
        });
    }
    Ok(out)
}

/// INFO fields as reported, and keys per database.
type Info = (Vec<(&'static str, String)>, Vec<(String, i64)>);

/// The reported fields, and the keys per database.
fn parse_info(text: &str) -> Info {
    let mut info = Vec::new();
    let mut keys = Vec::new();
    for line in text.lines() {
        let Some((k, v)) = line.trim_end().split_once(':') else {
            continue;
        };
        if let Some(f) = FIELDS.iter().find(|f| **f == k) {
            info.push((*f, v.to_string()));
        } else if k.starts_with("db") && k[2..].bytes().all(|b| b.is_ascii_digit()) {
            // db0:keys=3,expires=0,avg_ttl=0
            let n = v
                .split(',')
                .find_map(|p| p.strip_prefix("keys="))
                .and_then(|n| n.parse().ok());
            if let Some(n) = n {
                keys.push((k.to_string(), n));
            }
        }
    }
    info.sort_by_key(|(f, _)| FIELDS.iter().position(|x| x == f));
    (info, keys)
}

fn parse_slowlog(v: Value) -> Result<Vec<SlowEntry>> {
    let Value::Array(items) = v else {
        return Err(Error::unexpected("SLOWLOG GET", &v));
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Value::Array(parts) = item else {
            return Err(Error::unexpected("SLOWLOG GET entry", &item));
        };
        let mut p = parts.into_iter();
        let id = conn::int(p.next().unwrap_or(Value::Nil), "SLOWLOG id")?;
        let time = conn::int(p.next().unwrap_or(Value::Nil), "SLOWLOG time")?;
        let micros = conn::int(p.next().unwrap_or(Value::Nil), "SLOWLOG duration")?;
        let args = match p.next() {
            Some(Value::Array(a)) => a
                .into_iter()
                .map(|x| {
                    let mut b = conn::bytes(x, "SLOWLOG argument").unwrap_or_default();
                    b.truncate(ARG_BYTES);
                    b
                })
                .collect(),
            _ => Vec::new(),
        };
        let client = p
            .next()
            .and_then(|c| conn::bytes(c, "SLOWLOG client").ok())
            .unwrap_or_default();
        out.push(SlowEntry {
            id,
            time,
            micros,
            args,
            client,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_fields_and_keyspace() {
        let (info, keys) = parse_info(
            "# Server\r\nredis_version:7.0.15\r\nrole:master\r\nfoo:bar\r\n# Memory\r\nused_memory:1024\r\nmaxmemory:0\r\n# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=0\r\ndb2:keys=9,expires=0,avg_ttl=0\r\n",
        );
        assert_eq!(
            info,
            vec![
                ("redis_version", "7.0.15".to_string()),
                ("role", "master".to_string()),
                ("used_memory", "1024".to_string()),
                ("maxmemory", "0".to_string())
            ]
        );
        assert_eq!(keys, vec![("db0".to_string(), 3), ("db2".to_string(), 9)]);
    }

    #[test]
    fn a_real_server() {
        // (the slow log's entries are checked on a private server, whose
        // threshold a test may set to 0: server_001_info.phpt)
        let dsn = conn::test_dsn();
        let v = view(&dsn, 5).unwrap();
        assert_eq!(v.len(), 1);
        let info: std::collections::HashMap<_, _> = v[0].info.iter().cloned().collect();
        assert!(info.contains_key("used_memory"), "{info:?}");
        assert!(info.contains_key("maxmemory_policy"), "{info:?}");
        assert!(v[0].slowlog.len() as i64 <= v[0].slowlog_len.min(5));
        assert!(view(&dsn, MAX_SLOWLOG + 1).is_err());
        assert!(view(&dsn, -1).is_err());
    }
}
