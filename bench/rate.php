<?php
require __DIR__ . '/_common.inc';
require __DIR__ . '/baseline/rate.php';

use RedisKit\RateLimiter;

const RATE_BENCH_ALGOS = ['sliding_window', 'fixed_window', 'token_bucket', 'gcra'];

$redis = bench_phpredis();
$url = bench_url();
$ns = 'bench:rl:' . getmypid() . ':';
$seed = new SlidingWindowLimiter($redis);
$sw = fn(string $name, int $limit, float $window, array $o = []) => new RateLimiter($name, $limit, $window, $url, ['prefix' => $ns] + $o);

// allowed checks: 1,000 subjects, 1,000 per minute each (never reached here)
$i = 0;
$rk = $sw('allowed', 1000, 60);
$rkAllowed = bench_ops(function () use ($rk, &$i) { $rk->allow('user_' . ($i++ % 1000)); });
$phpAllowed = bench_ops(function () use ($seed, $ns, &$i) { $seed->allow($ns . 'user_' . ($i++ % 1000), 1000, 60); });
bench_row('rate limit: allowed check, sliding_window (1,000 keys, 1,000/min)', $rkAllowed, $phpAllowed);
foreach (['fixed_window', 'token_bucket', 'gcra'] as $alg) {
    $l = $sw("allowed-$alg", 1000, 60, ['algorithm' => $alg]);
    bench_row("rate limit: allowed check, $alg (vs the seed's sliding window)",
        bench_ops(function () use ($l, &$i) { $l->allow('user_' . ($i++ % 1000)); }), $phpAllowed);
}

// refused checks: one subject over its limit (10 per minute)
$on = $sw('denied', 10, 60);
$off = $sw('denied', 10, 60, ['local_block' => false]);
for ($k = 0; $k < 10; $k++) {
    $on->allow('hot');
    $seed->allow($ns . 'hot', 10, 60);
}
$phpDenied = bench_ops(fn() => $seed->allow($ns . 'hot', 10, 60));
bench_row('rate limit: refused check, local_block on (default)', bench_ops(fn() => $on->allow('hot')), $phpDenied);
bench_row('rate limit: refused check, local_block off (a round trip each)', bench_ops(fn() => $off->allow('hot')), $phpDenied);

// two limits (per second and per hour) for one request: attemptAll in one round trip
$perSec = $sw('two-s', 1000000, 1);
$perHour = $sw('two-h', 100000000, 3600, ['algorithm' => 'gcra']);
bench_row('rate limit: two limits per request (attemptAll vs two seed checks)',
    bench_ops(function () use ($perSec, $perHour, &$i) { RateLimiter::attemptAll([$perSec, $perHour], 'user_' . ($i++ % 1000)); }),
    bench_ops(function () use ($seed, $ns, &$i) {
        $k = 'user_' . ($i++ % 1000);
        $seed->allow($ns . 's:' . $k, 1000000, 1) && $seed->allow($ns . 'h:' . $k, 100000000, 3600);
    }));

// latency of one allowed check
$lat = [];
for ($k = 0; $k < 20000; $k++) {
    $t = hrtime(true);
    $rk->allow('lat_' . ($k % 1000));
    $lat[] = (hrtime(true) - $t) / 1000;
}
bench_info(sprintf('rate limit: allowed check latency p50 %.0f µs, p99 %.0f µs (sliding_window, one round trip)', bench_pct($lat, 50), bench_pct($lat, 99)));

// Redis CPU per allowed check (INFO commandstats), rediskit's script vs the seed's four commands
$cpu = function (callable $fn) use ($redis): float {
    $redis->rawCommand('CONFIG', 'RESETSTAT');
    for ($k = 0; $k < 5000; $k++) $fn($k);
    $usec = 0;
    foreach ($redis->info('commandstats') as $name => $line) {
        if ($name !== 'cmdstat_config|resetstat' && $name !== 'cmdstat_info' && preg_match('/usec=(\d+)/', $line, $m)) $usec += (int)$m[1];
    }
    return $usec / 5000;
};
$costs = [];
foreach (RATE_BENCH_ALGOS as $alg) {
    $l = $sw("cpu-$alg", 1000, 60, ['algorithm' => $alg]);
    $costs[] = sprintf('%s %.1f', $alg, $cpu(fn($k) => $l->allow('user_' . ($k % 1000))));
}
$costs[] = sprintf("the seed's pipeline %.1f", $cpu(fn($k) => $seed->allow($ns . 'cpu:user_' . ($k % 1000), 1000, 60)));
bench_info('rate limit: Redis CPU per allowed check, µs (INFO commandstats): ' . implode(', ', $costs));

// memory per subject at limit 1,000 (a full allowance used within the window)
$sizes = [];
foreach (['sliding_window' => 'sw', 'fixed_window' => 'fw', 'token_bucket' => 'tb', 'gcra' => 'gcra'] as $alg => $tag) {
    $l = $sw("mem", 1000, 3600, ['algorithm' => $alg]);
    for ($k = 0; $k < 1000; $k++) $l->allow('m');
    $sizes[] = sprintf('%s %d', $alg, $redis->rawCommand('MEMORY', 'USAGE', "{$ns}mem:$tag:{m}", 'SAMPLES', '0'));
}
for ($k = 0; $k < 1000; $k++) $seed->allow($ns . 'mem', 1000, 3600);
$sizes[] = sprintf("the seed's ZSET %d", $redis->rawCommand('MEMORY', 'USAGE', 'limit:' . $ns . 'mem', 'SAMPLES', '0'));
bench_info('rate limit: bytes per key at limit 1,000 (MEMORY USAGE, full allowance used): ' . implode(', ', $sizes));

// clean up
foreach ([$ns . '*', 'limit:' . $ns . '*'] as $pattern) {
    $it = null;
    while ($keys = $redis->scan($it, $pattern, 1000)) $redis->del($keys);
}
