<?php

namespace RedisKit\Symfony\Cache;

use Symfony\Contracts\Cache\ItemInterface;

/**
 * The item RedisKitCache hands to a callback: always a miss (the callback
 * only runs to compute a value); expiresAfter()/expiresAt() set the TTL the
 * value is stored with. Parameter types are left open so that one class
 * serves psr/cache 1.0 to 3.0.
 */
final class CacheItem implements ItemInterface
{
    private mixed $value = null;
    private ?float $expiry = null;

    public function __construct(private string $key, private int $defaultLifetime)
    {
    }

    public function getKey(): string
    {
        return $this->key;
    }

    public function get(): mixed
    {
        return $this->value;
    }

    public function isHit(): bool
    {
        return false;
    }

    public function set($value): static
    {
        $this->value = $value;

        return $this;
    }

    public function expiresAt($expiration): static
    {
        if ($expiration !== null && !$expiration instanceof \DateTimeInterface) {
            throw new InvalidArgumentException(sprintf('Expiration date must implement DateTimeInterface or be null, "%s" given.', get_debug_type($expiration)));
        }
        $this->expiry = $expiration === null ? null : (float) $expiration->format('U.u');

        return $this;
    }

    public function expiresAfter($time): static
    {
        if ($time === null) {
            $this->expiry = null;
        } elseif ($time instanceof \DateInterval) {
            $now = new \DateTimeImmutable();
            $this->expiry = (float) $now->add($time)->format('U.u');
        } elseif (is_int($time)) {
            $this->expiry = $time + microtime(true);
        } else {
            throw new InvalidArgumentException(sprintf('Expiration date must be an integer, a DateInterval or null, "%s" given.', get_debug_type($time)));
        }

        return $this;
    }

    public function tag($tags): static
    {
        throw new CacheException('RedisKitCache does not support tags.');
    }

    public function getMetadata(): array
    {
        return [];
    }

    /**
     * The TTL to store the value with, in seconds: the default lifetime (0:
     * forever) unless an expiry was set; null (not stored) when that expiry
     * has passed already.
     */
    public function ttl(): ?float
    {
        if ($this->expiry === null) {
            return (float) $this->defaultLifetime;
        }
        $left = $this->expiry - microtime(true);

        return $left > 0 ? $left : null;
    }

    /** PSR-6 keys: non-empty, without {}()/\@: */
    public static function validateKey(string $key): void
    {
        if ($key === '') {
            throw new InvalidArgumentException('Cache key length must be greater than zero.');
        }
        if (strpbrk($key, ItemInterface::RESERVED_CHARACTERS) !== false) {
            throw new InvalidArgumentException(sprintf('Cache key "%s" contains reserved characters "%s".', $key, ItemInterface::RESERVED_CHARACTERS));
        }
    }
}
