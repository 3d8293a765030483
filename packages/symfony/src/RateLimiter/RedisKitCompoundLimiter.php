<?php

namespace RedisKit\Symfony\RateLimiter;

use RedisKit\RateLimiter;
use Symfony\Component\RateLimiter\Exception\ReserveNotSupportedException;
use Symfony\Component\RateLimiter\LimiterInterface;
use Symfony\Component\RateLimiter\RateLimit;
use Symfony\Component\RateLimiter\Reservation;

/**
 * Several limits as one: consume() passes only if every limiter has the
 * tokens, and then takes them from all of them, in one atomic script
 * (RateLimiter::attemptAll). Symfony's CompoundLimiter consumes from each
 * limiter in turn, so a refusal by the second still spends the first's.
 * The limiters must share one connection; on a Redis Cluster their keys
 * must hash to one slot.
 */
final class RedisKitCompoundLimiter implements LimiterInterface
{
    /** @var list<RedisKitLimiter> */
    private array $limiters;

    /** @param list<RedisKitLimiter> $limiters */
    public function __construct(array $limiters)
    {
        if (!$limiters) {
            throw new \LogicException(self::class . ' needs at least one limiter.');
        }
        foreach ($limiters as $i => $l) {
            if (!$l instanceof RedisKitLimiter) {
                throw new \InvalidArgumentException(sprintf('%s: limiter %s is a %s, not a %s (made by RedisKitLimiterFactory)', self::class, $i, get_debug_type($l), RedisKitLimiter::class));
            }
        }
        $this->limiters = array_values($limiters);
    }

    public function reserve(int $tokens = 1, ?float $maxTime = null): Reservation
    {
        throw new ReserveNotSupportedException(self::class);
    }

    public function consume(int $tokens = 1): RateLimit
    {
        if ($tokens === 0) {
            // a read: the most restrictive of the limiters' own answers
            $min = null;
            foreach ($this->limiters as $l) {
                $r = $l->consume(0);
                if ($min === null || ($min->isAccepted() && !$r->isAccepted()) || ($min->isAccepted() === $r->isAccepted() && $r->getRemainingTokens() < $min->getRemainingTokens())) {
                    $min = $r;
                }
            }

            return $min;
        }
        $objects = $keys = [];
        $limits = [];
        foreach ($this->limiters as $l) {
            [$objects[], $keys[], $limit, $id] = $l->parts();
            $limits[$id] ??= $limit;
        }
        try {
            $r = RateLimiter::attemptAll($objects, $keys, $tokens);
        } catch (\ValueError $e) {
            throw new \InvalidArgumentException($e->getMessage(), 0, $e);
        }
        // the limit as reported by the limiter the result describes
        $limit = $limits[$r['policy']] ?? $r['limit'];

        return RedisKitLimiter::rateLimit($r, $r['allowed'], $limit);
    }

    public function reset(): void
    {
        foreach ($this->limiters as $l) {
            $l->reset();
        }
    }
}
