<?php
// RedisCache against seed 003's cache-aside code (bench/baseline/cache.php).
require __DIR__ . '/_common.inc';
require __DIR__ . '/baseline/cache.php';

$url = bench_url();
$ns = 'bench:cache:' . getmypid() . ':';
$r = bench_phpredis();
// a typical cached row
$row = ['id' => 1001, 'name' => 'Zhang San', 'email' => 'zhangsan@example.com', 'created_at' => '2026-01-02 03:04:05',
    'tags' => ['vip', 'beta'], 'score' => 1234.5, 'active' => true, 'city' => 'Hangzhou', 'orders' => 17, 'level' => 3];

// 1. a hit: remember() vs the seed's getCache() (GET + json_decode)
$c = new RedisKit\RedisCache('hit', $url, ['prefix' => $ns]);
$cj = new RedisKit\RedisCache('hitj', $url, ['prefix' => $ns, 'serializer' => 'json']);
$c->remember('user:1001', 3600, fn() => $row);
$cj->remember('user:1001', 3600, fn() => $row);
$r->setex($ns . 'seed:user:1001', 3600, json_encode($row));
$never = fn() => throw new LogicException('computed on a hit');
$a = $b = $j = 0;
for ($i = 0; $i < 6; $i++) {
    $a = max($a, bench_ops(fn() => $c->remember('user:1001', 3600, $never), 0.4));
    $b = max($b, bench_ops(fn() => seed_getCache($r, $ns . 'seed:user:1001', $never), 0.4));
    $j = max($j, bench_ops(fn() => $cj->remember('user:1001', 3600, $never), 0.4));
}
bench_row('cache hit: remember() vs seed getCache() (GET + json_decode)', $a, $b);
bench_row("cache hit: remember() with serializer 'json' vs seed getCache()", $j, $b);

// 1b. the local tier: a hit from the worker's memory, invalidated by Redis
$cl = new RedisKit\RedisCache('hitl', $url, ['prefix' => $ns, 'local' => true]);
$cl->remember('user:1001', 3600, fn() => $row);
$l = 0;
for ($i = 0; $i < 6; $i++) {
    $l = max($l, bench_ops(fn() => $cl->remember('user:1001', 3600, $never), 0.4));
}
bench_row("cache hit: remember() with 'local' vs seed getCache() (GET + json_decode)", $l, $b);
// staleness with the tier under a 10% write ratio: a reader at 9,000 reads/s
// and a writer (another process) at 1,000 writes/s, for 5 s
require_once __DIR__ . '/../php-tests/_staleness.inc';
$st = rk_staleness($url, $ns . 'stale:', 5.0, 1000, 9000);
$w = $st['windows_us'];
bench_info(sprintf("local tier, 10%% writes from another process: %d reads, %.1f%% served locally, %d writes, %d stale reads (of the checker's kind); "
    . "from a write's reply to the reader's first sight of it: p50 %.0f µs, p99 %.0f µs, max %.0f µs",
    $st['reads'], 100 * $st['local_hits'] / max(1, $st['reads']), $st['writes'], count($st['violations']),
    bench_pct($w, 50), bench_pct($w, 99), $w ? max($w) : NAN));

// 2. getMany(100) vs 100 GETs, and vs one phpredis MGET
$keys = [];
$seedKeys = [];
for ($i = 0; $i < 100; $i++) {
    $keys[] = "k$i";
    $seedKeys[] = $ns . "seed:k$i";
}
$c->setMany(array_fill_keys($keys, $row), 3600);
foreach ($seedKeys as $k) $r->setex($k, 3600, json_encode($row));
$a = $b = $m = 0;
for ($i = 0; $i < 6; $i++) {
    $a = max($a, bench_ops(fn() => $c->getMany($keys), 0.4));
    $b = max($b, bench_ops(function () use ($r, $seedKeys) {
        $out = [];
        foreach ($seedKeys as $k) $out[$k] = json_decode($r->get($k), true);
        return $out;
    }, 0.4));
    $m = max($m, bench_ops(fn() => array_map(fn($v) => json_decode($v, true), $r->mget($seedKeys)), 0.4));
}
bench_row('getMany(100) vs 100 GETs + json_decode (seed)', $a, $b);
bench_row('getMany(100) vs phpredis MGET of 100 + json_decode', $a, $m);

// 3. a stampede: 50 processes miss one key at once; the compute (a slow
// query) takes $ms. Computes run, and how long after the write the last
// process has the value.
function stampede(string $kind, string $url, string $ns, int $ms): array
{
    $r = bench_phpredis();
    $key = $ns . "stampede:$kind:$ms";
    $r->del($key, "{$key}:ready", "{$key}:go", "{$key}:done", "{$key}:computes", "{$key}:written");
    $pids = [];
    for ($p = 0; $p < 50; $p++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $r = bench_phpredis();
            $c = new RedisKit\RedisCache('stampede', $url, ['prefix' => $ns, 'lock_timeout' => 30]);
            $compute = function () use ($r, $key, $ms) {
                $r->incr("{$key}:computes");
                usleep($ms * 1000);
                $r->set("{$key}:written", hrtime(true));
                return ['rows' => 42];
            };
            $r->incr("{$key}:ready");
            $r->blPop(["{$key}:go"], 30);
            $kind === 'rk' ? $c->remember("$kind:$ms", 60, $compute) : seed_getHotData($r, $key, $compute, 60);
            $r->rPush("{$key}:done", hrtime(true));
            exit(0);
        }
        $pids[] = $pid;
    }
    while ((int)$r->get("{$key}:ready") < 50) usleep(2000);
    $r->rPush("{$key}:go", ...array_fill(0, 50, '1'));
    foreach ($pids as $pid) pcntl_waitpid($pid, $st);
    $written = (int)$r->get("{$key}:written");
    $lags = array_map(fn($t) => max(0, (int)$t - $written) / 1e6, $r->lRange("{$key}:done", 0, -1));
    return [(int)$r->get("{$key}:computes"), bench_pct($lags, 50), max($lags)];
}
// the floor under those lags on this machine: 50 processes blocked in a
// phpredis BLPOP, woken by one RPUSH of 50 tokens, each then reporting its
// time as the stampede's processes do (no cache, no GET): the time it takes
// the scheduler to run 50 woken processes, as a median of 3 tries
function wake_floor(string $ns): array
{
    $r = bench_phpredis();
    $key = $ns . 'floor';
    $tries = [];
    for ($t = 0; $t < 3; $t++) {
        $r->del("{$key}:go", "{$key}:ready", "{$key}:done");
        $pids = [];
        for ($p = 0; $p < 50; $p++) {
            $pid = pcntl_fork();
            if ($pid === 0) {
                $r = bench_phpredis();
                $r->incr("{$key}:ready");
                $r->blPop(["{$key}:go"], 30);
                $r->rPush("{$key}:done", hrtime(true));
                exit(0);
            }
            $pids[] = $pid;
        }
        while ((int)$r->get("{$key}:ready") < 50) usleep(2000);
        usleep(100000);                     // all 50 blocked in BLPOP by now
        $sent = hrtime(true);
        $r->rPush("{$key}:go", ...array_fill(0, 50, '1'));
        foreach ($pids as $pid) pcntl_waitpid($pid, $st);
        $lags = array_map(fn($x) => max(0, (int)$x - $sent) / 1e6, $r->lRange("{$key}:done", 0, -1));
        $tries[] = [bench_pct($lags, 50), max($lags)];
    }
    usort($tries, fn($a, $b) => $a[1] <=> $b[1]);
    return $tries[1];
}
[$f50, $fmax] = wake_floor($ns);
bench_info(sprintf('the floor on this machine: 50 processes in a phpredis BLPOP woken by one RPUSH, all had run %.1f ms after it (p50 %.1f ms; median of 3 tries)', $fmax, $f50));
foreach ([300, 1500] as $ms) {
    [$rc, $r50, $rmax] = stampede('rk', $url, $ns, $ms);
    [$sc, $s50, $smax] = stampede('seed', $url, $ns, $ms);
    bench_info(sprintf('50-process stampede on one key, a %d ms compute: remember() %d compute(s), all 50 had the value %.1f ms after the write (p50 %.1f ms); seed getHotData() %d compute(s), %.1f ms (p50 %.1f ms)',
        $ms, $rc, $rmax, $r50, $sc, $smax, $s50));
}

foreach ($r->keys($ns . '*') as $k) $r->del($k);
foreach ($r->keys('{' . $ns . '*') as $k) $r->del($k);
$r->del('cache:lock:' . $ns . 'stampede:seed:300', 'cache:lock:' . $ns . 'stampede:seed:1500');
