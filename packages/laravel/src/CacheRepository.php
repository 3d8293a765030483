<?php

namespace RedisKit\Laravel;

use Closure;
use Illuminate\Cache\Repository;

/**
 * The repository of the `rediskit` store: Cache::remember(),
 * rememberForever() and sear() go to RedisCache::remember(), so that on a
 * miss one process computes and the others wait for its value (Laravel's own
 * remember() lets every process that misses compute). A null result is cached
 * for the store's null_ttl. These three calls fire no CacheHit / CacheMissed
 * / KeyWritten events; everything else is Laravel's Repository.
 */
class CacheRepository extends Repository
{
    public function remember($key, $ttl, Closure $callback)
    {
        $store = $this->getStore();
        if (!$store instanceof CacheStore) {
            return parent::remember($key, $ttl, $callback);
        }
        $key = $this->keyName($key);
        if ($ttl instanceof Closure) {
            // Laravel 13: the TTL depends on the value
            return $store->remember($key, 0, $callback, fn ($value) => $this->getSeconds($ttl($value)) ?: null);
        }
        if ($ttl === null) {
            return $store->remember($key, 0, $callback);
        }
        $seconds = $this->getSeconds($ttl);
        if ($seconds <= 0) {
            // Laravel computes and forgets: nothing to share
            return parent::remember($key, $ttl, $callback);
        }

        return $store->remember($key, $seconds, $callback);
    }

    public function rememberForever($key, Closure $callback)
    {
        $store = $this->getStore();
        if (!$store instanceof CacheStore) {
            return parent::rememberForever($key, $callback);
        }

        return $store->remember($this->keyName($key), 0, $callback);
    }

    public function sear($key, Closure $callback)
    {
        return $this->rememberForever($key, $callback);
    }

    /** The key as a string (Laravel 12+ takes enums). */
    private function keyName($key): string
    {
        if ($key instanceof \BackedEnum) {
            $key = $key->value;
        } elseif ($key instanceof \UnitEnum) {
            $key = $key->name;
        }

        return $this->itemKey((string) $key);
    }
}
