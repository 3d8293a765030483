<?php

namespace RedisKit\Symfony\RateLimiter;

use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\RateLimiter\LimiterInterface;
use Symfony\Component\RateLimiter\Policy\NoLimiter;
use Symfony\Component\RateLimiter\RateLimit;

/**
 * Symfony's request rate limiter (as AbstractRequestRateLimiter) whose
 * limiters are checked at once: consume() takes a token from every limiter
 * of the request, or from none, in one atomic script. Symfony's consumes
 * from each in turn (a refusal by one still spends the others').
 * Subclasses name the limiters of a request.
 */
abstract class RedisKitRequestRateLimiter implements PeekableRequestRateLimiter
{
    /**
     * @return list<LimiterInterface> RedisKitLimiter objects (NoLimiter ones are ignored)
     */
    abstract protected function getLimiters(Request $request): array;

    public function consume(Request $request): RateLimit
    {
        return $this->compound($request)->consume(1);
    }

    public function peek(Request $request): RateLimit
    {
        return $this->compound($request)->consume(0);
    }

    public function reset(Request $request): void
    {
        foreach ($this->getLimiters($request) as $limiter) {
            $limiter->reset();
        }
    }

    private function compound(Request $request): LimiterInterface
    {
        $limiters = array_values(array_filter($this->getLimiters($request), fn($l) => !$l instanceof NoLimiter));

        return $limiters ? new RedisKitCompoundLimiter($limiters) : new NoLimiter();
    }
}
