//! TLS for `rediss://` (rustls): the client configuration a DSN asks for
//! (its CA file, client certificate and key, read with a size bound), and a
//! handshake that says what went wrong in words: a plain-text server, an
//! unknown issuer, a name mismatch, a missing or refused client certificate.
use super::dsn::TlsOpts;
use super::error::{shown, shown_path};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::ResolvesClientCert;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::sign::CertifiedKey;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

pub type TlsStream = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// The most a DSN's `cafile`, `cert` or `key` file may hold. Debian's bundle
/// of every public root CA is about 220 KB; a PEM certificate is 1-2 KB.
/// Anything that is not a regular file (a device such as /dev/zero or
/// /dev/urandom, a FIFO, a directory) is refused before it is opened.
pub const FILE_MAX: u64 = 1 << 20;

/// How long the handshake waits for the server's first TLS bytes before it
/// checks, on a second connection, whether a plain-text Redis listens there:
/// a TLS server answers a ClientHello within a round trip, a plain-text Redis
/// waits for a newline that never comes (until the connect timeout). At
/// least this, and 4 TCP connect times (a distant server is not probed for
/// being slow), but at most PLAIN_PROBE_MAX: a connect slowed by a lost SYN
/// (retransmitted after 1 s) or a stalled process is no round trip, and 4 of
/// those would reach the connect timeout. The probe costs a TLS server
/// nothing but a connection it closes.
const PLAIN_PROBE_AFTER: Duration = Duration::from_millis(50);
const PLAIN_PROBE_MAX: Duration = Duration::from_millis(500);

/// What one connection needs: the rustls configuration and whether the
/// server asked for a client certificate during the handshake.
pub struct Setup {
    config: Arc<rustls::ClientConfig>,
    client: Arc<ClientCert>,
    opts: TlsOpts,
}

/// Sends the DSN's client certificate (if any) and records that the server
/// asked for one.
#[derive(Debug)]
struct ClientCert {
    key: Option<Arc<CertifiedKey>>,
    asked: AtomicBool,
}

impl ResolvesClientCert for ClientCert {
    fn resolve(
        &self,
        _root_hint_subjects: &[&[u8]],
        _sigschemes: &[rustls::SignatureScheme],
    ) -> Option<Arc<CertifiedKey>> {
        self.asked.store(true, Ordering::Relaxed);
        self.key.clone()
    }

    fn has_certs(&self) -> bool {
        self.key.is_some()
    }
}

fn param(name: &str, path: &str) -> String {
    format!("{name}={}", shown_path(path))
}

/// Reads a file a DSN names, refusing anything but a regular file of at most
/// `FILE_MAX` bytes (checked before opening, again on the open file, and by
/// reading at most one byte more than allowed).
pub fn read_file(name: &str, path: &str) -> Result<Vec<u8>, String> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let what = param(name, path);
    let check = |meta: &std::fs::Metadata| -> Result<(), String> {
        let ft = meta.file_type();
        if !ft.is_file() {
            let kind = if ft.is_dir() {
                "a directory"
            } else if ft.is_char_device() {
                "a character device"
            } else if ft.is_block_device() {
                "a block device"
            } else if ft.is_fifo() {
                "a FIFO"
            } else if ft.is_socket() {
                "a socket"
            } else {
                "not a regular file"
            };
            return Err(format!(
                "{what} is {kind}: it must be a regular PEM file of at most 1 MiB"
            ));
        }
        if meta.len() > FILE_MAX {
            return Err(format!(
                "{what} is {} bytes: a PEM file of at most 1 MiB is read",
                meta.len()
            ));
        }
        Ok(())
    };
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {what}: {e}"))?;
    check(&meta)?;
    // O_NONBLOCK: should the path have become a FIFO meanwhile, open() does
    // not wait for a writer (and the second check refuses it).
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    check(&meta)?;
    let mut buf = Vec::with_capacity(meta.len() as usize);
    (&file)
        .take(FILE_MAX + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read {what}: {e}"))?;
    if buf.len() as u64 > FILE_MAX {
        return Err(format!(
            "{what} is larger than 1 MiB: a PEM file of at most 1 MiB is read"
        ));
    }
    Ok(buf)
}

fn system_roots() -> Arc<rustls::RootCertStore> {
    static ROOTS: OnceLock<Arc<rustls::RootCertStore>> = OnceLock::new();
    ROOTS
        .get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            for c in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(c);
            }
            Arc::new(roots)
        })
        .clone()
}

fn certificates(name: &str, path: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = read_file(name, path)?;
    let what = param(name, path);
    let mut certs = Vec::new();
    for c in CertificateDer::pem_slice_iter(&pem) {
        certs.push(c.map_err(|e| format!("{what}: unreadable PEM: {e}"))?);
    }
    if certs.is_empty() {
        return Err(format!(
            "{what} holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        ));
    }
    Ok(certs)
}

/// The rustls configuration of a DSN's TLS options: its files are read here,
/// before any connection is made.
pub fn setup(opts: &TlsOpts) -> Result<Setup, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let builder = if !opts.verify {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(NoVerify(provider.clone())))
    } else {
        let roots = match &opts.cafile {
            Some(path) => {
                let mut roots = rustls::RootCertStore::empty();
                for (i, c) in certificates("cafile", path)?.into_iter().enumerate() {
                    roots.add(c).map_err(|e| {
                        format!(
                            "{}: certificate {} is not a usable CA: {e}",
                            param("cafile", path),
                            i + 1
                        )
                    })?;
                }
                Arc::new(roots)
            }
            None => system_roots(),
        };
        builder.with_root_certificates(roots)
    };
    let key = match (&opts.cert, &opts.key) {
        (Some(cert), Some(key)) => {
            let chain = certificates("cert", cert)?;
            let pem = read_file("key", key)?;
            let der = PrivateKeyDer::from_pem_slice(&pem).map_err(|e| match e {
                rustls::pki_types::pem::Error::NoItemsFound => format!(
                    "{} holds no PEM private key (PKCS#8, RSA or EC)",
                    param("key", key)
                ),
                e => format!("{}: unreadable PEM: {e}", param("key", key)),
            })?;
            let ck = CertifiedKey::from_der(chain, der, &provider).map_err(|e| match e {
                rustls::Error::InconsistentKeys(_) => format!(
                    "{} is not the key of {}",
                    param("key", key),
                    param("cert", cert)
                ),
                e => format!("{}: unusable private key: {e}", param("key", key)),
            })?;
            Some(Arc::new(ck))
        }
        _ => None,
    };
    let client = Arc::new(ClientCert {
        key,
        asked: AtomicBool::new(false),
    });
    let config = builder.with_client_cert_resolver(client.clone());
    Ok(Setup {
        config: Arc::new(config),
        client,
        opts: opts.clone(),
    })
}

/// `host:port` as messages show it.
fn server_of(host: &str, port: u16) -> String {
    let h = shown(host.as_bytes());
    if host.contains(':') {
        format!("[{h}]:{port}")
    } else {
        format!("{h}:{port}")
    }
}

/// The TLS handshake over a connected socket, bounded by `deadline`;
/// `rtt`: how long the TCP connect took.
pub fn handshake(
    tcp: TcpStream,
    host: &str,
    port: u16,
    setup: &Setup,
    rtt: Duration,
    deadline: Instant,
) -> Result<TlsStream, String> {
    let server = server_of(host, port);
    let failed = |why: String| format!("TLS handshake with {server} failed: {why}");
    let name = ServerName::try_from(host.to_string())
        .map_err(|e| format!("invalid TLS server name '{}': {e}", shown(host.as_bytes())))?;
    let mut conn = rustls::ClientConnection::new(setup.config.clone(), name)
        .map_err(|e| failed(e.to_string()))?;
    let mut tcp = tcp;
    let mut first = true;
    while conn.is_handshaking() {
        flush(&mut conn, &mut tcp, deadline).map_err(&failed)?;
        if !conn.is_handshaking() {
            break;
        }
        if first {
            let probe_after = (rtt * 4).clamp(PLAIN_PROBE_AFTER, PLAIN_PROBE_MAX);
            first_answer(&tcp, probe_after, deadline).map_err(&failed)?;
            first = false;
        } else if wait(&[tcp.as_raw_fd()], deadline).map_err(|e| failed(e.to_string()))? != Some(0)
        {
            return Err(failed("no answer within the connect timeout".into()));
        }
        match conn.read_tls(&mut tcp) {
            Ok(0) => {
                return Err(failed(
                    "the server closed the connection during the handshake".into(),
                ))
            }
            Ok(_) => {
                if let Err(e) = conn.process_new_packets() {
                    // the alert that tells the server why, if it can be sent
                    let _ = conn.write_tls(&mut tcp);
                    return Err(failed(describe(&e, setup, host)));
                }
            }
            Err(e) if retry(&e) => {}
            Err(e) => return Err(failed(e.to_string())),
        }
    }
    flush(&mut conn, &mut tcp, deadline).map_err(&failed)?;
    if setup.client.asked.load(Ordering::Relaxed) {
        // TLS 1.3: the server judges our certificate (or its absence) after
        // our last handshake message, so a refusal only comes with the first
        // reply. Ask for one now, so it is reported here, in words, and not
        // as a lost connection on the caller's first command.
        client_auth_check(&mut conn, &mut tcp, deadline)
            .map_err(|e| failed(describe(&e, setup, host)))?;
    }
    Ok(rustls::StreamOwned::new(conn, tcp))
}

fn retry(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// Writes what rustls has queued, within `deadline`.
fn flush(
    conn: &mut rustls::ClientConnection,
    tcp: &mut TcpStream,
    deadline: Instant,
) -> Result<(), String> {
    while conn.wants_write() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err("timed out while sending".into());
        }
        let _ = tcp.set_write_timeout(Some(left));
        match conn.write_tls(tcp) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if retry(&e) => return Err("timed out while sending".into()),
            Err(e) => return Err(format!("cannot send: {e}")),
        }
    }
    Ok(())
}

/// Waits for the server's first bytes and checks they are TLS. A plain-text
/// server is recognised by what it sends (a RESP reply where a TLS record
/// should be) or, when it stays silent, by a PING on a second connection.
fn first_answer(tcp: &TcpStream, probe_after: Duration, deadline: Instant) -> Result<(), String> {
    let fd = tcp.as_raw_fd();
    let soon = (Instant::now() + probe_after).min(deadline);
    let mut probe = None;
    let mut probed = false;
    loop {
        let until = if probed { deadline } else { soon };
        let fds: Vec<RawFd> = match &probe {
            Some(p) => vec![fd, AsRawFd::as_raw_fd(p)],
            None => vec![fd],
        };
        match wait(&fds, until).map_err(|e| e.to_string())? {
            Some(0) => break,
            Some(_) => {
                // the probe answered: RESP from a plain-text Redis, or
                // nothing (a TLS server closes it: keep waiting on ours)
                let mut b = [0u8; 1];
                let p: &mut TcpStream = probe.as_mut().ok_or("no probe")?;
                let _ = p.set_read_timeout(Some(Duration::from_millis(10)));
                if matches!(p.read(&mut b), Ok(1) if is_resp(b[0])) {
                    return Err(not_tls());
                }
                probe = None;
            }
            None if !probed => {
                probed = true;
                probe = plain_probe(tcp, deadline);
            }
            None => {
                return Err(
                    "the server sent nothing within the connect timeout (is this a TLS port?)"
                        .into(),
                )
            }
        }
    }
    let mut b = [0u8; 1];
    // SAFETY: valid fd and a one-byte buffer; MSG_PEEK consumes nothing.
    let n = unsafe { libc::recv(fd, b.as_mut_ptr().cast(), 1, libc::MSG_PEEK) };
    match n {
        0 => Err(
            "the server closed the connection without answering TLS (is this a TLS port?)".into(),
        ),
        // 0x16: a handshake record, 0x15: an alert (a refusal, in TLS)
        1 if b[0] == 0x16 || b[0] == 0x15 => Ok(()),
        1 if is_resp(b[0]) => Err(not_tls()),
        1 => Err("the server did not answer TLS (is this a TLS port?)".into()),
        _ => Err(format!(
            "cannot read the server's answer: {}",
            io::Error::last_os_error()
        )),
    }
}

fn is_resp(b: u8) -> bool {
    b"+-:$*%_#,=(!|~>".contains(&b)
}

fn not_tls() -> String {
    "the server did not answer TLS: it speaks plain-text Redis (is this its non-TLS port? use redis://, or the server's tls-port)".into()
}

/// A second connection to the same address, sending a plain-text PING.
fn plain_probe(tcp: &TcpStream, deadline: Instant) -> Option<TcpStream> {
    let addr = tcp.peer_addr().ok()?;
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return None;
    }
    let mut p = TcpStream::connect_timeout(&addr, left).ok()?;
    let _ = p.set_write_timeout(Some(left));
    p.write_all(b"PING\r\n").ok()?;
    Some(p)
}

/// Waits until one of `fds` is readable (or hung up); its index, or `None`
/// once `deadline` has passed. Signals do not end the wait.
fn wait(fds: &[RawFd], deadline: Instant) -> io::Result<Option<usize>> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
        let mut pfds: Vec<libc::pollfd> = fds
            .iter()
            .map(|&fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: valid pollfds, their count.
        let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, ms) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if let Some(i) = pfds.iter().position(|p| p.revents != 0) {
            return Ok(Some(i));
        }
        if left.is_zero() {
            return Ok(None);
        }
    }
}

/// One PING through the new session, to learn whether the server accepted
/// the client certificate we sent (or the lack of one).
fn client_auth_check(
    conn: &mut rustls::ClientConnection,
    tcp: &mut TcpStream,
    deadline: Instant,
) -> Result<(), rustls::Error> {
    let io_err = |e: String| rustls::Error::General(e);
    conn.writer()
        .write_all(b"*1\r\n$4\r\nPING\r\n")
        .map_err(|e| io_err(e.to_string()))?;
    flush(conn, tcp, deadline).map_err(io_err)?;
    let mut line = Vec::new();
    loop {
        let mut buf = [0u8; 256];
        match conn.reader().read(&mut buf) {
            Ok(0) => {
                return Err(io_err(
                    "the server closed the session right after the handshake".into(),
                ))
            }
            Ok(n) => {
                line.extend_from_slice(&buf[..n]);
                if line.ends_with(b"\r\n") {
                    // +PONG, or -NOAUTH (AUTH comes next): either way, in.
                    return Ok(());
                }
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(io_err(e.to_string())),
        }
        match wait(&[tcp.as_raw_fd()], deadline) {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Err(io_err(
                    "no reply after the handshake within the connect timeout".into(),
                ))
            }
            Err(e) => return Err(io_err(e.to_string())),
        }
        match conn.read_tls(tcp) {
            Ok(0) => {
                return Err(io_err(
                    "the server closed the connection right after the handshake".into(),
                ))
            }
            Ok(_) => {
                conn.process_new_packets()?;
            }
            Err(e) if retry(&e) => {}
            Err(e) => return Err(io_err(e.to_string())),
        }
    }
}

/// A rustls error in words, with what the DSN can change about it.
fn describe(e: &rustls::Error, setup: &Setup, host: &str) -> String {
    use rustls::{AlertDescription as A, CertificateError as C, Error as E};
    let opts = &setup.opts;
    let asked = setup.client.asked.load(Ordering::Relaxed);
    let has_cert = setup.client.key.is_some();
    match e {
        E::InvalidCertificate(c) => {
            let why = match c {
                C::UnknownIssuer => match &opts.cafile {
                    Some(f) => format!(
                        "unknown issuer (the server's certificate is not signed by a CA of {})",
                        param("cafile", f)
                    ),
                    None => "unknown issuer (the server's certificate is not signed by a CA of the system roots: set cafile= to your CA's PEM file)".into(),
                },
                C::NotValidForName | C::NotValidForNameContext { .. } => format!(
                    "the certificate is not valid for '{}' (its subject alternative names do not include it)",
                    shown(host.as_bytes())
                ),
                C::Expired | C::ExpiredContext { .. } => "the certificate has expired".into(),
                C::NotValidYet | C::NotValidYetContext { .. } => {
                    "the certificate is not valid yet".into()
                }
                C::Revoked => "the certificate is revoked".into(),
                C::BadSignature => "bad signature".into(),
                other => format!("{other:?}"),
            };
            format!("certificate verification failed: {why}")
        }
        E::AlertReceived(a) => {
            let cert_alert = matches!(
                a,
                A::CertificateRequired
                    | A::BadCertificate
                    | A::UnknownCA
                    | A::CertificateUnknown
                    | A::UnsupportedCertificate
                    | A::CertificateExpired
                    | A::CertificateRevoked
                    | A::AccessDenied
                    | A::DecryptError
                    | A::HandshakeFailure
            );
            if asked && !has_cert && cert_alert {
                "the server requires a client certificate: add cert= and key= (PEM files) to the DSN".into()
            } else if asked && cert_alert {
                let cert = opts.cert.as_deref().unwrap_or("");
                format!(
                    "the server refused the client certificate {} (TLS alert: {a:?}; is it signed by a CA the server trusts, tls-ca-cert-file?)",
                    param("cert", cert)
                )
            } else {
                format!("the server refused the handshake (TLS alert: {a:?})")
            }
        }
        E::InvalidMessage(_)
        | E::InappropriateMessage { .. }
        | E::InappropriateHandshakeMessage { .. } => {
            format!("the server's answer is not valid TLS ({e})")
        }
        E::PeerIncompatible(p) => {
            format!("no TLS version or cipher suite in common with the server ({p:?})")
        }
        E::General(m) => m.clone(),
        other => other.to_string(),
    }
}

#[derive(Debug)]
struct NoVerify(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for NoVerify {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_bounded_and_only_when_regular() {
        let dir = std::env::temp_dir().join(format!("rk-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let big = dir.join("big.pem");
        std::fs::write(&big, vec![b'#'; FILE_MAX as usize + 1]).unwrap();
        let max = dir.join("max.pem");
        std::fs::write(&max, vec![b'#'; FILE_MAX as usize]).unwrap();
        for (path, want) in [
            ("/dev/zero", "cafile=/dev/zero is a character device"),
            ("/dev/urandom", "cafile=/dev/urandom is a character device"),
            (fifo.to_str().unwrap(), "is a FIFO"),
            (dir.to_str().unwrap(), "is a directory"),
            (big.to_str().unwrap(), "is 1048577 bytes"),
            (
                "/nonexistent/ca.pem",
                "cannot read cafile=/nonexistent/ca.pem",
            ),
        ] {
            let e = read_file("cafile", path).unwrap_err();
            assert!(e.contains(want), "{path}: {e}");
        }
        assert_eq!(
            read_file("cafile", max.to_str().unwrap()).unwrap().len(),
            1 << 20
        );
        let e = certificates("cafile", max.to_str().unwrap()).unwrap_err();
        assert!(e.contains("holds no PEM certificate"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
