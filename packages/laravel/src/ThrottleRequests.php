<?php

namespace RedisKit\Laravel;

use Closure;
use Illuminate\Routing\Middleware\ThrottleRequests as LaravelThrottleRequests;
use RedisKit\RateLimiter as Limiter;
use Symfony\Component\HttpFoundation\Response;

/**
 * Laravel's `throttle` middleware with every Limit of a request checked in
 * one atomic script: allowed only if all allow it, and then all count it;
 * otherwise none does (Laravel checks and hits them one by one, so a request
 * refused by its second Limit has already counted against the first, and
 * concurrent requests can all pass a check before any of them is counted).
 * Alias it in place of Laravel's:
 *
 *     // Laravel 11+ bootstrap/app.php
 *     ->withMiddleware(fn (Middleware $m) => $m->alias(['throttle' => \RedisKit\Laravel\ThrottleRequests::class]))
 *     // Laravel 8/10 app/Http/Kernel.php, $routeMiddleware / $middlewareAliases
 *     'throttle' => \RedisKit\Laravel\ThrottleRequests::class,
 *
 * Everything else is Laravel's: `throttle:60,1` and `throttle:name` with
 * RateLimiter::for() (Limit::perSecond (11+), perMinute, perMinutes,
 * perHour, perDay, by(), response(), after() (11+), Limit::none(), a
 * Response returned by the limiter), the keys (so RateLimiter::clear() etc.
 * reach them), ThrottleRequestsException or the response callback on 429,
 * and the headers: X-RateLimit-Limit and X-RateLimit-Remaining of the Limit
 * with the least remaining (the first on a tie), and on 429 Retry-After and
 * X-RateLimit-Reset (a Unix timestamp, as Laravel sends it). The counts and
 * times are the extension's (Redis server clock). Added: the IETF fields
 * `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers)
 * for the same Limit, the policy named after the named limiter (`throttle`
 * for the `throttle:60,1` form).
 *
 * Each Limit is a fixed window starting with the key's first hit, as
 * Laravel's cache limiter counts (see RedisKit\Laravel\RateLimiter).
 *
 * Differences from Laravel's, by design:
 * - On 429, the Limit described is the one to wait longest for (Laravel's:
 *   the first refused); Retry-After rounds up, never early.
 * - The remaining count is the one the check left (Laravel reads it again
 *   after the controller ran).
 * - Limits with after() (Laravel 11+) are checked before the request and
 *   counted after it, as in Laravel, so they are not part of the atomic
 *   check; a hit they cannot take (the limit filled meanwhile) is dropped.
 * - A Limit of 0 attempts refuses every request (Laravel's lets the first
 *   of each window through).
 * - Two Limits with the same key but different limits/decays (Laravel 8/10)
 *   get keys of their own, as Laravel 11+ gives them.
 * - On a Redis Cluster the keys of one request's Limits must hash to one
 *   slot (each key is its own hash tag): Limits with different by() keys
 *   are refused there with a \ValueError from RedisKit\RateLimiter::attemptAll.
 *
 * With another RateLimiter bound (not RedisKit\Laravel\RateLimiter) this is
 * Laravel's middleware unchanged.
 */
class ThrottleRequests extends LaravelThrottleRequests
{
    /** Policy name of the `throttle:60,1` form. */
    public const POLICY = 'throttle';

    private ?string $policy = null;

    /** @var array<string, int> key => Retry-After of the refusal being built */
    private array $retryAfter = [];

    /** @var array<string, string>|null the IETF fields of the answer being sent */
    private ?array $ietf = null;

    protected function handleRequestUsingNamedLimiter($request, Closure $next, $limiterName, Closure $limiter)
    {
        $this->policy = (string) $limiterName;
        try {
            return parent::handleRequestUsingNamedLimiter($request, $next, $limiterName, $limiter);
        } finally {
            $this->policy = null;
        }
    }

    protected function handleRequest($request, Closure $next, array $limits)
    {
        $policy = $this->policy ?? self::POLICY;
        $this->policy = null;
        if (!$this->limiter instanceof RateLimiter) {
            return parent::handleRequest($request, $next, $limits);
        }

        // Laravel's limit objects: decayMinutes on 8/10, decaySeconds and afterCallback on 11+
        $now = $after = $seen = [];
        foreach (array_values($limits) as $pos => $limit) {
            $l = (object) [
                'pos' => $pos,
                'key' => (string) $limit->key,
                'max' => (int) $limit->maxAttempts,
                'window' => isset($limit->decaySeconds) ? $limit->decaySeconds : $limit->decayMinutes * 60,
                'after' => $limit->afterCallback ?? null,
                'response' => $limit->responseCallback ?? null,
            ];
            if ($l->max >= RateLimiter::UNLIMITED) {
                continue; // Limit::none() in a list: nothing to count
            }
            // one state per Redis key: the same Limit twice counts once; two
            // Limits on one key (Laravel 8/10) get a key each, as Laravel 11+ does
            $same = $seen[$this->limiter->redisKey($l->key)] ?? null;
            if ($same !== null) {
                if ($same == [$l->max, $l->window]) {
                    continue;
                }
                $l->key .= ':attempts:' . $l->max . ':decay:' . $l->window;
            }
            $seen[$this->limiter->redisKey($l->key)] = [$l->max, $l->window];
            if ($l->max < 1) {
                $this->retryAfter[$l->key] = (int) ceil((float) $l->window);
                throw $this->refuse($request, $l, null);
            }
            if ($l->after) {
                $after[] = $l;
            } else {
                $now[] = $l;
            }
        }

        // as Laravel: the after() limits are checked before the request too
        foreach ($after as $l) {
            $l->result = $this->limiter->peekLimit($l->key, $l->max, $l->window);
            if (!$l->result['allowed']) {
                throw $this->refuse($request, $l, $policy);
            }
        }
        $tightest = null;
        if ($now) {
            $list = array_map(fn ($l) => [$l->key, $l->max, $l->window], $now);
            $r = $this->limiter->attemptLimits($list);
            $l = $now[$this->limiter->describedLimit($list, $r)];
            $l->result = $r;
            if (!$r['allowed']) {
                throw $this->refuse($request, $l, $policy);
            }
            $tightest = $l;
        }

        $response = $next($request);

        foreach ($after as $l) {
            if (($l->after)($response)) {
                $r = $this->limiter->attemptLimit($l->key, $l->max, $l->window);
                if ($r['allowed']) {
                    $l->result = $r;
                }
            }
            if ($tightest === null || [$l->result['remaining'], $l->pos] < [$tightest->result['remaining'], $tightest->pos]) {
                $tightest = $l;
            }
        }
        if ($tightest !== null) {
            $this->ietf = $this->ietf($tightest->result, $policy);
            try {
                $response = $this->addHeaders($response, $tightest->max, $tightest->result['remaining']);
            } finally {
                $this->ietf = null;
            }
        }

        return $response;
    }

    /** Laravel's exception (or the Limit's response) for a refusal described by $l->result. */
    private function refuse($request, object $l, ?string $policy): \Throwable
    {
        if ($policy !== null) {
            $this->retryAfter[$l->key] = (int) ceil($l->result['retry_after']);
            $this->ietf = $this->ietf($l->result, $policy);
        }
        try {
            return $this->buildException($request, $l->key, $l->max, $l->response);
        } finally {
            $this->ietf = null;
            unset($this->retryAfter[$l->key]);
        }
    }

    /** RateLimit and RateLimit-Policy for a result, under the Laravel limiter's name. */
    private function ietf(array $result, string $policy): array
    {
        $result['policy'] = $policy;
        $h = Limiter::headers($result);

        return ['RateLimit-Policy' => $h['RateLimit-Policy'], 'RateLimit' => $h['RateLimit']];
    }

    protected function getTimeUntilNextRetry($key)
    {
        return $this->retryAfter[$key] ?? parent::getTimeUntilNextRetry($key);
    }

    protected function getHeaders($maxAttempts, $remainingAttempts, $retryAfter = null, ?Response $response = null)
    {
        $headers = parent::getHeaders($maxAttempts, $remainingAttempts, $retryAfter, $response);

        return $headers && $this->ietf ? $headers + $this->ietf : $headers;
    }
}
