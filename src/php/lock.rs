#![allow(non_snake_case)] // PHP parameter names are camelCase (named arguments)
//! `RedisKit\RedisLock`: argument checks and exceptions around `crate::lock`.
use super::exceptions::{LockLostException, LockTimeoutException};
use super::{connection_arg, options_arg, settings, throw, Bytes};
use crate::lock::Lock;
use ext_php_rs::binary::Binary;
use ext_php_rs::boxed::ZBox;
use ext_php_rs::exception::PhpException;
use ext_php_rs::flags::ClassFlags;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

/// A distributed lock on one resource. Acquire is one round trip; waiters are
/// woken by the holder's release (or its TTL expiry) instead of polling; every
/// successful acquire gets a fencing token; a watchdog thread renews held
/// locks; a lock never outlives its request.
///
/// Options: `ttl` (seconds, default 30.0; every lock expires), `watchdog`
/// (bool, default true: renew every ttl/3 while held), `fair` (bool, default
/// false: waiters get the lock in arrival order), `token` (string: adopt an
/// existing owner token, to release or extend a lock taken elsewhere; such an
/// object is never released automatically), `prefix` (string, default ini
/// rediskit.prefix), `wait_replicas` (int, default 0 or the DSN's
/// `wait_replicas`: the lock counts only once that many replicas confirmed it
/// with WAIT; narrows what a failover can lose), `wait_timeout` (seconds WAIT
/// may take, default 0.1 or the DSN's).
///
/// `$connection` may be a list of 3 or more DSNs of independent masters:
/// Redlock (a majority within the validity time).
#[php_class]
#[php(name = "RedisKit\\RedisLock")]
#[php(flags = ClassFlags::Final)]
pub struct RedisLock {
    inner: Lock,
}

#[php_impl]
impl RedisLock {
    /// @param string $resource What the lock protects; the Redis key is prefix . resource.
    /// @param string|array|null $connection DSN (redis://, rediss://, unix://), null for ini rediskit.default_dsn, a cluster/sentinel array (['cluster' => [...]] or ['sentinel' => [...], 'service' => ...]), or a list of >= 3 DSNs of independent masters (Redlock).
    /// @param array $options See the class description.
    /// @throws \ValueError on an empty resource, a bad DSN, a Redlock list with fewer than 3 entries,
    ///   an unknown option or a bad option value (e.g. ttl <= 0).
    pub fn __construct(
        resource: Bytes,
        connection: Option<&Zval>,
        options: Option<&ZendHashTable>,
    ) -> PhpResult<Self> {
        let conn = connection_arg(connection)?;
        let opts = options_arg(options)?;
        let inner = Lock::new(&resource.0, &conn, opts, &settings()).map_err(throw)?;
        Ok(RedisLock { inner })
    }

    /// Takes the lock. With $wait = 0 tries once; with $wait > 0 blocks up to
    /// $wait seconds, woken as soon as the holder releases it or its TTL runs out.
    /// Acquiring a lock this object already holds renews it (no counting).
    /// In a process forked from the one that took it, the object first gets a
    /// token of the child's own: the child waits for its parent's lock like
    /// any other process. A signal PHP has a handler for (pcntl_async_signals)
    /// or a timeout ends the wait early: one last attempt, then false, and the
    /// handler runs (a worker's SIGTERM is not held up for the whole $wait).
    /// @param float $wait Seconds to wait (>= 0).
    /// @return bool true if this object now holds the lock.
    /// @throws \ValueError if $wait < 0 or not finite.
    /// @throws \RedisKit\ConnectionException if Redis (a majority for Redlock) cannot be reached.
    #[php(defaults(wait = 0.0))]
    pub fn acquire(&self, wait: f64) -> PhpResult<bool> {
        self.inner.acquire(wait).map_err(throw)
    }

    /// Releases the lock if this owner (token) holds it, and wakes the next waiter.
    /// @return bool true if this owner held it and released it (on a majority for Redlock);
    ///   false in a process forked from the one that took it (nothing is sent).
    /// @throws \RedisKit\ConnectionException if Redis (a majority for Redlock) cannot be reached;
    ///   for Redlock the servers that answered are released all the same.
    pub fn release(&self) -> PhpResult<bool> {
        self.inner.release().map_err(throw)
    }

    /// Releases the lock whoever holds it (not only this owner), and wakes the
    /// next waiter; for operators and framework "force release" calls. Ends
    /// this object's lease if it held the lock.
    /// @return bool true if the lock was held (on a majority for Redlock), false if it was free.
    /// @throws \RedisKit\ConnectionException if Redis (a majority for Redlock) cannot be reached;
    ///   for Redlock the servers that answered are released all the same.
    pub fn force_release(&self) -> PhpResult<bool> {
        self.inner.force_release().map_err(throw)
    }

    /// The owner token holding the lock now, whoever it is.
    /// @return string|null null when the lock is free (for Redlock: when no token holds a majority).
    /// @throws \RedisKit\ConnectionException if Redis (a majority for Redlock) cannot be reached.
    pub fn holder(&self) -> PhpResult<Option<Binary<u8>>> {
        Ok(self.inner.holder().map_err(throw)?.map(Binary::from))
    }

    /// The lock as an operator sees it, whoever holds it, in one round trip:
    /// 'holder' (owner token, null when free), 'ttl' (seconds, null when
    /// free), 'reserved' (free but kept for the fair queue's first waiter),
    /// 'fencing_token' (the last one handed out for this lock, null when
    /// none was asked for), 'waiters' (alive now, either mode) and 'queue'
    /// (the fair queue's first $queueLimit waiter tokens, in arrival order).
    /// Reads only.
    /// @param int $queueLimit 0 ..= 1000.
    /// @return array{holder: ?string, ttl: ?float, reserved: bool, fencing_token: ?int, waiters: int, queue: list<string>}
    /// @throws \ValueError for a bad $queueLimit, or on Redlock (use holder() and remainingTtl()).
    #[php(defaults(queue_limit = 10))]
    pub fn inspect(&self, queue_limit: i64) -> PhpResult<ZBox<ZendHashTable>> {
        let v = self.inner.inspect(queue_limit).map_err(throw)?;
        let mut h = ZendHashTable::with_capacity(6);
        let mut holder = Zval::new();
        match v.holder {
            Some(b) => holder.set_binary(b),
            None => holder.set_null(),
        }
        h.insert("holder", holder)?;
        h.insert("ttl", v.ttl)?;
        h.insert("reserved", v.reserved)?;
        h.insert("fencing_token", v.fencing_token)?;
        h.insert("waiters", v.waiters)?;
        let mut q = ZendHashTable::with_capacity(v.queue.len() as u32);
        for t in v.queue {
            let mut z = Zval::new();
            z.set_binary(t);
            q.push(z)?;
        }
        h.insert("queue", q)?;
        Ok(h)
    }

    /// Resets the lock's TTL if this owner still holds it.
    /// @param float|null $ttl Seconds (> 0); null for the ttl option. It also becomes the TTL the watchdog renews with.
    /// @return bool true if still the owner and renewed; false in a process forked
    ///   from the one that took it (nothing is sent).
    /// @throws \ValueError if $ttl <= 0.
    pub fn extend(&self, ttl: Option<f64>) -> PhpResult<bool> {
        self.inner.extend(ttl).map_err(throw)
    }

    /// Asks Redis whether this owner (token) holds the lock now.
    /// @return bool
    pub fn is_acquired(&self) -> PhpResult<bool> {
        self.inner.is_acquired().map_err(throw)
    }

    /// @return float|null Seconds until the lock expires, null when this owner does not hold it.
    pub fn remaining_ttl(&self) -> PhpResult<Option<f64>> {
        self.inner.remaining_ttl().map_err(throw)
    }

    /// @return string The owner token (a UUID, or the adopted `token` option); in a
    ///   forked child, the parent's until the child's first acquire().
    pub fn token(&self) -> Binary<u8> {
        Binary::from(self.inner.token().to_vec())
    }

    /// The fencing token of this object's last successful acquire: strictly
    /// greater than every token handed out earlier for this resource. Pass it
    /// to the storage you write to and have it reject writes carrying a token
    /// lower than the highest it has seen. Issued on the first call after an
    /// acquire (one round trip, only while this object still holds the lock);
    /// later calls return the same value without asking Redis. A lock nobody
    /// asks a token of costs Redis nothing for it.
    /// @return int|null null before the first successful acquire (also after a forked
    ///   child's acquire() gave the object a token of its own, until it succeeds), and
    ///   when the lock was released or lost before the token was asked for.
    /// @throws \RedisKit\ConnectionException when the token must be issued and Redis cannot be reached.
    pub fn fencing_token(&self) -> PhpResult<Option<i64>> {
        self.inner.fencing_token().map_err(throw)
    }

    /// Acquires the lock (waiting up to $wait seconds), calls $callback() and
    /// releases the lock whatever happens (finally). In a forked child that
    /// returns from the callback too, it neither releases the parent's lock nor
    /// throws LockLostException.
    /// @param callable $callback Called without arguments; its return value is returned.
    /// @param float $wait Seconds to wait for the lock (>= 0).
    /// @return mixed What $callback returned.
    /// @throws \RedisKit\LockTimeoutException if the lock could not be acquired within $wait
    ///   (or before a signal cut the wait short, see acquire(); its handler has run then).
    /// @throws \RedisKit\LockLostException after the callback returned, if the lock was lost
    ///   meanwhile (its TTL ran out or another owner took it), also when the callback
    ///   itself found it gone (isAcquired()/extend() false): other code may have run
    ///   under the lock at the same time.
    /// @throws \Throwable whatever $callback throws, rethrown after the release.
    #[php(defaults(wait = 0.0))]
    pub fn run(&self, callback: ZendCallable, wait: f64) -> PhpResult<Zval> {
        if !self.inner.acquire(wait).map_err(throw)? {
            // a wait a signal cut short: its handler runs before we throw
            let cut = crate::conn::interrupted();
            super::dispatch_pending_signals()?;
            return Err(PhpException::from_class::<LockTimeoutException>(format!(
                "RedisLock: could not acquire '{}' within {wait} s{}",
                crate::conn::shown(self.inner.key()),
                if cut {
                    " (the wait was cut short: PHP had a signal handler or a timeout to run)"
                } else {
                    ""
                }
            )));
        }
        let epoch = self.inner.epoch();
        // Nothing of ours is borrowed across the call: a fatal error in the
        // callback skips this frame, and the request-end hook releases.
        let result = callback.try_call(vec![]);
        let mut lost = self.inner.was_lost(epoch);
        let mut release_error = None;
        if lost {
            self.inner.destruct();
        } else if self.inner.epoch() != 0 {
            let same = self.inner.epoch() == epoch;
            match self.inner.release() {
                Ok(released) => lost = same && !released,
                Err(e) => release_error = Some(e),
            }
        }
        let value = match result {
            Ok(v) => v,
            // The callback threw (or exit()ed): that exception stays pending
            // and propagates; ours would not be thrown over it.
            Err(e) => return Err(PhpException::from(e)),
        };
        if let Some(e) = release_error {
            return Err(throw(e));
        }
        if lost {
            return Err(PhpException::from_class::<LockLostException>(format!(
                "RedisLock: the lock '{}' was lost while the callback ran (its TTL ran out or another owner took it)",
                crate::conn::shown(self.inner.key())
            )));
        }
        Ok(value)
    }

    /// Releases the lock if this object took it (not an adopted token's lock).
    pub fn __destruct(&self) {
        self.inner.destruct();
    }
}
