--TEST--
RedisKit\metrics()['hot']: the hottest rate-limiter keys, cache keys and lock names across 4 forked processes, from a bounded sketch, and RateLimiter::hotKeys() of one limiter, with among 20,000 attempts over some 10,000 keys the heaviest (25%) and the next (10%) first, their estimates near the truth
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_url();

$kids = [];
for ($w = 0; $w < 4; $w++) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        mt_srand(getmypid());
        $rl = new RedisKit\RateLimiter('api', 1000000, 60, $u, ['prefix' => $ns]);
        $c = new RedisKit\RedisCache('pages', $u, ['prefix' => $ns]);
        for ($i = 0; $i < 5000; $i++) {
            $r = mt_rand(0, 99);
            $k = $r < 25 ? 'heavy' : ($r < 35 ? 'medium' : 'ip-' . mt_rand(0, 10000));
            $rl->attempt($k);
            if ($i % 5 === 0) $c->get($r < 50 ? 'home' : "page-$i");
        }
        for ($i = 0; $i < 200; $i++) {
            $l = new RedisKit\RedisLock($i % 2 ? 'orders' : "job-$i", $u, ['prefix' => $ns]);
            $l->acquire();
            $l->release();
        }
        exit(0);
    }
    $kids[] = $pid;
}
foreach ($kids as $pid) pcntl_waitpid($pid, $st);

$hot = RedisKit\metrics()['hot'];
echo "kinds: ", implode(',', array_keys($hot)), "\n";
$lim = $hot['limiter'];
echo "limiter keys kept: ", count($lim) <= 32 ? 'at most 32' : count($lim), "\n";
echo "hottest: {$lim[0]['key']}, then {$lim[1]['key']}\n";
// true counts 5,000 and 2,000 (4 x 5,000 x 25% and 10%, give or take the draw)
printf("heavy estimate within 30%% of 5000: %s; medium within 30%% of 2000: %s\n",
    var_export(abs($lim[0]['count'] - 5000) <= 1500, true), var_export(abs($lim[1]['count'] - 2000) <= 600, true));
foreach ($lim as $k) rk_assert($k['error'] <= $k['count'] && $k['count'] > 0, "entry {$k['key']}: count {$k['count']}, error {$k['error']}");
for ($i = 1; $i < count($lim); $i++) rk_assert($lim[$i]['count'] <= $lim[$i - 1]['count'], 'hottest first');
$api = new RedisKit\RateLimiter('api', 1000000, 60, $u, ['prefix' => $ns]);
echo "RateLimiter::hotKeys(2): ", implode(',', array_column($api->hotKeys(2), 'key')), "; counts as in metrics(): ",
    var_export(array_column($api->hotKeys(2), 'count') === [$lim[0]['count'], $lim[1]['count']], true), "\n";
echo "another limiter's: ", count((new RedisKit\RateLimiter('other', 10, 60, $u))->hotKeys()), "\n";
try {
    $api->hotKeys(0);
} catch (ValueError $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
echo "hottest cache key: {$hot['cache'][0]['key']}\n";
echo "hottest lock: {$hot['lock'][0]['key']}\n";
?>
--EXPECT--
kinds: lock,limiter,cache
limiter keys kept: at most 32
hottest: api:heavy, then api:medium
heavy estimate within 30% of 5000: true; medium within 30% of 2000: true
RateLimiter::hotKeys(2): heavy,medium; counts as in metrics(): true
another limiter's: 0
ValueError: RateLimiter::hotKeys(): $limit must be between 1 and 32, got 0
hottest cache key: pages:home
hottest lock: orders
