//! What the fuzz targets share: a cursor over libFuzzer's bytes, and a
//! generator of DSNs that carry a secret marker in their password, so that
//! any output showing the marker is a password leak.
#![allow(dead_code)] // each target uses its own part of this

/// The marker every generated password holds. No other part of a generated
/// DSN or option contains '~', so output holding it (or its %-encoded form)
/// echoes a password.
pub const SECRET: &str = "~S3~";

/// True if `s` shows the secret, as it is or %-encoded.
pub fn leaks(s: &str) -> bool {
    s.contains(SECRET) || s.to_ascii_lowercase().contains("%7es3%7e")
}

/// Panics (a libFuzzer finding) if `out` shows the secret.
///
/// With RK_FUZZ_LEAKS=FILE set (php-tests/fuzz/run.sh sets it) a leak is
/// appended to FILE instead, once per kind of leak, and fuzzing goes on: the
/// known kinds would otherwise stop every run at the first input. A kind is
/// `what` and the message with its quoted values blanked (one kind per
/// message template), or for an unquoted output (a DSN) its kind of scheme.
pub fn assert_no_leak(what: &str, input: &str, out: &str) {
    if !leaks(out) {
        return;
    }
    let Some(path) = std::env::var_os("RK_FUZZ_LEAKS") else {
        panic!("PASSWORD LEAK in {what}: input {input:?} gave {out:?}");
    };
    let kind = format!("{what}: {}", template(out));
    static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if seen.contains(&kind) {
        return;
    }
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{kind}\t{input:?}\t{out:?}");
    }
    seen.push(kind);
}

/// `out` with each '...' blanked ('_'); an output without quotes (a DSN)
/// becomes the kind of its scheme.
fn template(out: &str) -> String {
    let parts: Vec<&str> = out.split('\'').collect();
    if parts.len() < 3 {
        return match out.split_once("://") {
            None => "a DSN without '://'".into(),
            Some((s, _)) => match s.to_ascii_lowercase().as_str() {
                k @ ("redis" | "rediss" | "unix" | "tcp" | "tls") => format!("a {k}:// DSN"),
                _ => "a DSN of another scheme".into(),
            },
        };
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 0 {
                p.to_string()
            } else {
                "_".into()
            }
        })
        .collect::<Vec<_>>()
        .join("'")
}

/// Reads libFuzzer's bytes front to back; past the end everything is zero.
pub struct Cursor<'a> {
    data: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Cursor { data }
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v = if n > 256 {
            u16::from_le_bytes([self.byte(), self.byte()]) as usize
        } else {
            self.byte() as usize
        };
        v % n
    }

    pub fn chance(&mut self, in_256: u8) -> bool {
        self.byte() < in_256
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    pub fn u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.byte();
        }
        u64::from_le_bytes(b)
    }

    /// Up to `max` raw bytes.
    pub fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.below(max + 1).min(self.data.len());
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        head.to_vec()
    }

    /// Up to `max` characters for a DSN part: mostly ASCII (the DSN
    /// delimiters included), some multi-byte, never '~'.
    pub fn text(&mut self, max: usize) -> String {
        let n = self.below(max + 1);
        let mut s = String::new();
        for _ in 0..n {
            if self.is_empty() {
                break;
            }
            let b = self.byte();
            match b {
                // no quote: messages quote what they echo, see `template`
                b'\'' | 0x7e => s.push('_'),
                0x20..=0x7d => s.push(b as char),
                0x80..=0x8f => s.push_str(
                    ["é", "\u{0}", "%", "%zz", "%41", "%c3%a9", "%ff", "\u{202e}"]
                        [(b & 7) as usize],
                ),
                _ => s.push(char::from(b"/:@?&=#[]%.-_0123456789"[(b as usize) % 23])),
            }
        }
        s
    }
}

/// `s` without anything that decodes to the marker: a '%' that starts
/// "%7e" becomes '_' ('~' itself is never generated outside passwords).
pub fn scrub(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if c == '~' {
            out.push('_');
        } else if c == '%'
            && b.get(i + 1) == Some(&b'7')
            && matches!(b.get(i + 2), Some(b'e' | b'E'))
        {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    out
}

/// A password holding the marker: fuzz text around it (without `avoid`'s
/// characters), sometimes %-encoded as a whole.
pub fn password(c: &mut Cursor, avoid: &str) -> String {
    let keep = |s: String| -> String {
        scrub(&s)
            .chars()
            .filter(|ch| !avoid.contains(*ch))
            .collect()
    };
    let a = keep(c.text(6));
    let b = keep(c.text(6));
    let pw = format!("{a}{SECRET}{b}");
    if c.chance(48) {
        pw.bytes().map(|x| format!("%{x:02X}")).collect()
    } else {
        pw
    }
}

/// A DSN in one of the forms the README documents (and near misses: other
/// schemes, relative unix paths, bad ports, odd query parameters), its
/// password always holding the marker where its writer meant a password.
pub fn dsn(c: &mut Cursor) -> String {
    let scheme = c.pick(&[
        "redis", "redis", "redis", "rediss", "rediss", "unix", "unix", "tcp", "tls", "REDIS",
        "Unix", "http", "", "redis:",
    ]);
    let unix = scheme.eq_ignore_ascii_case("unix");
    // a ':' in a user name starts the password, a unix DSN's "@/" ends the user info
    let user = scrub(&c.text(6)).replace(':', "_");
    let user = if unix {
        // and "unix://" followed by '/' is an absolute path
        user.replace('@', "_").trim_start_matches('/').to_string()
    } else {
        user
    };
    let form = c.below(7);
    let query_form = form == 4;
    // In the query a '&' would end the value, and in the password-only
    // form a ':' makes what comes before it a user name: such a password
    // is another DSN, not a password. A unix DSN's user info ends at "@/".
    let avoid = match form {
        4 => "&#",
        1 => ":",
        _ if unix => "@",
        _ => "",
    };
    let mut pw = password(c, avoid);
    if unix && pw.starts_with('/') {
        // "unix://" followed by '/' is an absolute path, not user info
        pw.replace_range(..1, "_");
    }
    let auth = match form {
        0 | 5 => format!("{user}:{pw}@"),
        1 => format!("{pw}@"),
        2 | 6 => format!(":{pw}@"),
        3 => format!("{user}@"), // no password: nothing to leak
        _ => String::new(),
    };
    let host = if unix {
        c.pick(&[
            "/tmp/redis.sock",
            "/var/run/redis/redis-server.sock",
            "/",
            "rel/redis.sock",
            "redis.sock",
            "",
            "//double",
            "/tmp/%72edis.sock",
        ])
        .to_string()
    } else {
        match c.below(8) {
            0 => "127.0.0.1".into(),
            1 => "localhost".into(),
            2 => "[::1]".into(),
            3 => "::1".into(),
            4 => String::new(),
            5 => "[::1".into(),
            // no '@' in a host: the user info ends at the last '@'
            _ => scrub(&c.text(12)).replace('@', "_"),
        }
    };
    let port = match c.below(8) {
        0..=2 => String::new(),
        3 => ":6379".into(),
        4 => c
            .pick(&[":0", ":65536", ":-1", ":abc", ":", ":99999999999999999999"])
            .into(),
        _ => format!(":{}", scrub(&c.text(6)).replace('@', "_")),
    };
    let path = match c.below(6) {
        0..=2 => String::new(),
        3 => c
            .pick(&["/0", "/15", "/-1", "/x", "/", "/9223372036854775808"])
            .into(),
        // no '@' in the path either: it would move the end of the user info
        _ => format!("/{}", scrub(&c.text(6)).replace('@', "_")),
    };
    let mut pairs: Vec<String> = Vec::new();
    for _ in 0..c.below(4) {
        let k = match c.below(12) {
            0 => "timeout".to_string(),
            1 => "connect_timeout".into(),
            2 => "read_timeout".into(),
            3 => "db".into(),
            4 => "database".into(),
            5 => "cafile".into(),
            6 => "verify_peer".into(),
            7 => "user".into(),
            _ => scrub(&c.text(8)).replace('&', "_"),
        };
        let v = match c.below(6) {
            0 => c
                .pick(&[
                    "0", "1", "0.5", "-1", "nan", "inf", "1e9", "1e-9", "", "true",
                ])
                .into(),
            1 => c
                .pick(&["/dev/null", "/nonexistent/ca.pem", "/tmp", "%2Fetc%2Fhosts"])
                .into(),
            _ => scrub(&c.text(8)).replace('&', "_"),
        };
        pairs.push(if c.chance(16) { k } else { format!("{k}={v}") });
    }
    if query_form {
        let at = c.below(pairs.len() + 1);
        // the documented parameter name only: under another name a value is not a password
        pairs.insert(at, format!("password={pw}"));
    }
    let query = if pairs.is_empty() {
        String::new()
    } else {
        format!("?{}", pairs.join("&"))
    };
    // near misses of "scheme://": ":/", and no scheme at all ("u:pw@host")
    let (scheme, sep) = match c.below(32) {
        0 => (scheme, ":/"),
        1 => ("", ""),
        _ => (scheme, "://"),
    };
    format!("{scheme}{sep}{auth}{host}{port}{path}{query}")
}
