//! Server-assisted client-side caching: what a local read tier needs from
//! the connection layer.
//!
//! A DSN made with `Dsn::with_tracking()` gets connections of their own
//! (their own pool key) that speak RESP3 and run `CLIENT TRACKING on OPTIN`,
//! set up in the connect handshake's single round trip. Only the reads sent
//! with `CLIENT CACHING yes` in front (`conn::tracked_get`) are tracked, so
//! Redis keeps no tracking state for anything else.
//!
//! Each such connection is a *session* (a number never reused in the
//! process). What Redis pushes on it is queued here as events, in the order
//! it arrived: a key changed or expired (`Invalidate`), a `FLUSHALL` /
//! `FLUSHDB` (`Flush`: Redis sends a null invalidation), and the connection
//! closed for any reason (`Closed`: an invalidation may have been missed).
//! The local tier applies them before it serves anything
//! (`drain()`), which reads what the sockets hold without blocking.
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// What happened on a tracking session.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// These keys changed or expired.
    Invalidate(u64, Vec<Vec<u8>>),
    /// Everything read on this session is invalid (FLUSHALL / FLUSHDB).
    Flush(u64),
    /// The session's connection closed: everything read on it is invalid.
    Closed(u64),
    /// Events were lost (too many queued unread): everything is invalid.
    Overflow,
}

/// Events queued unread past this many are replaced by one `Overflow`.
const MAX_QUEUED: usize = 100_000;

static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

#[derive(Default)]
struct State {
    events: Vec<Event>,
    /// Live sessions of this thread and when each last received anything
    /// (one per server a tier reads from: a short list).
    heard: Vec<(u64, Instant)>,
    /// Why the last tracking handshake was refused (server error), if it was.
    refused: Option<String>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// A new session number, for a connection that just turned tracking on.
pub(crate) fn open() -> u64 {
    let s = NEXT_SESSION.fetch_add(1, Relaxed);
    STATE.with(|st| {
        st.borrow_mut().heard.push((s, Instant::now()));
    });
    s
}

/// The session's connection received a frame (a reply or a push).
pub(crate) fn heard(session: u64) {
    STATE.with(|st| st.borrow_mut().heard_now(session));
}

impl State {
    fn heard_now(&mut self, session: u64) {
        if let Some((_, t)) = self.heard.iter_mut().find(|(s, _)| *s == session) {
            *t = Instant::now();
        }
    }
}

fn push(st: &mut State, e: Event) {
    if st.events.len() >= MAX_QUEUED {
        st.events.clear();
        st.events.push(Event::Overflow);
    }
    if st.events.last() != Some(&Event::Overflow) || e == Event::Overflow {
        st.events.push(e);
    }
}

/// Redis pushed `invalidate` with these keys (`None`: a flush).
pub(crate) fn invalidated(session: u64, keys: Option<Vec<Vec<u8>>>) {
    STATE.with(|st| {
        let mut st = st.borrow_mut();
        st.heard_now(session);
        match keys {
            Some(k) => push(&mut st, Event::Invalidate(session, k)),
            None => push(&mut st, Event::Flush(session)),
        }
    });
}

/// The session's connection is closed.
pub(crate) fn closed(session: u64) {
    // a thread's connections are dropped while its thread-locals are torn
    // down too: then nobody is left to tell
    let _ = STATE.try_with(|st| {
        let mut st = st.borrow_mut();
        st.heard.retain(|(s, _)| *s != session);
        push(&mut st, Event::Closed(session));
    });
}

/// The tracking handshake was refused by the server (`HELLO 3` or
/// `CLIENT TRACKING` answered with an error).
pub(crate) fn refused(why: String) {
    STATE.with(|st| st.borrow_mut().refused = Some(why));
}

/// Why the last tracking handshake was refused, once.
pub fn take_refusal() -> Option<String> {
    STATE.with(|st| st.borrow_mut().refused.take())
}

/// When the session last received anything; `None` once it is closed.
pub fn last_heard(session: u64) -> Option<Instant> {
    STATE.with(|st| {
        st.borrow()
            .heard
            .iter()
            .find(|(s, _)| *s == session)
            .map(|(_, t)| *t)
    })
}

/// Reads, without blocking, what this thread's pooled tracking connections
/// received (one `recv` each; a connection found closed is dropped), and
/// returns every event queued since the last call, oldest first.
pub fn drain() -> Vec<Event> {
    super::pool::drain_tracking();
    take_events()
}

/// The events queued so far (by replies already read), without reading
/// anything more.
pub fn take_events() -> Vec<Event> {
    STATE.with(|st| std::mem::take(&mut st.borrow_mut().events))
}
