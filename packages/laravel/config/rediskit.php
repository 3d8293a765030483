<?php

// rediskit's connection for Laravel (php artisan vendor:publish --tag=rediskit-config).
//
// 'connection' is what the extension's classes take:
//   - a DSN: redis://[user:password@]host:port[/db], rediss://... (TLS), unix:///path.sock
//   - a list of 3 or more DSNs of independent masters: Redlock (locks only)
//   - ['cluster' => [DSN, ...]] or ['sentinel' => [DSN, ...], 'service' => 'mymaster']
// REDISKIT_CONNECTION takes a DSN, or any of these as JSON.
// Nothing here connects while the application boots: the first lock, limiter
// or queue call does (and the connection then persists across requests).

$connection = env('REDISKIT_CONNECTION', env('REDIS_URL', 'redis://127.0.0.1:6379'));
if (is_string($connection) && in_array(substr(ltrim($connection), 0, 1), ['[', '{'], true)) {
    $connection = json_decode($connection, true, 16, JSON_THROW_ON_ERROR);
}

return [
    'connection' => $connection,

    // put before every key rediskit writes (locks also carry the cache store's prefix)
    'prefix' => env('REDISKIT_PREFIX', ''),

    // RedisKit\RateLimiter options of the RateLimiter facade and the throttle
    // middleware: on_error ('throw', 'allow', 'deny' or 'local': what a check
    // answers while Redis cannot be reached) and local_block (true: a worker
    // refuses a key it was refused for without asking Redis until the
    // retry-after; then RateLimiter::clear() reaches other workers late)
    'limiter' => [
        'on_error' => env('REDISKIT_LIMITER_ON_ERROR', 'throw'),
        'local_block' => (bool) env('REDISKIT_LIMITER_LOCAL_BLOCK', false),
    ],

    // true: the `throttle` route middleware is RedisKit\Laravel\ThrottleRequests
    // (every Limit of a request in one atomic check, plus the IETF RateLimit
    // headers), in place of the class the HTTP kernel names (Laravel's
    // ThrottleRequests or ThrottleRequestsWithRedis, or your own); false: the
    // kernel's stays (the RateLimiter facade is rediskit's either way)
    'throttle_alias' => (bool) env('REDISKIT_THROTTLE_ALIAS', true),

    // the Prometheus endpoint (RedisKit\Metrics::openMetrics(): this server's
    // counts, every PHP-FPM worker's): a path such as '/rediskit/metrics'
    // registers a GET route there (no session, no CSRF: a scraper has
    // neither); null: no route. Readable by the client addresses in 'allow'
    // (Request::ip(): mind TrustProxies behind a load balancer) or with
    // `Authorization: Bearer <token>`; anyone else gets 403.
    // the dashboard (rediskit/dashboard): queues, dead letters, locks,
    // limiters, caches, connections and servers at this path ('' or null: no
    // route), in these middleware groups (`web`: your session, auth and CSRF).
    // Who may see it is the `viewRedisKit` gate; define it in a service
    // provider (Gate::define('viewRedisKit', fn ($user) => ...)). Without
    // it, only APP_ENV=local may.
    'dashboard' => [
        'route' => env('REDISKIT_DASHBOARD_ROUTE', '/rediskit'),
        'middleware' => ['web'],
    ],

    'metrics' => [
        'route' => env('REDISKIT_METRICS_ROUTE'),
        'allow' => array_values(array_filter(array_map('trim', explode(',', (string) env('REDISKIT_METRICS_ALLOW', '127.0.0.1,::1'))))),
        'token' => env('REDISKIT_METRICS_TOKEN'),
    ],
];
