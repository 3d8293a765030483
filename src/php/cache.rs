#![allow(non_snake_case)] // PHP parameter names are camelCase (named arguments)
//! `RedisKit\RedisCache`: argument checks, (un)serialization and exceptions
//! around `crate::cache`.
use super::exceptions::LockTimeoutException;
use super::{
    array_entries, connection_arg, options_arg, settings, throw, type_error, value_error, Bytes,
};
use crate::cache::{Cache, Computed, Entry, Format, Got, Stored};
use crate::conn::{shown, Error};
use ext_php_rs::boxed::ZBox;
use ext_php_rs::exception::PhpException;
use ext_php_rs::ffi::{zend_call_known_function, zend_fetch_function_str, zend_function};
use ext_php_rs::flags::ClassFlags;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::ExecutorGlobals;

/// Cache-aside without stampedes: `remember()` runs `$compute` in one caller
/// at a time across processes and servers, while the others wait for its
/// write (woken by it, no polling) and return that value.
///
/// Options: `ttl` (seconds, default 0: no expiry; the TTL of set() and
/// setMany() without one), `jitter` (a fraction in [0, 1), default 0.1:
/// every TTL is multiplied by a uniform factor in [1 - jitter, 1 + jitter],
/// against avalanches), `null_ttl` (seconds a null result of `$compute` is
/// cached, default 60; 0: not cached), `lock_timeout` (seconds a caller
/// waits for another's compute, and how long a claim to compute lasts;
/// default 10), `on_lock_timeout` (`'compute'`, the default: compute after
/// the wait, or `'throw'`: RedisKit\LockTimeoutException), `early_refresh`
/// (XFetch's beta, >= 0, default 0: off; 1 is the usual value: a hot value
/// is recomputed by one caller before it expires, with a probability that
/// grows with its compute time as expiry nears), `stale_ttl` (seconds an
/// expired value is still served by remember() while one caller refreshes
/// it, default 0), `serializer` (`'php'` default, `'igbinary'` when loaded,
/// `'json'` (arrays come back as arrays, objects as arrays), `'none'`:
/// strings only, stored as they are), `prefix` (default ini rediskit.prefix),
/// `local` (true, or ['max_bytes' => int, default 4 MiB, 'recheck_after' =>
/// seconds, default 1]: values read are kept in this worker's memory and
/// served from there, each dropped when Redis reports a change of its key
/// (client tracking, RESP3, on a connection of its own), when that
/// connection closes, after FLUSHDB, or at its TTL; never older than the
/// last write Redis completed before this worker's previous round trip on
/// that connection; a server refusing tracking turns it off with one
/// E_USER_NOTICE).
///
/// Keys are prefix . namespace . ':' . key. A null cached by remember() is
/// returned by get() as null (with the default $default, the same as a miss);
/// only remember() tells them apart, by not computing.
#[php_class]
#[php(name = "RedisKit\\RedisCache")]
#[php(flags = ClassFlags::Final)]
pub struct RedisCache {
    inner: Cache,
}

/// The serializers this PHP can use.
fn serializers() -> Vec<Format> {
    let mut s = vec![Format::Php, Format::Json, Format::Raw];
    if PhpFn::find("igbinary_serialize").is_ok() {
        s.push(Format::Igbinary);
    }
    s
}

/// A PHP function (serialize, unserialize, json_encode, ...) looked up once
/// and called directly: no callable resolution per call, as ZendCallable
/// does twice (a getMany() of 100 values calls it 100 times).
#[derive(Clone, Copy)]
struct PhpFn(*mut zend_function);

impl PhpFn {
    fn find(name: &str) -> PhpResult<PhpFn> {
        // SAFETY: a lookup in the engine's function table, by a name of ours
        let f = unsafe { zend_fetch_function_str(name.as_ptr().cast(), name.len()) };
        if f.is_null() {
            return Err(throw(Error::Redis(format!(
                "RedisCache: {name}() is not available"
            ))));
        }
        Ok(PhpFn(f))
    }

    /// The call; Err when it threw (the exception stays pending, and is
    /// what the caller of our method gets).
    fn call(self, args: &mut [Zval]) -> PhpResult<Zval> {
        let mut ret = Zval::new();
        // SAFETY: a live internal function of the function table, with
        // initialized zvals that the engine copies into its call frame
        unsafe {
            zend_call_known_function(
                self.0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut ret,
                args.len() as u32,
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        if ExecutorGlobals::has_exception() {
            return Err(PhpException::from_message("an exception is pending".into()));
        }
        Ok(ret)
    }
}

fn long(i: i64) -> Zval {
    let mut z = Zval::new();
    z.set_long(i);
    z
}

fn boolean(b: bool) -> Zval {
    let mut z = Zval::new();
    z.set_bool(b);
    z
}

fn call<const N: usize>(name: &str, mut args: [Zval; N]) -> PhpResult<Zval> {
    PhpFn::find(name)?.call(&mut args)
}

/// `serialize($value)`; a value PHP refuses to serialize (a Closure, an
/// anonymous class) is a \ValueError naming the key, with PHP's reason.
fn serialized(key: &[u8], name: &str, value: &Zval) -> PhpResult<Zval> {
    call(name, [value.shallow_clone()]).map_err(|e| {
        match ext_php_rs::zend::ExecutorGlobals::take_exception() {
            Some(ex) => {
                let why = ex
                    .try_call_method("getMessage", vec![])
                    .ok()
                    .and_then(|m| m.string())
                    .unwrap_or_default();
                value_error(format!(
                    "RedisCache: the value for '{}' cannot be serialized: {why}",
                    shown(key)
                ))
            }
            None => e,
        }
    })
}

/// JSON_PRESERVE_ZERO_FRACTION | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES
const JSON_FLAGS: i64 = 1024 | 256 | 64;

impl RedisCache {
    /// A PHP value as the bytes to store (`None`: a null, negative caching).
    fn serialize(&self, key: &[u8], value: &Zval) -> PhpResult<Stored> {
        let value = value.dereference();
        if value.is_null() {
            return Ok(None);
        }
        let format = self.inner.serializer();
        let out = match format {
            Format::Raw => match value.zend_str() {
                Some(s) => s.as_bytes().to_vec(),
                None => {
                    return Err(type_error(format!(
                        "RedisCache: serializer 'none' stores strings only, got {} for '{}'",
                        super::type_name(value),
                        shown(key)
                    )))
                }
            },
            Format::Php => bytes(serialized(key, "serialize", value)?)?,
            Format::Igbinary => bytes(serialized(key, "igbinary_serialize", value)?)?,
            Format::Json => {
                let r = call("json_encode", [value.shallow_clone(), long(JSON_FLAGS)])?;
                if r.is_false() {
                    let why = call("json_last_error_msg", [])?;
                    return Err(value_error(format!(
                        "RedisCache: the value for '{}' cannot be encoded as JSON: {}",
                        shown(key),
                        why.string().unwrap_or_default()
                    )));
                }
                bytes(r)?
            }
            Format::Null => return Ok(None),
        };
        Ok(Some((format, out)))
    }

    /// A stored value as the PHP value.
    fn unserialize(&self, e: Entry) -> PhpResult<Zval> {
        let payload = super::binary(e.payload);
        match e.format {
            Format::Null => Ok(Zval::null()),
            Format::Raw => Ok(payload),
            Format::Php => call("unserialize", [payload]),
            Format::Igbinary => call("igbinary_unserialize", [payload]),
            Format::Json => call("json_decode", [payload, boolean(true)]),
        }
    }
}

/// `$h[$key] = $v` as PHP does it: a canonical decimal integer string is an
/// int key, any other byte string (binary-safe) a string key.
pub(super) fn insert_key(h: &mut ZendHashTable, key: &[u8], v: Zval) {
    let canonical = |k: &[u8]| {
        let digits = k.strip_prefix(b"-").unwrap_or(k);
        !digits.is_empty()
            && digits.len() <= 19
            && digits.iter().all(u8::is_ascii_digit)
            && (digits[0] != b'0' || k == b"0")
    };
    if canonical(key) {
        if let Some(i) = std::str::from_utf8(key)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
        {
            let _ = h.insert_at_index(i, v);
            return;
        }
    }
    let mut v = v;
    // SAFETY: the table is ours; the key is copied by the call; the value's
    // reference moves into the table (`v` is forgotten, not destroyed).
    unsafe {
        ext_php_rs::ffi::zend_hash_str_update(h, key.as_ptr().cast(), key.len(), &raw mut v);
    }
    std::mem::forget(v);
}

/// What `ttl_of` returned: `Some(None)` for null or false (do not cache),
/// `Some(Some(seconds))` for a number, `None` for anything else.
fn ttl_seconds(z: &Zval) -> Option<Option<f64>> {
    let z = z.dereference();
    if z.is_null() || z.is_false() {
        Some(None)
    } else if let Some(i) = z.long() {
        Some(Some(i as f64))
    } else {
        z.double().map(Some)
    }
}

fn bytes(z: Zval) -> PhpResult<Vec<u8>> {
    z.zend_str().map(|s| s.as_bytes().to_vec()).ok_or_else(|| {
        throw(Error::Redis(
            "RedisCache: the serializer returned no string".into(),
        ))
    })
}

#[php_impl]
impl RedisCache {
    /// @param string $namespace Keys are prefix . namespace . ':' . key.
    /// @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]).
    /// @param array $options See the class description.
    /// @throws \ValueError on an empty namespace, a bad DSN, an unknown option or a bad option value.
    pub fn __construct(
        namespace: Bytes,
        connection: Option<&Zval>,
        options: Option<&ZendHashTable>,
    ) -> PhpResult<Self> {
        let conn = connection_arg(connection)?;
        let opts = options_arg(options)?;
        let inner =
            Cache::new(&namespace.0, &conn, opts, &settings(), &serializers()).map_err(throw)?;
        Ok(RedisCache { inner })
    }

    /// The cached value, or $default on a miss (one round trip). A value past
    /// its TTL, kept only for stale_ttl, is a miss here.
    /// @param string $key
    /// @param mixed $default
    /// @return mixed
    /// @throws \ValueError on an empty key.
    pub fn get(&self, key: Bytes, default: Option<&Zval>) -> PhpResult<Zval> {
        let got = self.inner.get(&key.0);
        super::local_notice()?;
        match got.map_err(throw)? {
            Some(e) => self.unserialize(e),
            None => Ok(default.map(Zval::shallow_clone).unwrap_or_else(Zval::null)),
        }
    }

    /// Stores a value (null included: get() returns it as null, remember() as a hit).
    /// @param string $key
    /// @param mixed $value
    /// @param float|null $ttl Seconds (>= 0, 0: no expiry); null for the ttl option. Jittered.
    /// @throws \ValueError on an empty key or a negative TTL; \TypeError for a non-string with serializer 'none'.
    pub fn set(&self, key: Bytes, value: &Zval, ttl: Option<f64>) -> PhpResult<()> {
        let ttl = self.inner.ttl_arg(ttl).map_err(throw)?;
        let stored = self.serialize(&key.0, value)?;
        self.inner.set(&key.0, &stored, ttl).map_err(throw)
    }

    /// Adds $by to an integer value (set() of an int, or an earlier
    /// increment()), keeping its TTL; a missing key starts from 0 and does not
    /// expire. Atomic.
    /// @return int The new value.
    /// @throws \RedisKit\Exception when the value is not an integer (nothing written).
    #[php(defaults(by = 1))]
    pub fn increment(&self, key: Bytes, by: i64) -> PhpResult<i64> {
        self.inner.increment(&key.0, by).map_err(throw)
    }

    /// Gives an existing value a new TTL.
    /// @param float|null $ttl Seconds (>= 0, 0: no expiry); null for the ttl option. Jittered.
    /// @return bool false when the key is missing.
    pub fn touch(&self, key: Bytes, ttl: Option<f64>) -> PhpResult<bool> {
        let ttl = self.inner.ttl_arg(ttl).map_err(throw)?;
        self.inner.touch(&key.0, ttl).map_err(throw)
    }

    /// Stores a value only if the key holds none (SET NX, atomic).
    /// @param float|null $ttl Seconds (>= 0, 0: no expiry); null for the ttl option. Jittered.
    /// @return bool true if it was stored.
    pub fn add(&self, key: Bytes, value: &Zval, ttl: Option<f64>) -> PhpResult<bool> {
        let ttl = self.inner.ttl_arg(ttl).map_err(throw)?;
        let stored = self.serialize(&key.0, value)?;
        self.inner.add(&key.0, &stored, ttl).map_err(throw)
    }

    /// Deletes keys of this namespace.
    /// @return int How many existed.
    pub fn delete(&self, keys: &[Bytes]) -> PhpResult<i64> {
        let keys: Vec<Vec<u8>> = keys.iter().map(|k| k.0.clone()).collect();
        self.inner.delete(&keys).map_err(throw)
    }

    /// The cached value of $key, or else what $compute() returns, which is
    /// cached for $ttl. Single-flight across processes: on a miss one caller
    /// computes, the others wait (woken by its write, up to lock_timeout) and
    /// return its value; a compute that throws wakes them, and the next caller
    /// computes. A hit is one round trip, a computed miss three.
    /// @param string $key
    /// @param float $ttl Seconds (>= 0, 0: no expiry). Jittered.
    /// @param callable $compute Called without arguments; null is cached for null_ttl.
    /// @param array $options jitter, null_ttl, lock_timeout, on_lock_timeout, early_refresh, stale_ttl for this
    ///   call, and ttl_of: a callable given the computed value that returns its TTL in seconds
    ///   (replacing $ttl; 0: no expiry), or null to not cache it.
    /// @return mixed
    /// @throws \RedisKit\LockTimeoutException with on_lock_timeout 'throw', when another caller computed for longer than lock_timeout.
    /// @throws \Throwable whatever $compute throws.
    pub fn remember(
        &self,
        key: Bytes,
        ttl: f64,
        compute: ZendCallable,
        options: Option<&ZendHashTable>,
    ) -> PhpResult<Zval> {
        let ttl_ms = crate::cache::ttl_ms("the TTL", ttl).map_err(throw)?;
        let mut ttl_of = None;
        let policy = match options {
            None => self.inner.policy(),
            Some(o) => {
                let mut opts = options_arg(Some(o))?;
                if opts.take("ttl_of").is_some() {
                    let f = o.get("ttl_of").and_then(|z| ZendCallable::new(z).ok());
                    ttl_of = Some(f.ok_or_else(|| {
                        type_error("RedisCache::remember(): option 'ttl_of' must be a callable")
                    })?);
                }
                self.inner.call_policy(opts).map_err(throw)?
            }
        };
        let got = self
            .inner
            .remember(&key.0, ttl_ms, &policy, || -> Result<_, Wrapped> {
                let value = compute
                    .try_call(vec![])
                    .map_err(|e| Wrapped(PhpException::from(e)))?;
                let stored = self.serialize(&key.0, &value)?;
                let mut c = Computed::new(stored, value);
                if let Some(f) = &ttl_of {
                    let t = f
                        .try_call(vec![&c.out])
                        .map_err(|e| Wrapped(PhpException::from(e)))?;
                    match ttl_seconds(&t) {
                        Some(None) => c.save = false,
                        Some(Some(secs)) => {
                            c.ttl_ms = Some(crate::cache::ttl_ms("the TTL from 'ttl_of'", secs)?)
                        }
                        None => {
                            return Err(Wrapped(type_error(format!(
                                "RedisCache::remember(): 'ttl_of' must return seconds (int or float) or null, got {}",
                                super::type_name(&t)
                            ))))
                        }
                    }
                }
                Ok(c)
            });
        super::local_notice()?;
        match got.map_err(|e: Wrapped| e.0)? {
            Got::Cached(e) => self.unserialize(e),
            Got::Computed(v) => Ok(v),
            Got::Null => Ok(Zval::null()),
            Got::TimedOut => {
                let cut = crate::conn::interrupted();
                super::dispatch_pending_signals()?;
                Err(PhpException::from_class::<LockTimeoutException>(format!(
                    "RedisCache: another process has been computing '{}' for longer than lock_timeout ({} s){}",
                    shown(&key.0),
                    policy.lock_timeout.as_secs_f64(),
                    if cut {
                        " (the wait was cut short: PHP had a signal handler or a timeout to run)"
                    } else {
                        ""
                    }
                )))
            }
        }
    }

    /// Many values in one round trip (MGET; with the local tier, only the values
    /// it does not hold are read).
    /// @param array $keys A list of keys.
    /// @return array key => value, null for a miss, in the order of $keys.
    pub fn get_many(&self, keys: &ZendHashTable) -> PhpResult<ZBox<ZendHashTable>> {
        // the keys as PHP holds them (an int key is written out)
        let mut list: Vec<std::borrow::Cow<[u8]>> = Vec::with_capacity(keys.len());
        for (k, v) in array_entries(keys) {
            match v.zend_str() {
                Some(s) => list.push(s.as_bytes().into()),
                None if v.is_long() => list.push(super::bytes_of(v).unwrap_or_default().into()),
                None => {
                    return Err(type_error(format!(
                        "RedisCache::getMany(): key {} must be a string, got {}",
                        k.label(),
                        super::type_name(v)
                    )))
                }
            }
        }
        let got = self.inner.get_many(&list).map_err(throw)?;
        let mut out = ZendHashTable::with_capacity(list.len() as u32);
        for (k, e) in list.into_iter().zip(got) {
            let v = match e {
                Some(e) => self.unserialize(e)?,
                None => Zval::null(),
            };
            insert_key(&mut out, &k, v);
        }
        Ok(out)
    }

    /// Stores many values (key => value): one round trip, written whole or
    /// not at all (on a Redis Cluster: per hash slot).
    /// @param array $values key => value.
    /// @param float|null $ttl Seconds (>= 0, 0: no expiry); null for the ttl option. Jittered per key.
    pub fn set_many(&self, values: &ZendHashTable, ttl: Option<f64>) -> PhpResult<()> {
        let ttl = self.inner.ttl_arg(ttl).map_err(throw)?;
        let mut items = Vec::with_capacity(values.len());
        for (k, v) in array_entries(values) {
            let k = k.into_bytes();
            if k.is_empty() {
                return Err(value_error("RedisCache: a key must not be empty"));
            }
            let stored = self.serialize(&k, v)?;
            items.push((k, stored));
        }
        self.inner.set_many(&items, ttl).map_err(throw)
    }

    /// Deletes every value of this namespace (SCAN and UNLINK in batches,
    /// never FLUSHDB).
    /// @return int How many values were deleted.
    pub fn clear(&self) -> PhpResult<i64> {
        self.inner.clear().map_err(throw)
    }

    /// This worker's counters for this namespace: hits, misses, computes,
    /// waits, early_refreshes, stale_served.
    /// @return array<string, int>
    pub fn stats(&self) -> Vec<(String, i64)> {
        self.inner
            .stats()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v as i64))
            .collect()
    }
}

/// A PHP exception through the core's generic error.
struct Wrapped(PhpException);

impl From<crate::conn::Error> for Wrapped {
    fn from(e: crate::conn::Error) -> Self {
        Wrapped(throw(e))
    }
}

impl From<PhpException> for Wrapped {
    fn from(e: PhpException) -> Self {
        Wrapped(e)
    }
}
