--TEST--
RedisCache::remember(): a compute that throws under contention wakes the waiters at once, the exception reaches its own caller only, and the next caller computes (once); nothing is cached from the failure
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
const PROCS = 10;
$pids = [];
for ($p = 0; $p < PROCS; $p++) {
    $pids[] = lock_fork(function () use ($u, $ns) {
        $r = new RkRaw();
        $c = new RedisKit\RedisCache('c', $u, ['prefix' => $ns, 'lock_timeout' => 30]);
        $r->incr("{$ns}ready");
        $r->blpop("{$ns}go", 30);
        $t0 = microtime(true);
        try {
            $v = $c->remember('k', 60, function () use ($r, $ns) {
                $n = $r->incr("{$ns}computes");
                usleep(300000);
                if ($n == 1) {
                    $r->set("{$ns}failed_at", sprintf('%.6f', microtime(true)));
                    throw new RuntimeException('the database is down');
                }
                return "computed by attempt $n";
            });
            $r->rpush("{$ns}results", $v);
        } catch (RuntimeException $e) {
            $r->rpush("{$ns}results", get_class($e) . ': ' . $e->getMessage());
        }
        $r->rpush("{$ns}took", sprintf('%.6f', microtime(true) - $t0));
        return true;
    });
}
rk_assert(rk_until(fn() => (int)$raw->get("{$ns}ready") === PROCS, 60), 'all ready');
$raw->rpush("{$ns}go", ...array_fill(0, PROCS, '1'));
var_dump(array_sum(lock_wait($pids)));
var_dump($raw->get("{$ns}computes"));                      // the failed one and the next
$results = array_count_values($raw->lrange("{$ns}results", 0, -1));
ksort($results);
var_dump($results);
// the waiters were woken by the failure, not by lock_timeout (30 s): all
// done within about two computes
$took = array_map('floatval', $raw->lrange("{$ns}took", 0, -1));
rk_assert(max($took) < 5.0, 'longest call ' . max($took) . ' s');
var_dump($raw->exists("{{$ns}c:k}:claim"), $raw->exists("{{$ns}c:k}:waiters"));
?>
--EXPECT--
int(0)
string(1) "2"
array(2) {
  ["RuntimeException: the database is down"]=>
  int(1)
  ["computed by attempt 2"]=>
  int(9)
}
int(0)
int(0)
