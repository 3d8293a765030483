<?php

namespace RedisKit\Symfony\Cache;

/** What the adapter cannot do (tags). */
final class CacheException extends \LogicException implements \Psr\Cache\CacheException
{
}
