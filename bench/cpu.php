<?php
// `make bench-cpu`: one row, one side, N calls, for bench/cpu.sh to run under
// callgrind. Usage: php bench/cpu.php ROW SIDE N   (SIDE: rk or peer)
//                   php bench/cpu.php --list        (ROW|label|peer label)
// PHP runs with opcache on (as PHP-FPM does), so the framework peers' PHP code
// runs as it would in production. Every row sets up its objects and connections, makes WARM calls, then N
// calls: cpu.sh runs it with two values of N and divides the difference in
// instructions by the difference in N, so set-up, warm-up and PHP's own
// start-up cancel out.
require __DIR__ . '/_common.inc';
require __DIR__ . '/baseline/leaderboard.php';
require __DIR__ . '/baseline/lock.php';
require __DIR__ . '/baseline/queue.php';
require __DIR__ . '/baseline/rate.php';
require __DIR__ . '/baseline/cache.php';
require __DIR__ . '/peers.inc';

const WARM = 200;

$url = bench_url();
$ns = 'bench:cpu:' . getmypid() . ':';

/**
 * ROW => [label, peer label, rediskit set-up, peer set-up]; a set-up returns
 * the closure one call runs.
 */
$rows = [
    'setScore' => ['`setScore`', 'phpredis `zAdd`',
        function () use ($url, $ns) { $lb = new RedisKit\RedisLeaderboard('lb', $url, ['prefix' => $ns]); $i = 0;
            return function () use ($lb, &$i) { $lb->setScore('m' . ($i++ % 1000), $i); }; },
        function () use ($ns) { $r = bench_phpredis(); $i = 0;
            return function () use ($r, $ns, &$i) { $r->zAdd($ns . 'seed-lb', $i, 'm' . ($i++ % 1000)); }; }],
    'rank' => ['`rank`', 'phpredis `zRevRank`',
        function () use ($url, $ns) { $lb = new RedisKit\RedisLeaderboard('lb', $url, ['prefix' => $ns]); seed_board($lb);
            return function () use ($lb) { $lb->rank('m500'); }; },
        function () use ($ns) { $r = bench_phpredis(); seed_zset($r, $ns . 'seed-lb');
            return function () use ($r, $ns) { $r->zRevRank($ns . 'seed-lb', 'm500'); }; }],
    'top10' => ['`top(10)`', 'phpredis `zRevRange(0, 9, true)`',
        function () use ($url, $ns) { $lb = new RedisKit\RedisLeaderboard('lb', $url, ['prefix' => $ns]); seed_board($lb);
            return function () use ($lb) { $lb->top(10); }; },
        function () use ($ns) { $r = bench_phpredis(); seed_zset($r, $ns . 'seed-lb');
            return function () use ($r, $ns) { $r->zRevRange($ns . 'seed-lb', 0, 9, true); }; }],
    'top10-local' => ['`top(10)` from the local tier', 'phpredis `zRevRange(0, 9, true)`',
        function () use ($url, $ns) { $lb = new RedisKit\RedisLeaderboard('lbl', $url, ['prefix' => $ns, 'local' => true]); seed_board($lb);
            return function () use ($lb) { $lb->top(10); }; },
        function () use ($ns) { $r = bench_phpredis(); seed_zset($r, $ns . 'seed-lb');
            return function () use ($r, $ns) { $r->zRevRange($ns . 'seed-lb', 0, 9, true); }; }],
    'around' => ['`around(m, 2)`', 'seed: `zRevRank` + `zRevRange`',
        function () use ($url, $ns) { $lb = new RedisKit\RedisLeaderboard('lb', $url, ['prefix' => $ns]); seed_board($lb);
            return function () use ($lb) { $lb->around('m500', 2); }; },
        function () use ($ns) { $r = bench_phpredis(); seed_zset($r, $ns . 'seed-lb'); $lb = new SeedLeaderboard($r, $ns . 'seed-lb');
            return function () use ($lb) { $lb->around('m500'); }; }],
    'lock-laravel' => ['lock: new + acquire + release', 'Laravel `PhpRedisLock` (new + `acquire` + `release`)',
        function () use ($url, $ns) {
            return function () use ($url, $ns) { $l = new RedisKit\RedisLock('cycle', $url, ['prefix' => $ns]); $l->acquire(); $l->release(); }; },
        function () use ($ns) { $c = laravel_connection();
            return function () use ($c, $ns) { $l = new Illuminate\Cache\PhpRedisLock($c, $ns . 'lv-cycle', 10); $l->acquire(); $l->release(); }; }],
    'lock-seed' => ['lock: new + acquire + release', 'seed: `SET NX EX` + `EVAL` on phpredis',
        function () use ($url, $ns) {
            return function () use ($url, $ns) { $l = new RedisKit\RedisLock('cycle', $url, ['prefix' => $ns]); $l->acquire(); $l->release(); }; },
        function () use ($ns) { $r = bench_phpredis();
            return function () use ($r, $ns) { $l = new SeedRedisLock($r, $ns . 'seed-cycle'); $l->tryAcquire(); $l->release(); }; }],
    'lock-symfony' => ['lock: new + acquire + release', 'symfony/lock `RedisStore` (`createLock` + `acquire` + `release`)',
        function () use ($url, $ns) {
            return function () use ($url, $ns) { $l = new RedisKit\RedisLock('cycle', $url, ['prefix' => $ns]); $l->acquire(); $l->release(); }; },
        function () use ($ns) { $f = symfony_lock_factory();
            return function () use ($f, $ns) { $l = $f->createLock($ns . 'sf-cycle', 30.0, false); $l->acquire(); $l->release(); }; }],
    'allow-laravel' => ['`allow()` (sliding window)', 'Laravel `DurationLimiter::acquire()`',
        function () use ($url, $ns) { $rl = new RedisKit\RateLimiter('rl', 10000000, 60.0, $url, ['prefix' => $ns]);
            return function () use ($rl) { $rl->allow('user'); }; },
        function () use ($ns) { $c = laravel_connection(); $d = new Illuminate\Redis\Limiters\DurationLimiter($c, $ns . 'lv-dl', 10000000, 60);
            return function () use ($d) { $d->acquire(); }; }],
    'allow-cache' => ['`allow()` (sliding window)', 'Laravel cache `RateLimiter` (`tooManyAttempts` + `hit`)',
        function () use ($url, $ns) { $rl = new RedisKit\RateLimiter('rl', 10000000, 60.0, $url, ['prefix' => $ns]);
            return function () use ($rl) { $rl->allow('user'); }; },
        function () use ($ns) { $lim = laravel_cache_limiter($ns);
            return function () use ($lim) { if (!$lim->tooManyAttempts('user', 10000000)) $lim->hit('user', 60); }; }],
    'allow-symfony' => ['`allow()` (sliding window)', 'symfony/rate-limiter sliding window `consume()`',
        function () use ($url, $ns) { $rl = new RedisKit\RateLimiter('rl', 10000000, 60.0, $url, ['prefix' => $ns]);
            return function () use ($rl) { $rl->allow('user'); }; },
        function () use ($ns) { $l = symfony_limiter($ns, 'sliding_window', 10000000);
            return function () use ($l) { $l->consume(1); }; }],
    'push' => ['`DelayQueue::push`', 'seed `zAdd`',
        function () use ($url, $ns) { $q = new RedisKit\DelayQueue('q', $url, ['prefix' => $ns]);
            return function () use ($q) { $q->push('{"job":"mail","to":42}', 60.0); }; },
        function () use ($ns) { $r = bench_phpredis(); $r->setOption(Redis::OPT_PREFIX, $ns); $q = new DelayQueue($r);
            return function () use ($q) { $q->push('{"job":"mail","to":42}', 60); }; }],
    'remember-hit' => ['`RedisCache::remember()` hit', 'seed `getCache()` (phpredis `get` + `json_decode`)',
        function () use ($url, $ns) { $c = new RedisKit\RedisCache('c', $url, ['prefix' => $ns]); $c->set('user', cpu_cached_value(), 3600);
            return function () use ($c) { $c->remember('user', 3600, fn() => null); }; },
        function () use ($ns) { $r = bench_phpredis(); $r->set($ns . 'seed-user', json_encode(cpu_cached_value()));
            return function () use ($r, $ns) { seed_getCache($r, $ns . 'seed-user', fn() => null); }; }],
    'remember-hit-local' => ['`RedisCache::remember()` hit from the local tier', 'seed `getCache()` (phpredis `get` + `json_decode`)',
        function () use ($url, $ns) { $c = new RedisKit\RedisCache('cl', $url, ['prefix' => $ns, 'local' => true]); $c->set('user', cpu_cached_value(), 3600);
            return function () use ($c) { $c->remember('user', 3600, fn() => null); }; },
        function () use ($ns) { $r = bench_phpredis(); $r->set($ns . 'seed-user', json_encode(cpu_cached_value()));
            return function () use ($r, $ns) { seed_getCache($r, $ns . 'seed-user', fn() => null); }; }],
    'get-local' => ['`RedisCache::get()` from the local tier (serializer `none`)', 'phpredis `get`',
        function () use ($url, $ns) { $c = new RedisKit\RedisCache('cn', $url, ['prefix' => $ns, 'local' => true, 'serializer' => 'none']);
            $c->set('user', json_encode(cpu_cached_value()), 3600);
            return function () use ($c) { $c->get('user'); }; },
        function () use ($ns) { $r = bench_phpredis(); $r->set($ns . 'seed-user', json_encode(cpu_cached_value()));
            return function () use ($r, $ns) { $r->get($ns . 'seed-user'); }; }],
    'getmany-100' => ['`RedisCache::getMany()` of 100', 'phpredis `mget` of 100 + `unserialize` each',
        function () use ($url, $ns) { $c = new RedisKit\RedisCache('c', $url, ['prefix' => $ns]); $keys = array_map(fn($i) => "k$i", range(1, 100));
            $c->setMany(array_fill_keys($keys, cpu_cached_value()), 3600);
            return function () use ($c, $keys) { $c->getMany($keys); }; },
        function () use ($ns) { $r = bench_phpredis(); $keys = array_map(fn($i) => $ns . "seed-k$i", range(1, 100));
            foreach ($keys as $k) $r->set($k, serialize(cpu_cached_value()));
            return function () use ($r, $keys) { $o = []; foreach ($r->mget($keys) as $v) $o[] = $v === false ? null : unserialize($v); }; }],
];

/** A cached row, as an app caches a user record. */
function cpu_cached_value(): array
{
    return ['id' => 1001, 'name' => 'Ann', 'tags' => ['a', 'b', 'c'], 'score' => 12.5];
}

function seed_board(RedisKit\RedisLeaderboard $lb): void
{
    $s = [];
    for ($i = 0; $i < 1000; $i++) $s["m$i"] = $i * 7 % 1000;
    $lb->setScores($s);
}

function seed_zset(Redis $r, string $key): void
{
    for ($i = 0; $i < 1000; $i++) $r->zAdd($key, $i * 7 % 1000, "m$i");
}

if (($argv[1] ?? '') === '--list') {
    foreach ($rows as $k => [$label, $peer]) echo "$k|$label|$peer\n";
    exit(0);
}
[$row, $side, $n] = [$argv[1] ?? '', $argv[2] ?? '', (int)($argv[3] ?? 0)];
if (!isset($rows[$row]) || !in_array($side, ['rk', 'peer'], true)) {
    fwrite(STDERR, "usage: php bench/cpu.php ROW rk|peer N (ROW: " . implode(', ', array_keys($rows)) . ")\n");
    exit(2);
}
$call = ($rows[$row][$side === 'rk' ? 2 : 3])();
for ($i = 0; $i < WARM; $i++) $call();
for ($i = 0; $i < $n; $i++) $call();
// leave nothing behind
$r = bench_phpredis();
foreach ($r->keys($ns . '*') ?: [] as $k) $r->del($k);
foreach ($r->keys('*' . $ns . '*') ?: [] as $k) $r->del($k);
