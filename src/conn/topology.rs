//! Beyond one Redis: Redis Cluster (slot routing, MOVED/ASK) and Sentinel
//! (the current master of a service). Both reuse the per-worker pool: one
//! connection per node, a slot map / master address cached per worker.
use super::dsn::{Addr, Dsn, Timeouts, TlsOpts};
use super::error::shown;
use super::error::{Error, Result};
use super::pool::{with_wire, CallError, Slot};
use super::slot::key_slot;
use super::wire::{Fail, Wire};
use super::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a worker trusts the master address a sentinel gave it. A forced
/// failover leaves the old master writable for many seconds, so the address
/// is asked again at most this often (and at once after any error).
pub const SENTINEL_RECHECK: Duration = Duration::from_secs(1);

#[derive(Debug, PartialEq, Eq)]
pub enum Topology {
    /// Seed nodes; the rest of the cluster is discovered with CLUSTER SLOTS.
    Cluster { seeds: Vec<Dsn> },
    /// Sentinels (with their own credentials) watching `service`.
    Sentinel {
        sentinels: Vec<Dsn>,
        service: String,
    },
}

impl Topology {
    pub(crate) fn key(&self) -> String {
        match self {
            Topology::Cluster { seeds } => {
                let s: Vec<&str> = seeds.iter().map(|d| d.pool_key()).collect();
                format!("cluster[{}]", s.join(","))
            }
            Topology::Sentinel { sentinels, service } => {
                let s: Vec<&str> = sentinels.iter().map(|d| d.pool_key()).collect();
                format!("sentinel[{}]{service}", s.join(","))
            }
        }
    }

    pub(crate) fn describe(&self) -> String {
        // a few nodes are enough to recognise the set-up; a list of 1000
        // seeds is not echoed whole
        const SHOWN_NODES: usize = 3;
        let list = |v: &[Dsn]| {
            let mut s = v
                .iter()
                .take(SHOWN_NODES)
                .map(|d| d.redacted_node())
                .collect::<Vec<_>>()
                .join(", ");
            if v.len() > SHOWN_NODES {
                s.push_str(&format!(", ... ({} nodes)", v.len()));
            }
            s
        };
        match self {
            Topology::Cluster { seeds } => format!("cluster [{}]", list(seeds)),
            Topology::Sentinel { sentinels, service } => format!(
                "sentinel service '{}' [{}]",
                shown(service.as_bytes()),
                list(sentinels)
            ),
        }
    }
}

/// How a cluster or sentinel connection was described (already validated
/// for shape by the caller; values are checked here).
#[derive(Debug, Clone, Default)]
pub struct MultiSpec {
    pub nodes: Vec<String>,
    pub service: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub sentinel_user: Option<String>,
    pub sentinel_password: Option<String>,
    pub read_timeout: Option<Duration>,
    pub connect_timeout: Option<Duration>,
    pub tls: bool,
    pub db: i64,
    pub wait_replicas: Option<i64>,
    pub wait_timeout: Option<Duration>,
}

fn parse_node(s: &str, timeouts: Timeouts, what: &str) -> Result<Dsn> {
    let with_scheme = if s.contains("://") {
        s.to_string()
    } else {
        format!("redis://{s}")
    };
    let d = Dsn::parse(&with_scheme, timeouts)
        .map_err(|e| Error::invalid(format!("{what}: {}", e.message())))?;
    if matches!(d.addr, Addr::Unix { .. }) {
        return Err(Error::invalid(format!(
            "{what}: unix sockets cannot be {what}s"
        )));
    }
    Ok(d)
}

fn logical(mut first: Dsn, spec: &MultiSpec, topology: Topology) -> Dsn {
    if spec.tls {
        if let Addr::Tcp { host, port } = first.addr {
            first.addr = Addr::Tls {
                host,
                port,
                tls: TlsOpts::default(),
            };
        }
    }
    first.user = spec.user.clone().or(first.user);
    first.password = spec.password.clone().or(first.password);
    first.db = spec.db;
    if let Some(t) = spec.read_timeout {
        first.read_timeout = t;
    }
    if let Some(t) = spec.connect_timeout {
        first.connect_timeout = t;
    }
    if let Some(n) = spec.wait_replicas {
        first.wait_replicas = n;
    }
    if let Some(t) = spec.wait_timeout {
        first.wait_timeout = t;
    }
    first.topology = Some(Arc::new(topology));
    first.key = first.compute_key();
    first
}

/// `['cluster' => [seeds...], ...]`.
pub fn cluster_dsn(spec: &MultiSpec, timeouts: Timeouts) -> Result<Dsn> {
    if spec.nodes.is_empty() {
        return Err(Error::invalid("the 'cluster' seed list is empty"));
    }
    if spec.db != 0 {
        return Err(Error::invalid("Redis Cluster has only database 0"));
    }
    let mut seeds = Vec::new();
    for s in &spec.nodes {
        let mut d = parse_node(s, timeouts, "cluster seed")?;
        if d.db != 0 {
            return Err(Error::invalid(format!(
                "cluster seed '{}': Redis Cluster has only database 0",
                d.redacted()
            )));
        }
        d.user = spec.user.clone().or(d.user);
        d.password = spec.password.clone().or(d.password);
        if let Some(t) = spec.read_timeout {
            d.read_timeout = t;
        }
        if let Some(t) = spec.connect_timeout {
            d.connect_timeout = t;
        }
        if spec.tls {
            if let Addr::Tcp { host, port } = d.addr {
                d.addr = Addr::Tls {
                    host,
                    port,
                    tls: TlsOpts::default(),
                };
            }
        }
        d.key = d.compute_key();
        seeds.push(d);
    }
    let first = seeds[0].clone();
    Ok(logical(first, spec, Topology::Cluster { seeds }))
}

/// `['sentinel' => [...], 'service' => 'name', ...]`.
pub fn sentinel_dsn(spec: &MultiSpec, timeouts: Timeouts) -> Result<Dsn> {
    if spec.nodes.is_empty() {
        return Err(Error::invalid("the 'sentinel' list is empty"));
    }
    let service = match spec.service.as_deref() {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => {
            return Err(Error::invalid(
                "a sentinel connection needs a 'service' (the monitored master's name)",
            ))
        }
    };
    let mut sentinels = Vec::new();
    for s in &spec.nodes {
        let mut d = parse_node(s, timeouts, "sentinel")?;
        d.user = spec.sentinel_user.clone().or(d.user);
        d.password = spec.sentinel_password.clone().or(d.password);
        if let Some(t) = spec.connect_timeout {
            d.connect_timeout = t;
        }
        d.key = d.compute_key();
        sentinels.push(d);
    }
    let mut first = sentinels[0].clone();
    // the master's credentials are the spec's, not the sentinel's
    first.user = None;
    first.password = None;
    Ok(logical(
        first,
        spec,
        Topology::Sentinel { sentinels, service },
    ))
}

const UNASSIGNED: u16 = u16::MAX;

struct SlotMap {
    slots: Vec<u16>,
    nodes: Vec<Arc<Dsn>>,
}

impl SlotMap {
    fn node_index(&mut self, template: &Dsn, host: &str, port: u16) -> u16 {
        let node = template.node(host, port);
        match self
            .nodes
            .iter()
            .position(|n| n.pool_key() == node.pool_key())
        {
            Some(i) => i as u16,
            None => {
                self.nodes.push(Arc::new(node));
                (self.nodes.len() - 1) as u16
            }
        }
    }
}

thread_local! {
    static CLUSTERS: RefCell<HashMap<String, SlotMap>> = RefCell::new(HashMap::new());
    static MASTERS: RefCell<HashMap<String, (Arc<Dsn>, Instant)>> = RefCell::new(HashMap::new());
}

fn cluster_slots_request() -> Vec<u8> {
    b"*2\r\n$7\r\nCLUSTER\r\n$5\r\nSLOTS\r\n".to_vec()
}

/// Loads the slot map from any node that answers (known nodes first, then seeds).
fn load_slot_map(dsn: &Dsn, seeds: &[Dsn]) -> Result<()> {
    let mut candidates: Vec<Dsn> = CLUSTERS.with(|c| {
        c.borrow()
            .get(dsn.pool_key())
            .map(|m| m.nodes.iter().map(|n| (**n).clone()).collect())
            .unwrap_or_default()
    });
    candidates.extend(seeds.iter().map(|s| {
        let mut s = s.clone();
        s.topology = None;
        s
    }));
    let req = cluster_slots_request();
    let mut last = String::from("no seed node");
    for node in candidates {
        let timeout = node.read_timeout;
        match with_wire(&node, Slot::Main, true, |w| {
            w.topology_request(&req, timeout)
        }) {
            Ok(Value::Array(ranges)) => {
                let host_of_node = match &node.addr {
                    Addr::Tcp { host, .. } | Addr::Tls { host, .. } => host.clone(),
                    Addr::Unix { .. } => String::new(),
                };
                let mut map = SlotMap {
                    slots: vec![UNASSIGNED; 16384],
                    nodes: Vec::new(),
                };
                for r in ranges {
                    let Value::Array(r) = r else { continue };
                    let (
                        Some(Value::Int(start)),
                        Some(Value::Int(end)),
                        Some(Value::Array(master)),
                    ) = (r.first(), r.get(1), r.get(2))
                    else {
                        continue;
                    };
                    let host = match master.first() {
                        Some(Value::BulkString(h)) if !h.is_empty() => {
                            String::from_utf8_lossy(h).into_owned()
                        }
                        _ => host_of_node.clone(),
                    };
                    let Some(Value::Int(port)) = master.get(1) else {
                        continue;
                    };
                    let idx = map.node_index(dsn, &host, *port as u16);
                    for s in (*start).max(0)..=(*end).min(16383) {
                        map.slots[s as usize] = idx;
                    }
                }
                CLUSTERS.with(|c| c.borrow_mut().insert(dsn.pool_key().to_string(), map));
                return Ok(());
            }
            Ok(Value::ServerError(e)) => last = super::wire::server_error_text(&e),
            Ok(other) => last = format!("unexpected CLUSTER SLOTS reply {other:?}"),
            Err(e) => last = e.error.message().to_string(),
        }
    }
    Err(Error::Connection(format!(
        "no node of {} answered CLUSTER SLOTS: {last}",
        dsn.redacted()
    )))
}

fn cluster_node(dsn: &Dsn, seeds: &[Dsn], slot: u16, reload: bool) -> Result<Arc<Dsn>> {
    let lookup = || {
        CLUSTERS.with(|c| {
            c.borrow()
                .get(dsn.pool_key())
                .and_then(|m| match m.slots[slot as usize] {
                    UNASSIGNED => None,
                    i => m.nodes.get(i as usize).cloned(),
                })
        })
    };
    if !reload {
        if let Some(n) = lookup() {
            return Ok(n);
        }
    }
    load_slot_map(dsn, seeds)?;
    lookup().ok_or_else(|| {
        Error::Connection(format!(
            "{}: no node serves slot {slot} (CLUSTERDOWN?)",
            dsn.redacted()
        ))
    })
}

enum Redirect {
    Moved,
    Ask(String, u16),
}

fn redirect_of(v: &Value) -> Option<Redirect> {
    let one = |v: &Value| -> Option<Redirect> {
        let Value::ServerError(e) = v else {
            return None;
        };
        let code = e.code();
        if code != "MOVED" && code != "ASK" {
            return None;
        }
        let target = e.details()?.split_whitespace().nth(1)?;
        let (host, port) = target.rsplit_once(':')?;
        let port: u16 = port.parse().ok()?;
        Some(if code == "MOVED" {
            Redirect::Moved
        } else {
            Redirect::Ask(host.to_string(), port)
        })
    };
    match v {
        // a pipeline of one object's commands: all in one slot, all redirected
        Value::Array(items) if !items.is_empty() && items.iter().all(|i| one(i).is_some()) => {
            one(&items[0]).map(|r| match r {
                Redirect::Ask(..) => Redirect::Moved, // ASKING covers one command: re-route instead
                r => r,
            })
        }
        v => one(v),
    }
}

/// True when the server refused the whole request with the error `code`,
/// so nothing ran: one such error, or a pipeline whose every reply is one.
/// `TRYAGAIN` is a cluster's multi-key request whose keys a slot migration
/// in progress splits; `LOADING` is Redis loading its dataset after a start.
fn refused_with(v: &Value, code: &str) -> bool {
    let one = |v: &Value| matches!(v, Value::ServerError(e) if e.code() == code);
    match v {
        Value::Array(items) => !items.is_empty() && items.iter().all(one),
        v => one(v),
    }
}

/// `with_wire`, sending the request again while the server answers that it
/// is still loading its dataset (a restarted Redis with AOF or RDB data):
/// nothing ran, so this is safe for any request. Waits up to the connect
/// timeout, as for a server that does not accept connections yet, then fails
/// with a connection error.
fn with_wire_loaded(
    dsn: &Dsn,
    slot: Slot,
    retry_safe: bool,
    mut f: impl FnMut(&mut Wire) -> std::result::Result<Value, Fail>,
) -> std::result::Result<Value, CallError> {
    let mut until: Option<Instant> = None;
    let mut pause = Duration::from_millis(2);
    loop {
        let v = with_wire(dsn, slot, retry_safe, &mut f)?;
        if !refused_with(&v, "LOADING") {
            return Ok(v);
        }
        let now = Instant::now();
        let until = *until.get_or_insert(now + dsn.connect_timeout);
        if now >= until || super::interrupted() {
            super::stats::error();
            return Err(CallError {
                error: Error::Connection(format!(
                    "Redis at {}: still loading its dataset after the connect timeout ({:.3}s; LOADING: the command did not run)",
                    dsn.redacted(),
                    dsn.connect_timeout.as_secs_f64()
                )),
                maybe_sent: false,
            });
        }
        std::thread::sleep(pause.min(until - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Runs one request (or pipeline) against the right server of `dsn`:
/// itself, the cluster node owning `route`'s slot, or the current master.
/// `route` is only worked out on a cluster (not on the single-server hot path).
pub(crate) fn dispatch<'r>(
    dsn: &Dsn,
    route: impl FnOnce() -> Option<&'r [u8]>,
    slot: Slot,
    retry_safe: bool,
    mut f: impl FnMut(&mut Wire) -> std::result::Result<Value, Fail>,
) -> Result<Value> {
    let Some(topology) = &dsn.topology else {
        return with_wire_loaded(dsn, slot, retry_safe, f).map_err(|e| e.error);
    };
    match &**topology {
        Topology::Cluster { seeds } => {
            let slot_no = route().map(key_slot).unwrap_or(0);
            let mut ask: Option<Arc<Dsn>> = None;
            let mut reload = false;
            let mut redirects = 0;
            // TRYAGAIN: until when, and the pause before the next try
            let mut again_until: Option<Instant> = None;
            let mut pause = Duration::from_millis(2);
            while redirects < 8 {
                let asking = ask.is_some();
                let node = match ask.take() {
                    Some(n) => n,
                    None => cluster_node(dsn, seeds, slot_no, reload)?,
                };
                let timeout = node.read_timeout;
                let r = with_wire_loaded(&node, slot, retry_safe, |w| {
                    if asking {
                        w.asking(&mut f)
                    } else {
                        f(w)
                    }
                });
                match r {
                    Ok(v) => match redirect_of(&v) {
                        None if refused_with(&v, "TRYAGAIN") => {
                            // a multi-key request while its slot migrates, its
                            // keys on both sides: nothing ran. Again (to the
                            // same node) until the keys are together, for up
                            // to the read timeout
                            let now = Instant::now();
                            let until = *again_until.get_or_insert(now + timeout);
                            if now >= until || super::interrupted() {
                                return Ok(v);
                            }
                            std::thread::sleep(pause.min(until - now));
                            pause = (pause * 2).min(Duration::from_millis(50));
                            if asking {
                                ask = Some(node);
                            }
                            reload = false;
                        }
                        None => return Ok(v),
                        Some(Redirect::Moved) => {
                            reload = true;
                            redirects += 1;
                        }
                        Some(Redirect::Ask(host, port)) => {
                            ask = Some(Arc::new(dsn.node(&host, port)));
                            reload = false;
                            redirects += 1;
                        }
                    },
                    // the node is gone (failover?): nothing was sent, ask the
                    // cluster who serves the slot now and try there once
                    Err(CallError { error, maybe_sent }) => {
                        if maybe_sent || reload {
                            return Err(error);
                        }
                        reload = true;
                    }
                }
            }
            Err(Error::Connection(format!(
                "{}: too many MOVED/ASK redirections",
                dsn.redacted()
            )))
        }
        Topology::Sentinel { sentinels, service } => {
            for attempt in 0..2 {
                let master = sentinel_master(dsn, sentinels, service, attempt > 0)?;
                match with_wire_loaded(&master, slot, retry_safe, &mut f) {
                    Ok(Value::ServerError(e)) if e.code() == "READONLY" && attempt == 0 => {
                        // demoted master: the write did not run; find the new one
                        forget_master(dsn);
                    }
                    Ok(v) => return Ok(v),
                    Err(CallError { error, maybe_sent }) => {
                        forget_master(dsn);
                        if maybe_sent || attempt > 0 {
                            return Err(error);
                        }
                    }
                }
            }
            Err(Error::Connection(format!(
                "{}: no reachable master",
                dsn.redacted()
            )))
        }
    }
}

fn forget_master(dsn: &Dsn) {
    MASTERS.with(|m| m.borrow_mut().remove(dsn.pool_key()));
}

fn sentinel_master(dsn: &Dsn, sentinels: &[Dsn], service: &str, refresh: bool) -> Result<Arc<Dsn>> {
    let cached = MASTERS.with(|m| m.borrow().get(dsn.pool_key()).cloned());
    if let Some((m, at)) = &cached {
        if !refresh && at.elapsed() < SENTINEL_RECHECK {
            return Ok(m.clone());
        }
    }
    let mut req = Vec::new();
    super::wire::pack_into(
        &mut req,
        [
            &b"SENTINEL"[..],
            b"get-master-addr-by-name",
            service.as_bytes(),
        ]
        .into_iter(),
    );
    let mut last = String::from("no sentinel");
    for s in sentinels {
        let timeout = s.read_timeout;
        match with_wire(s, Slot::Main, true, |w| w.topology_request(&req, timeout)) {
            Ok(Value::Array(a)) if a.len() == 2 => {
                let host = match &a[0] {
                    Value::BulkString(h) => String::from_utf8_lossy(h).into_owned(),
                    _ => continue,
                };
                let port = match &a[1] {
                    Value::BulkString(p) => String::from_utf8_lossy(p).parse::<u16>().ok(),
                    Value::Int(p) => u16::try_from(*p).ok(),
                    _ => None,
                };
                let Some(port) = port else { continue };
                let mut master = dsn.node(&host, port);
                master.check_master = true;
                master.key = master.compute_key();
                let master = match cached {
                    Some((old, _)) if old.pool_key() == master.pool_key() => old,
                    Some((old, _)) => {
                        // the master moved: close our connections to the old one
                        super::pool::discard(old.pool_key());
                        Arc::new(master)
                    }
                    None => Arc::new(master),
                };
                MASTERS.with(|m| {
                    m.borrow_mut()
                        .insert(dsn.pool_key().to_string(), (master.clone(), Instant::now()))
                });
                return Ok(master);
            }
            Ok(Value::Nil) => {
                last = format!(
                    "sentinel {} does not know service '{}'",
                    s.redacted_node(),
                    shown(service.as_bytes())
                )
            }
            Ok(Value::ServerError(e)) => last = super::wire::server_error_text(&e),
            Ok(other) => last = format!("unexpected reply {other:?}"),
            Err(e) => last = e.error.message().to_string(),
        }
    }
    Err(Error::Connection(format!(
        "{}: no sentinel gave a master: {last}",
        dsn.redacted()
    )))
}

/// Where a command routed by `route` goes on a cluster: that node's
/// host:port (`None` for one server or Sentinel, whose DSN says it).
pub fn node_address(dsn: &Dsn, route: &[u8]) -> Result<Option<String>> {
    let Some(topology) = &dsn.topology else {
        return Ok(None);
    };
    let Topology::Cluster { seeds } = &**topology else {
        return Ok(None);
    };
    let node = cluster_node(dsn, seeds, key_slot(route), false)?;
    Ok(Some(super::wire::target(&node.addr)))
}

/// One key per master of `dsn` that routes a command there: one per node
/// of a cluster's slot map (loaded if need be), an empty list otherwise
/// (the one server, or the current master, takes any key). For commands
/// that must visit every master, such as SCAN.
pub fn master_routes(dsn: &Dsn) -> Result<Vec<Vec<u8>>> {
    let Some(topology) = &dsn.topology else {
        return Ok(Vec::new());
    };
    let Topology::Cluster { seeds } = &**topology else {
        return Ok(Vec::new());
    };
    cluster_node(dsn, seeds, 0, false)?;
    let mut first_slots: Vec<u16> = CLUSTERS.with(|c| {
        let c = c.borrow();
        let Some(m) = c.get(dsn.pool_key()) else {
            return Vec::new();
        };
        let mut firsts = vec![UNASSIGNED; m.nodes.len()];
        for (slot, &node) in m.slots.iter().enumerate() {
            if node != UNASSIGNED && firsts[node as usize] == UNASSIGNED {
                firsts[node as usize] = slot as u16;
            }
        }
        firsts.into_iter().filter(|&s| s != UNASSIGNED).collect()
    });
    // a key of each slot: "{n}" for the first n that hashes there
    let mut routes = vec![Vec::new(); first_slots.len()];
    let mut left = first_slots.len();
    let mut n: u64 = 0;
    while left > 0 && n < 10_000_000 {
        let key = format!("{{{n}}}").into_bytes();
        let slot = key_slot(&key);
        if let Some(i) = first_slots.iter().position(|&s| s == slot) {
            routes[i] = key;
            first_slots[i] = UNASSIGNED;
            left -= 1;
        }
        n += 1;
    }
    Ok(routes.into_iter().filter(|r| !r.is_empty()).collect())
}
