#![allow(non_snake_case)] // PHP parameter names are camelCase (named arguments)
//! `RedisKit\RateLimiter`: argument checks and PHP arrays around
//! `crate::ratelimit`.
use super::{
    array_entries, bytes_of, connection_arg, keys, options_arg, settings, throw, type_error,
    type_name, value_error, Bytes,
};
use crate::ratelimit::{self, HeaderInput, Outcome};
use ext_php_rs::boxed::ZBox;
use ext_php_rs::convert::FromZval;
use ext_php_rs::flags::ClassFlags;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, Zval};

/// Exact rate limits: one atomic script per check (one round trip), timed by
/// the Redis server's clock. A refused attempt consumes nothing.
///
/// Algorithms (option `algorithm`): 'sliding_window' (default: an exact log,
/// at most $limit units in any $window seconds), 'fixed_window' (at most
/// $limit per window aligned on multiples of $window since the Unix epoch),
/// 'token_bucket' ($burst tokens refilled at $limit per $window),
/// 'gcra' (the same decisions as token_bucket, stored as one number).
///
/// Options: `algorithm`; `burst` (int, token_bucket/gcra capacity, default
/// $limit); `window_start` (fixed_window only: 'epoch' default, or
/// 'first_hit': a key's window starts with the first unit admitted for it,
/// as in Laravel's and Symfony's fixed windows; the key's state then does
/// not depend on $limit or $window, so a limiter of the same name with other
/// settings peeks, resets and counts the same state); `on_error` ('throw'
/// default | 'allow' | 'deny' | 'local': an
/// in-process limiter with the same settings, per worker, while Redis cannot
/// be reached); `local_block` (bool, default true: once a key is refused with
/// retry_after X, this worker refuses it for X without a round trip);
/// `prefix` (string, default ini rediskit.prefix); `wait_replicas` (int,
/// default 0 or the DSN's: an allowed attempt waits, in its round trip, until
/// that many replicas have it; when fewer confirm in time, on_error decides:
/// 'throw' throws `RedisKit\ReplicationException`, 'deny' refuses the
/// attempt, 'allow' and 'local' let it stand); `wait_timeout` (seconds that
/// wait may take, default 0.1 or the DSN's).
///
/// Redis keys: `<prefix><name>:<sw|fw|fwh|tb|gcra>:{<key>}` (fwh: first_hit),
/// each with a TTL.
///
/// A result: `['allowed' => bool, 'limit' => int, 'remaining' => int,
/// 'retry_after' => float, 'reset_after' => float, 'policy' => string,
/// 'window' => float]`, durations in seconds (retry_after 0.0 when allowed;
/// reset_after: until the full allowance is back; policy: the limiter's name;
/// window: $window).
#[php_class]
#[php(name = "RedisKit\\RateLimiter")]
#[php(flags = ClassFlags::Final)]
pub struct RateLimiter {
    inner: ratelimit::RateLimiter,
}

fn result_array(o: &Outcome, l: &ratelimit::RateLimiter) -> PhpResult<ZBox<ZendHashTable>> {
    let mut h = ZendHashTable::with_capacity(7);
    keys::set(&mut h, "allowed", o.allowed)?;
    keys::set(&mut h, "limit", o.limit)?;
    keys::set(&mut h, "remaining", o.remaining)?;
    keys::set(&mut h, "retry_after", o.retry_after())?;
    keys::set(&mut h, "reset_after", o.reset_after())?;
    let mut policy = Zval::new();
    policy.set_binary(l.name().to_vec());
    keys::set(&mut h, "policy", policy)?;
    keys::set(&mut h, "window", l.window())?;
    Ok(h)
}

fn field<'a>(arr: &'a ZendHashTable, key: &str) -> PhpResult<&'a Zval> {
    arr.get(key).map(Zval::dereference).ok_or_else(|| value_error(format!("RateLimiter::headers: the result has no '{key}' (pass what attempt() or peek() returned)")))
}

fn number(arr: &ZendHashTable, key: &str) -> PhpResult<f64> {
    let z = field(arr, key)?;
    z.double()
        .or_else(|| z.long().map(|l| l as f64))
        .ok_or_else(|| {
            value_error(format!(
                "RateLimiter::headers: '{key}' must be a number, {} given",
                type_name(z)
            ))
        })
}

fn integer(arr: &ZendHashTable, key: &str) -> PhpResult<i64> {
    let z = field(arr, key)?;
    z.long().ok_or_else(|| {
        value_error(format!(
            "RateLimiter::headers: '{key}' must be an int, {} given",
            type_name(z)
        ))
    })
}

#[php_impl]
impl RateLimiter {
    /// @param string $name The limiter's name (part of its Redis keys; no '{' or '}').
    /// @param int $limit Units allowed per window (>= 1).
    /// @param float $window Seconds (> 0, microsecond precision).
    /// @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, or a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]).
    /// @param array $options See the class description.
    /// @throws \ValueError on a bad limit, window, DSN, unknown option or bad option value.
    pub fn __construct(
        name: Bytes,
        limit: i64,
        window: f64,
        connection: Option<&Zval>,
        options: Option<&ZendHashTable>,
    ) -> PhpResult<Self> {
        let conn = connection_arg(connection)?;
        let opts = options_arg(options)?;
        let inner = ratelimit::RateLimiter::new(&name.0, limit, window, &conn, opts, &settings())
            .map_err(throw)?;
        Ok(RateLimiter { inner })
    }

    /// Consumes $cost units for $key if the limit allows it (then allowed is
    /// true), nothing otherwise.
    /// @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
    /// @throws \ValueError if $cost < 1 or above what the limiter can ever allow at once (limit, or burst), or $key is empty.
    /// @throws \RedisKit\ConnectionException when Redis cannot be reached and on_error is 'throw'.
    #[php(defaults(cost = 1))]
    pub fn attempt(&self, key: Bytes, cost: i64) -> PhpResult<ZBox<ZendHashTable>> {
        let o = self.inner.attempt(&key.0, cost).map_err(throw)?;
        result_array(&o, &self.inner)
    }

    /// attempt() reduced to its verdict.
    /// @return bool true if the $cost units were consumed.
    /// @throws \ValueError see attempt().
    /// @throws \RedisKit\ConnectionException see attempt().
    #[php(defaults(cost = 1))]
    pub fn allow(&self, key: Bytes, cost: i64) -> PhpResult<bool> {
        self.inner
            .attempt(&key.0, cost)
            .map(|o| o.allowed)
            .map_err(throw)
    }

    /// The keys this limiter (by name) was asked about most on this server,
    /// hottest first, from the host-wide metrics' hot-key sketch (see
    /// RedisKit\metrics()['hot']): 'count' estimates the attempts, 'error'
    /// is the most it may be over. No round trip; empty when metrics are off
    /// (ini rediskit.metrics_size=0). Keys longer than 64 bytes (with the
    /// name) are cut.
    /// @param int $limit 1 ..= 32.
    /// @return list<array{key: string, count: int, error: int}>
    /// @throws \ValueError if $limit is out of range.
    #[php(defaults(limit = 10))]
    pub fn hot_keys(&self, limit: i64) -> PhpResult<ZBox<ZendHashTable>> {
        if !(1..=32).contains(&limit) {
            return Err(throw(crate::conn::Error::invalid(format!(
                "RateLimiter::hotKeys(): $limit must be between 1 and 32, got {limit}"
            ))));
        }
        let keys = self.inner.hot_keys(limit as usize);
        let mut list = ZendHashTable::with_capacity(keys.len() as u32);
        for (key, count, error) in keys {
            let mut row = ZendHashTable::with_capacity(3);
            let mut k = Zval::new();
            k.set_binary(key);
            row.insert("key", k)?;
            row.insert("count", count as i64)?;
            row.insert("error", error as i64)?;
            list.push(row)?;
        }
        Ok(list)
    }

    /// What an attempt of cost 1 would get now; consumes nothing (and always
    /// asks Redis, whatever local_block remembers).
    /// @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
    /// @throws \RedisKit\ConnectionException when Redis cannot be reached and on_error is 'throw'.
    pub fn peek(&self, key: Bytes) -> PhpResult<ZBox<ZendHashTable>> {
        let o = self.inner.peek(&key.0).map_err(throw)?;
        result_array(&o, &self.inner)
    }

    /// Reserves $cost units for $key ahead of time ('token_bucket' and 'gcra'
    /// only): taken now if they are there, otherwise taken from the future,
    /// and `retry_after` is then how long to wait before using them (later
    /// callers wait behind this reservation). One atomic script, timed by
    /// the Redis clock. With $maxWait, a reservation that would wait longer
    /// is not made (allowed false, nothing consumed, retry_after the wait it
    /// would have needed). Always asks Redis (a connection error is thrown
    /// whatever on_error says) and bypasses local_block.
    /// @param float|null $maxWait Seconds (>= 0); null: any wait.
    /// @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
    ///   allowed: reserved; remaining: units available now; retry_after: the wait before the reserved units may be used (0.0: now).
    /// @throws \ValueError for a 'sliding_window' or 'fixed_window' limiter, a bad $cost, an empty $key, or $maxWait negative, NAN or INF.
    /// @throws \RedisKit\ConnectionException when Redis cannot be reached.
    #[php(defaults(cost = 1))]
    pub fn reserve(
        &self,
        key: Bytes,
        cost: i64,
        maxWait: Option<f64>,
    ) -> PhpResult<ZBox<ZendHashTable>> {
        let o = self.inner.reserve(&key.0, cost, maxWait).map_err(throw)?;
        result_array(&o, &self.inner)
    }

    /// Forgets $key: its next attempt starts from the full allowance. Also
    /// clears this worker's local_block entry and in-process state for it
    /// (other workers may keep refusing it from their cache for up to the
    /// retry_after they were given).
    /// @throws \RedisKit\ConnectionException when Redis cannot be reached (whatever on_error says).
    pub fn reset(&self, key: Bytes) -> PhpResult<()> {
        self.inner.reset(&key.0).map_err(throw)
    }

    /// Checks several limiters in one round trip, at one instant: allowed
    /// only if all allow, and then $cost is consumed from all of them;
    /// otherwise from none. The result describes the limiter with the least
    /// remaining (allowed) or the longest retry_after (refused).
    /// @param list<RateLimiter> $limiters On one connection (same DSN); no two with the same name, algorithm and key.
    /// @param string|list<string> $key The key for every limiter, or a list of one key per limiter
    ///   (in the order of $limiters). On a Redis Cluster all keys must hash to one slot.
    /// @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
    /// @throws \ValueError for an empty list, an element that is not a RateLimiter, limiters on different connections,
    ///   a list of keys that does not match the limiters or holds a non-string, keys in different cluster slots, or a bad $cost.
    /// @throws \RedisKit\ConnectionException when Redis cannot be reached and a limiter's on_error is 'throw'.
    #[php(defaults(cost = 1))]
    pub fn attempt_all(
        limiters: &ZendHashTable,
        key: &Zval,
        cost: i64,
    ) -> PhpResult<ZBox<ZendHashTable>> {
        let list = key.array();
        let keys: Vec<Vec<u8>> = match list {
            Some(arr) => {
                let mut out = Vec::with_capacity(arr.len());
                for (k, v) in array_entries(arr) {
                    let Some(b) = bytes_of(v.dereference()) else {
                        let at = k.label();
                        return Err(value_error(format!(
                            "RateLimiter::attemptAll: $key element {at} is not a string ({} given)",
                            type_name(v)
                        )));
                    };
                    out.push(b);
                }
                out
            }
            None => match bytes_of(key.dereference()) {
                Some(b) => vec![b],
                None => {
                    return Err(type_error(format!(
                        "RateLimiter::attemptAll(): Argument #2 ($key) must be of type array|string, {} given",
                        type_name(key)
                    )))
                }
            },
        };
        if list.is_some() && keys.len() != limiters.len() {
            return Err(value_error(format!(
                "RateLimiter::attemptAll: a list of keys needs one key per limiter ({} limiters, {} keys)",
                limiters.len(),
                keys.len()
            )));
        }
        let subjects: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        let mut list: Vec<&ratelimit::RateLimiter> = Vec::with_capacity(limiters.len());
        for (k, v) in array_entries(limiters) {
            let Some(obj) = <&ZendClassObject<RateLimiter>>::from_zval(v.dereference()) else {
                let at = k.label();
                return Err(value_error(format!(
                    "RateLimiter::attemptAll: element {at} is not a RedisKit\\RateLimiter ({} given)",
                    type_name(v)
                )));
            };
            list.push(&obj.inner);
        }
        let (o, i) = ratelimit::RateLimiter::attempt_all(&list, &subjects, cost).map_err(throw)?;
        let l = list
            .get(i)
            .or(list.first())
            .ok_or_else(|| value_error("RateLimiter::attemptAll: no limiter"))?;
        result_array(&o, l)
    }

    /// HTTP response headers for a result, per
    /// draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy`
    /// ("<policy>";q=<limit>;w=<window>, w only for a whole number of
    /// seconds), `RateLimit` ("<policy>";r=<remaining>;t=<seconds>: until the
    /// full allowance when allowed, retry_after when refused), and
    /// `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`
    /// (seconds until the full allowance, not a timestamp), plus
    /// `Retry-After` when refused. Seconds are whole, rounded up.
    /// @param array $result What attempt(), peek() or attemptAll() returned.
    /// @return array<string, string> header name => value
    /// @throws \ValueError if $result lacks a key or holds a value of the wrong type or range.
    pub fn headers(result: &ZendHashTable) -> PhpResult<ZBox<ZendHashTable>> {
        let allowed = field(result, "allowed")?;
        if !allowed.is_bool() {
            return Err(value_error(format!(
                "RateLimiter::headers: 'allowed' must be a bool, {} given",
                type_name(allowed)
            )));
        }
        let policy = match result.get("policy").map(Zval::dereference) {
            None => None,
            Some(z) if z.is_null() => None,
            Some(z) => Some(bytes_of(z).ok_or_else(|| {
                value_error(format!(
                    "RateLimiter::headers: 'policy' must be a string, {} given",
                    type_name(z)
                ))
            })?),
        };
        let window = match result.get("window").map(Zval::dereference) {
            None => None,
            Some(z) if z.is_null() => None,
            Some(_) => Some(number(result, "window")?),
        };
        let input = HeaderInput {
            allowed: allowed.is_true(),
            limit: integer(result, "limit")?,
            remaining: integer(result, "remaining")?,
            retry_after: number(result, "retry_after")?,
            reset_after: number(result, "reset_after")?,
            policy,
            window,
        };
        let mut out = ZendHashTable::with_capacity(6);
        for (k, v) in ratelimit::headers(&input).map_err(throw)? {
            out.insert(k, v)?;
        }
        Ok(out)
    }
}
