--TEST--
RedisCache::remember(): 50 processes missing one key at the same moment run $compute once; the 49 others wait without polling, are woken by the write and return its value (well before lock_timeout); then every call is a hit
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
const PROCS = 50;
$pids = [];
for ($p = 0; $p < PROCS; $p++) {
    $pids[] = lock_fork(function () use ($u, $ns) {
        $r = new RkRaw();
        $c = new RedisKit\RedisCache('hot', $u, ['prefix' => $ns, 'lock_timeout' => 30]);
        // start together: ready, then blocked until the parent says go
        $r->incr("{$ns}ready");
        $r->blpop("{$ns}go", 30);
        $v = $c->remember('product:1', 60, function () use ($r, $ns) {
            $r->incr("{$ns}computes");
            usleep(300000);                         // the slow query
            $r->set("{$ns}written_at", sprintf('%.6f', microtime(true)));
            return ['id' => 1, 'by' => getmypid()];
        });
        $done = microtime(true);
        $r->rpush("{$ns}done", json_encode(['pid' => getmypid(), 'by' => $v['by'], 'at' => $done, 'stats' => $c->stats()]));
        // and now a hit, one round trip
        $before = RedisKit\stats()['commands'];
        $again = $c->remember('product:1', 60, fn() => throw new LogicException('computed on a hit'));
        return $again === $v && RedisKit\stats()['commands'] - $before === 1;
    });
}
rk_assert(rk_until(fn() => (int)$raw->get("{$ns}ready") === PROCS, 60), 'all ready');
$raw->rpush("{$ns}go", ...array_fill(0, PROCS, '1'));
$codes = lock_wait($pids);
var_dump(array_sum($codes), count($codes));
var_dump($raw->get("{$ns}computes"));                   // one compute
$written = (float)$raw->get("{$ns}written_at");
$done = array_map(fn($j) => json_decode($j, true), $raw->lrange("{$ns}done", 0, -1));
var_dump(count($done), count(array_unique(array_column($done, 'by'))));   // all 50 got the one value
$lags = [];
$waits = $computes = 0;
foreach ($done as $d) {
    $lags[] = $d['at'] - $written;
    $waits += $d['stats']['waits'];
    $computes += $d['stats']['computes'];
}
sort($lags);
var_dump($computes, $waits);                            // the 49 others waited
// woken by the write: not a poll, not lock_timeout (30 s); the goal is a few ms
rk_assert(max($lags) < 2.0, sprintf('the last caller returned %.1f ms after the write', max($lags) * 1000));
// nothing left behind but the value
$left = $raw->keys("*{$ns}*hot*");
sort($left);
var_dump($left);
?>
--EXPECTF--
int(0)
int(50)
string(1) "1"
int(50)
int(1)
int(1)
int(49)
array(1) {
  [0]=>
  string(%d) "%shot:product:1"
}
