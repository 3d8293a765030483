<?php

namespace RedisKit\Psr;

use Psr\SimpleCache\CacheInterface;
use RedisKit\RedisCache;

/**
 * PSR-16 on RedisKit\RedisCache. getMultiple() is one MGET, setMultiple()
 * one MULTI/EXEC (written whole or not at all), clear() deletes this
 * namespace only (never FLUSHDB), and every TTL is jittered (the RedisCache
 * `jitter` option). A $ttl of null is the RedisCache `ttl` option (default:
 * no expiry); 0 or less deletes, as PSR-16 says. Keys follow PSR-16: non-empty
 * strings without {}()/\@:. Parameter types are left open so that one class
 * serves psr/simple-cache 1.0 to 3.0. For single-flight cache-aside use
 * remember() (RedisCache::remember()), which PSR-16 has no word for.
 */
final class SimpleCache implements CacheInterface
{
    private const RESERVED = '{}()/\@:';

    private RedisCache $cache;

    /** @param string|RedisCache $namespace a namespace, or the RedisCache to use */
    public function __construct(string|RedisCache $namespace, #[\SensitiveParameter] string|array|null $connection = null, array $options = [])
    {
        $this->cache = $namespace instanceof RedisCache ? $namespace : new RedisCache($namespace, $connection, $options);
    }

    public function get($key, $default = null): mixed
    {
        return $this->call(fn () => $this->cache->get($this->key($key), $default));
    }

    public function set($key, $value, $ttl = null): bool
    {
        $key = $this->key($key);
        $seconds = $this->seconds($ttl);
        if ($seconds !== null && $seconds <= 0) {
            return $this->delete($key);
        }

        return $this->call(function () use ($key, $value, $seconds) {
            $this->cache->set($key, $value, $seconds);

            return true;
        });
    }

    public function delete($key): bool
    {
        $key = $this->key($key);

        return $this->call(function () use ($key) {
            $this->cache->delete($key);

            return true;
        });
    }

    public function clear(): bool
    {
        return $this->call(function () {
            $this->cache->clear();

            return true;
        });
    }

    public function getMultiple($keys, $default = null): iterable
    {
        $keys = array_map(fn ($k) => $this->key($k), $this->iterable($keys, 'keys'));
        $values = $this->call(fn () => $this->cache->getMany($keys));
        $out = [];
        foreach ($keys as $k) {
            $out[$k] = $values[$k] ?? $default;
        }

        return $out;
    }

    public function setMultiple($values, $ttl = null): bool
    {
        $values = $this->iterable($values, 'values', true);
        $seconds = $this->seconds($ttl);
        if ($seconds !== null && $seconds <= 0) {
            return $this->deleteMultiple(array_keys($values));
        }

        return $this->call(function () use ($values, $seconds) {
            $this->cache->setMany($values, $seconds);

            return true;
        });
    }

    public function deleteMultiple($keys): bool
    {
        $keys = array_map(fn ($k) => $this->key($k), $this->iterable($keys, 'keys'));
        if ($keys === []) {
            return true;
        }

        return $this->call(function () use ($keys) {
            $this->cache->delete(...$keys);

            return true;
        });
    }

    public function has($key): bool
    {
        $missing = new \stdClass();

        return $this->call(fn () => $this->cache->get($this->key($key), $missing) !== $missing);
    }

    /**
     * RedisCache::remember(): the cached value, or else $compute's, computed
     * by one process at a time (not part of PSR-16).
     */
    public function remember(string $key, null|int|\DateInterval $ttl, callable $compute): mixed
    {
        $key = $this->key($key);

        return $this->cache->remember($key, (float) max(0, $this->seconds($ttl) ?? 0), $compute);
    }

    /** The RedisCache behind the adapter (stats(), increment(), ...). */
    public function cache(): RedisCache
    {
        return $this->cache;
    }

    private function key($key): string
    {
        if (is_int($key)) {
            $key = (string) $key;
        }
        if (!is_string($key)) {
            throw new InvalidArgumentException('A cache key must be a string, got ' . get_debug_type($key));
        }
        if ($key === '') {
            throw new InvalidArgumentException('A cache key must not be empty');
        }
        if (strpbrk($key, self::RESERVED) !== false) {
            throw new InvalidArgumentException(sprintf('The cache key "%s" contains a character PSR-16 reserves (%s)', $key, self::RESERVED));
        }

        return $key;
    }

    /** @return int|null seconds; null: the default TTL */
    private function seconds($ttl): ?int
    {
        if ($ttl === null) {
            return null;
        }
        if ($ttl instanceof \DateInterval) {
            $now = new \DateTimeImmutable('@0');

            return (int) $now->add($ttl)->format('U');
        }
        if (is_int($ttl)) {
            return $ttl;
        }
        throw new InvalidArgumentException('A TTL must be null, an int or a DateInterval, got ' . get_debug_type($ttl));
    }

    private function iterable($items, string $what, bool $keyed = false): array
    {
        if (!is_iterable($items)) {
            throw new InvalidArgumentException("The $what must be an array or a Traversable, got " . get_debug_type($items));
        }
        $out = [];
        foreach ($items as $k => $v) {
            if ($keyed) {
                $out[$this->key($k)] = $v;
            } else {
                $out[] = $v;
            }
        }

        return $out;
    }

    /** Runs a RedisCache call; its Redis failures become PSR-16's CacheException. */
    private function call(callable $f): mixed
    {
        try {
            return $f();
        } catch (\RedisKit\Exception $e) {
            throw new CacheException($e->getMessage(), 0, $e);
        }
    }
}
