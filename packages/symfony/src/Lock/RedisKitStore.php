<?php

namespace RedisKit\Symfony\Lock;

use RedisKit\RedisLock;
use Symfony\Component\Lock\BlockingStoreInterface;
use Symfony\Component\Lock\Exception\LockConflictedException;
use Symfony\Component\Lock\Exception\LockExpiredException;
use Symfony\Component\Lock\Key;

/**
 * symfony/lock's store contract on RedisKit\RedisLock: a blocking store
 * whose waiters are woken by the release (no 100 ms polling), with a
 * fencing token per acquire.
 *
 *     $factory = new LockFactory(new RedisKitStore('redis://127.0.0.1:6379', ['ttl' => 300.0]));
 *
 * The owner token and the fencing token live in the Key's state (so a Key
 * serialized to another process can release or extend the lock there).
 *
 * Options: `ttl` (seconds a saved lock lives, default 300.0; Symfony's Lock
 * then sets its own TTL with putOffExpiration()), `watchdog` (bool, default
 * false: renew the lock in the background while this process holds it; its
 * Keys cannot be serialized then, and carry no expiry), `max_wait` (seconds
 * waitAndSave() waits at most, then throws LockConflictedException; default
 * null: as long as it takes), and RedisLock's `prefix`, `fair`,
 * `wait_replicas`, `wait_timeout`.
 *
 * Round trips: save() is one; a putOffExpiration() with the store's own TTL
 * within 10 ms (and 1% of the TTL) of the save() that took the lock sends
 * nothing (the lock already expires then, and the Key says so); delete()
 * is one; an exists() right after (within 10 ms of) a delete() of the same
 * Key in this process answers false without asking (the release script
 * said this owner no longer holds it). So `Lock::acquire()` and
 * `Lock::release()` cost two round trips, against four for Symfony's
 * RedisStore.
 */
final class RedisKitStore implements BlockingStoreInterface
{
    /** Key state: the owner token. */
    public const TOKEN_STATE = self::class;
    /** Key state: the fencing token of the Key's last save (int). */
    public const FENCING_STATE = self::class . ':fencing';
    /** Key state: the longest waitAndSave() may wait for this Key (seconds), see Lock::acquireWithin(). */
    public const WAIT_STATE = self::class . ':wait';

    /**
     * A waitAndSave() without a limit waits in slices of this many seconds
     * (the extension's acquire() takes a finite wait; a fair waiter keeps its
     * place in the queue within a slice).
     */
    private const SLICE = 300.0;
    /** How fresh a save (or delete) must be for the shortcuts above, in nanoseconds. */
    private const FRESH_NS = 10_000_000;

    private string|array $connection;
    private float $ttl;
    private bool $watchdog;
    private ?float $maxWait;
    /** @var array<string, mixed> RedisLock's options, without the token */
    private array $options;
    /** @var \WeakMap<Key, array{0: RedisLock, 1: int, 2: string}> Key => its lock object, when it was saved or deleted (hrtime), and which */
    private \WeakMap $recent;

    /** @var \WeakMap<Key, RedisLock>|null Key => the lock object of its last save (for fencingToken()) */
    private static ?\WeakMap $saved = null;

    /**
     * @param string|array $connection A DSN, a list of 3+ DSNs of independent masters (Redlock), or a cluster/sentinel array.
     * @param array{ttl?: float|int, watchdog?: bool, max_wait?: float|int|null, prefix?: string, fair?: bool, wait_replicas?: int, wait_timeout?: float} $options
     * @throws \ValueError on a bad DSN or option (nothing is connected here)
     */
    public function __construct(#[\SensitiveParameter] string|array $connection, array $options = [])
    {
        $maxWait = $options['max_wait'] ?? null;
        if ($maxWait !== null && (!is_int($maxWait) && !is_float($maxWait) || !($maxWait >= 0) || is_infinite((float) $maxWait))) {
            throw new \ValueError('RedisKitStore: option max_wait must be null or a finite number of seconds >= 0');
        }
        unset($options['max_wait']);
        if (array_key_exists('token', $options)) {
            throw new \ValueError('RedisKitStore: option token is not accepted (every Key gets its own)');
        }
        $options += ['ttl' => 300.0, 'watchdog' => false];
        // the extension checks the DSN and the options now (it connects on first use)
        new RedisLock('rediskit-symfony', $connection, $options + ['token' => 'check']);
        $this->connection = $connection;
        $this->options = $options;
        $this->ttl = (float) $options['ttl'];
        $this->watchdog = (bool) $options['watchdog'];
        $this->maxWait = $maxWait === null ? null : (float) $maxWait;
        $this->recent = new \WeakMap();
    }

    /** The fencing token of the Key's last save, if any: greater than every one handed out before for its resource. */
    public static function fencingToken(Key $key): ?int
    {
        if ($key->hasState(self::FENCING_STATE)) {
            return $key->getState(self::FENCING_STATE);
        }
        // issued when first asked for, while the lock is held (one round trip)
        $lock = self::$saved[$key] ?? null;
        $token = $lock?->fencingToken();
        if ($token !== null) {
            $key->setState(self::FENCING_STATE, $token);
        }
        return $token;
    }

    public function save(Key $key): void
    {
        $this->take($key, 0.0);
    }

    /**
     * Waits until the lock is free and takes it, woken by the release (or
     * the holder's expiry). Throws LockConflictedException after `max_wait`
     * (or the Key's WAIT_STATE) seconds.
     */
    public function waitAndSave(Key $key): void
    {
        $max = $key->hasState(self::WAIT_STATE) ? (float) $key->getState(self::WAIT_STATE) : $this->maxWait;
        $this->take($key, $max, true);
    }

    private function take(Key $key, ?float $wait, bool $blocking = false): void
    {
        if ($key->isExpired()) {
            // nothing is sent: a lock taken now would be expired already
            $this->checkNotExpired($key);
        }
        if (!$this->watchdog && !$blocking) {
            $key->reduceLifetime($this->ttl);
        }
        $lock = $this->lock($key, true);
        $savedAt = hrtime(true);
        if ($blocking) {
            $deadline = $wait === null ? null : $savedAt + (int) ($wait * 1e9);
            do {
                $left = $deadline === null ? self::SLICE : min(self::SLICE, max(0, $deadline - hrtime(true)) / 1e9);
                $got = $lock->acquire($left);
            } while (!$got && ($deadline === null || hrtime(true) < $deadline));
            // the TTL runs from the moment the lock was taken: about now
            $savedAt = 0;
            if ($got && !$this->watchdog) {
                $key->reduceLifetime($this->ttl);
            }
        } else {
            $got = $lock->acquire();
        }
        if (!$got) {
            throw new LockConflictedException();
        }
        // its fencing token is issued when fencingToken() asks for it
        self::$saved ??= new \WeakMap();
        self::$saved[$key] = $lock;
        if ($key->hasState(self::FENCING_STATE)) {
            $key->removeState(self::FENCING_STATE);
        }
        $this->recent[$key] = [$lock, $savedAt, 'saved'];
        if ($this->watchdog) {
            $key->markUnserializable();
        }
        $this->checkNotExpired($key);
    }

    public function putOffExpiration(Key $key, float $ttl): void
    {
        if (!$key->hasState(self::TOKEN_STATE)) {
            throw new LockConflictedException();
        }
        [$lock, $at, $what] = $this->recent[$key] ?? [null, 0, ''];
        if ($ttl > 0 && $what === 'saved' && $at > 0 && $ttl === $this->ttl) {
            $age = hrtime(true) - $at;
            if ($age < min(self::FRESH_NS, $ttl * 1e7)) {
                // the save a moment ago set this TTL: the lock expires at most
                // $age earlier than asked, and the Key says exactly when
                if (!$this->watchdog) {
                    $key->reduceLifetime($ttl - $age / 1e9);
                }
                $this->recent[$key] = [$lock, 0, 'saved'];
                $this->checkNotExpired($key);

                return;
            }
        }
        if ($ttl <= 0) {
            // expired at once (as a PEXPIRE in the past would make it)
            $key->reduceLifetime($ttl);
            $this->checkNotExpired($key);
        }
        if (!$this->watchdog) {
            $key->reduceLifetime($ttl);
        }
        if (!$this->lock($key)->extend($ttl)) {
            throw new LockConflictedException();
        }
        $this->checkNotExpired($key);
    }

    public function delete(Key $key): void
    {
        if (!$key->hasState(self::TOKEN_STATE)) {
            return;
        }
        $lock = $this->lock($key);
        $lock->release();
        $this->recent[$key] = [$lock, hrtime(true), 'deleted'];
    }

    public function exists(Key $key): bool
    {
        if (!$key->hasState(self::TOKEN_STATE)) {
            return false;
        }
        [, $at, $what] = $this->recent[$key] ?? [null, 0, ''];
        if ($what === 'deleted') {
            $this->recent[$key][1] = 0;
            if ($at > 0 && hrtime(true) - $at < self::FRESH_NS) {
                return false;
            }
        }

        return $this->lock($key)->isAcquired();
    }

    /**
     * The RedisLock of a Key: the one its last save() made in this process,
     * or one adopting its owner token (a Key saved elsewhere). A save() gets
     * a new one, with the store's TTL.
     */
    private function lock(Key $key, bool $fresh = false): RedisLock
    {
        if (!$fresh && isset($this->recent[$key])) {
            return $this->recent[$key][0];
        }
        if (!$key->hasState(self::TOKEN_STATE)) {
            $key->setState(self::TOKEN_STATE, bin2hex(random_bytes(16)));
        }
        $lock = new RedisLock((string) $key, $this->connection, ['token' => $key->getState(self::TOKEN_STATE)] + $this->options);
        $this->recent[$key] = [$lock, 0, ''];

        return $lock;
    }

    private function checkNotExpired(Key $key): void
    {
        if ($key->isExpired()) {
            try {
                $this->delete($key);
            } catch (\Exception) {
                // the expiry is the failure to report
            }
            throw new LockExpiredException(sprintf('Failed to store the "%s" lock.', $key));
        }
    }

    public function __debugInfo(): array
    {
        return ['ttl' => $this->ttl, 'watchdog' => $this->watchdog, 'max_wait' => $this->maxWait];
    }
}
