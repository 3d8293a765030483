<?php
// packages/laravel (rediskit/laravel) against Laravel's own Redis code, both
// through Laravel's APIs in one booted application (Debian's Laravel, Laravel's
// Redis connections on phpredis as apps run them): Cache::lock() cycles and
// handoffs, cache hits through remember(), get() and many() (rediskit store vs
// Laravel's redis store), the throttle middleware
// (RedisKit\Laravel\ThrottleRequests vs ThrottleRequestsWithRedis and the
// cache-backed ThrottleRequests), and queue push / pop (connector rediskit vs
// Laravel's RedisQueue).
require __DIR__ . '/_common.inc';
putenv('REDIS_URL=' . bench_url());
require __DIR__ . '/../packages/laravel/tests/_laravel.inc';

use Illuminate\Cache\RateLimiting\Limit;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Facades\RateLimiter;

$p = parse_url(bench_url());
$app = rk_app([
    'database.redis' => ['client' => 'phpredis', 'options' => ['prefix' => ''],
        'default' => ['host' => $p['host'] ?? '127.0.0.1', 'port' => $p['port'] ?? 6379, 'database' => 0],
        'lat' => ['host' => $p['host'] ?? '127.0.0.1', 'port' => $p['port'] ?? 6379, 'database' => 0]],
    'queue.connections.redis' => ['driver' => 'redis', 'connection' => 'default', 'queue' => 'bench', 'retry_after' => 90, 'block_for' => null],
    'queue.connections.rediskit' => ['driver' => 'rediskit', 'queue' => 'bench', 'retry_after' => 90, 'block_for' => 0],
]);
$lv = 'Laravel ' . rk_laravel_version();

// ---- locks
$cycle = fn(string $store) => function () use ($store) {
    $l = Cache::store($store)->lock('bench-cycle', 10);
    $l->get();
    $l->release();
};
$best = ['rk' => 0, 'lv' => 0];
for ($i = 0; $i < 5; $i++) {
    $best['rk'] = max($best['rk'], bench_ops($cycle('rediskit'), 0.3));
    $best['lv'] = max($best['lv'], bench_ops($cycle('redis'), 0.3));
}
bench_row("$lv Cache::lock() cycle (lock + get + release): store rediskit vs store redis (PhpRedisLock)", $best['rk'], $best['lv']);

// ---- cache: a hit through Cache::remember(), and a get() of a stored value
$data = ['id' => 1001, 'name' => 'Ann', 'tags' => ['a', 'b', 'c'], 'score' => 12.5];
$never = fn() => throw new RuntimeException('the value is cached: no compute');
foreach (['rediskit', 'redis'] as $store) {
    Cache::store($store)->put('bench-hit', $data, 3600);
}
$best = ['rk' => 0, 'lv' => 0, 'rkg' => 0, 'lvg' => 0];
for ($i = 0; $i < 5; $i++) {
    $best['rk'] = max($best['rk'], bench_ops(fn() => Cache::store('rediskit')->remember('bench-hit', 3600, $never), 0.3));
    $best['lv'] = max($best['lv'], bench_ops(fn() => Cache::store('redis')->remember('bench-hit', 3600, $never), 0.3));
    $best['rkg'] = max($best['rkg'], bench_ops(fn() => Cache::store('rediskit')->get('bench-hit'), 0.3));
    $best['lvg'] = max($best['lvg'], bench_ops(fn() => Cache::store('redis')->get('bench-hit'), 0.3));
}
bench_row("$lv Cache::remember() hit: store rediskit (single-flight) vs store redis (phpredis)", $best['rk'], $best['lv']);
bench_row("$lv Cache::get() hit: store rediskit vs store redis (phpredis)", $best['rkg'], $best['lvg']);
$keys = array_map(fn($i) => "bench-many-$i", range(1, 100));
foreach (['rediskit', 'redis'] as $store) {
    Cache::store($store)->putMany(array_fill_keys($keys, $data), 3600);
}
$best = ['rk' => 0, 'lv' => 0];
for ($i = 0; $i < 5; $i++) {
    $best['rk'] = max($best['rk'], bench_ops(fn() => Cache::store('rediskit')->many($keys), 0.3));
    $best['lv'] = max($best['lv'], bench_ops(fn() => Cache::store('redis')->many($keys), 0.3));
}
bench_row("$lv Cache::many() of 100 hits: store rediskit vs store redis (phpredis)", $best['rk'], $best['lv']);

/** ms from release() to the waiter's block() returning, $n rounds, one waiter process */
function handoff(string $store, int $n): array
{
    return bench_handoff(function () use ($store) {
        $holder = Cache::store($store)->lock('bench-handoff', 30);
        $holder->get();
        return fn() => $holder->release();
    }, fn(callable $got) => Cache::store($store)->lock('bench-handoff', 30)->block(10, $got), $n);
}
$rk = handoff('rediskit', 40);
$lvh = handoff('redis', 20);
bench_info(sprintf('%s Cache::lock()->block() handoff, release to the waiter holding it: store rediskit p50 %.2f ms, p99 %.2f ms (40 rounds); store redis (polls every 250 ms) p50 %.1f ms, p99 %.1f ms (20 rounds)',
    $lv, bench_pct($rk, 50), bench_pct($rk, 99), bench_pct($lvh, 50), bench_pct($lvh, 99)));

// ---- throttle middleware, an allowed request (named limiter, one Limit)
RateLimiter::for('bench', fn() => Limit::perMinute(100000000)->by('bench-user'));
$request = Request::create('/bench');
$next = fn() => new Illuminate\Http\Response('ok');
$rkMw = $app->make(RedisKit\Laravel\ThrottleRequests::class);
$laravelLimiter = function () {
    $l = new Illuminate\Cache\RateLimiter(Cache::store('redis'));
    $l->for('bench', fn() => Limit::perMinute(100000000)->by('bench-user'));
    return $l;
};
$lvRedisMw = new Illuminate\Routing\Middleware\ThrottleRequestsWithRedis($laravelLimiter(), $app['redis']);
$lvCacheMw = new Illuminate\Routing\Middleware\ThrottleRequests($laravelLimiter());
$mw = fn($m) => fn() => $m->handle($request, $next, 'bench');
$best = ['rk' => 0, 'redis' => 0, 'cache' => 0];
for ($i = 0; $i < 5; $i++) {
    $best['rk'] = max($best['rk'], bench_ops($mw($rkMw), 0.3));
    $best['redis'] = max($best['redis'], bench_ops($mw($lvRedisMw), 0.3));
    $best['cache'] = max($best['cache'], bench_ops($mw($lvCacheMw), 0.3));
}
bench_row("$lv throttle middleware, allowed request: RedisKit\\Laravel\\ThrottleRequests vs ThrottleRequestsWithRedis", $best['rk'], $best['redis']);
bench_row("$lv throttle middleware, allowed request: RedisKit\\Laravel\\ThrottleRequests vs ThrottleRequests (cache RateLimiter, redis store)", $best['rk'], $best['cache']);

// ---- queue: pushRaw, then pop + delete
$payload = json_encode(['uuid' => 'b', 'id' => 'b', 'attempts' => 0, 'displayName' => 'BenchJob', 'job' => 'Illuminate\\Queue\\CallQueuedHandler@call', 'maxTries' => null, 'timeout' => null, 'data' => ['commandName' => 'BenchJob', 'command' => 'x']]);
$n = 5000;
$rates = [];
foreach (['rediskit', 'redis'] as $c) {
    $q = $app['queue']->connection($c);
    $q->clear('bench');
    $rates[$c]['push'] = bench_once(function () use ($q, $payload, $n) { for ($i = 0; $i < $n; $i++) $q->pushRaw($payload, 'bench'); }, $n);
    $rates[$c]['pop'] = bench_once(function () use ($q, $n) { for ($i = 0; $i < $n; $i++) { $q->pop('bench')->delete(); } }, $n);
    $rates[$c]['left'] = $q->size('bench');
}
bench_row("$lv queue pushRaw: connection rediskit vs RedisQueue (phpredis)", $rates['rediskit']['push'], $rates['redis']['push']);
bench_row("$lv queue pop + delete: connection rediskit vs RedisQueue (phpredis)", $rates['rediskit']['pop'], $rates['redis']['pop']);
if ($rates['rediskit']['left'] || $rates['redis']['left']) fwrite(STDERR, "bench/laravel.php: jobs left behind\n");

// ---- 8 and 32 processes: Cache::lock() cycles (a lock per process), pushRaw,
// the throttle middleware (one limiter key per process). Laravel's phpredis
// connections are dropped before each fork: every child opens its own.
$ctl = bench_phpredis();
$fresh = function () use ($app) { foreach (['default', 'lat'] as $c) $app['redis']->purge($c); };
$rows = [
    ['Cache::lock() cycle', 'store redis (PhpRedisLock)', fn(string $store) => function ($p) use ($store) {
        return function () use ($store, $p) { $l = Cache::store($store)->lock("bench-conc-$p", 10); $l->get(); $l->release(); };
    }, 'rediskit', 'redis'],
    ['queue pushRaw', 'RedisQueue (phpredis)', fn(string $c) => function ($p) use ($app, $c, $payload) {
        $q = $app['queue']->connection($c);
        return fn() => $q->pushRaw($payload, "conc-$p");
    }, 'rediskit', 'redis'],
    ['throttle middleware, allowed request', 'ThrottleRequestsWithRedis', fn(string $which) => function ($p) use ($app, $request, $next, $which) {
        RateLimiter::for('bench', fn() => Limit::perMinute(100000000)->by("bench-user-$p"));
        $m = $which === 'rk' ? $app->make(RedisKit\Laravel\ThrottleRequests::class)
            : new Illuminate\Routing\Middleware\ThrottleRequestsWithRedis((function () use ($p) {
                $l = new Illuminate\Cache\RateLimiter(Cache::store('redis'));
                $l->for('bench', fn() => Limit::perMinute(100000000)->by("bench-user-$p"));
                return $l;
            })(), $app['redis']);
        return fn() => $m->handle($request, $next, 'bench');
    }, 'rk', 'redis'],
];
foreach ([8, 32] as $procs) {
    foreach ($rows as [$op, $peer, $make, $rkArg, $peerArg]) {
        $fresh();
        [$a, $ac] = bench_concurrent($ctl, $make($rkArg), $procs, 2.0);
        $fresh();
        [$b, $bc] = bench_concurrent($ctl, $make($peerArg), $procs, 2.0);
        printf("CONC|%d|%s %s|%.0f|%.1f|%s|%.0f|%.1f\n", $procs, $lv, $op, $a, $ac, $peer, $b, $bc);
    }
}
foreach (['rediskit', 'redis'] as $c) {
    for ($p = 0; $p < 32; $p++) $app['queue']->connection($c)->clear("conc-$p");
}

// ---- delayed jobs: how late an idle consumer (blocked in pop()) gets them
/** ms between each job's due time and pop() returning it; 100 jobs due 10 ms apart */
function lateness(string $connection): array
{
    global $app;
    $raw = new RkRaw();
    $key = rk_ns() . 'lat:' . $connection;
    // each process resolves the connection itself (a socket is not shared across fork)
    $pid = pcntl_fork();
    if ($pid === 0) {
        $q = $app['queue']->connection($connection);
        $r = new RkRaw();
        $end = microtime(true) + 4.0;
        $got = 0;
        while ($got < 100 && microtime(true) < $end) {
            $job = $q->pop('lat');
            if (!$job) continue;
            $now = microtime(true);
            $r->cmd('RPUSH', $key, sprintf('%.3f', ($now - json_decode($job->getRawBody(), true)['data']['due']) * 1000));
            $job->delete();
            $got++;
        }
        exit(0);
    }
    usleep(300000);                              // the consumer is waiting in pop()
    $q = $app['queue']->connection($connection);
    $t0 = microtime(true) + 0.5;
    for ($i = 0; $i < 100; $i++) {
        $due = $t0 + $i * 0.01;
        $q->later($due - microtime(true), 'BenchJob', ['due' => $due], 'lat');
    }
    pcntl_waitpid($pid, $st);
    $lags = array_map('floatval', $raw->cmd('LRANGE', $key, '0', '-1'));
    return count($lags) === 100 ? $lags : [NAN];
}
$app['config']->set('queue.connections.rediskit-wait', ['block_for' => 1] + $app['config']->get('queue.connections.rediskit'));
$app['config']->set('queue.connections.redis-wait', ['block_for' => 1, 'connection' => 'lat'] + $app['config']->get('queue.connections.redis'));
$rk = lateness('rediskit-wait');
$lvl = lateness('redis-wait');
bench_info(sprintf('%s delayed jobs (100, due 10 ms apart), an idle consumer blocked in pop() with block_for 1, ms from the due time to pop() returning the job (negative: early): connection rediskit p50 %.2f, p99 %.2f, min %.2f, max %.2f; RedisQueue (due times in whole seconds of the app clock, moved when pop() runs) p50 %.1f, p99 %.1f, min %.1f, max %.1f',
    $lv, bench_pct($rk, 50), bench_pct($rk, 99), min($rk), max($rk), bench_pct($lvl, 50), bench_pct($lvl, 99), min($lvl), max($lvl)));
