<?php
// The local tiers' reads across a slower link: every round trip to Redis
// pays about 200 µs more than loopback (bench/latency.sh: network namespaces
// and the fault stage's packet-delay helper), as a client in another
// availability zone does. Run by bench/run.sh like the other bench scripts:
// outside the namespaces it runs itself again inside them.
require __DIR__ . '/_common.inc';
require __DIR__ . '/baseline/cache.php';
require __DIR__ . '/baseline/leaderboard.php';

if (!getenv('RKB_INSIDE')) {
    // this very command line (PHP, its -d settings, this script), inside
    $argv0 = array_values(array_filter(explode("\0", (string)file_get_contents('/proc/self/cmdline')), 'strlen'));
    passthru('bash ' . escapeshellarg(__DIR__ . '/latency.sh') . ' ' . implode(' ', array_map('escapeshellarg', $argv0)), $rc);
    if ($rc !== 0) bench_info("the 200 µs link rows did not run (bench/latency.sh exited $rc; see above)");
    exit(0);
}

$url = bench_url();
$r = bench_phpredis();
$pings = [];
for ($i = 0; $i < 500; $i++) {
    $t = hrtime(true);
    $r->ping();
    $pings[] = (hrtime(true) - $t) / 1000;
}
bench_info(sprintf('the +200 µs link: phpredis PING round trip p50 %.0f µs, p99 %.0f µs (%s ms held each way; loopback here: see the round-trip ceiling above)',
    bench_pct($pings, 50), bench_pct($pings, 99), getenv('RKB_DELAY_MS')));

$ns = 'bench:lat:' . getmypid() . ':';
$row = ['id' => 1001, 'name' => 'Zhang San', 'email' => 'zhangsan@example.com', 'created_at' => '2026-01-02 03:04:05',
    'tags' => ['vip', 'beta'], 'score' => 1234.5, 'active' => true, 'city' => 'Hangzhou', 'orders' => 17, 'level' => 3];
$never = fn() => throw new LogicException('computed on a hit');
$c = new RedisKit\RedisCache('hit', $url, ['prefix' => $ns]);
$cl = new RedisKit\RedisCache('hitl', $url, ['prefix' => $ns, 'local' => true]);
$c->remember('user:1001', 3600, fn() => $row);
$cl->remember('user:1001', 3600, fn() => $row);
$r->setex($ns . 'seed:user:1001', 3600, json_encode($row));
$a = $l = $b = 0;
for ($i = 0; $i < 3; $i++) {
    $l = max($l, bench_ops(fn() => $cl->remember('user:1001', 3600, $never), 0.4));
    $a = max($a, bench_ops(fn() => $c->remember('user:1001', 3600, $never), 0.4));
    $b = max($b, bench_ops(fn() => seed_getCache($r, $ns . 'seed:user:1001', $never), 0.4));
}
bench_row("+200 µs link: cache hit, remember() with 'local' vs seed getCache() (GET + json_decode)", $l, $b);
bench_row('+200 µs link: cache hit, remember() without it vs seed getCache()', $a, $b);

$lb = new RedisKit\RedisLeaderboard($ns . 'lb', $url, ['local' => true]);
$seed = new SeedLeaderboard($r, $ns . 'seedlb');
$board = [];
for ($i = 0; $i < 1000; $i++) $board["user_$i"] = mt_rand(0, 100000);
$lb->setScores($board);
$seed->setScores($board);
$lb->top(10);
$t = $p = 0;
for ($i = 0; $i < 3; $i++) {
    $t = max($t, bench_ops(fn() => $lb->top(10), 0.4));
    $p = max($p, bench_ops(fn() => $seed->top10(), 0.4));
}
bench_row("+200 µs link: top(10) with 'local' vs phpredis zRevRange", $t, $p);
