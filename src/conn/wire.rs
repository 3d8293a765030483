//! One socket to one Redis server: connect (TCP, TLS or unix), handshake,
//! send packed commands, read replies (decoded by `resp::Reader` from one
//! reused buffer).
//!
//! A `Wire` never tries to be clever after an I/O error: it marks itself
//! broken and the pool drops it (closing the socket without any I/O, which is
//! also what a forked child does with its parent's sockets). So a reply that
//! arrives late can never be read by the next command.
use super::dsn::{Addr, Dsn};
use super::resp::{ReadError, Reader};
use super::stats;
use super::tracking;
use crate::metrics::{self, connection as mconn, Series};
use redis::{PushKind, Value};
use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// Why a request did not get its reply.
#[derive(Debug)]
pub enum Fail {
    /// Nothing reached Redis (connect failed, or the connection was found dead
    /// before writing): safe to send again on a new connection.
    NotSent(String),
    /// The request was sent (maybe partly), then the connection broke: it may
    /// or may not have run.
    Lost(String),
    /// No reply within the read timeout: it may still run. The socket is closed.
    Timeout(String),
}

enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
    Tls(Box<super::tls::TlsStream>),
}

impl Stream {
    fn fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tls(s) => s.sock.as_raw_fd(),
        }
    }

    fn set_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => {
                s.set_read_timeout(t)?;
                s.set_write_timeout(t)
            }
            Stream::Unix(s) => {
                s.set_read_timeout(t)?;
                s.set_write_timeout(t)
            }
            Stream::Tls(s) => {
                s.sock.set_read_timeout(t)?;
                s.sock.set_write_timeout(t)
            }
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.flush(),
            Stream::Unix(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

/// The stream as the reply parser reads it: a read interrupted by a signal
/// is resumed, with the time left until `deadline`. On Linux a socket read
/// with a timeout fails with EINTR whenever a signal handler runs (a PHP
/// `pcntl_signal` handler: SIGCHLD of a forked worker, SIGALRM, ...),
/// SA_RESTART or not, and after a SIGSTOP/SIGCONT even without one; the
/// reply is still on its way, and giving up would leave the caller with
/// "the command may or may not have run".
struct Resumed<'a> {
    stream: &'a mut Stream,
    deadline: Instant,
    retimed: bool,
    reads: u32,
}

impl Resumed<'_> {
    /// The socket timeout set to what is left until the reply's deadline.
    fn retime(&mut self) -> io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream
            .set_timeout(Some(left.max(Duration::from_millis(1))))?;
        self.retimed = true;
        Ok(())
    }
}

impl Read for Resumed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // the deadline bounds the whole reply, not each read(2)
        if self.reads > 0 {
            self.retime()?;
        }
        self.reads += 1;
        loop {
            match self.stream.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => self.retime()?,
                r => return r,
            }
        }
    }
}

pub struct Wire {
    stream: Stream,
    reader: Reader,
    timeout: Option<Duration>,
    broken: bool,
    /// Fork generation this socket belongs to (see `stats::fork_generation`).
    pub(crate) generation: u64,
    /// The worker whose counters this connection is counted in (its
    /// `live_connections` goes down again when it closes).
    counted_in: Option<std::sync::Arc<stats::Counters>>,
    /// `CLIENT ID`, fetched the first time a blocking wait needs it.
    pub(crate) client_id: Option<i64>,
    /// This connection's user may run `MULTI`: learnt from the first
    /// transaction's own `MULTI` reply (see `conn::transact`).
    pub(crate) multi_allowed: bool,
    /// Its tracking session (`conn::tracking`), 0 for an ordinary connection.
    pub(crate) session: u64,
    /// Its target's series in the host's metrics.
    metrics: Option<Series>,
    /// When the request whose first reply is not read yet was sent
    /// (`metrics::now_ns`; 0: none, or metrics off).
    sent_ns: u64,
    /// Cluster: every request is sent behind an `ASKING` (an ASK redirect
    /// being followed; see `asking`), and how many of their replies are
    /// still to be read and dropped.
    asking: bool,
    asking_replies: u32,
}

/// A connection target as the metrics name it: host:port, or the socket path.
pub(crate) fn target(addr: &Addr) -> String {
    match addr {
        Addr::Tcp { host, port } | Addr::Tls { host, port, .. } => {
            if host.contains(':') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            }
        }
        Addr::Unix { path } => path.clone(),
    }
}

/// The series of a DSN's target (None: metrics off).
pub(crate) fn target_series(dsn: &Dsn) -> Option<Series> {
    if !metrics::enabled() {
        return None;
    }
    metrics::series(metrics::Kind::Connection, target(&dsn.addr).as_bytes())
}

impl Drop for Wire {
    fn drop(&mut self) {
        // Dropping only closes the file descriptor: no QUIT, no shutdown(2),
        // so a forked child dropping its parent's socket leaves it working.
        if self.broken && self.generation == stats::fork_generation() {
            // A broken wire of this process may still hold a request the
            // caller gave up on (a release, a push) in its send queue, which
            // the kernel would keep retransmitting and deliver after the
            // network heals. Linger 0 discards it: close sends a reset.
            let l = libc::linger {
                l_onoff: 1,
                l_linger: 0,
            };
            // SAFETY: setsockopt on our own open descriptor with a valid,
            // correctly sized linger struct.
            unsafe {
                libc::setsockopt(
                    self.stream.fd(),
                    libc::SOL_SOCKET,
                    libc::SO_LINGER,
                    (&l as *const libc::linger).cast(),
                    std::mem::size_of::<libc::linger>() as libc::socklen_t,
                );
            }
        }
        stats::connection_closed(self.counted_in.as_ref(), self.generation);
        if self.session != 0 {
            tracking::closed(self.session);
        }
    }
}

impl Wire {
    pub fn connect(dsn: &Dsn) -> Result<Wire, Fail> {
        let start = Instant::now();
        let deadline = start + dsn.connect_timeout;
        let where_ = dsn.redacted();
        let fail = |e: String| Fail::NotSent(format!("cannot connect to {where_}: {e}"));
        let stream = match &dsn.addr {
            Addr::Tcp { host, port } => {
                Stream::Tcp(tcp_connect(host, *port, deadline).map_err(fail)?)
            }
            Addr::Unix { path } => {
                let s = UnixStream::connect(path).map_err(|e| fail(e.to_string()))?;
                Stream::Unix(s)
            }
            Addr::Tls { host, port, tls } => {
                // files first: a bad cafile is reported even when the
                // server is down, and before any socket is opened
                let setup = super::tls::setup(tls).map_err(fail)?;
                let t = Instant::now();
                let tcp = tcp_connect(host, *port, deadline).map_err(fail)?;
                Stream::Tls(Box::new(
                    super::tls::handshake(tcp, host, *port, &setup, t.elapsed(), deadline)
                        .map_err(fail)?,
                ))
            }
        };
        let mut wire = Wire {
            stream,
            reader: Reader::new(),
            timeout: None,
            broken: false,
            generation: stats::fork_generation(),
            counted_in: stats::connection_opened(),
            client_id: None,
            multi_allowed: false,
            session: 0,
            metrics: target_series(dsn),
            sent_ns: 0,
            asking: false,
            asking_replies: 0,
        };

        // Handshake (AUTH, SELECT) in one round trip, bounded by the connect timeout.
        let mut setup: Vec<Vec<Vec<u8>>> = Vec::new();
        if let Some(pw) = &dsn.password {
            let mut c = vec![b"AUTH".to_vec()];
            if let Some(u) = &dsn.user {
                c.push(u.as_bytes().to_vec());
            }
            c.push(pw.as_bytes().to_vec());
            setup.push(c);
        }
        if dsn.db != 0 {
            setup.push(vec![b"SELECT".to_vec(), dsn.db.to_string().into_bytes()]);
        }
        if dsn.check_master {
            setup.push(vec![b"ROLE".to_vec()]);
        }
        // a tracking connection: RESP3 (invalidations are pushed on this
        // same connection, in order with its replies), tracking of the
        // reads sent after CLIENT CACHING yes only
        let tracking_from = setup.len();
        if dsn.tracking {
            setup.push(vec![b"HELLO".to_vec(), b"3".to_vec()]);
            setup.push(
                [&b"CLIENT"[..], b"TRACKING", b"on", b"OPTIN"]
                    .map(<[u8]>::to_vec)
                    .to_vec(),
            );
        }
        if !setup.is_empty() {
            let remaining = deadline
                .checked_duration_since(Instant::now())
                .unwrap_or(Duration::from_millis(1));
            let mut packed = Vec::new();
            for c in &setup {
                pack_into(&mut packed, c.iter().map(|a| a.as_slice()));
            }
            // connection set-up: not counted in `commands`
            let replies =
                wire.exchange(&packed, setup.len(), 0, remaining)
                    .map_err(|f| match f {
                        Fail::NotSent(m) | Fail::Lost(m) | Fail::Timeout(m) => Fail::NotSent(
                            format!("cannot connect to {where_}: handshake failed: {m}"),
                        ),
                    })?;
            for (i, r) in replies.into_iter().enumerate() {
                match r {
                    Value::ServerError(e) if i >= tracking_from => {
                        let why = server_error_text(&e);
                        tracking::refused(why.clone());
                        return Err(Fail::NotSent(format!(
                            "cannot connect to {where_}: client tracking refused: {why}"
                        )));
                    }
                    Value::ServerError(e) => {
                        return Err(Fail::NotSent(format!(
                            "cannot connect to {where_}: {}",
                            server_error_text(&e)
                        )));
                    }
                    Value::Array(role) if dsn.check_master => {
                        let is_master =
                            matches!(role.first(), Some(Value::BulkString(r)) if r == b"master");
                        if !is_master {
                            return Err(Fail::NotSent(format!(
                                "{where_} is not a master (any more): failover in progress?"
                            )));
                        }
                    }
                    _ => {}
                }
            }
        }
        if dsn.tracking {
            wire.session = tracking::open();
        }
        Ok(wire)
    }

    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// Checks, without blocking and without sending anything, that the server
    /// has not closed this connection (restart, CLIENT KILL, idle timeout)
    /// and that no stray bytes wait to be read.
    pub fn is_alive(&mut self) -> bool {
        if self.session != 0 {
            // bytes waiting on a tracking connection are pushes: read them
            return self.drain();
        }
        if self.broken || self.reader.has_buffered() {
            return false;
        }
        let fd = self.stream.fd();
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, zero timeout.
        let n = unsafe { libc::poll(&mut pfd, 1, 0) };
        if n == 0 {
            return true;
        }
        if n < 0 || pfd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0 {
            return false;
        }
        if let Stream::Tls(s) = &mut self.stream {
            // TLS may legitimately have unread records (session tickets):
            // let rustls consume them, and only an EOF or data means trouble.
            return tls_drain(s);
        }
        let mut b = [0u8; 1];
        // SAFETY: valid fd and a one-byte buffer; MSG_PEEK consumes nothing.
        let r = unsafe {
            libc::recv(
                fd,
                b.as_mut_ptr().cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            return e.kind() == io::ErrorKind::WouldBlock;
        }
        // 0: the server closed it; >0: bytes nobody asked for.
        false
    }

    fn set_timeout(&mut self, t: Duration) -> Result<(), Fail> {
        let t = Some(t.max(Duration::from_millis(1)));
        if self.timeout != t {
            self.stream.set_timeout(t).map_err(|e| {
                self.broken = true;
                Fail::NotSent(e.to_string())
            })?;
            self.timeout = t;
        }
        Ok(())
    }

    pub fn send(&mut self, packed: &[u8], n_commands: usize) -> Result<(), Fail> {
        stats::commands(n_commands as u64);
        if self.metrics.is_some() {
            metrics::add(self.metrics, mconn::COMMANDS, n_commands as u64);
        }
        // the worker's round trips and time waiting for Redis (stats()),
        // and the host's round-trip histogram
        self.sent_ns = metrics::now_ns();
        let asking = self.asking;
        if asking {
            self.asking_replies += 1;
        }
        let stream = &mut self.stream;
        let r = (if asking {
            stream.write_all(b"*1\r\n$6\r\nASKING\r\n")
        } else {
            Ok(())
        })
        .and_then(|_| stream.write_all(packed))
        .and_then(|_| stream.flush());
        r.map_err(|e| {
            self.broken = true;
            if is_timeout(&e) {
                Fail::Timeout(format!("write timed out: {e}"))
            } else {
                Fail::Lost(format!("connection lost while sending: {e}"))
            }
        })
    }

    pub fn recv(&mut self, timeout: Duration) -> Result<Value, Fail> {
        self.set_timeout(timeout)?;
        let mut stream = Resumed {
            stream: &mut self.stream,
            deadline: Instant::now() + timeout,
            retimed: false,
            reads: 0,
        };
        let mut r = self.reader.read_value(&mut stream);
        // the +OK of an ASKING sent before the request: not its reply
        while self.asking_replies > 0 && r.is_ok() {
            self.asking_replies -= 1;
            r = self.reader.read_value(&mut stream);
        }
        if self.session != 0 {
            // pushes come before the reply they preceded on the server
            while let Ok(Value::Push { kind, data }) = r {
                pushed(self.session, kind, data);
                r = self.reader.read_value(&mut stream);
            }
            if r.is_ok() {
                tracking::heard(self.session);
            }
        }
        if stream.retimed {
            self.timeout = None; // the socket's timeout was changed: set it again next time
        }
        if self.sent_ns != 0 && r.is_ok() {
            let took = metrics::now_ns().saturating_sub(self.sent_ns);
            self.sent_ns = 0;
            stats::round_trip(took);
            if self.metrics.is_some() {
                metrics::add(self.metrics, mconn::ROUND_TRIPS, 1);
                metrics::observe_ns(self.metrics, mconn::ROUND_TRIP, took);
            }
        }
        if let Ok(Value::ServerError(e)) = &r {
            self.server_error(e);
        }
        r.map_err(|e| {
            self.broken = true;
            match e {
                ReadError::Io(e) if is_timeout(&e) => {
                    Fail::Timeout(format!("no reply within {:.3}s", timeout.as_secs_f64()))
                }
                ReadError::Io(_) | ReadError::Eof => {
                    Fail::Lost(format!("connection lost while waiting for the reply: {e}"))
                }
                ReadError::Protocol(m) => {
                    Fail::Lost(format!("unreadable reply, connection closed: {m}"))
                }
            }
        })
    }

    /// An error reply, in the metrics (NOSCRIPT, answered by loading the
    /// script, aside).
    #[cold]
    fn server_error(&self, e: &redis::ServerError) {
        if e.code() != "NOSCRIPT" {
            metrics::add(self.metrics, mconn::ERR_SERVER, 1);
        }
    }

    /// Cluster: sends every request of `f` behind an `ASKING` (so that a
    /// request sent again on this connection, a script's body after
    /// NOSCRIPT, is asked for too). A connection left with an ASKING reply
    /// unread is not used again.
    pub fn asking<T>(&mut self, f: impl FnOnce(&mut Wire) -> Result<T, Fail>) -> Result<T, Fail> {
        self.asking = true;
        let r = f(self);
        self.asking = false;
        if self.asking_replies != 0 {
            self.asking_replies = 0;
            self.broken = true;
        }
        r
    }

    pub fn request(&mut self, packed: &[u8], timeout: Duration) -> Result<Value, Fail> {
        self.set_timeout(timeout)?;
        self.send(packed, 1)?;
        self.recv(timeout)
    }

    /// A request about the topology (CLUSTER SLOTS, SENTINEL
    /// get-master-addr-by-name): counted in `topology_queries`, not `commands`.
    pub fn topology_request(&mut self, packed: &[u8], timeout: Duration) -> Result<Value, Fail> {
        self.set_timeout(timeout)?;
        stats::topology_query();
        self.send(packed, 0)?;
        self.recv(timeout)
    }

    /// A request of the extension's own bookkeeping (the registry): counted
    /// in `registrations`, not `commands`.
    pub fn bookkeeping_request(&mut self, packed: &[u8], timeout: Duration) -> Result<Value, Fail> {
        stats::registration();
        // a command this connection sent all the same, in the host's metrics
        metrics::add(self.metrics, mconn::COMMANDS, 1);
        let mut r = self.exchange(packed, 1, 0, timeout)?;
        Ok(r.pop().unwrap_or(Value::Nil))
    }

    /// Sends `n` packed commands at once and reads their `n` replies.
    pub fn pipeline(
        &mut self,
        packed: &[u8],
        n: usize,
        timeout: Duration,
    ) -> Result<Vec<Value>, Fail> {
        self.exchange(packed, n, n, timeout)
    }

    /// `pipeline`, counting `counted` of the commands in `stats()`.
    fn exchange(
        &mut self,
        packed: &[u8],
        n: usize,
        counted: usize,
        timeout: Duration,
    ) -> Result<Vec<Value>, Fail> {
        self.set_timeout(timeout)?;
        self.send(packed, counted)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(self.recv(timeout)?);
        }
        Ok(out)
    }

    /// Reads what a tracking connection received, without blocking: one
    /// `recv` when nothing waits. False (and broken) when the server closed
    /// it or sent something that is not a push.
    pub fn drain(&mut self) -> bool {
        if self.broken {
            return false;
        }
        let fd = self.stream.fd();
        let tls = matches!(self.stream, Stream::Tls(_));
        if tls && set_nonblocking(fd, true).is_err() {
            self.broken = true;
            return false;
        }
        let mut src = NonBlocking {
            stream: &mut self.stream,
        };
        let alive = loop {
            match self.reader.read_value(&mut src) {
                Ok(Value::Push { kind, data }) => pushed(self.session, kind, data),
                Ok(_) => break false,
                Err(ReadError::Io(e)) if e.kind() == io::ErrorKind::WouldBlock => break true,
                Err(ReadError::Io(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break false,
            }
        };
        if tls && set_nonblocking(fd, false).is_err() {
            self.broken = true;
            return false;
        }
        if !alive {
            self.broken = true;
        }
        alive
    }

    /// Waits up to `timeout` for the socket to become readable (a reply to a
    /// blocking command). `Ok(false)` on timeout; the reply stays pending.
    pub fn wait_readable(&mut self, timeout: Duration) -> Result<bool, Fail> {
        // No bytes can sit in the reader's or rustls's buffers here: only
        // one blocking command is ever in flight and its reply is unread.
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
            let mut pfd = libc::pollfd {
                fd: self.stream.fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut pfd, 1, ms) };
            if n > 0 {
                return Ok(true);
            }
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    if super::interrupted() {
                        return Ok(false);
                    }
                    continue;
                }
                self.broken = true;
                return Err(Fail::Lost(e.to_string()));
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
        }
    }
}

/// A push on a tracking connection: an invalidation is queued for the
/// local tier; anything else (none is asked for) is ignored.
fn pushed(session: u64, kind: PushKind, data: Vec<Value>) {
    if kind != PushKind::Invalidate {
        return;
    }
    match data.into_iter().next() {
        Some(Value::Array(keys)) => {
            let keys = keys
                .into_iter()
                .filter_map(|k| match k {
                    Value::BulkString(b) => Some(b),
                    Value::SimpleString(s) => Some(s.into_bytes()),
                    _ => None,
                })
                .collect();
            tracking::invalidated(session, Some(keys));
        }
        // a null: FLUSHALL / FLUSHDB (anything unreadable: as much)
        _ => tracking::invalidated(session, None),
    }
}

/// The stream read without blocking: `recv(MSG_DONTWAIT)` on a plain
/// socket (one system call), the TLS stream on a socket set non-blocking.
struct NonBlocking<'a> {
    stream: &'a mut Stream,
}

impl Read for NonBlocking<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.stream {
            Stream::Tls(s) => s.read(buf),
            _ => {
                // SAFETY: a valid open descriptor and a buffer of buf.len() bytes.
                let r = unsafe {
                    libc::recv(
                        self.stream.fd(),
                        buf.as_mut_ptr().cast(),
                        buf.len(),
                        libc::MSG_DONTWAIT,
                    )
                };
                if r < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(r as usize)
                }
            }
        }
    }
}

fn set_nonblocking(fd: RawFd, on: bool) -> io::Result<()> {
    // SAFETY: fcntl on our own open descriptor.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 {
            return Err(io::Error::last_os_error());
        }
        let flags = if on {
            flags | libc::O_NONBLOCK
        } else {
            flags & !libc::O_NONBLOCK
        };
        if libc::fcntl(fd, libc::F_SETFL, flags) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Redis's own error text, without the " script: <sha>, on @user_script:N."
/// tail Redis appends to errors raised inside a script.
pub fn server_error_text(e: &redis::ServerError) -> String {
    let mut text = match e.details() {
        Some(d) => format!("{} {}", e.code(), d),
        None => e.code().to_string(),
    };
    // the last one: Redis 7.2+ prefixes "ACL failure in script: " itself
    if let Some(i) = text.rfind(" script: ") {
        if text[i..].contains("@user_script") {
            text.truncate(i);
        }
    }
    text
}

/// RESP-encodes one command.
pub fn pack_into<'a>(out: &mut Vec<u8>, args: impl ExactSizeIterator<Item = &'a [u8]>) {
    write_header(out, b'*', args.len() as u64);
    for a in args {
        write_bulk(out, a);
    }
}

/// RESP-encodes one bulk string.
pub fn write_bulk(out: &mut Vec<u8>, b: &[u8]) {
    out.reserve(b.len() + 16);
    write_header(out, b'$', b.len() as u64);
    out.extend_from_slice(b);
    out.extend_from_slice(b"\r\n");
}

/// `<kind><n>\r\n`, the length line of an array or a bulk string.
pub fn write_header(out: &mut Vec<u8>, kind: u8, n: u64) {
    let mut tmp = [0u8; 20];
    out.push(kind);
    out.extend_from_slice(decimal(&mut tmp, n));
    out.extend_from_slice(b"\r\n");
}

/// An integer as a bulk string, formatted without allocating.
pub fn write_bulk_int(out: &mut Vec<u8>, v: i64) {
    let mut tmp = [0u8; 20];
    let text = decimal(&mut tmp, v.unsigned_abs());
    let len = text.len() + usize::from(v < 0);
    write_header(out, b'$', len as u64);
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(text);
    out.extend_from_slice(b"\r\n");
}

/// The decimal digits of `n`, written at the end of `tmp`.
fn decimal(tmp: &mut [u8; 20], mut n: u64) -> &[u8] {
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &tmp[i..];
        }
    }
}

fn tcp_connect(host: &str, port: u16, deadline: Instant) -> Result<TcpStream, String> {
    let addrs: Vec<_> = (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve host: {e}"))?
        .collect();
    let mut last = String::from("host resolved to no address");
    for a in addrs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            last = "connect timed out".into();
            break;
        }
        match TcpStream::connect_timeout(&a, left) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) if is_timeout(&e) => {
                last = format!("connect timed out after {:.3}s", left.as_secs_f64())
            }
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}

fn tls_drain(s: &mut rustls::StreamOwned<rustls::ClientConnection, TcpStream>) -> bool {
    if s.sock.set_nonblocking(true).is_err() {
        return false;
    }
    let mut alive = true;
    loop {
        match s.conn.read_tls(&mut s.sock) {
            Ok(0) => {
                alive = false;
                break;
            }
            Ok(_) => {
                if s.conn.process_new_packets().is_err() {
                    alive = false;
                    break;
                }
                let mut b = [0u8; 1];
                match s.conn.reader().read(&mut b) {
                    Ok(_) => {
                        // EOF (close_notify) or stray plaintext: not usable.
                        alive = false;
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                    Err(_) => {
                        alive = false;
                        break;
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(_) => {
                alive = false;
                break;
            }
        }
    }
    if s.sock.set_nonblocking(false).is_err() {
        return false;
    }
    alive
}

/// Decodes the RESP replies in `bytes` the way `Wire::recv` decodes what it
/// reads from a socket (one `resp::Reader`, kept from reply to reply), at
/// most `max` of them. Returns the replies decoded and the error that ended
/// decoding (the end of `bytes` is one too: `recv` would wait there). No
/// socket, no I/O: for the fuzz targets of php-tests/fuzz.
pub fn decode_replies(bytes: &[u8], max: usize) -> (Vec<Value>, Option<String>) {
    let mut reader = Reader::new();
    let mut src = bytes;
    let mut out = Vec::new();
    while out.len() < max {
        match reader.read_value(&mut src) {
            Ok(v) => out.push(v),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
    (out, None)
}
