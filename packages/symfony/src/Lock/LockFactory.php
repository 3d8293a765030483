<?php

namespace RedisKit\Symfony\Lock;

use Symfony\Component\Lock\Key;
use Symfony\Component\Lock\LockFactory as SymfonyLockFactory;

/**
 * Symfony's LockFactory on a RedisKitStore, whose locks also have
 * acquireWithin($seconds) and fencingToken() (RedisKit\Symfony\Lock\Lock,
 * wrapping Symfony's own Lock). Type-hint Symfony's LockFactory as usual.
 */
class LockFactory extends SymfonyLockFactory
{
    public function __construct(RedisKitStore $store)
    {
        parent::__construct($store);
    }

    public function createLock(string $resource, ?float $ttl = 300.0, bool $autoRelease = true): Lock
    {
        return $this->createLockFromKey(new Key($resource), $ttl, $autoRelease);
    }

    public function createLockFromKey(Key $key, ?float $ttl = 300.0, bool $autoRelease = true): Lock
    {
        return new Lock(parent::createLockFromKey($key, $ttl, $autoRelease), $key);
    }
}
