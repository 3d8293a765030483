//! The one error type of the pure-Rust core. Bindings map each variant to a
//! PHP exception class; nothing here knows about PHP.
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Bad input from the caller (PHP: `\ValueError`). Nothing was sent to Redis.
    Invalid(String),
    /// Cannot connect, connection lost, or timed out (PHP: `RedisKit\ConnectionException`).
    Connection(String),
    /// Redis answered with an error, or with a reply we did not expect (PHP: `RedisKit\Exception`).
    Redis(String),
    /// A write the master made but fewer replicas than asked confirmed in
    /// time (PHP: `RedisKit\ReplicationException`, with the job ids the
    /// write concerned and the replicas that confirmed it).
    Replication {
        message: String,
        ids: Vec<Vec<u8>>,
        replicas: i64,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }

    pub fn unexpected(what: &str, got: &redis::Value) -> Self {
        Error::Redis(format!("unexpected reply from Redis for {what}: {got:?}"))
    }

    pub fn message(&self) -> &str {
        match self {
            Error::Invalid(m) | Error::Connection(m) | Error::Redis(m) => m,
            Error::Replication { message, .. } => message,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

/// Longest echo of a caller's value in a message, in bytes of the original.
const SHOWN_MAX: usize = 64;

/// A caller's value as messages echo it: control bytes, quotes' backslash and
/// bytes that are not UTF-8 are escaped (`\0`, `\n`, `\x1b`, ...), and a long
/// value is cut after 64 bytes with its full length noted. PHP refuses to
/// throw an exception whose message holds a NUL byte, and a 1 MB value is no
/// use in a log line; never echo a password through this (redact first).
pub fn shown(bytes: &[u8]) -> String {
    let cut = bytes.len() > SHOWN_MAX;
    let head = &bytes[..bytes.len().min(SHOWN_MAX)];
    let mut out = String::with_capacity(head.len() + 16);
    for chunk in head.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\0' => out.push_str("\\0"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    if cut {
        out.push_str(&format!("... ({} bytes)", bytes.len()));
    }
    out
}

/// A file path as messages echo it: like `shown`, but a long path keeps its
/// end (the file name) rather than its start.
pub fn shown_path(path: &str) -> String {
    let b = path.as_bytes();
    if b.len() <= SHOWN_MAX {
        return shown(b);
    }
    format!("...{}", shown(&b[b.len() - (SHOWN_MAX - 4)..]))
}

/// A float as messages echo it: short, whatever its magnitude (-1e308 is not
/// printed as 309 digits).
pub fn shown_float(f: f64) -> String {
    if f.is_finite() && f != 0.0 && (f.abs() >= 1e15 || f.abs() < 1e-6) {
        format!("{f:e}")
    } else {
        format!("{f}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_escapes_and_caps() {
        assert_eq!(shown(b"a\0b"), "a\\0b");
        assert_eq!(shown(b"\xff\x1b"), "\\xff\\x1b");
        assert_eq!(shown("é".as_bytes()), "é");
        let long = vec![b'h'; 1_000_000];
        let s = shown(&long);
        assert!(s.len() < 100, "{s}");
        assert!(s.ends_with("... (1000000 bytes)"), "{s}");
        assert_eq!(shown_float(-1e308), "-1e308");
        let p = format!("/{}/ca.pem", "d".repeat(100));
        let s = shown_path(&p);
        assert!(
            s.starts_with("...") && s.ends_with("ddd/ca.pem") && s.len() < 70,
            "{s}"
        );
        assert_eq!(shown_path("/etc/ca.pem"), "/etc/ca.pem");
        assert_eq!(shown_float(1.5), "1.5");
    }
}
