<?php

namespace RedisKit\Symfony\RateLimiter;

use Symfony\Component\RateLimiter\LimiterInterface;
use Symfony\Component\RateLimiter\RateLimiterFactoryInterface;

// Symfony 7.3+ has RateLimiterFactoryInterface (what its limiter services
// are typed as); older versions only the final RateLimiterFactory class.
if (interface_exists(RateLimiterFactoryInterface::class)) {
    /** A factory of limiters: Symfony's RateLimiterFactoryInterface where it exists (7.3+). */
    interface LimiterFactoryInterface extends RateLimiterFactoryInterface
    {
    }
} else {
    /** A factory of limiters: the shape of Symfony's RateLimiterFactory (before 7.3, which has an interface for it). */
    interface LimiterFactoryInterface
    {
        public function create(?string $key = null): LimiterInterface;
    }
}
