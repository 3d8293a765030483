<?php

namespace RedisKit\Laravel;

use Illuminate\Cache\RedisStore;
use Illuminate\Contracts\Redis\Factory as Redis;

/**
 * The `rediskit` cache store: Laravel's own RedisStore for cache data (on the
 * Laravel Redis connection named in the store's config), with its locks on
 * rediskit (RedisKit\Laravel\Lock, on config/rediskit.php's connection).
 * Everything that takes a LockProvider uses them: Cache::lock(), unique jobs,
 * WithoutOverlapping, session blocking, Cache::funnel() and the scheduler's
 * withoutOverlapping()/onOneServer().
 */
class CacheStore extends RedisStore
{
    private Connection $rediskit;

    public function __construct(Redis $redis, $prefix, $connection, Connection $rediskit, ...$more)
    {
        parent::__construct($redis, $prefix, $connection, ...$more);
        $this->rediskit = $rediskit;
    }

    public function lock($name, $seconds = 0, $owner = null)
    {
        return new Lock($this->prefix . $name, $seconds, $owner, $this->rediskit);
    }

    public function restoreLock($name, $owner)
    {
        return $this->lock($name, 0, $owner);
    }

    /**
     * Laravel 13 flushes locks with FLUSHDB on a separate lock connection;
     * rediskit's locks are not on a Laravel connection, and are not flushed.
     */
    public function flushLocks(): bool
    {
        throw new \RuntimeException('The rediskit cache store does not flush locks: release one with Cache::lock($name)->forceRelease().');
    }
}
