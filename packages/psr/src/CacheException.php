<?php

namespace RedisKit\Psr;

/** Redis failed (its RedisKit\Exception is the previous exception). */
final class CacheException extends \RuntimeException implements \Psr\SimpleCache\CacheException
{
}
