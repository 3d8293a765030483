<?php

declare(strict_types=1);

namespace RedisKit\Symfony\DataCollector;

use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpKernel\DataCollector\DataCollector;
use Symfony\Component\HttpKernel\DataCollector\LateDataCollectorInterface;
use Symfony\Component\HttpKernel\Event\RequestEvent;

/**
 * The profiler's rediskit panel (service `rediskit.data_collector`, id
 * `rediskit`, registered by RedisKitBundle when the app has Symfony's
 * profiler): what this request made rediskit do, from this worker's own
 * counters (`RedisKit\stats()`), read once when the request starts
 * (kernel.request) and again when the profiler collects. The panel shows the
 * difference: commands, round trips and the time spent waiting for Redis,
 * errors and reconnects, locks, limiter decisions, cache hits and misses,
 * queue operations. It sends nothing to Redis.
 *
 * The counters are this worker's (the process's, or the thread's under a
 * thread-safe PHP), so under a long-running worker (RoadRunner, FrankenPHP's
 * worker mode, Swoole) the difference is still this request's work. A
 * request's window ends at the profiler's collect (kernel.response); for the
 * main request it is extended to the profile's save (kernel.terminate), so
 * the work of terminate listeners counts too. A sub-request's profile shows
 * the sub-request's work, the main request's includes its sub-requests'.
 * Without the extension, or for a request whose start it did not see, it
 * collects no numbers and the panel says why.
 *
 * What is collected is a plain array of integers (serializable, nothing of the
 * request or the connection); reset() forgets it and every start snapshot.
 */
final class RedisKitDataCollector extends DataCollector implements LateDataCollectorInterface
{
    /** The panel's template (the bundle's @RedisKit namespace: src/Resources/views). */
    public const TEMPLATE = '@RedisKit/Collector/rediskit.html.twig';

    /** Keys of RedisKit\stats() that are not counters. */
    private const NOT_COUNTERS = ['pid', 'live_connections'];

    /** The counters of each group of the panel: stats() key => label. */
    private const GROUPS = [
        'locks' => ['lock_acquired' => 'acquired', 'lock_contended' => 'contended', 'lock_timed_out' => 'timed out', 'lock_lost' => 'lost'],
        'limiter' => ['limiter_allowed' => 'allowed', 'limiter_denied' => 'denied', 'limiter_local_blocks' => 'denied from local memory'],
        'cache' => ['cache_hits' => 'hits', 'cache_misses' => 'misses', 'cache_computes' => 'computes', 'cache_waits' => 'waits for another process\'s compute', 'cache_early_refreshes' => 'early refreshes', 'cache_stale_served' => 'stale served', 'cache_local_hits' => 'hits from local memory'],
        'queues' => ['queue_pushed' => 'pushed', 'queue_claimed' => 'claimed', 'queue_acked' => 'acked', 'queue_redelivered' => 'redelivered', 'queue_dead' => 'dead-lettered', 'queue_spooled' => 'spooled (Redis down)'],
        'connections' => ['connections_opened' => 'opened', 'reconnects' => 'reconnects', 'errors' => 'errors', 'scripts_loaded' => 'scripts loaded', 'noscript_fallbacks' => 'NOSCRIPT fallbacks', 'topology_queries' => 'topology queries'],
    ];

    /** @var \WeakMap<Request, array{stats: array<string, int>, main: bool}> stats() at each request's start */
    private \WeakMap $started;

    /** @var array<string, int>|null the start of the main request this copy collected (for lateCollect) */
    private ?array $mainStart = null;

    public function __construct()
    {
        $this->reset();
    }

    /** Whether the rediskit extension is loaded in this PHP. */
    public static function extensionLoaded(): bool
    {
        return \function_exists('RedisKit\stats');
    }

    /** kernel.request (an early listener): this request's start snapshot. */
    public function onKernelRequest(RequestEvent $event): void
    {
        if (self::extensionLoaded()) {
            $this->started[$event->getRequest()] = ['stats' => \RedisKit\stats(), 'main' => $event->isMainRequest()];
        }
    }

    public function collect(Request $request, Response $response, ?\Throwable $exception = null): void
    {
        $this->mainStart = null;
        if (!self::extensionLoaded()) {
            $this->data = ['extension' => false, 'measured' => false, 'pid' => 0, 'live_connections' => 0, 'counters' => []];
            return;
        }
        $end = \RedisKit\stats();
        $start = $this->started[$request] ?? null;
        // a start from another process (a fork between the two) is no start
        if ($start === null || ($start['stats']['pid'] ?? null) !== ($end['pid'] ?? null)) {
            $this->data = ['extension' => true, 'measured' => false, 'pid' => (int) ($end['pid'] ?? 0), 'live_connections' => (int) ($end['live_connections'] ?? 0), 'counters' => []];
            return;
        }
        $this->data = self::difference($start['stats'], $end);
        if ($start['main']) {
            $this->mainStart = $start['stats'];
        }
    }

    /**
     * Called by the profiler when it saves the profile (kernel.terminate), on
     * the profile's copy of this collector: a main request's numbers then
     * include the work of terminate listeners. A sub-request's stay as
     * collect() found them.
     */
    public function lateCollect(): void
    {
        if ($this->mainStart !== null && self::extensionLoaded()) {
            $end = \RedisKit\stats();
            if (($end['pid'] ?? null) === ($this->mainStart['pid'] ?? null)) {
                $this->data = self::difference($this->mainStart, $end);
            }
        }
        $this->mainStart = null;
    }

    public function getName(): string
    {
        return 'rediskit';
    }

    public function reset(): void
    {
        $this->data = ['extension' => self::extensionLoaded(), 'measured' => false, 'pid' => 0, 'live_connections' => 0, 'counters' => []];
        $this->started = new \WeakMap();
        $this->mainStart = null;
    }

    /** False when the extension was not loaded in the PHP that served the request. */
    public function isExtensionLoaded(): bool
    {
        return (bool) ($this->data['extension'] ?? false);
    }

    /** False when there are no numbers (no extension, or the request's start was not seen). */
    public function isMeasured(): bool
    {
        return (bool) ($this->data['measured'] ?? false);
    }

    /** The worker's process id. */
    public function getPid(): int
    {
        return (int) ($this->data['pid'] ?? 0);
    }

    /** Connections this worker held open at the end (a gauge, not this request's). */
    public function getLiveConnections(): int
    {
        return (int) ($this->data['live_connections'] ?? 0);
    }

    /** @return array<string, int> every counter of RedisKit\stats(), this request's part (0 when not measured) */
    public function getCounters(): array
    {
        return $this->data['counters'] ?? [];
    }

    /** One counter of RedisKit\stats() (`commands`, `lock_acquired`, ...), this request's part; 0 for an unknown name. */
    public function get(string $counter): int
    {
        return (int) ($this->data['counters'][$counter] ?? 0);
    }

    /** Commands sent (a pipeline's or a script's count each). */
    public function getCommands(): int
    {
        return $this->get('commands');
    }

    /** Replies waited for: a pipeline or a script is one. */
    public function getRoundTrips(): int
    {
        return $this->get('round_trips');
    }

    /** Microseconds spent waiting for Redis's replies (network and Redis). */
    public function getRedisWaitUs(): int
    {
        return $this->get('redis_wait_us');
    }

    /** The same, in milliseconds. */
    public function getRedisWaitMs(): float
    {
        return $this->getRedisWaitUs() / 1000;
    }

    /** Commands that failed (Redis errors and connection failures). */
    public function getErrors(): int
    {
        return $this->get('errors');
    }

    /** Whether this request made rediskit do anything at all. */
    public function hasActivity(): bool
    {
        return array_filter($this->getCounters()) !== [];
    }

    /** @return array<string, int> label => this request's count, for locks, limiter, cache, queues or connections */
    public function getGroup(string $group): array
    {
        $out = [];
        foreach (self::GROUPS[$group] ?? [] as $counter => $label) {
            $out[$label] = $this->get($counter);
        }
        return $out;
    }

    /** @return list<string> the groups getGroup() knows, in the panel's order */
    public function getGroupNames(): array
    {
        return array_keys(self::GROUPS);
    }

    /** Cache hits per read (hits + misses), in percent; null without a read. */
    public function getCacheHitRatio(): ?float
    {
        $reads = $this->get('cache_hits') + $this->get('cache_misses');
        return $reads === 0 ? null : round(100 * $this->get('cache_hits') / $reads, 1);
    }

    /**
     * @param array<string, int> $start
     * @param array<string, int> $end
     */
    private static function difference(array $start, array $end): array
    {
        $counters = [];
        foreach ($end as $name => $value) {
            if (\is_int($value) && !\in_array($name, self::NOT_COUNTERS, true)) {
                $counters[(string) $name] = $value - (int) ($start[$name] ?? 0);
            }
        }
        return ['extension' => true, 'measured' => true, 'pid' => (int) ($end['pid'] ?? 0), 'live_connections' => (int) ($end['live_connections'] ?? 0), 'counters' => $counters];
    }
}
