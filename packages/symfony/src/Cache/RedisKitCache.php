<?php

namespace RedisKit\Symfony\Cache;

use RedisKit\RedisCache;
use Symfony\Contracts\Cache\CacheInterface;
use Symfony\Contracts\Cache\ItemInterface;

/**
 * Symfony's cache contract (`CacheInterface::get($key, $callback, $beta)`) on
 * RedisKit\RedisCache: the callback runs in one process at a time across
 * servers (the others wait for its value), `$beta` is RedisCache's
 * early_refresh (XFetch, the same algorithm Symfony's pools use; null: the
 * pool's, 1.0 unless its options say otherwise; INF recomputes now), and the
 * item's expiresAfter()/expiresAt() and `$save = false` decide how the value
 * is stored. Keys follow PSR-6: the characters {}()/\@: are refused.
 * Tags are not supported (this is not a TagAwareCacheInterface).
 */
final class RedisKitCache implements CacheInterface
{
    private RedisCache $cache;

    /**
     * @param string|RedisCache $namespace a namespace, or the RedisCache to use
     * @param array $options RedisCache options (early_refresh defaults to 1.0, as in Symfony)
     * @param int $defaultLifetime seconds an item lives unless its callback says otherwise (0: forever)
     */
    public function __construct(
        string|RedisCache $namespace,
        #[\SensitiveParameter] string|array|null $connection = null,
        array $options = [],
        private int $defaultLifetime = 0,
    ) {
        if ($defaultLifetime < 0) {
            throw new \ValueError('RedisKitCache: $defaultLifetime must be >= 0, got ' . $defaultLifetime);
        }
        $this->cache = $namespace instanceof RedisCache
            ? $namespace
            : new RedisCache($namespace, $connection, $options + ['early_refresh' => 1.0]);
    }

    public function get(string $key, callable $callback, ?float $beta = null, ?array &$metadata = null): mixed
    {
        CacheItem::validateKey($key);
        $item = null;
        $save = true;
        $options = ['ttl_of' => function () use (&$item, &$save) {
            return $save ? $item->ttl() : null;
        }];
        if ($beta !== null) {
            if ($beta < 0 || is_nan($beta)) {
                throw new InvalidArgumentException(sprintf('Argument "$beta" provided to "%s::get()" must be a positive number, %f given.', self::class, $beta));
            }
            $options['early_refresh'] = $beta;
        }
        $value = $this->cache->remember($key, (float) $this->defaultLifetime, function () use ($key, $callback, &$item, &$save) {
            $item = new CacheItem($key, $this->defaultLifetime);

            return $callback($item, $save);
        }, $options);
        $metadata = [];

        return $value;
    }

    public function delete(string $key): bool
    {
        CacheItem::validateKey($key);
        $this->cache->delete($key);

        return true;
    }

    /** The RedisCache behind the adapter (stats(), clear(), ...). */
    public function cache(): RedisCache
    {
        return $this->cache;
    }
}
