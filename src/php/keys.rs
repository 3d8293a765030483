//! The keys of the arrays methods return ('member', 'score', 'rank', ...),
//! interned once at module start-up: adding one to a row is a lookup by a
//! cached hash, where a `&str` key costs a new zend_string, a numeric-key
//! check and a hash for every row.
use ext_php_rs::convert::IntoZval;
use ext_php_rs::ffi::{zend_hash_update, zend_string, zend_string_init_interned};
use ext_php_rs::prelude::PhpResult;
use ext_php_rs::types::ZendHashTable;
use std::sync::atomic::{AtomicPtr, Ordering::Relaxed};

/// Every key a result array of this extension uses.
const NAMES: &[&str] = &[
    "member",
    "score",
    "rank",
    "id",
    "payload",
    "attempts",
    "due_at",
    "scheduled",
    "due",
    "in_flight",
    "dead",
    "allowed",
    "limit",
    "remaining",
    "retry_after",
    "reset_after",
    "policy",
    "window",
];

static INTERNED: [AtomicPtr<zend_string>; NAMES.len()] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; NAMES.len()];

/// MINIT: interns the names (permanent interned strings, as PHP's own
/// known strings are).
pub fn init() {
    // SAFETY: the engine sets this function pointer before any module starts.
    let Some(intern) = (unsafe { zend_string_init_interned }) else {
        return;
    };
    for (slot, name) in INTERNED.iter().zip(NAMES) {
        // SAFETY: a valid buffer of `len` bytes; permanent (persistent) string.
        let s = unsafe { intern(name.as_ptr().cast(), name.len(), true) };
        slot.store(s, Relaxed);
    }
}

/// `h[name] = v`, with `name` one of `NAMES`.
pub fn set(h: &mut ZendHashTable, name: &'static str, v: impl IntoZval) -> PhpResult<()> {
    let key = NAMES
        .iter()
        .position(|n| *n == name)
        .map(|i| INTERNED[i].load(Relaxed))
        .filter(|p| !p.is_null());
    let Some(key) = key else {
        h.insert(name, v)?;
        return Ok(());
    };
    let mut z = v.into_zval(false)?;
    // SAFETY: `h` is a live array, `key` an interned string (no refcount to
    // take); the table takes the value over, so `z` must not be dropped.
    unsafe { zend_hash_update(h, key, &mut z) };
    std::mem::forget(z);
    Ok(())
}
