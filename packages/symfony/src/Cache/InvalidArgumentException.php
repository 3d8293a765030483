<?php

namespace RedisKit\Symfony\Cache;

/** A key or an argument PSR-6 / Symfony's cache contract refuses. */
final class InvalidArgumentException extends \InvalidArgumentException implements \Psr\Cache\InvalidArgumentException
{
}
