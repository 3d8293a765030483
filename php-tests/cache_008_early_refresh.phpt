--TEST--
RedisCache early_refresh (XFetch): under a steady read loop from 4 processes, a hot value is recomputed before it expires by one caller at a time while the others keep getting the current value: no caller ever misses or waits, and the value keeps changing
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$opts = ['prefix' => $ns, 'early_refresh' => 2.0, 'jitter' => 0];
$compute = function () use ($ns) {
    (new RkRaw())->incr("{$ns}computes");
    usleep(100000);                              // 100 ms: XFetch's delta
    return sprintf('%.6f', microtime(true));
};
(new RedisKit\RedisCache('hot', $u, $opts))->remember('k', 2.0, $compute);   // warm
$pids = [];
for ($p = 0; $p < 4; $p++) {
    $pids[] = lock_fork(function () use ($u, $ns, $opts, $compute) {
        $c = new RedisKit\RedisCache('hot', $u, $opts);
        $seen = [];
        $end = microtime(true) + 5.0;
        while (microtime(true) < $end) {
            $seen[$c->remember('k', 2.0, $compute)] = true;
            usleep(2000);
        }
        (new RkRaw())->rpush("{$ns}stats", json_encode($c->stats() + ['values' => count($seen)]));
        return true;
    });
}
var_dump(array_sum(lock_wait($pids)));
$sum = ['hits' => 0, 'misses' => 0, 'waits' => 0, 'early_refreshes' => 0, 'computes' => 0, 'values' => 0];
foreach ($raw->lrange("{$ns}stats", 0, -1) as $j) {
    foreach (json_decode($j, true) as $k => $v) if (isset($sum[$k])) $sum[$k] += $v;
}
var_dump($sum['misses'], $sum['waits']);                   // never a miss, never a wait
var_dump($sum['computes'] === $sum['early_refreshes']);    // every compute was an early one
// 5 s of a 2 s TTL: refreshed at least twice (more: XFetch starts well before expiry)
rk_assert($sum['early_refreshes'] >= 2, "early refreshes: {$sum['early_refreshes']}");
rk_assert($sum['hits'] > 100, "hits: {$sum['hits']}");
rk_assert($sum['values'] >= 8, "each process saw the value change: {$sum['values']} values seen");
var_dump((int)$raw->get("{$ns}computes") === $sum['computes'] + 1);
// with early_refresh 0 (the default) the value simply expires
$plain = new RedisKit\RedisCache('plain', $u, ['prefix' => $ns, 'jitter' => 0]);
$plain->remember('k', 0.2, fn() => 'v');
usleep(100000);
$plain->remember('k', 0.2, fn() => 'v');
var_dump($plain->stats()['early_refreshes'], $plain->stats()['computes']);
?>
--EXPECT--
int(0)
int(0)
int(0)
bool(true)
bool(true)
int(0)
int(1)
