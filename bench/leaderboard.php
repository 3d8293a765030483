<?php
require __DIR__ . '/_common.inc';
require __DIR__ . '/baseline/leaderboard.php';

$redis = bench_phpredis();
$redis->del('bench:lb:rk', 'bench:lb:php', 'bench:lb:1k', 'bench:lb:1m');
$rk = new RedisKit\RedisLeaderboard('bench:lb:rk', bench_url());
$seed = new SeedLeaderboard($redis, 'bench:lb:php');

$board = [];
for ($i = 0; $i < 1000; $i++) $board["user_$i"] = mt_rand(0, 100000);
$rk->setScores($board);
$seed->setScores($board);

$i = 0;
bench_row('setScore', bench_ops(function () use ($rk, &$i) { $rk->setScore('user_' . ($i++ % 1000), $i); }),
    bench_ops(function () use ($seed, &$i) { $seed->setScore('user_' . ($i++ % 1000), $i); }));
bench_row('rank', bench_ops(function () use ($rk, &$i) { $rk->rank('user_' . ($i++ % 1000)); }),
    bench_ops(function () use ($seed, &$i) { $seed->rank('user_' . ($i++ % 1000)); }));
bench_row('top(10)', bench_ops(fn() => $rk->top(10)), bench_ops(fn() => $seed->top10()));
$rkl = new RedisKit\RedisLeaderboard('bench:lb:rk', bench_url(), ['local' => true]);
$rkl->top(10);
bench_row("top(10) with 'local' (a board read more than written) vs phpredis zRevRange", bench_ops(fn() => $rkl->top(10)), bench_ops(fn() => $seed->top10()));
bench_row('around(radius 2)', bench_ops(function () use ($rk, &$i) { $rk->around('user_' . ($i++ % 1000), 2); }),
    bench_ops(function () use ($seed, &$i) { $seed->around('user_' . ($i++ % 1000)); }));

$big = [];
for ($i = 0; $i < 100000; $i++) $big["member_$i"] = $i * 1.5;
$rkBulk = $phpBulk = [];
for ($r = 0; $r < 3; $r++) {
    $redis->del('bench:lb:rk', 'bench:lb:php');
    $rkBulk[] = bench_once(fn() => $rk->setScores($big), 100000);
    $phpBulk[] = bench_once(fn() => $seed->setScores($big), 100000);
}
bench_row('setScores(100k) members/s', max($rkBulk), max($phpBulk));

// rank and top on a 1,000,000-member board vs a 1,000-member one
$small = new RedisKit\RedisLeaderboard('bench:lb:1k', bench_url());
$huge = new RedisKit\RedisLeaderboard('bench:lb:1m', bench_url());
$small->setScores(array_slice($big, 0, 1000, true));
$chunk = [];
for ($i = 0; $i < 1000000; $i++) {
    $chunk["m$i"] = mt_rand(0, 10000000);
    if (count($chunk) === 100000) { $huge->setScores($chunk); $chunk = []; }
}
$rank1k = bench_ops(function () use ($small, &$i) { $small->rank('member_' . ($i++ % 1000)); });
$rank1m = bench_ops(function () use ($huge, &$i) { $huge->rank('m' . ($i++ * 7919 % 1000000)); });
$top1k = bench_ops(fn() => $small->top(10));
$top1m = bench_ops(fn() => $huge->top(10));
bench_row('rank on a 1M board (vs 1k board in phpredis column)', $rank1m, $rank1k);
bench_row('top(10) on a 1M board (vs 1k board in phpredis column)', $top1m, $top1k);
bench_info(sprintf('leaderboard: rank on 1M members takes %.2fx the time of rank on 1k; top(10) %.2fx (goal: within 1.5x)', $rank1k / $rank1m, $top1k / $top1m));
$redis->del('bench:lb:rk', 'bench:lb:php', 'bench:lb:1k', 'bench:lb:1m');
