<?php
// RedisKit\DelayQueue against the seed article's ZSET delay queue on phpredis
// (bench/baseline/queue.php), same PHP process, same redis-server.
require __DIR__ . '/_common.inc';
require __DIR__ . '/baseline/queue.php';

$url = bench_url();
$redis = bench_phpredis();
$seed = new DelayQueue($redis);
$rk = new RedisKit\DelayQueue('bench:dq', $url);
$reset = function () use ($redis, $rk) {
    $redis->del('delay:queue');
    $rk->purge();
};

// ---------------------------------------------------------------- push
$reset();
$i = 0;
$rkPush = bench_ops(function () use ($rk, &$i) { $rk->push('{"type":"cancel_order","order_id":' . $i++ . '}', 1800); });
$i = 0;
$seedPush = bench_ops(function () use ($seed, &$i) { $seed->push('{"type":"cancel_order","order_id":' . $i++ . '}', 1800); });
bench_row('DelayQueue push (vs seed ZADD)', $rkPush, $seedPush);

$reset();
$batch = [];
for ($k = 0; $k < 100; $k++) $batch[] = '{"type":"cancel_order","order_id":' . $k . '}';
$rkMany = bench_ops(function () use ($rk, $batch) { $rk->pushMany($batch, 1800); }, 1.0, 100);
$n = 0;
$seedMany = bench_ops(function () use ($seed, &$n) {
    for ($k = 0; $k < 100; $k++) $seed->push('{"type":"cancel_order","order_id":' . $n++ . '}', 1800);
}, 1.0, 100);
bench_row('DelayQueue pushMany(100), jobs/s (vs seed ZADD x100)', $rkMany, $seedMany);

// memory per scheduled job (10,000 jobs, same payloads)
$reset();
$payloads = [];
for ($k = 0; $k < 10000; $k++) $payloads[] = '{"type":"cancel_order","order_id":' . $k . '}';
$rk->pushMany($payloads, 1800);
$redis->multi(Redis::PIPELINE);
foreach ($payloads as $k => $p) $redis->zAdd('delay:queue', microtime(true) + 1800, $p);
$redis->exec();
$rkBytes = 0;
foreach (['bench:dq', '{bench:dq}:payload', '{bench:dq}:meta'] as $key) $rkBytes += (int)$redis->rawCommand('MEMORY', 'USAGE', $key, 'SAMPLES', '0');
$seedBytes = (int)$redis->rawCommand('MEMORY', 'USAGE', 'delay:queue', 'SAMPLES', '0');
bench_info(sprintf('memory per scheduled job (10,000 jobs, ~40-byte payloads): rediskit %.0f bytes, seed ZSET %.0f bytes', $rkBytes / 10000, $seedBytes / 10000));

// ---------------------------------------------------------------- claim
// Backlogs of due jobs (unique payloads: the seed merges equal ones).
function fill_due(Redis $redis, RedisKit\DelayQueue $rk, DelayQueue $seed, int $n): void {
    $payloads = [];
    for ($k = 0; $k < $n; $k++) $payloads[] = '{"type":"cancel_order","order_id":' . $k . '}';
    foreach (array_chunk($payloads, 10000) as $chunk) $rk->pushMany($chunk);
    $redis->multi(Redis::PIPELINE);
    foreach ($payloads as $p) $redis->zAdd('delay:queue', microtime(true) - 1, $p);
    $redis->exec();
}
$reset();
fill_due($redis, $rk, $seed, 200000);
// finely interleaved rounds, so both sides see the same machine load
$rkT = $seedT = 0;
$rkN = $seedN = 0;
for ($round = 0; $round < 60; $round++) {
    $t = hrtime(true);
    for ($k = 0; $k < 200; $k++) $rkN += count($rk->pop(10));
    $rkT += hrtime(true) - $t;
    $t = hrtime(true);
    for ($k = 0; $k < 60; $k++) $seedN += count($seed->consume(10));
    $seedT += hrtime(true) - $t;
}
$rkClaim = $rkN / ($rkT / 1e9);
$seedClaim = $seedN / ($seedT / 1e9);
bench_row('DelayQueue pop(10) claim, jobs/s (vs seed ZRANGEBYSCORE + ZREM each)', $rkClaim, $seedClaim);
// with a big backlog due and many claims in flight, one pop stays cheap
$c = $rk->counts();
$lat = [];
for ($k = 0; $k < 500; $k++) { $t = hrtime(true); $rk->pop(10); $lat[] = (hrtime(true) - $t) / 1e3; }
bench_info(sprintf('pop(10) round trip with %d jobs due and %d in flight: p50 %.0f µs, p99 %.0f µs', $c['due'], $c['in_flight'], bench_pct($lat, 50), bench_pct($lat, 99)));

// ---------------------------------------------------------------- claim + ack
$reset();
fill_due($redis, $rk, $seed, 60000);
$t = hrtime(true);
$got = 0;
while ($got < 50000) {
    foreach ($rk->pop(10) as $j) { $rk->ack($j['id']); $got++; }
}
$rkAck = $got / ((hrtime(true) - $t) / 1e9);
bench_row('DelayQueue pop(10) + ack each, jobs/s (vs seed consume(10), which has no ack)', $rkAck, $seedClaim);
$reset();

// ---------------------------------------------------------------- lateness
// Claim time (local clock right after pop() returns; Redis runs on the same
// host, so this includes the reply's trip) minus due_at (Redis clock).
function lateness_timer(RedisKit\DelayQueue $rk, int $n): array {
    for ($k = 0; $k < $n; $k++) $rk->push("t$k", 0.05 + $k * 0.007 + mt_rand(0, 3000) / 1e6);
    $late = [];
    while (count($late) < $n) {
        $j = $rk->pop(1, 2.0);
        if (!$j) break;
        $late[] = (microtime(true) - $j[0]['due_at']) * 1000;
        $rk->ack($j[0]['id']);
    }
    return $late;
}
$late = lateness_timer($rk, 400);
bench_info(sprintf('lateness of a consumer blocked in pop(1, 2.0), jobs pushed ahead and falling due every ~7 ms (%d jobs): p50 %.2f ms, p99 %.2f ms, max %.2f ms',
    count($late), bench_pct($late, 50), bench_pct($late, 99), max($late)));

// woken by a push: a producer process pushes due-now jobs at random intervals
$n = 300;
$pid = pcntl_fork();
if ($pid === 0) {
    $p = new RedisKit\DelayQueue('bench:dq', $url);
    usleep(200000);
    for ($k = 0; $k < $n; $k++) { usleep(mt_rand(2000, 8000)); $p->push("p$k"); }
    exit(0);
}
$late = [];
while (count($late) < $n) {
    $j = $rk->pop(1, 3.0);
    if (!$j) break;
    $late[] = (microtime(true) - $j[0]['due_at']) * 1000;
    $rk->ack($j[0]['id']);
}
pcntl_waitpid($pid, $st);
bench_info(sprintf('lateness of a consumer blocked in pop(1, 3.0), woken by another process pushing due-now jobs (%d jobs): p50 %.2f ms, p99 %.2f ms, max %.2f ms',
    count($late), bench_pct($late, 50), bench_pct($late, 99), max($late)));

// the seed's consumer loop: consume(10), then usleep(500000) when idle
// (push() takes whole seconds: the due times are written directly)
$redis->del('delay:queue');
$due = [];
$t0 = microtime(true);
for ($k = 0; $k < 20; $k++) { $d = $t0 + 0.2 + $k * 0.13; $due["s$k"] = $d; $redis->zAdd('delay:queue', $d, "s$k"); }
$late = [];
while (count($late) < 20) {
    $jobs = $seed->consume(10);
    $now = microtime(true);
    foreach ($jobs as $j) $late[] = ($now - $due[$j]) * 1000;
    if (!$jobs) usleep(500000);
}
bench_info(sprintf('for comparison, the seed consumer polling with usleep(500000) (20 jobs): p50 %.0f ms, p99 %.0f ms', bench_pct($late, 50), bench_pct($late, 99)));
$reset();
