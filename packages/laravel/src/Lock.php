<?php

namespace RedisKit\Laravel;

use Illuminate\Cache\Lock as LaravelLock;
use Illuminate\Contracts\Cache\LockTimeoutException;
use RedisKit\RedisLock;

/**
 * Laravel's lock contract on RedisKit\RedisLock: `block()` is woken by the
 * release instead of polling every 250 ms, `forceRelease()` wakes waiters
 * too, and every acquire gets a fencing token.
 *
 * Differences from Laravel's Redis lock, by design:
 * - `$seconds = 0` ("no expiry") is a lock with a 30 s TTL that a watchdog
 *   thread renews every 10 s while the process that took it lives (a CLI
 *   worker, or until the end of the FPM request). A crashed holder's lock
 *   therefore frees itself 30 s later instead of never. A lock with
 *   `$seconds > 0` expires after `$seconds`, as in Laravel.
 * - Acquiring a lock its own owner already holds succeeds (and renews it);
 *   Laravel's returns false.
 * - The lock is never released behind Laravel's back: not when the object is
 *   freed, and not at the end of the request (as with Laravel's locks,
 *   `get()` without a callback keeps it until release() or its expiry).
 */
class Lock extends LaravelLock
{
    /** TTL (seconds) of a lock taken with `$seconds = 0`, renewed by the watchdog. */
    public const WATCHDOG_TTL = 30.0;

    private RedisLock $lock;

    private string $token;

    /**
     * @param string $name The lock key without rediskit's prefix (the cache store's prefix is in it).
     * @param int|float $seconds 0 for no expiry (see the class description).
     */
    public function __construct(string $name, $seconds, $owner, Connection $connection)
    {
        parent::__construct($name, $seconds, $owner);
        $this->token = self::token((string) $this->owner);
        $this->lock = new RedisLock($name, $connection->connection, [
            'token' => $this->token,
            'ttl' => $seconds > 0 ? (float) $seconds : self::WATCHDOG_TTL,
            'watchdog' => !($seconds > 0),
            'prefix' => $connection->prefix,
        ]);
    }

    /**
     * The token stored in Redis for an owner: the owner itself, or for one
     * the extension does not take as a token (empty, over 512 bytes, or with
     * a NUL byte) a digest of it.
     */
    private static function token(string $owner): string
    {
        return $owner !== '' && strlen($owner) <= 512 && !str_contains($owner, "\0") ? $owner : 'rediskit-laravel:sha256:' . hash('sha256', $owner);
    }

    public function acquire()
    {
        return $this->lock->acquire();
    }

    /**
     * Waits up to $seconds for the lock, woken as soon as the holder releases
     * it (or its TTL runs out); `betweenBlockedAttemptsSleepFor()` changes
     * nothing here.
     *
     * @throws LockTimeoutException
     */
    public function block($seconds, $callback = null)
    {
        if (!$this->lock->acquire(max(0.0, (float) $seconds))) {
            throw new LockTimeoutException();
        }
        if (is_callable($callback)) {
            try {
                return $callback();
            } finally {
                $this->release();
            }
        }

        return true;
    }

    public function release()
    {
        return $this->lock->release();
    }

    /** Releases the lock whoever holds it, and wakes the next waiter. */
    public function forceRelease()
    {
        $this->lock->forceRelease();
    }

    protected function getCurrentOwner()
    {
        $holder = $this->lock->holder();

        return $holder === $this->token ? $this->owner : $holder;
    }

    /** Whether this lock's owner holds it now (public as in Laravel 10+). */
    public function isOwnedByCurrentProcess()
    {
        return $this->lock->isAcquired();
    }

    /** Whether anyone holds the lock now (Laravel 13's method, on every version). */
    public function isLocked(): bool
    {
        return $this->lock->holder() !== null;
    }

    /**
     * Resets the TTL to $seconds (default: the lock's own) if this owner
     * still holds the lock (Laravel 12's method, on every version); a lock
     * without expiry gets the watchdog's TTL again.
     *
     * @return bool false if this owner does not hold the lock
     */
    public function refresh($seconds = null)
    {
        $seconds ??= $this->seconds;

        return $this->lock->extend($seconds > 0 ? (float) $seconds : null);
    }

    /**
     * The fencing token of this object's last successful acquire: greater
     * than every one handed out before for this lock. Pass it to the storage
     * you write to, and have it refuse lower ones.
     */
    public function fencingToken(): ?int
    {
        return $this->lock->fencingToken();
    }

    /** Seconds until the lock expires, null when this owner does not hold it. */
    public function remainingTtl(): ?float
    {
        return $this->lock->remainingTtl();
    }
}
