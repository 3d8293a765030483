<?php

namespace RedisKit\Laravel;

use Closure;
use Illuminate\Cache\RateLimiter as LaravelRateLimiter;
use Illuminate\Contracts\Cache\Repository as Cache;
use RedisKit\RateLimiter as Limiter;

/**
 * Laravel's RateLimiter (the `RateLimiter` facade, ThrottleRequests, the
 * queue's RateLimited middleware, login throttling) on the extension's
 * RedisKit\RateLimiter instead of cache counters: every call is one atomic
 * script, timed by the Redis server's clock. Bound in place of
 * Illuminate\Cache\RateLimiter by RedisKitServiceProvider.
 *
 * One state per key, as in Laravel: a fixed window that starts with the
 * key's first hit and lasts the decay of that hit (`window_start =>
 * 'first_hit'`); the count and the time left are the same whatever limit
 * and decay later calls name. The keys are Laravel's, cleaned by
 * cleanRateLimiterKey(), under the extension limiter name `laravel`:
 * `<rediskit.prefix>laravel:fwh:{<key>}`. The middleware
 * (RedisKit\Laravel\ThrottleRequests) uses the same keys, so
 * `RateLimiter::clear()`, `attempts()`, `remaining()` and `availableIn()`
 * see what it counted.
 *
 * Differences from Laravel's, by design:
 * - attempt() is one atomic check-and-count: N processes never get more
 *   than $maxAttempts through in a window (Laravel's reads, then counts).
 *   The attempt is counted before the callback runs (also when it throws);
 *   a callback's null result becomes true, any other result is returned
 *   as is (Laravel 10+; Laravel 8 also turned false into true). A
 *   $maxAttempts below 1 lets nothing through.
 * - availableIn() rounds the time left up (never early); remaining() is
 *   never below 0 (as in Laravel 11+).
 * - resetAttempts() and clear() both forget the key (count and window).
 * - decrement() (Laravel 11+) is not supported: an allowance taken is never
 *   given back.
 * - Decays are kept to the microsecond (Laravel's cache keeps whole seconds).
 */
class RateLimiter extends LaravelRateLimiter
{
    /** The extension limiter name of every key (part of the Redis key). */
    public const NAME = 'laravel';

    /**
     * The limit of the limiter that hit()/increment() count with and
     * attempts()/availableIn() read through: more than any key reaches,
     * and below 2^40. A limit this high or higher is treated as no limit.
     */
    public const UNLIMITED = 1_000_000_000_000;

    /** Limiter objects kept per (limit, window); the oldest is dropped beyond this. */
    private const KEEP = 64;

    private Connection $connection;

    /** @var array<string, mixed> */
    private array $options;

    /** @var array<string, Limiter> "limit/window" => limiter */
    private array $kept = [];

    /**
     * @param Cache $cache Kept for Laravel's base class (nothing is counted in it).
     * @param array<string, mixed> $options Extension RateLimiter options over
     *   the defaults (`on_error` 'throw', `local_block` false: a clear() takes
     *   effect in every worker at once; turn it on to answer refused keys
     *   from the worker's memory).
     */
    public function __construct(Cache $cache, Connection $connection, array $options = [])
    {
        parent::__construct($cache);
        $this->connection = $connection;
        $this->options = $options + [
            'algorithm' => 'fixed_window',
            'window_start' => 'first_hit',
            'prefix' => $connection->prefix,
            'local_block' => false,
        ];
    }

    public function attempt($key, $maxAttempts, Closure $callback, $decaySeconds = 60)
    {
        $max = (int) $maxAttempts;
        if ($max < 1 || !$this->limiterFor(min($max, self::UNLIMITED), $decaySeconds)->attempt($this->redisKey($key))['allowed']) {
            return false;
        }

        return $callback() ?? true;
    }

    public function tooManyAttempts($key, $maxAttempts)
    {
        // Laravel: at least $maxAttempts, and the window (its timer) still running
        $attempts = $this->attempts($key);

        return $attempts > 0 && $attempts >= $maxAttempts;
    }

    public function hit($key, $decaySeconds = 60)
    {
        return $this->increment($key, $decaySeconds);
    }

    /** @return int The key's count after this increment (Laravel 10+; available on 8 too). */
    public function increment($key, $decaySeconds = 60, $amount = 1)
    {
        $amount = (int) $amount;
        if ($amount < 0) {
            return $this->decrement($key, $decaySeconds, -$amount);
        }
        if ($amount === 0) {
            return $this->attempts($key);
        }
        $r = $this->limiterFor(self::UNLIMITED, $decaySeconds)->attempt($this->redisKey($key), $amount);

        return self::UNLIMITED - $r['remaining'];
    }

    /** @throws \BadMethodCallException always: the extension never gives units back. */
    public function decrement($key, $decaySeconds = 60, $amount = 1)
    {
        throw new \BadMethodCallException('RedisKit\Laravel\RateLimiter cannot decrement a rate limit counter (an allowance taken is never given back); clear() forgets the key.');
    }

    /** @return int */
    public function attempts($key)
    {
        return self::UNLIMITED - $this->peek($key)['remaining'];
    }

    /** @return bool */
    public function resetAttempts($key)
    {
        $this->clear($key);

        return true;
    }

    public function remaining($key, $maxAttempts)
    {
        return max(0, (int) $maxAttempts - $this->attempts($key));
    }

    public function clear($key)
    {
        $this->limiterFor(self::UNLIMITED, 60)->reset($this->redisKey($key));
    }

    public function availableIn($key)
    {
        return (int) ceil($this->peek($key)['reset_after']);
    }

    /**
     * What the extension answers for $key with limit/window of any value:
     * `remaining` of the UNLIMITED limiter, `reset_after` the window's time left.
     *
     * @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
     */
    public function peek($key): array
    {
        return $this->limiterFor(self::UNLIMITED, 60)->peek($this->redisKey($key));
    }

    /**
     * Checks several limits in one atomic script: allowed only if every one
     * allows a hit, and then every one counts it; otherwise none does.
     * The result describes the limit with the least remaining when allowed
     * (the first of them on a tie), the longest wait when refused;
     * describedLimit() tells which of $limits that is.
     *
     * On a Redis Cluster all the keys of one call must hash to one slot
     * (each key is its own hash tag): limits with different keys are then
     * refused with a \ValueError.
     *
     * @param list<array{0: string, 1: int, 2: mixed}> $limits [key, maxAttempts (1 .. UNLIMITED), decaySeconds],
     *   no two with the same key
     * @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
     */
    public function attemptLimits(array $limits, int $cost = 1): array
    {
        $limiters = $keys = [];
        foreach ($limits as [$key, $max, $decay]) {
            $limiters[] = $this->limiterFor(min((int) $max, self::UNLIMITED), $decay);
            $keys[] = $this->redisKey($key);
        }

        return Limiter::attemptAll($limiters, $keys, $cost);
    }

    /**
     * One limit checked without counting (for limits hit after the response).
     *
     * @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
     */
    public function peekLimit($key, int $maxAttempts, $decaySeconds): array
    {
        return $this->limiterFor(min($maxAttempts, self::UNLIMITED), $decaySeconds)->peek($this->redisKey($key));
    }

    /**
     * One limit counted if it allows a hit.
     *
     * @return array{allowed: bool, limit: int, remaining: int, retry_after: float, reset_after: float, policy: string, window: float}
     */
    public function attemptLimit($key, int $maxAttempts, $decaySeconds): array
    {
        return $this->limiterFor(min($maxAttempts, self::UNLIMITED), $decaySeconds)->attempt($this->redisKey($key));
    }

    /**
     * Which of attemptLimits()'s $limits a result describes: the first with
     * the result's limit and window (limits alike in both get the same
     * headers whichever it is).
     */
    public function describedLimit(array $limits, array $result): int
    {
        $window = (int) round($result['window'] * 1e6);
        foreach ($limits as $i => [, $max, $decay]) {
            if (min((int) $max, self::UNLIMITED) === $result['limit'] && (int) round($this->seconds($decay) * 1e6) === $window) {
                return $i;
            }
        }

        return array_key_first($limits) ?? 0;
    }

    /** The extension limiter of one (limit, window) pair, kept for the worker's life. */
    public function limiterFor(int $limit, $decaySeconds): Limiter
    {
        $window = $this->seconds($decaySeconds);
        $id = $limit . '/' . (int) round($window * 1e6);
        if (!isset($this->kept[$id])) {
            if (count($this->kept) >= self::KEEP) {
                array_shift($this->kept);
            }
            $this->kept[$id] = new Limiter(self::NAME, $limit, $window, $this->connection->single(), $this->options);
        }

        return $this->kept[$id];
    }

    /** The Redis subject of a Laravel key: cleaned as Laravel cleans it (never empty). */
    public function redisKey($key): string
    {
        $key = $this->cleanRateLimiterKey((string) $key);

        return $key === '' ? "\0" : $key;
    }

    /**
     * A decay in seconds (int or float: the middleware's decayMinutes * 60;
     * a DateTimeInterface or DateInterval on Laravel 11+).
     */
    private function seconds($decay): float
    {
        if ($decay instanceof \DateTimeInterface || $decay instanceof \DateInterval) {
            $decay = $this->secondsUntil($decay);
        }

        // the extension's bounds: 1 µs (a hit then is forgotten at once, as
        // Laravel's cache forgets a 0 s entry) to below 1e9 s
        return min(max((float) $decay, 0.000001), 999999999.0);
    }
}
