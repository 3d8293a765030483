<?php
// The cost of the cluster client: the same rediskit calls against a 6-node
// local Redis Cluster (RK_CLUSTER) and against the single redis-server
// (REDIS_URL). The "phpredis" column holds the single-node numbers here.
require __DIR__ . '/_common.inc';
$seeds = json_decode(getenv('RK_CLUSTER') ?: 'null', true);
if (!$seeds) {
    bench_info('cluster rows skipped: RK_CLUSTER not set');
    return;
}
$single = bench_url();
$cluster = ['cluster' => $seeds];

function lb_rows(string $label, $conn): array
{
    $lb = new RedisKit\RedisLeaderboard("bench:cl:$label", $conn);
    $lb->clear();
    $board = [];
    for ($i = 0; $i < 1000; $i++) $board["user_$i"] = $i;
    $lb->setScores($board);
    $i = 0;
    $r = [
        'setScore' => bench_ops(function () use ($lb, &$i) { $lb->setScore('user_' . ($i++ % 1000), $i); }),
        'rank' => bench_ops(function () use ($lb, &$i) { $lb->rank('user_' . ($i++ % 1000)); }),
        'around(radius 2)' => bench_ops(function () use ($lb, &$i) { $lb->around('user_' . ($i++ % 1000), 2); }),
    ];
    $lb->clear();
    return $r;
}

$c = lb_rows('c', $cluster);
$s = lb_rows('s', $single);
foreach ($c as $op => $ops) bench_row("leaderboard $op: cluster (vs single node)", $ops, $s[$op]);

function lock_cycle($conn): float
{
    $l = new RedisKit\RedisLock('bench:cl:lock', $conn, ['watchdog' => false]);
    return bench_ops(function () use ($l) { $l->acquire(); $l->release(); });
}
bench_row('lock acquire+release: cluster (vs single node)', lock_cycle($cluster), lock_cycle($single));

function limiter_checks($conn): float
{
    $r = new RedisKit\RateLimiter('bench:cl:rl', 1000000000, 60, $conn, ['algorithm' => 'gcra', 'local_block' => false]);
    $i = 0;
    return bench_ops(function () use ($r, &$i) { $r->attempt('user' . ($i++ % 100)); });
}
bench_row('limiter attempt (gcra): cluster (vs single node)', limiter_checks($cluster), limiter_checks($single));
