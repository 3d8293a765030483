//! The registry: which queues, locks, limiters and caches exist under a
//! prefix, kept by the objects themselves (`RedisKit\registry()`).
//!
//! An object records itself after its first call that reached Redis, once
//! per worker process for the life of that process (not per call, nor per
//! request): one hash, `<prefix>rediskit:registry`, one field per object
//! (`kind:name`) holding when it was last recorded and its settings. Each
//! kind holds at most `MAX_PER_KIND` entries; a kind that is full is not
//! written again by this worker. Recording is bookkeeping: its command is
//! counted in `stats()['registrations']`, not in `commands`, and its
//! failure (an ACL that refuses it, a lost connection) is nobody's error.
use crate::conn::{self, Dsn, Result, ScriptCall, Value};
use parking_lot::Mutex;
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// The most entries of one kind the registry keeps.
pub const MAX_PER_KIND: i64 = 1000;
/// The most objects one worker process remembers having recorded (beyond
/// it, nothing more is recorded: a process that makes lock names without
/// end does not grow without end).
const MAX_REMEMBERED: usize = 100_000;
/// The registry hash's name under the prefix.
pub const KEY: &str = "rediskit:registry";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Queue,
    Lock,
    Limiter,
    Cache,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Queue, Kind::Lock, Kind::Limiter, Kind::Cache];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Queue => "queue",
            Kind::Lock => "lock",
            Kind::Limiter => "limiter",
            Kind::Cache => "cache",
        }
    }

    fn parse(s: &[u8]) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name().as_bytes() == s)
    }
}

/// What this worker process has recorded: hashes of (connection, registry
/// key, kind, name), and of (connection, registry key, kind) for a full kind.
static RECORDED: Mutex<Option<HashSet<u64>>> = Mutex::new(None);

/// One object's registration: made with the object (nothing allocated: the
/// object keeps its prefix and name in a key of its own), sent at most once
/// per process after the object's first call that reached Redis.
#[derive(Debug)]
pub struct Registration {
    pending: AtomicBool,
    kind: Kind,
    /// Where the prefix ends and the name does in the key `done` is given.
    prefix_len: usize,
    name_len: usize,
}

fn digest(parts: &[&[u8]]) -> u64 {
    let mut h = DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    h.finish()
}

impl Registration {
    /// An object whose keys start with a prefix of `prefix_len` bytes
    /// followed by its name of `name_len` bytes.
    pub fn new(kind: Kind, prefix_len: usize, name_len: usize) -> Self {
        Registration {
            pending: AtomicBool::new(true),
            kind,
            prefix_len,
            name_len,
        }
    }

    /// Records the object if this process has not yet: call it after a call
    /// of the object that reached Redis, with a key that starts with its
    /// prefix and name, and what the registry shows of its settings
    /// (`k=v&k=v`, only made when sent). Costs one relaxed load once done.
    #[inline]
    pub fn done(&self, dsn: &Dsn, key: &[u8], settings: impl FnOnce() -> String) {
        if self.pending.load(Relaxed) {
            self.record(dsn, key, settings);
        }
    }

    #[cold]
    fn record(&self, dsn: &Dsn, key: &[u8], settings: impl FnOnce() -> String) {
        self.pending.store(false, Relaxed);
        let Some(prefix) = key.get(..self.prefix_len) else {
            return;
        };
        let Some(name) = key.get(self.prefix_len..self.prefix_len + self.name_len) else {
            return;
        };
        let kind = self.kind.name().as_bytes();
        let full = digest(&[dsn.key.as_bytes(), prefix, kind]);
        let entry = digest(&[dsn.key.as_bytes(), prefix, kind, name]);
        {
            let mut g = RECORDED.lock();
            let set = g.get_or_insert_with(HashSet::new);
            if set.contains(&full) || set.contains(&entry) || set.len() >= MAX_REMEMBERED {
                return;
            }
            set.insert(entry);
        }
        let mut registry = prefix.to_vec();
        registry.extend_from_slice(KEY.as_bytes());
        let mut field = kind.to_vec();
        field.push(b':');
        field.extend_from_slice(name);
        let mut count = b"#".to_vec();
        count.extend_from_slice(kind);
        let settings = settings();
        let mut c = ScriptCall::new(&crate::scripts::REGISTRY_ADD);
        c.key(&registry)
            .arg(&field)
            .arg(&count)
            .int(MAX_PER_KIND)
            .arg(settings.as_bytes());
        if let Ok(Value::Int(0)) = conn::bookkeeping_eval(dsn, &c) {
            RECORDED
                .lock()
                .get_or_insert_with(HashSet::new)
                .insert(full);
        }
    }
}

/// One object of the registry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub kind: Kind,
    pub name: Vec<u8>,
    /// When a worker last recorded it (Redis's clock, Unix seconds).
    pub seen: f64,
    /// Its settings as recorded, in order.
    pub settings: Vec<(String, String)>,
}

/// Every entry of the registry under `prefix`, by kind then name; `full`
/// lists the kinds that reached `MAX_PER_KIND`. One command (HGETALL).
pub fn list(dsn: &Dsn, prefix: &[u8]) -> Result<(Vec<Entry>, Vec<Kind>)> {
    let mut key = prefix.to_vec();
    key.extend_from_slice(KEY.as_bytes());
    let mut a = conn::Args::cmd("HGETALL");
    a.push(&key);
    let v = conn::command(dsn, &a, true)?;
    let pairs = match v {
        Value::Array(items) => items,
        Value::Map(m) => m.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        v => return Err(conn::Error::unexpected("HGETALL", &v)),
    };
    let mut out = Vec::with_capacity(pairs.len() / 2);
    let mut full = Vec::new();
    let mut it = pairs.into_iter();
    while let (Some(f), Some(v)) = (it.next(), it.next()) {
        let (Value::BulkString(f), Value::BulkString(v)) = (f, v) else {
            continue;
        };
        if let Some(kind) = f.strip_prefix(b"#") {
            let n = std::str::from_utf8(&v)
                .ok()
                .and_then(|s| s.parse::<i64>().ok());
            if let (Some(k), Some(n)) = (Kind::parse(kind), n) {
                if n >= MAX_PER_KIND {
                    full.push(k);
                }
            }
            continue;
        }
        if let Some(e) = parse_entry(&f, &v) {
            out.push(e);
        }
    }
    out.sort_by(|a, b| (a.kind as u8, &a.name).cmp(&(b.kind as u8, &b.name)));
    full.sort_by_key(|k| *k as u8);
    Ok((out, full))
}

/// One field and value of the registry hash; `None` for what no object of
/// this extension wrote.
fn parse_entry(field: &[u8], value: &[u8]) -> Option<Entry> {
    let colon = field.iter().position(|b| *b == b':')?;
    let kind = Kind::parse(&field[..colon])?;
    let text = std::str::from_utf8(value).ok()?;
    let mut seen = None;
    let mut settings = Vec::new();
    for pair in text.split('&') {
        let (k, v) = pair.split_once('=')?;
        if k == "seen" {
            seen = v.parse::<f64>().ok().filter(|s| s.is_finite());
        } else {
            settings.push((k.to_string(), v.to_string()));
        }
    }
    Some(Entry {
        kind,
        name: field[colon + 1..].to_vec(),
        seen: seen?,
        settings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_and_foreign_fields_are_skipped() {
        let e = parse_entry(
            b"limiter:api",
            b"seen=1700000000.000100&algorithm=gcra&limit=10",
        )
        .expect("an entry");
        assert_eq!(e.kind, Kind::Limiter);
        assert_eq!(e.name, b"api");
        assert!((e.seen - 1_700_000_000.000_1).abs() < 1e-6);
        assert_eq!(
            e.settings,
            vec![
                ("algorithm".to_string(), "gcra".to_string()),
                ("limit".to_string(), "10".to_string())
            ]
        );
        // a name may hold ':' itself
        assert_eq!(
            parse_entry(b"lock:a:b", b"seen=1").map(|e| e.name),
            Some(b"a:b".to_vec())
        );
        assert_eq!(parse_entry(b"widget:x", b"seen=1"), None);
        assert_eq!(parse_entry(b"lock:x", b"garbage"), None);
        assert_eq!(parse_entry(b"lock:x", b"seen=NaN"), None);
    }

    /// What an object does: a registration, then `done` with its key.
    fn register(dsn: &Dsn, prefix: &[u8], kind: Kind, name: &[u8], settings: &str) {
        let mut key = prefix.to_vec();
        key.extend_from_slice(name);
        key.extend_from_slice(b":side");
        Registration::new(kind, prefix.len(), name.len()).done(dsn, &key, || settings.into());
    }

    #[test]
    fn recorded_once_per_process_and_listed() {
        let dsn = conn::test_dsn();
        let prefix = conn::test_ns("registry", "once");
        let mut key = prefix.clone();
        key.extend_from_slice(KEY.as_bytes());
        let mut del = conn::Args::cmd("DEL");
        del.push(&key);
        conn::command(&dsn, &del, false).unwrap();
        let before = conn::stats::snapshot();
        let count = |s: &[(&str, u64)], k: &str| s.iter().find(|(n, _)| *n == k).map(|p| p.1);
        let a = Registration::new(Kind::Queue, prefix.len(), 6);
        let mut qkey = prefix.clone();
        qkey.extend_from_slice(b"orders");
        let made = std::cell::Cell::new(0);
        let settings = || {
            made.set(made.get() + 1);
            "max_attempts=5".to_string()
        };
        a.done(&dsn, &qkey, settings);
        a.done(&dsn, &qkey, settings);
        // the settings are made once, when sent
        assert_eq!(made.get(), 1);
        // a second object of the same name in this process: nothing sent
        register(&dsn, &prefix, Kind::Queue, b"orders", "max_attempts=5");
        register(&dsn, &prefix, Kind::Lock, b"orders", "");
        // a key shorter than the registration says: nothing sent, no panic
        Registration::new(Kind::Cache, prefix.len(), 99).done(&dsn, &qkey, String::new);
        let after = conn::stats::snapshot();
        assert_eq!(
            count(&after, "registrations"),
            count(&before, "registrations").map(|n| n + 2)
        );
        assert_eq!(count(&after, "commands"), count(&before, "commands"));
        let (entries, full) = list(&dsn, &prefix).unwrap();
        assert!(full.is_empty());
        let shown: Vec<_> = entries
            .iter()
            .map(|e| (e.kind, e.name.clone(), e.settings.clone()))
            .collect();
        assert_eq!(
            shown,
            vec![
                (
                    Kind::Queue,
                    b"orders".to_vec(),
                    vec![("max_attempts".into(), "5".into())]
                ),
                (Kind::Lock, b"orders".to_vec(), vec![]),
            ]
        );
        conn::command(&dsn, &del, false).unwrap();
    }

    #[test]
    fn a_full_kind_takes_no_more_and_is_not_written_again() {
        let dsn = conn::test_dsn();
        let prefix = conn::test_ns("registry", "full");
        let mut key = prefix.clone();
        key.extend_from_slice(KEY.as_bytes());
        let mut del = conn::Args::cmd("DEL");
        del.push(&key);
        conn::command(&dsn, &del, false).unwrap();
        // the kind's count at the cap, as MAX_PER_KIND recordings leave it
        let mut fill = conn::Args::cmd("HSET");
        fill.push(&key).push("#cache").int(MAX_PER_KIND);
        conn::command(&dsn, &fill, false).unwrap();
        let regs = |s: &[(&str, u64)]| s.iter().find(|(n, _)| *n == "registrations").map(|p| p.1);
        let r0 = regs(&conn::stats::snapshot());
        register(&dsn, &prefix, Kind::Cache, b"one", "");
        register(&dsn, &prefix, Kind::Cache, b"two", "");
        // the first learnt the kind is full: the second sent nothing
        assert_eq!(regs(&conn::stats::snapshot()), r0.map(|n| n + 1));
        let (entries, full) = list(&dsn, &prefix).unwrap();
        assert!(entries.is_empty(), "{entries:?}");
        assert_eq!(full, vec![Kind::Cache]);
        // another kind still records
        register(&dsn, &prefix, Kind::Lock, b"l", "");
        assert_eq!(list(&dsn, &prefix).unwrap().0.len(), 1);
        conn::command(&dsn, &del, false).unwrap();
    }
}
