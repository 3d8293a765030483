<?php

namespace RedisKit\Symfony\RateLimiter;

use RedisKit\RateLimiter;
use Symfony\Component\RateLimiter\Exception\MaxWaitDurationExceededException;
use Symfony\Component\RateLimiter\Exception\ReserveNotSupportedException;
use Symfony\Component\RateLimiter\LimiterInterface;
use Symfony\Component\RateLimiter\RateLimit;
use Symfony\Component\RateLimiter\Reservation;

/**
 * Symfony's LimiterInterface on one RedisKit\RateLimiter and one key: every
 * check is one atomic script timed by the Redis clock (no lock, no
 * read-modify-write in PHP). Durations come from Redis; they become
 * DateTimeImmutable values by being added to this process's clock when the
 * reply arrives, so a skewed app clock still waits the right time.
 *
 * Made by RedisKitLimiterFactory::create().
 */
final class RedisKitLimiter implements LimiterInterface
{
    /**
     * @param string $id the limiter's id (the extension limiter's name)
     * @param string $policy fixed_window, sliding_window, token_bucket or gcra
     * @param int $limit what RateLimit::getLimit() reports (the burst for token_bucket and gcra, as Symfony's)
     */
    public function __construct(
        private string $id,
        private RateLimiter $limiter,
        private string $key,
        private string $policy,
        private int $limit,
    ) {
    }

    public function reserve(int $tokens = 1, ?float $maxTime = null): Reservation
    {
        if ($this->policy !== 'token_bucket' && $this->policy !== 'gcra') {
            throw new ReserveNotSupportedException(self::class . ' (' . $this->policy . ')');
        }
        if ($tokens === 0) {
            $rateLimit = $this->consume(0);

            return new Reservation(max(microtime(true), (float) $rateLimit->getRetryAfter()->format('U.u')), $rateLimit);
        }
        $r = self::call(fn() => $this->limiter->reserve($this->key, $tokens, $maxTime));
        $now = microtime(true);
        $rateLimit = new RateLimit($r['remaining'], self::at($now + $r['retry_after']), $r['allowed'] && $r['retry_after'] == 0.0, $this->limit);
        if (!$r['allowed']) {
            throw new MaxWaitDurationExceededException(sprintf('The rate limiter wait time ("%.3F" seconds) is longer than the provided maximum time ("%.3F" seconds).', $r['retry_after'], $maxTime), $rateLimit);
        }

        return new Reservation($now + $r['retry_after'], $rateLimit);
    }

    /**
     * Consumes $tokens if they are all there, nothing otherwise. consume(0)
     * reads without consuming (accepted unless a token bucket has no whole
     * token, as in Symfony).
     */
    public function consume(int $tokens = 1): RateLimit
    {
        if ($tokens === 0) {
            $r = $this->limiter->peek($this->key);
            $accepted = $r['allowed'] || ($this->policy !== 'token_bucket' && $this->policy !== 'gcra');

            return self::rateLimit($r, $accepted, $this->limit);
        }
        $r = self::call(fn() => $this->limiter->attempt($this->key, $tokens));

        return self::rateLimit($r, $r['allowed'], $this->limit);
    }

    public function reset(): void
    {
        $this->limiter->reset($this->key);
    }

    /**
     * @internal the extension's limiter, the key, the reported limit and the
     * limiter's id (its name in results), for attemptAll()
     */
    public function parts(): array
    {
        return [$this->limiter, $this->key, $this->limit, $this->id];
    }

    /**
     * @internal a RateLimit from an extension result: accepted ones may be
     * retried now, refused ones after retry_after (microsecond precision)
     */
    public static function rateLimit(array $r, bool $accepted, int $limit): RateLimit
    {
        $now = microtime(true);

        return new RateLimit($r['remaining'], self::at($accepted ? $now : $now + $r['retry_after']), $accepted, $limit);
    }

    private static function at(float $t): \DateTimeImmutable
    {
        return \DateTimeImmutable::createFromFormat('U.u', sprintf('%.6F', $t));
    }

    /** The extension's \ValueError for a bad token count is Symfony's \InvalidArgumentException. */
    private static function call(\Closure $f): array
    {
        try {
            return $f();
        } catch (\ValueError $e) {
            throw new \InvalidArgumentException($e->getMessage(), 0, $e);
        }
    }
}
