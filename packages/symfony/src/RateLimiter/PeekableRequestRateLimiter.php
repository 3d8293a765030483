<?php

namespace RedisKit\Symfony\RateLimiter;

use Symfony\Component\HttpFoundation\RateLimiter\PeekableRequestRateLimiterInterface;
use Symfony\Component\HttpFoundation\RateLimiter\RequestRateLimiterInterface;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\RateLimiter\RateLimit;

// Symfony 6.4+ has PeekableRequestRateLimiterInterface; 5.4 only the plain one.
if (interface_exists(PeekableRequestRateLimiterInterface::class)) {
    /** Symfony's PeekableRequestRateLimiterInterface (6.4+). */
    interface PeekableRequestRateLimiter extends PeekableRequestRateLimiterInterface
    {
    }
} else {
    /** Symfony's RequestRateLimiterInterface, plus the peek() later versions have. */
    interface PeekableRequestRateLimiter extends RequestRateLimiterInterface
    {
        public function peek(Request $request): RateLimit;
    }
}
