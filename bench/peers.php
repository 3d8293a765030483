<?php
// rediskit against the framework code teams would use instead (Laravel's
// PhpRedisLock, DurationLimiter and cache RateLimiter, symfony/lock's
// RedisStore, symfony/rate-limiter), in one process: wall clock (ROW), Redis
// execution per operation by SLOWLOG (SRV), and throughput of 8 and 32
// concurrent processes with the Redis CPU they cost (CONC).
require __DIR__ . '/_common.inc';
require __DIR__ . '/baseline/leaderboard.php';
require __DIR__ . '/baseline/lock.php';
require __DIR__ . '/baseline/queue.php';
require __DIR__ . '/baseline/rate.php';
require __DIR__ . '/peers.inc';

$url = bench_url();
$ns = 'bench:peers:' . getmypid() . ':';
$ctl = bench_phpredis();

/** Best of $runs interleaved short runs of each closure: load only ever slows a run down. */
function best_of(array $fns, int $runs = 5, float $secs = 0.3): array
{
    $best = array_fill_keys(array_keys($fns), 0.0);
    for ($i = 0; $i < $runs; $i++) {
        foreach ($fns as $k => $fn) $best[$k] = max($best[$k], bench_ops($fn, $secs));
    }
    return $best;
}

// ---- the calls, as closures over their own objects
$lockRk = fn() => (function () use ($url, $ns) { $l = new RedisKit\RedisLock('cycle', $url, ['prefix' => $ns]); $l->acquire(); $l->release(); });
$lockLv = function () use ($ns) { $c = laravel_connection(); return function () use ($c, $ns) { $l = new Illuminate\Cache\PhpRedisLock($c, $ns . 'lv-cycle', 10); $l->acquire(); $l->release(); }; };
$lockSf = function () use ($ns) { $f = symfony_lock_factory(); return function () use ($f, $ns) { $l = $f->createLock($ns . 'sf-cycle', 30.0, false); $l->acquire(); $l->release(); }; };
$lockSeed = function () use ($ns) { $r = bench_phpredis(); return function () use ($r, $ns) { $l = new SeedRedisLock($r, $ns . 'seed-cycle'); $l->tryAcquire(); $l->release(); }; };

$allowRk = function (int $limit, string $key) use ($url, $ns) { $rl = new RedisKit\RateLimiter('rl' . $limit, $limit, 60.0, $url, ['prefix' => $ns, 'local_block' => false]); return fn() => $rl->allow($key); };
$allowLv = function (int $limit, string $key) use ($ns) { $d = new Illuminate\Redis\Limiters\DurationLimiter(laravel_connection(), $ns . "lv-dl$limit:$key", $limit, 60); return fn() => $d->acquire(); };
$allowLc = function (int $limit, string $key) use ($ns) { $lim = laravel_cache_limiter($ns . "lc$limit"); return function () use ($lim, $key, $limit) { if ($lim->tooManyAttempts($key, $limit)) return false; $lim->hit($key, 60); return true; }; };
$allowSf = function (int $limit, string $key) use ($ns) { $l = symfony_limiter($ns . "sf$limit$key", 'sliding_window', $limit); return fn() => $l->consume(1)->isAccepted(); };

// ---- 1. wall clock, one process (not in the run of the build before this
// change, RK_BENCH_BEFORE: that run gives the Redis-side tables only)
$big = 10000000;
if (!getenv('RK_BENCH_BEFORE')) {
$r = best_of(['rk' => $lockRk(), 'lv' => $lockLv(), 'sf' => $lockSf()]);
bench_row("lock cycle (new + acquire + release) vs Laravel PhpRedisLock", $r['rk'], $r['lv']);
bench_row("lock cycle (new + acquire + release) vs symfony/lock RedisStore", $r['rk'], $r['sf']);

$r = best_of(['rk' => $allowRk($big, 'u'), 'lv' => $allowLv($big, 'u'), 'lc' => $allowLc($big, 'u'), 'sf' => $allowSf($big, 'u')]);
bench_row("rate limit allowed vs Laravel DurationLimiter::acquire", $r['rk'], $r['lv']);
bench_row("rate limit allowed vs Laravel cache RateLimiter (tooManyAttempts + hit)", $r['rk'], $r['lc']);
bench_row("rate limit allowed vs symfony/rate-limiter sliding_window consume", $r['rk'], $r['sf']);
$deny = ['rk' => $allowRk(5, 'hot'), 'lv' => $allowLv(5, 'hot'), 'lc' => $allowLc(5, 'hot'), 'sf' => $allowSf(5, 'hot')];
foreach ($deny as $fn) for ($i = 0; $i < 10; $i++) $fn();
$r = best_of($deny);
bench_row("rate limit refused (a round trip each) vs Laravel DurationLimiter", $r['rk'], $r['lv']);
bench_row("rate limit refused (a round trip each) vs Laravel cache RateLimiter", $r['rk'], $r['lc']);
bench_row("rate limit refused (a round trip each) vs symfony/rate-limiter", $r['rk'], $r['sf']);

}

// ---- 2. Redis execution per operation: SLOWLOG at threshold 0, top-level
// entries (a script's entry includes everything it calls), in µs per op
$ctl->rawCommand('CONFIG', 'SET', 'slowlog-max-len', '100000');
function redis_us(Redis $ctl, callable $fn, int $ops = 2000): float
{
    return bench_redis_cost($ctl, $fn, $ops)[0];
}
$lb = new RedisKit\RedisLeaderboard('srv-lb', $url, ['prefix' => $ns]);
$s = [];
for ($i = 0; $i < 1000; $i++) $s["m$i"] = $i * 7 % 1000;
$lb->setScores($s);
$seedR = bench_phpredis();
foreach ($s as $m => $v) $seedR->zAdd($ns . 'seed-lb', $v, $m);
$seedLb = new SeedLeaderboard($seedR, $ns . 'seed-lb');
$q = new RedisKit\DelayQueue('srv-q', $url, ['prefix' => $ns]);
$seedQ = new DelayQueue((function () use ($ns) { $r = bench_phpredis(); $r->setOption(Redis::OPT_PREFIX, $ns); return $r; })());
// Laravel's RedisQueue::pushRaw() and later(), as it sends them (its own Lua script; one ZADD)
$laravelPush = function (string $q) use ($ns) { $r = bench_phpredis(); $lua = Illuminate\Queue\LuaScripts::push(); $key = $ns . "queues:$q"; return fn($i) => $r->eval($lua, [$key, "$key:notify", '{"uuid":"' . $i . '","job":"mail","to":42}'], 2); };
$laravelLater = function (string $q) use ($ns) { $r = bench_phpredis(); $key = $ns . "queues:$q:delayed"; return fn($i) => $r->zAdd($key, time() + 60, '{"uuid":"' . getmypid() . '-' . $i . '","job":"mail","to":42}'); };
// pop(10): 10 due jobs claimed per call (pushed ahead: enough for every pass)
$popQ = new RedisKit\DelayQueue('srv-pop', $url, ['prefix' => $ns, 'visibility_timeout' => 3600.0]);
$popQ->pushMany(array_fill(0, 100000, '{"job":"mail","to":42}'));
$popRk = fn($i) => $popQ->pop(10);
$seedPopR = bench_phpredis();
$seedPopR->setOption(Redis::OPT_PREFIX, $ns . 'pop:');
$seedPop = new DelayQueue($seedPopR);
$seedPopR->multi(Redis::PIPELINE);
for ($i = 0; $i < 100000; $i++) $seedPop->push('{"job":"mail","to":' . $i . '}', 0);
$seedPopR->exec();
$popSeed = fn($i) => $seedPop->consume(10);
$srv = [
    ['setScore', fn($i) => $lb->setScore('m' . ($i % 1000), $i), 'ZADD', fn($i) => $seedLb->setScore('m' . ($i % 1000), $i)],
    ['top(10)', fn() => $lb->top(10), 'ZREVRANGE WITHSCORES', fn() => $seedLb->top10()],
    ['around(m, 2)', fn() => $lb->around('m500', 2), 'ZREVRANK + ZREVRANGE', fn() => $seedLb->around('m500')],
    ['lock acquire + release', $lockRk(), 'seed SET NX EX + EVAL', $lockSeed()],
    ['lock acquire + release', $lockRk(), 'Laravel PhpRedisLock', $lockLv()],
    ['lock acquire + release', $lockRk(), 'symfony/lock RedisStore', $lockSf()],
    ['limiter check (sliding)', $allowRk($big, 'srv'), 'Laravel DurationLimiter', $allowLv($big, 'srv')],
    ['limiter check (sliding)', $allowRk($big, 'srv'), 'seed pipeline', (function () use ($ns) { $l = new SlidingWindowLimiter(bench_phpredis()); return fn($i) => $l->allow($ns . 'seed-srv', PHP_INT_MAX, 60); })()],
    ['limiter check (gcra)', (function () use ($url, $ns, $big) { $rl = new RedisKit\RateLimiter('g', $big, 60.0, $url, ['prefix' => $ns, 'algorithm' => 'gcra']); return fn() => $rl->allow('srv'); })(), 'Laravel DurationLimiter', $allowLv($big, 'srv2')],
    ['limiter check (token bucket)', (function () use ($url, $ns, $big) { $rl = new RedisKit\RateLimiter('t', $big, 60.0, $url, ['prefix' => $ns, 'algorithm' => 'token_bucket', 'local_block' => false]); return fn() => $rl->allow('srv'); })(), 'Laravel DurationLimiter', $allowLv($big, 'srv3')],
    ['push (due now)', fn($i) => $q->push('{"job":"mail","to":42}'), "Laravel queue push (RedisQueue's push script)", $laravelPush('srv')],
    ['push with a delay', fn($i) => $q->push('{"job":"mail","to":42}', 60.0), 'Laravel later() (one ZADD)', $laravelLater('srv')],
    ['push with a delay', fn($i) => $q->push('{"job":"mail","to":42}', 60.0), 'seed ZADD', fn($i) => $seedQ->push('{"job":"mail","to":' . $i . '}', 60)],
    ['pop(10) claim', $popRk, 'seed ZRANGEBYSCORE + ZREM each', $popSeed],
];
foreach ($srv as [$op, $rk, $peer, $pf]) {
    // slowlog (top-level entries) and commandstats (slowlog off), µs per operation
    $a = redis_us($ctl, $rk);
    $b = redis_us($ctl, $pf);
    printf("SRV|%s|%.2f|%s|%.2f|%.2f|%.2f\n", $op, $a, $peer, $b, bench_stats_cost($ctl, $rk), bench_stats_cost($ctl, $pf));
}
$ctl->rawCommand('CONFIG', 'SET', 'slowlog-log-slower-than', '10000');

if (getenv('RK_BENCH_SRV_ONLY')) {
    foreach ($ctl->keys($ns . '*') ?: [] as $k) $ctl->del($k);
    foreach ($ctl->keys('*' . $ns . '*') ?: [] as $k) $ctl->del($k);
    exit(0);
}

// ---- 3. throughput of 8 and 32 concurrent processes for 2 s each, and the
// Redis CPU (INFO cpu, user + sys of the server) per 1,000 operations
$conc = [
    ['lock cycle', fn($p) => (function () use ($url, $ns, $p) { return function () use ($url, $ns, $p) { $l = new RedisKit\RedisLock("c$p", $url, ['prefix' => $ns]); $l->acquire(); $l->release(); }; })(),
        'Laravel PhpRedisLock', fn($p) => (function () use ($ns, $p) { $c = laravel_connection(); return function () use ($c, $ns, $p) { $l = new Illuminate\Cache\PhpRedisLock($c, $ns . "lvc$p", 10); $l->acquire(); $l->release(); }; })()],
    ['lock cycle', fn($p) => (function () use ($url, $ns, $p) { return function () use ($url, $ns, $p) { $l = new RedisKit\RedisLock("c$p", $url, ['prefix' => $ns]); $l->acquire(); $l->release(); }; })(),
        'symfony/lock RedisStore', fn($p) => (function () use ($ns, $p) { $f = symfony_lock_factory(); return function () use ($f, $ns, $p) { $l = $f->createLock($ns . "sfc$p", 30.0, false); $l->acquire(); $l->release(); }; })()],
    ['limiter allowed', fn($p) => $allowRk($big, "c$p"), 'Laravel DurationLimiter', fn($p) => $allowLv($big, "c$p")],
    ['limiter allowed', fn($p) => $allowRk($big, "c$p"), 'symfony/rate-limiter', fn($p) => $allowSf($big, "c$p")],
    ['setScore', fn($p) => (function () use ($url, $ns, $p) { $b = new RedisKit\RedisLeaderboard("cl$p", $url, ['prefix' => $ns]); return fn($i) => $b->setScore('m' . ($i % 1000), $i); })(),
        'phpredis ZADD', fn($p) => (function () use ($ns, $p) { $r = bench_phpredis(); return fn($i) => $r->zAdd($ns . "cz$p", $i, 'm' . ($i % 1000)); })()],
    ['push', fn($p) => (function () use ($url, $ns, $p) { $q = new RedisKit\DelayQueue("cq$p", $url, ['prefix' => $ns]); return fn($i) => $q->push('{"job":"mail"}', 60.0); })(),
        'seed ZADD', fn($p) => (function () use ($ns, $p) { $r = bench_phpredis(); $r->setOption(Redis::OPT_PREFIX, $ns . "p$p:"); $q = new DelayQueue($r); return fn($i) => $q->push('{"job":"mail","n":' . $i . '}', 60); })()],
];
$conc[] = ['push', fn($p) => (function () use ($url, $ns, $p) { $q = new RedisKit\DelayQueue("cq$p", $url, ['prefix' => $ns]); return fn($i) => $q->push('{"job":"mail"}'); })(),
    "Laravel queue push (RedisQueue's push script)", fn($p) => $laravelPush("c$p")];
foreach ([8, 32] as $procs) {
    // one lock shared by every process: acquisitions/s and the handoff p50
    $hot = bench_hot_lock($ctl, function ($p) use ($url, $ns) {
        $l = new RedisKit\RedisLock('hot', $url, ['prefix' => $ns, 'ttl' => 10.0]);
        return fn() => $l->acquire(5.0) ? fn() => $l->release() : null;
    }, $procs, 2.0);
    $seedHot = bench_hot_lock($ctl, function ($p) use ($ns) {
        $l = new SeedRedisLock(bench_phpredis(), $ns . 'seed-hot');
        return function () use ($l) {
            for ($t = 0; $t < 5000; $t++) {
                if ($l->tryAcquire()) return fn() => $l->release();
                usleep(1000);                         // the seed's polling loop, every 1 ms
            }
            return null;
        };
    }, $procs, 2.0);
    printf("HOT|%d|%.0f|%.2f|%.1f|%.0f|%.2f|%.1f\n", $procs, $hot[0], $hot[1], $hot[2], $seedHot[0], $seedHot[1], $seedHot[2]);
    foreach ($conc as [$op, $rk, $peer, $pf]) {
        [$a, $ac] = bench_concurrent($ctl, $rk, $procs, 2.0);
        [$b, $bc] = bench_concurrent($ctl, $pf, $procs, 2.0);
        printf("CONC|%d|%s|%.0f|%.1f|%s|%.0f|%.1f\n", $procs, $op, $a, $ac, $peer, $b, $bc);
    }
}

foreach ($ctl->keys($ns . '*') ?: [] as $k) $ctl->del($k);
foreach ($ctl->keys('*' . $ns . '*') ?: [] as $k) $ctl->del($k);
foreach ($ctl->keys('*' . str_replace(':', '_', $ns) . '*') ?: [] as $k) $ctl->del($k);
