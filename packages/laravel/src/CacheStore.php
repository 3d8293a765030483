<?php

namespace RedisKit\Laravel;

use Illuminate\Contracts\Cache\LockProvider;
use Illuminate\Contracts\Cache\Store;
use RedisKit\RedisCache;

/**
 * The `rediskit` cache store: cache data in a RedisKit\RedisCache (namespace:
 * the store's prefix; rediskit's connection and prefix from
 * config/rediskit.php) and locks on rediskit (RedisKit\Laravel\Lock).
 * Through CacheRepository, Cache::remember() is single-flight across
 * processes and servers. Everything that takes a LockProvider uses the
 * locks: Cache::lock(), unique jobs, WithoutOverlapping, session blocking,
 * Cache::funnel() and the scheduler's withoutOverlapping()/onOneServer().
 */
class CacheStore implements Store, LockProvider
{
    /** The store config keys passed to RedisCache. */
    public const OPTIONS = ['jitter', 'null_ttl', 'lock_timeout', 'on_lock_timeout', 'early_refresh', 'stale_ttl', 'serializer', 'local'];

    private RedisCache $cache;

    /** @param array $options RedisCache options (jitter, null_ttl, lock_timeout, ...) */
    public function __construct(private string $prefix, private Connection $rediskit, array $options = [])
    {
        $namespace = rtrim($prefix, ':');
        $this->cache = new RedisCache($namespace === '' ? 'cache' : $namespace, $rediskit->single(), ['prefix' => $rediskit->prefix] + $options);
    }

    /** The RedisCache behind the store. */
    public function cache(): RedisCache
    {
        return $this->cache;
    }

    public function get($key)
    {
        return $this->cache->get((string) $key);
    }

    public function many(array $keys)
    {
        return $this->cache->getMany($keys);
    }

    public function put($key, $value, $seconds)
    {
        $this->cache->set((string) $key, $value, (float) max(1, $seconds));

        return true;
    }

    /** Atomic (SET NX): Repository::add() uses it. */
    public function add($key, $value, $seconds)
    {
        return $this->cache->add((string) $key, $value, (float) max(1, $seconds));
    }

    public function putMany(array $values, $seconds)
    {
        $this->cache->setMany($values, (float) max(1, $seconds));

        return true;
    }

    public function increment($key, $value = 1)
    {
        return $this->cache->increment((string) $key, (int) $value);
    }

    public function decrement($key, $value = 1)
    {
        return $this->cache->increment((string) $key, -(int) $value);
    }

    public function forever($key, $value)
    {
        $this->cache->set((string) $key, $value, 0.0);

        return true;
    }

    /** Laravel 13's Store::touch(). */
    public function touch($key, $seconds)
    {
        return $this->cache->touch((string) $key, (float) max(1, $seconds));
    }

    public function forget($key)
    {
        return $this->cache->delete((string) $key) > 0;
    }

    /** This store's values only (RedisCache::clear(), never FLUSHDB). */
    public function flush()
    {
        $this->cache->clear();

        return true;
    }

    public function getPrefix()
    {
        return $this->prefix;
    }

    /**
     * RedisCache::remember(): single-flight, $seconds 0 is forever.
     *
     * @param callable|null $ttlOf given the value, its TTL in seconds (Laravel 13's closure TTLs)
     */
    public function remember(string $key, int $seconds, \Closure $callback, ?callable $ttlOf = null): mixed
    {
        return $this->cache->remember($key, (float) $seconds, $callback, $ttlOf ? ['ttl_of' => $ttlOf] : []);
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
