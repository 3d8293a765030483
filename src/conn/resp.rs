//! RESP reply decoding straight from one reused read buffer.
//!
//! A reply is read into the connection's buffer and decoded into
//! `redis::Value` in one pass when it is all there (the usual case: one
//! read). One that spans reads is scanned for its end first (the scan
//! resumes where it stopped, so a big reply is walked once), then decoded.
//! The buffer is zero-filled once, when it is allocated or grown, never per
//! read. The RESP2 replies Redis sends to this client (simple strings,
//! integers, bulk strings, arrays, nulls) are decoded here; an error reply,
//! a RESP3 type or anything malformed is handed, as the complete frame, to
//! the `redis` crate's own parser, so those come out exactly as before.
use redis::Value;
use std::io::{self, Read};

/// Where replies are read into: 16 KiB to start, grown as a reply needs.
const INITIAL: usize = 16 * 1024;
/// A buffer grown past this for one big reply is given back afterwards.
const KEEP_AT_MOST: usize = 256 * 1024;
/// Deeper than anything Redis sends; a bound on the scan's own stack.
const MAX_DEPTH: usize = 512;

/// Why no reply could be read.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// The server closed the connection.
    Eof,
    /// Bytes that are no RESP reply.
    Protocol(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Eof => f.write_str("the server closed the connection"),
            ReadError::Protocol(m) => f.write_str(m),
        }
    }
}

/// The scan of the reply at the front of the buffer, kept between reads.
#[derive(Default)]
struct Scan {
    /// How far (from the front) the reply is known to be well formed.
    pos: usize,
    /// Elements still missing in each open aggregate, innermost last.
    open: Vec<usize>,
    /// The reply holds something decoded by the `redis` crate's parser.
    foreign: bool,
}

pub struct Reader {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    scan: Scan,
}

impl Default for Reader {
    fn default() -> Self {
        Reader::new()
    }
}

impl Reader {
    pub fn new() -> Self {
        Reader {
            buf: Vec::new(),
            start: 0,
            end: 0,
            scan: Scan::default(),
        }
    }

    /// True when bytes nobody asked for wait in the buffer.
    pub fn has_buffered(&self) -> bool {
        self.end > self.start
    }

    /// The next reply, reading from `src` only when the buffer does not
    /// hold a complete one already.
    pub fn read_value(&mut self, src: &mut impl Read) -> Result<Value, ReadError> {
        loop {
            if self.end > self.start {
                if self.scan.pos == 0 && self.scan.open.is_empty() {
                    // the usual case: the whole reply came in one read;
                    // decode it in one pass, without a scan first
                    let mut at = 0;
                    if let Step::Done(v) = decode(&self.buf[self.start..self.end], &mut at, 0) {
                        self.consumed(at);
                        return Ok(v);
                    }
                }
                if let Some(len) = self.scan_front()? {
                    let frame = &self.buf[self.start..self.start + len];
                    let mut at = 0;
                    let v = match (self.scan.foreign, decode(frame, &mut at, 0)) {
                        (false, Step::Done(v)) => v,
                        _ => foreign(frame)?,
                    };
                    self.consumed(len);
                    return Ok(v);
                }
            }
            self.make_room();
            match src.read(&mut self.buf[self.end..]) {
                Ok(0) => return Err(ReadError::Eof),
                Ok(n) => self.end += n,
                Err(e) => return Err(ReadError::Io(e)),
            }
        }
    }

    /// The reply of `len` bytes at the front was returned: drop it.
    fn consumed(&mut self, len: usize) {
        self.start += len;
        self.scan.pos = 0;
        self.scan.open.clear();
        self.scan.foreign = false;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            if self.buf.len() > KEEP_AT_MOST {
                self.buf = Vec::new();
            }
        }
    }

    /// Free space after `end`: move the unread bytes to the front, or grow.
    fn make_room(&mut self) {
        if self.buf.is_empty() {
            self.buf = vec![0; INITIAL];
        }
        if self.end < self.buf.len() {
            return;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.end < self.buf.len() {
                return;
            }
        }
        let n = self.buf.len() * 2;
        self.buf.resize(n, 0);
    }

    /// The length of the complete reply at the front of the buffer, or
    /// `None` while more bytes are needed.
    fn scan_front(&mut self) -> Result<Option<usize>, ReadError> {
        let data = &self.buf[self.start..self.end];
        let s = &mut self.scan;
        loop {
            let Some(&kind) = data.get(s.pos) else {
                return Ok(None);
            };
            if !b"+-:_,#($!=*~>%|".contains(&kind) {
                let shown = &data[s.pos..data.len().min(s.pos + 16)];
                return Err(bad_header(shown));
            }
            let Some(line) = line_at(data, s.pos) else {
                return Ok(None);
            };
            let head = &data[s.pos..line];
            let next = line + 2;
            // the elements this one opens (0: it is complete in itself)
            let mut opens = 0usize;
            let mut end = next;
            match head[0] {
                b'+' | b':' => {}
                b'-' | b'_' | b',' | b'#' | b'(' => s.foreign = true,
                b'$' | b'!' | b'=' => match number(&head[1..]) {
                    Some(-1) if head[0] == b'$' => {}
                    Some(n) if n >= 0 => {
                        end = next.saturating_add(n as usize).saturating_add(2);
                        if end > data.len() {
                            return Ok(None);
                        }
                        if head[0] != b'$' {
                            s.foreign = true;
                        }
                    }
                    _ => return Err(bad_header(head)),
                },
                b'*' | b'~' | b'>' | b'%' | b'|' => match number(&head[1..]) {
                    Some(-1) if head[0] == b'*' => {}
                    Some(n) if n >= 0 => {
                        let n = n as usize;
                        opens = match head[0] {
                            b'*' => n,
                            b'%' => n.saturating_mul(2),
                            b'|' => n.saturating_mul(2).saturating_add(1),
                            _ => n,
                        };
                        if head[0] != b'*' {
                            s.foreign = true;
                        }
                    }
                    _ => return Err(bad_header(head)),
                },
                _ => return Err(bad_header(head)),
            }
            s.pos = end;
            if opens > 0 {
                if s.open.len() >= MAX_DEPTH {
                    return Err(ReadError::Protocol(format!(
                        "reply nested more than {MAX_DEPTH} levels deep"
                    )));
                }
                s.open.push(opens);
                continue;
            }
            // one element complete: it may complete its aggregates in turn
            loop {
                match s.open.last_mut() {
                    None => return Ok(Some(s.pos)),
                    Some(left) => {
                        *left -= 1;
                        if *left > 0 {
                            break;
                        }
                        s.open.pop();
                    }
                }
            }
        }
    }
}

/// The index of the "\r\n" ending the line that starts at `from`.
fn line_at(data: &[u8], from: usize) -> Option<usize> {
    let rest = data.get(from..)?;
    if rest.is_empty() {
        return None;
    }
    let mut i = 1;
    while i + 1 < rest.len() {
        match rest[i + 1] {
            b'\n' if rest[i] == b'\r' => return Some(from + i),
            // no '\n' at i + 1: the pair cannot start at i or at i + 1
            b'\r' => i += 1,
            _ => i += 2,
        }
    }
    None
}

/// A signed decimal as RESP writes lengths and integers.
fn number(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
    }
    Some(if neg { -v } else { v })
}

fn bad_header(head: &[u8]) -> ReadError {
    ReadError::Protocol(format!(
        "not a RESP reply: '{}'",
        super::shown(&head[..head.len().min(64)])
    ))
}

/// What `decode` made of the bytes at `*at`.
enum Step {
    Done(Value),
    /// The reply goes on past the bytes read so far.
    More,
    /// An error reply, a RESP3 type, or a form this decoder leaves to the
    /// `redis` crate's parser (or to the scan, which reports what is wrong).
    Foreign,
}

/// Decodes the RESP2 element at `*at` in one pass, if it is all there.
fn decode(data: &[u8], at: &mut usize, depth: usize) -> Step {
    let Some(&kind) = data.get(*at) else {
        return Step::More;
    };
    if !matches!(kind, b'+' | b':' | b'$' | b'*') {
        return Step::Foreign;
    }
    let Some(line) = line_at(data, *at) else {
        return Step::More;
    };
    let body = &data[*at + 1..line];
    let next = line + 2;
    match kind {
        b'+' => {
            *at = next;
            if body == b"OK" {
                return Step::Done(Value::Okay);
            }
            match std::str::from_utf8(body) {
                Ok(s) => Step::Done(Value::SimpleString(s.to_owned())),
                Err(_) => Step::Foreign,
            }
        }
        b':' => match number(body) {
            Some(i) => {
                *at = next;
                Step::Done(Value::Int(i))
            }
            None => Step::Foreign,
        },
        b'$' => match number(body) {
            Some(-1) => {
                *at = next;
                Step::Done(Value::Nil)
            }
            Some(n) if n >= 0 => {
                let end = next.saturating_add(n as usize);
                if end.saturating_add(2) > data.len() {
                    return Step::More;
                }
                if &data[end..end + 2] != b"\r\n" {
                    return Step::Foreign;
                }
                *at = end + 2;
                Step::Done(Value::BulkString(data[next..end].to_vec()))
            }
            _ => Step::Foreign,
        },
        _ => match number(body) {
            Some(-1) => {
                *at = next;
                Step::Done(Value::Nil)
            }
            Some(n) if n >= 0 && depth < MAX_DEPTH => {
                *at = next;
                let n = n as usize;
                // every element takes 3 bytes at least: a header cannot
                // make this allocate more than the bytes at hand justify
                let mut items = Vec::with_capacity(n.min((data.len() - next) / 3));
                for _ in 0..n {
                    match decode(data, at, depth + 1) {
                        Step::Done(v) => items.push(v),
                        other => return other,
                    }
                }
                Step::Done(Value::Array(items))
            }
            _ => Step::Foreign,
        },
    }
}

/// A frame the `redis` crate's parser decodes: error replies, RESP3 types,
/// and RESP2 forms this decoder does not take itself.
fn foreign(frame: &[u8]) -> Result<Value, ReadError> {
    redis::parse_redis_value(frame)
        .map_err(|e| ReadError::Protocol(format!("unreadable reply: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `bytes` `chunk` bytes per read.
    struct Chunks<'a> {
        data: &'a [u8],
        chunk: usize,
    }

    impl Read for Chunks<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.chunk.min(self.data.len()).min(buf.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn all(bytes: &[u8], chunk: usize) -> Vec<Result<Value, String>> {
        let mut r = Reader::new();
        let mut src = Chunks { data: bytes, chunk };
        let mut out = Vec::new();
        loop {
            match r.read_value(&mut src) {
                Ok(v) => out.push(Ok(v)),
                Err(ReadError::Eof) => return out,
                Err(e) => {
                    out.push(Err(e.to_string()));
                    return out;
                }
            }
        }
    }

    /// The `redis` crate's parser on the same bytes, reply by reply.
    fn theirs(bytes: &[u8]) -> Vec<Value> {
        let mut p = redis::Parser::new();
        let mut rd = bytes;
        let mut out = Vec::new();
        // the parser keeps what it read ahead: parse until it runs dry
        while let Ok(v) = p.parse_value(&mut rd) {
            out.push(v);
        }
        out
    }

    const SAMPLES: &[&[u8]] = &[
        b"+OK\r\n",
        b"+PONG\r\n",
        b":0\r\n:-42\r\n:9223372036854775807\r\n:-9223372036854775808\r\n",
        b"$5\r\nhello\r\n$0\r\n\r\n$-1\r\n",
        b"$4\r\na\r\nb\r\n",
        b"*-1\r\n*0\r\n",
        b"*2\r\n*2\r\n$1\r\na\r\n:1\r\n*1\r\n$2\r\nbc\r\n",
        b"-ERR unknown command\r\n",
        b"-NOSCRIPT No matching script. Please use EVAL.\r\n",
        b"*3\r\n:1\r\n-WRONGTYPE Operation against a key\r\n$1\r\nx\r\n",
        b"%1\r\n+a\r\n:1\r\n",
        b"~2\r\n:1\r\n:2\r\n",
        b",3.5\r\n#t\r\n_\r\n",
        b"|1\r\n+k\r\n+v\r\n:7\r\n",
        b">2\r\n+message\r\n$1\r\nx\r\n",
        b"=8\r\ntxt:abcd\r\n",
        b"*2\r\n$3\r\nfoo\r\n,1.5\r\n",
    ];

    #[test]
    fn same_values_as_the_redis_parser_whatever_the_read_sizes() {
        for s in SAMPLES {
            let want = theirs(s);
            for chunk in [1, 2, 3, 5, 7, 64, 1 << 20] {
                let got: Vec<Value> = all(s, chunk)
                    .into_iter()
                    .map(|r| r.unwrap_or_else(|e| panic!("{s:?} chunk {chunk}: {e}")))
                    .collect();
                assert_eq!(
                    got,
                    want,
                    "{:?} in chunks of {chunk}",
                    String::from_utf8_lossy(s)
                );
            }
        }
    }

    #[test]
    fn big_replies_grow_the_buffer_then_give_it_back() {
        let mut bytes = Vec::new();
        let n = 50_000;
        bytes.extend_from_slice(format!("*{n}\r\n").as_bytes());
        for i in 0..n {
            let m = format!("member-{i}");
            bytes.extend_from_slice(format!("${}\r\n{m}\r\n", m.len()).as_bytes());
        }
        bytes.extend_from_slice(b"+OK\r\n");
        let mut r = Reader::new();
        let mut src = Chunks {
            data: &bytes,
            chunk: 4096,
        };
        match r.read_value(&mut src) {
            Ok(Value::Array(items)) => {
                assert_eq!(items.len(), n);
                assert_eq!(items[n - 1], Value::BulkString(b"member-49999".to_vec()));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.read_value(&mut src).ok(), Some(Value::Okay));
        assert!(r.buf.len() <= KEEP_AT_MOST);
    }

    #[test]
    fn malformed_replies_are_errors_not_waits() {
        for bad in [&b"?x\r\n"[..], b"$x\r\n", b"*-2\r\n", b"$-3\r\n", b"\r\n"] {
            let got = all(bad, 1);
            assert!(
                matches!(got.last(), Some(Err(_))),
                "{:?}: {got:?}",
                String::from_utf8_lossy(bad)
            );
        }
        let mut deep = Vec::new();
        for _ in 0..=MAX_DEPTH {
            deep.extend_from_slice(b"*1\r\n");
        }
        assert!(matches!(all(&deep, 1 << 20).last(), Some(Err(_))));
    }

    #[test]
    fn a_partial_reply_waits_for_its_end() {
        let mut r = Reader::new();
        let mut src = Chunks {
            data: b"*2\r\n$3\r\nab",
            chunk: 100,
        };
        assert!(matches!(r.read_value(&mut src), Err(ReadError::Eof)));
        let mut rest = Chunks {
            data: b"c\r\n:5\r\n",
            chunk: 100,
        };
        assert_eq!(
            r.read_value(&mut rest).ok(),
            Some(Value::Array(vec![
                Value::BulkString(b"abc".to_vec()),
                Value::Int(5)
            ]))
        );
    }
}
