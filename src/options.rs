//! Option arrays and connection arguments as the core sees them, already
//! converted from PHP values by the bindings. Every primitive validates its
//! own options here, so unknown keys and bad values fail the same way.
use crate::conn::{
    cluster_dsn, sentinel_dsn, shown, shown_float, Dsn, Error, MultiSpec, Result, Timeouts,
};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// One value of an options array. Its `Debug` form is what a message may
/// echo (`float 1.5`, `string '+08:00\0'`, `array`): PHP's type name and the
/// value escaped and capped by `conn::shown`, never Rust's `Float(1.5)` or a
/// 1 MB string.
#[derive(Clone, PartialEq)]
pub enum OptValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Vec<u8>),
    List(Vec<OptValue>),
    /// An array with string keys: options of an option.
    Map(Vec<(String, OptValue)>),
    Other(&'static str),
}

impl OptValue {
    /// PHP's name for the type of the value.
    pub fn type_name(&self) -> &'static str {
        match self {
            OptValue::Null => "null",
            OptValue::Bool(_) => "bool",
            OptValue::Int(_) => "int",
            OptValue::Float(_) => "float",
            OptValue::Str(_) => "string",
            OptValue::List(_) | OptValue::Map(_) => "array",
            OptValue::Other(t) => t,
        }
    }
}

impl fmt::Debug for OptValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptValue::Bool(b) => write!(f, "bool {b}"),
            OptValue::Int(i) => write!(f, "int {i}"),
            OptValue::Float(x) => write!(f, "float {}", shown_float(*x)),
            OptValue::Str(s) => write!(f, "string '{}'", shown(s)),
            v => f.write_str(v.type_name()),
        }
    }
}

/// The process-wide defaults (ini settings), read once per request.
#[derive(Debug, Clone)]
pub struct Settings {
    pub default_dsn: String,
    pub prefix: String,
    pub timeouts: Timeouts,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            default_dsn: "redis://127.0.0.1:6379".into(),
            prefix: String::new(),
            timeouts: Timeouts::default(),
        }
    }
}

/// The `$connection` argument.
#[derive(Debug, Clone)]
pub enum Connection {
    Default,
    Dsn(String),
    /// A plain list of DSNs (independent masters).
    List(Vec<String>),
    /// `['cluster' => [seeds], ...]`: a Redis Cluster.
    Cluster(MultiSpec),
    /// `['sentinel' => [sentinels], 'service' => name, ...]`: a master behind Sentinel.
    Sentinel(MultiSpec),
}

impl Connection {
    /// Resolves the connection of one logical Redis: a server, a cluster or a
    /// sentinel-watched master (a plain list, Redlock's, is refused here).
    pub fn single(&self, settings: &Settings) -> Result<Arc<Dsn>> {
        match self {
            Connection::Default => Dsn::parse_shared(&settings.default_dsn, settings.timeouts),
            Connection::Dsn(s) => Dsn::parse_shared(s, settings.timeouts),
            Connection::List(_) => Err(Error::invalid(
                "a list of DSNs (independent masters) is only supported by RedisLock (Redlock); pass one DSN string",
            )),
            Connection::Cluster(spec) => Ok(Arc::new(cluster_dsn(spec, settings.timeouts)?)),
            Connection::Sentinel(spec) => Ok(Arc::new(sentinel_dsn(spec, settings.timeouts)?)),
        }
    }

    /// The keyed array forms: `['cluster' => [...], 'password' => ..., ...]`
    /// and `['sentinel' => [...], 'service' => ..., ...]`.
    pub fn multi(mut o: Options) -> Result<Connection> {
        let has = |o: &Options, k: &str| o.entries.iter().any(|(key, _)| key == k);
        let is_cluster = has(&o, "cluster");
        if is_cluster && has(&o, "sentinel") {
            return Err(Error::invalid(
                "a connection is either 'cluster' or 'sentinel', not both",
            ));
        }
        let cluster = o.string_list("cluster")?;
        let sentinel = o.string_list("sentinel")?;
        let mut spec = MultiSpec {
            user: o.string("user")?,
            password: o.string("password")?,
            read_timeout: o.seconds("read_timeout")?,
            connect_timeout: o.seconds("connect_timeout")?,
            tls: o.bool("tls", false)?,
            ..MultiSpec::default()
        };
        (spec.wait_replicas, spec.wait_timeout) = o.replication()?;
        if is_cluster {
            spec.nodes = cluster;
            o.finish(
                "cluster connection",
                &[
                    "cluster",
                    "user",
                    "password",
                    "read_timeout",
                    "connect_timeout",
                    "tls",
                    "wait_replicas",
                    "wait_timeout",
                ],
            )?;
            return Ok(Connection::Cluster(spec));
        }
        spec.nodes = sentinel;
        spec.service = o.string("service")?;
        spec.sentinel_user = o.string("sentinel_user")?;
        spec.sentinel_password = o.string("sentinel_password")?;
        spec.db = o.int("db", 0, i64::from(i32::MAX), 0)?;
        o.finish(
            "sentinel connection",
            &[
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
                "wait_replicas",
                "wait_timeout",
            ],
        )?;
        Ok(Connection::Sentinel(spec))
    }
}

/// An options array being consumed: each known key is taken out, and
/// whatever is left at the end is an unknown key.
#[derive(Debug, Default)]
pub struct Options {
    entries: Vec<(String, OptValue)>,
}

impl Options {
    pub fn new(entries: Vec<(String, OptValue)>) -> Self {
        Options { entries }
    }

    pub fn take(&mut self, key: &str) -> Option<OptValue> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }

    /// Fails on the first key nobody took, naming it and the known ones.
    pub fn finish(self, class: &str, known: &[&str]) -> Result<()> {
        match self.entries.first() {
            None => Ok(()),
            Some((k, _)) => Err(Error::invalid(format!(
                "{class}: unknown option '{}' (known options: {})",
                shown(k.as_bytes()),
                known.join(", ")
            ))),
        }
    }

    pub fn string(&mut self, key: &str) -> Result<Option<String>> {
        match self.take(key) {
            None | Some(OptValue::Null) => Ok(None),
            Some(OptValue::Str(s)) => String::from_utf8(s)
                .map(Some)
                .map_err(|_| Error::invalid(format!("option '{key}' must be valid UTF-8"))),
            Some(v) => Err(wrong_type(key, "a string", &v)),
        }
    }

    pub fn bytes(&mut self, key: &str) -> Result<Option<Vec<u8>>> {
        match self.take(key) {
            None | Some(OptValue::Null) => Ok(None),
            Some(OptValue::Str(s)) => Ok(Some(s)),
            Some(v) => Err(wrong_type(key, "a string", &v)),
        }
    }

    /// One of `allowed`, or `default` when absent.
    pub fn choice(
        &mut self,
        key: &str,
        allowed: &[&'static str],
        default: &'static str,
    ) -> Result<&'static str> {
        match self.string(key)? {
            None => Ok(default),
            Some(s) => allowed.iter().find(|a| **a == s).copied().ok_or_else(|| {
                Error::invalid(format!(
                    "option '{key}' must be one of '{}', got '{}'",
                    allowed.join("', '"),
                    shown(s.as_bytes())
                ))
            }),
        }
    }

    pub fn bool(&mut self, key: &str, default: bool) -> Result<bool> {
        match self.take(key) {
            None | Some(OptValue::Null) => Ok(default),
            Some(OptValue::Bool(b)) => Ok(b),
            Some(v) => Err(wrong_type(key, "a bool", &v)),
        }
    }

    /// A number of seconds > 0 (finite), or `None` when absent.
    pub fn seconds(&mut self, key: &str) -> Result<Option<Duration>> {
        let v = match self.take(key) {
            None | Some(OptValue::Null) => return Ok(None),
            Some(OptValue::Int(i)) => i as f64,
            Some(OptValue::Float(f)) => f,
            Some(v) => return Err(wrong_type(key, "a number of seconds", &v)),
        };
        positive_secs(&format!("option '{key}'"), v).map(Some)
    }

    /// `wait_replicas` and `wait_timeout`, as given (None: absent).
    pub fn replication(&mut self) -> Result<(Option<i64>, Option<Duration>)> {
        let max = crate::conn::MAX_WAIT_REPLICAS;
        let n = match self.int("wait_replicas", 0, max, -1)? {
            -1 => None,
            n => Some(n),
        };
        Ok((n, self.seconds("wait_timeout")?))
    }

    /// An integer in `min..=max`, or `default` when absent.
    pub fn int(&mut self, key: &str, min: i64, max: i64, default: i64) -> Result<i64> {
        match self.take(key) {
            None | Some(OptValue::Null) => Ok(default),
            Some(OptValue::Int(i)) if (min..=max).contains(&i) => Ok(i),
            Some(OptValue::Int(i)) => Err(Error::invalid(format!(
                "option '{key}' must be between {min} and {max}, got {i}"
            ))),
            Some(v) => Err(wrong_type(key, "an int", &v)),
        }
    }

    /// An option holding options of its own: `true` or an array of them
    /// (`Some`), `false`, null or absent (`None`).
    pub fn nested(&mut self, key: &str) -> Result<Option<Options>> {
        match self.take(key) {
            None | Some(OptValue::Null) | Some(OptValue::Bool(false)) => Ok(None),
            Some(OptValue::Bool(true)) => Ok(Some(Options::default())),
            Some(OptValue::List(l)) if l.is_empty() => Ok(Some(Options::default())),
            Some(OptValue::Map(m)) => Ok(Some(Options::new(m))),
            Some(OptValue::List(_)) => Err(Error::invalid(format!(
                "option '{key}' must be true or an array of options by name, got a list"
            ))),
            Some(v) => Err(wrong_type(key, "true or an array of options", &v)),
        }
    }

    /// A list of strings (an empty list when absent).
    pub fn string_list(&mut self, key: &str) -> Result<Vec<String>> {
        match self.take(key) {
            None | Some(OptValue::Null) => Ok(Vec::new()),
            Some(OptValue::Map(m)) => Self::strings(key, m.into_iter().map(|(_, v)| v)),
            Some(OptValue::List(items)) => Self::strings(key, items.into_iter()),
            Some(v) => Err(wrong_type(key, "a list of strings", &v)),
        }
    }

    fn strings(key: &str, items: impl Iterator<Item = OptValue>) -> Result<Vec<String>> {
        items
            .map(|v| match v {
                OptValue::Str(s) => String::from_utf8(s)
                    .map_err(|_| Error::invalid(format!("option '{key}' must hold strings"))),
                v => Err(wrong_type(key, "a list of strings", &v)),
            })
            .collect()
    }
}

fn wrong_type(key: &str, want: &str, got: &OptValue) -> Error {
    Error::invalid(format!(
        "option '{key}' must be {want}, got {}",
        got.type_name()
    ))
}

/// Seconds as a `Duration`: finite and > 0.
pub fn positive_secs(what: &str, v: f64) -> Result<Duration> {
    if v.is_finite() && v > 0.0 && v < 1e9 {
        Ok(Duration::from_secs_f64(v))
    } else {
        Err(Error::invalid(format!(
            "{what} must be a positive number of seconds, got {}",
            shown_float(v)
        )))
    }
}

/// Seconds as a `Duration`: finite and >= 0.
pub fn non_negative_secs(what: &str, v: f64) -> Result<Duration> {
    if v.is_finite() && (0.0..1e9).contains(&v) {
        Ok(Duration::from_secs_f64(v))
    } else {
        Err(Error::invalid(format!(
            "{what} must be a finite number of seconds >= 0, got {}",
            shown_float(v)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named() {
        let mut o = Options::new(vec![
            ("order".into(), OptValue::Str(b"asc".to_vec())),
            ("colour".into(), OptValue::Int(1)),
        ]);
        assert_eq!(o.choice("order", &["desc", "asc"], "desc").unwrap(), "asc");
        let e = o.finish("RedisLeaderboard", &["order"]).unwrap_err();
        assert!(e.message().contains("'colour'"), "{e}");
    }

    #[test]
    fn values_are_checked() {
        let mut o = Options::new(vec![("ttl".into(), OptValue::Float(-1.0))]);
        assert!(o.seconds("ttl").is_err());
        let mut o = Options::new(vec![("ttl".into(), OptValue::Str(b"x".to_vec()))]);
        assert!(o.seconds("ttl").is_err());
        let mut o = Options::new(vec![("order".into(), OptValue::Str(b"up".to_vec()))]);
        assert!(o.choice("order", &["desc", "asc"], "desc").is_err());
        assert!(non_negative_secs("wait", f64::NAN).is_err());
        assert!(positive_secs("ttl", 0.0).is_err());
    }

    #[test]
    fn echoed_values_are_escaped_and_capped() {
        let mut o = Options::new(vec![("\0".into(), OptValue::Int(1))]);
        assert_eq!(o.take("x"), None);
        let e = o.finish("C", &["x"]).unwrap_err();
        assert_eq!(e.message(), "C: unknown option '\\0' (known options: x)");
        let long = vec![b'a'; 1 << 20];
        let mut o = Options::new(vec![("order".into(), OptValue::Str(long.clone()))]);
        let e = o.choice("order", &["desc"], "desc").unwrap_err();
        assert!(e.message().len() < 200, "{e}");
        let e = positive_secs("ttl", -1e308).unwrap_err();
        assert!(e.message().ends_with("got -1e308"), "{e}");
        assert_eq!(format!("{:?}", OptValue::Float(1.5)), "float 1.5");
        assert_eq!(
            format!("{:?}", OptValue::Str(b"+08:00\0".to_vec())),
            "string '+08:00\\0'"
        );
        assert!(format!("{:?}", OptValue::Str(long)).len() < 100);
        assert_eq!(format!("{:?}", OptValue::List(vec![])), "array");
    }
}
