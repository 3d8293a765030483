<?php

namespace RedisKit\Symfony\Lock;

use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\SharedLockInterface;

/**
 * Symfony's Lock, as RedisKit\Symfony\Lock\LockFactory hands it out: every
 * method is Symfony's own, plus acquireWithin() (a blocking acquire with a
 * maximum wait, which Symfony's API lacks) and fencingToken().
 */
final class Lock implements SharedLockInterface
{
    public function __construct(
        private SharedLockInterface $lock,
        private Key $key,
    ) {
    }

    /**
     * Waits at most $seconds for the lock, woken by the release (or the
     * holder's expiry) instead of polling.
     *
     * @return bool false if it was not acquired within $seconds
     * @throws \ValueError if $seconds is negative, NAN or INF
     */
    public function acquireWithin(float $seconds): bool
    {
        if (!($seconds >= 0) || is_infinite($seconds)) {
            throw new \ValueError('Lock::acquireWithin(): $seconds must be a finite number of seconds >= 0');
        }
        $this->key->setState(RedisKitStore::WAIT_STATE, $seconds);
        try {
            return $this->lock->acquire(true);
        } catch (LockConflictedException) {
            return false;
        } finally {
            $this->key->removeState(RedisKitStore::WAIT_STATE);
        }
    }

    /**
     * The fencing token of the last acquire: greater than every one handed
     * out before for this resource. Pass it to the storage you write to,
     * and have it refuse lower ones.
     */
    public function fencingToken(): ?int
    {
        return RedisKitStore::fencingToken($this->key);
    }

    public function acquire(bool $blocking = false): bool
    {
        return $this->lock->acquire($blocking);
    }

    /** rediskit has no shared (read) locks: a read lock is an exclusive one, as Symfony does for such stores. */
    public function acquireRead(bool $blocking = false): bool
    {
        return $this->lock->acquireRead($blocking);
    }

    public function refresh(?float $ttl = null): void
    {
        $this->lock->refresh($ttl);
    }

    public function isAcquired(): bool
    {
        return $this->lock->isAcquired();
    }

    public function release(): void
    {
        $this->lock->release();
    }

    public function isExpired(): bool
    {
        return $this->lock->isExpired();
    }

    public function getRemainingLifetime(): ?float
    {
        return $this->lock->getRemainingLifetime();
    }
}
