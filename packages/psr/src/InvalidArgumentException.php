<?php

namespace RedisKit\Psr;

/** A key, TTL or list PSR-16 refuses. */
final class InvalidArgumentException extends \InvalidArgumentException implements \Psr\SimpleCache\InvalidArgumentException
{
}
