//! A local spool for the pushes of a `DelayQueue` made while Redis cannot
//! be reached (`on_error => 'spool'`): one file per queue under the spool
//! directory, records appended and fsync'd under an exclusive `flock`, read
//! back in order and emptied by the first process that replays them.
//!
//! A record: `RKS1`, the body's length (u32 LE), an FNV-1a 64 checksum of
//! the body (u64 LE), then the body: the job id's length (u16 LE), the id,
//! the due time in Unix milliseconds (i64 LE) and the payload. A record that
//! does not check out is skipped (with a warning naming its offset), the
//! reader resuming at the next `RKS1`; an append that fails (a full disk) is
//! cut off again, so what was spooled before stays readable.
//!
//! The file is never unlinked (an appender holding it open would write into
//! a removed file): a replay truncates it to zero under the same lock.
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 4] = b"RKS1";
const HEADER: usize = 4 + 4 + 8;
/// Longest body a record may claim (a corrupt length is not believed).
const MAX_BODY: usize = 1 << 30;

/// One spooled job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub id: Vec<u8>,
    /// When the job is due, Unix milliseconds.
    pub due_ms: i64,
    pub payload: Vec<u8>,
}

/// A queue's spool file.
#[derive(Debug, Clone)]
pub struct Spool {
    path: PathBuf,
}

fn checksum(b: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h ^= u64::from(x);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Encodes records as the file holds them.
pub fn encode(records: &[Record]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in records {
        let mut body = Vec::with_capacity(2 + r.id.len() + 8 + r.payload.len());
        body.extend_from_slice(&(r.id.len() as u16).to_le_bytes());
        body.extend_from_slice(&r.id);
        body.extend_from_slice(&r.due_ms.to_le_bytes());
        body.extend_from_slice(&r.payload);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&checksum(&body).to_le_bytes());
        out.extend_from_slice(&body);
    }
    out
}

/// Decodes a spool's bytes: the records that check out, in order, and a
/// warning for each stretch that does not.
pub fn decode(buf: &[u8]) -> (Vec<Record>, Vec<String>) {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    let mut at = 0;
    let next_magic =
        |from: usize| (from..buf.len().saturating_sub(3)).find(|&i| &buf[i..i + 4] == MAGIC);
    while at < buf.len() {
        if buf.len() - at < HEADER || &buf[at..at + 4] != MAGIC {
            let resume = next_magic(at + 1);
            warnings.push(format!(
                "spool: {} bytes at offset {at} are not a record; skipped",
                resume.unwrap_or(buf.len()) - at
            ));
            match resume {
                Some(r) => {
                    at = r;
                    continue;
                }
                None => break,
            }
        }
        let mut len4 = [0u8; 4];
        len4.copy_from_slice(&buf[at + 4..at + 8]);
        let len = u32::from_le_bytes(len4) as usize;
        let mut sum8 = [0u8; 8];
        sum8.copy_from_slice(&buf[at + 8..at + 16]);
        let sum = u64::from_le_bytes(sum8);
        let start = at + HEADER;
        let body = (len <= MAX_BODY && start + len <= buf.len()).then(|| &buf[start..start + len]);
        let rec = body.filter(|b| checksum(b) == sum).and_then(parse_body);
        match rec {
            Some(r) => {
                records.push(r);
                at = start + len;
            }
            None => {
                let resume = next_magic(at + 1);
                warnings.push(format!(
                    "spool: the record at offset {at} is damaged (length or checksum); skipped"
                ));
                match resume {
                    Some(r) => at = r,
                    None => break,
                }
            }
        }
    }
    (records, warnings)
}

fn parse_body(b: &[u8]) -> Option<Record> {
    let id_len = usize::from(u16::from_le_bytes([*b.first()?, *b.get(1)?]));
    let id = b.get(2..2 + id_len)?.to_vec();
    let mut due = [0u8; 8];
    due.copy_from_slice(b.get(2 + id_len..10 + id_len)?);
    let payload = b.get(10 + id_len..)?.to_vec();
    (!id.is_empty()).then_some(Record {
        id,
        due_ms: i64::from_le_bytes(due),
        payload,
    })
}

fn flock(f: &File, how: libc::c_int) -> std::io::Result<()> {
    loop {
        // SAFETY: a valid open descriptor.
        if unsafe { libc::flock(f.as_raw_fd(), how) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Checks that `dir` is a directory this process can write to.
pub fn check_dir(dir: &Path) -> Result<(), String> {
    let meta = std::fs::metadata(dir).map_err(|e| format!("'{}': {e}", dir.display()))?;
    if !meta.is_dir() {
        return Err(format!("'{}' is not a directory", dir.display()));
    }
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| "the path holds a NUL byte".to_string())?;
    // SAFETY: a NUL-terminated path.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
        return Err(format!(
            "'{}' is not writable by this process: {}",
            dir.display(),
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

impl Spool {
    /// The spool of the queue whose key is `key`, in `dir`.
    pub fn new(dir: &Path, key: &[u8]) -> Spool {
        // the key, readable where it is plain, and its checksum (two keys
        // that differ only in bytes replaced here stay apart)
        let plain: String = key
            .iter()
            .take(100)
            .map(|&b| {
                if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
                    b as char
                } else {
                    '_'
                }
            })
            .collect();
        Spool {
            path: dir.join(format!("rediskit-{plain}-{:016x}.spool", checksum(key))),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `records` and fsyncs them, all or nothing: a write that
    /// fails (a full disk) is cut off again.
    pub fn append(&self, records: &[Record]) -> std::io::Result<()> {
        let mut f = OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(&self.path)?;
        flock(&f, libc::LOCK_EX)?;
        let before = f.metadata()?.len();
        let r = f.write_all(&encode(records)).and_then(|()| f.sync_data());
        if let Err(e) = r {
            let _ = f.set_len(before);
            let _ = f.sync_data();
            return Err(e);
        }
        Ok(())
    }

    /// Bytes spooled (one `stat`; 0 when there is no file).
    pub fn pending(&self) -> u64 {
        std::fs::metadata(&self.path).map_or(0, |m| m.len())
    }

    /// Replays the spool: under its lock (None if another process holds
    /// it, or nothing is spooled), hands the records to `send`, and empties
    /// the file when `send` succeeds. A crash or an error in `send` leaves
    /// the file as it was. With damaged records and `skip_damaged` false,
    /// nothing is done: `Replay::Damaged` with the warnings.
    pub fn replay<E>(
        &self,
        skip_damaged: bool,
        send: impl FnOnce(&[Record]) -> Result<(), E>,
    ) -> Result<Option<(usize, Vec<String>)>, Replay<E>> {
        let mut f = match OpenOptions::new().read(true).write(true).open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Replay::Io(e)),
        };
        match flock(&f, libc::LOCK_EX | libc::LOCK_NB) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Ok(None),
            Err(e) => return Err(Replay::Io(e)),
        }
        let mut buf = Vec::new();
        f.read_to_end(&mut buf).map_err(Replay::Io)?;
        if buf.is_empty() {
            return Ok(None);
        }
        let (records, warnings) = decode(&buf);
        if !warnings.is_empty() && !skip_damaged {
            return Err(Replay::Damaged(warnings));
        }
        if !records.is_empty() {
            send(&records).map_err(Replay::Send)?;
        }
        f.set_len(0)
            .and_then(|()| f.sync_data())
            .map_err(Replay::Io)?;
        Ok(Some((records.len(), warnings)))
    }
}

/// Why a replay did not finish.
#[derive(Debug)]
pub enum Replay<E> {
    Io(std::io::Error),
    Send(E),
    /// Damaged records, not skipped (`skip_damaged` false).
    Damaged(Vec<String>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(i: u32) -> Record {
        Record {
            id: format!("s{i:08}").into_bytes(),
            due_ms: 1_700_000_000_000 + i64::from(i),
            payload: vec![b'p'; (i % 7) as usize],
        }
    }

    #[test]
    fn records_round_trip_and_damage_is_skipped() {
        let recs: Vec<Record> = (0..5).map(rec).collect();
        let buf = encode(&recs);
        assert_eq!(decode(&buf), (recs.clone(), vec![]));
        // one byte of the second record's body flipped: that one is skipped
        let mut bad = buf.clone();
        let second = encode(&recs[..1]).len();
        bad[second + HEADER + 3] ^= 0xff;
        let (got, warn) = decode(&bad);
        assert_eq!(got, [&recs[..1], &recs[2..]].concat());
        assert_eq!(warn.len(), 1, "{warn:?}");
        // garbage in front, a cut tail: the whole records in between survive
        let mut mixed = b"garbage".to_vec();
        mixed.extend_from_slice(&buf);
        mixed.truncate(mixed.len() - 3);
        let (got, warn) = decode(&mixed);
        assert_eq!(got, recs[..4].to_vec());
        assert_eq!(warn.len(), 2, "{warn:?}");
    }

    #[test]
    fn append_replay_and_a_lock_held_elsewhere() {
        let dir = std::env::temp_dir().join(format!("rk-spool-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let s = Spool::new(&dir, b"app:{orders}/x");
        assert!(s
            .path()
            .to_string_lossy()
            .contains("rediskit-app__orders__x-"));
        assert_eq!(s.pending(), 0);
        assert!(matches!(s.replay(true, |_| Ok::<(), ()>(())), Ok(None)));
        s.append(&[rec(1), rec(2)]).unwrap();
        s.append(&[rec(3)]).unwrap();
        assert!(s.pending() > 0);
        // a failed send leaves everything
        assert!(matches!(
            s.replay(true, |_| Err("down")),
            Err(Replay::Send("down"))
        ));
        // held by another replayer: skipped
        let other = File::open(s.path()).unwrap();
        flock(&other, libc::LOCK_EX).unwrap();
        assert!(matches!(s.replay(true, |_| Ok::<(), ()>(())), Ok(None)));
        drop(other);
        let mut seen = Vec::new();
        let r = s.replay(true, |r| {
            seen = r.to_vec();
            Ok::<(), ()>(())
        });
        assert!(matches!(r, Ok(Some((3, ref w))) if w.is_empty()));
        assert_eq!(seen, vec![rec(1), rec(2), rec(3)]);
        assert_eq!(s.pending(), 0);
        // damage: left alone unless skipping is allowed
        s.append(&[rec(4)]).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(s.path())
            .unwrap()
            .write_all(b"junk")
            .unwrap();
        s.append(&[rec(5)]).unwrap();
        assert!(
            matches!(s.replay(false, |_| Ok::<(), ()>(())), Err(Replay::Damaged(ref w)) if w.len() == 1)
        );
        assert!(s.pending() > 0);
        let r = s.replay(true, |r| {
            seen = r.to_vec();
            Ok::<(), ()>(())
        });
        assert!(matches!(r, Ok(Some((2, ref w))) if w.len() == 1));
        assert_eq!(seen, vec![rec(4), rec(5)]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(check_dir(&dir).is_err());
    }
}
