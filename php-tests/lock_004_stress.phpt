--TEST--
RedisLock: 50 processes x 20 acquisitions doing a non-atomic read-sleep-write increment: exactly 1000, fencing tokens strictly increasing
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn_scaled(rk_conn());
$raw = new RkRaw();
$raw->set("{$ns}counter", 0);
$pids = [];
for ($p = 0; $p < 50; $p++) {
    $pids[] = lock_fork(function () use ($u, $ns, $p) {
        $r = new RkRaw();
        $lock = new RedisKit\RedisLock('stress', $u, ['prefix' => $ns, 'ttl' => 10.0]);
        mt_srand(getmypid());
        for ($i = 0; $i < 20; $i++) {
            if (!$lock->acquire(60.0)) {
                fwrite(STDERR, "process $p: acquire timed out\n");
                return false;
            }
            $f = $lock->fencingToken();
            // the storage side of fencing: every token must beat the last one seen
            $last = (int)$r->get("{$ns}last_fence");
            if ($f <= $last) $r->incr("{$ns}fence_violations");
            $r->set("{$ns}last_fence", $f);
            $r->rpush("{$ns}fences", $f);
            // non-atomic read-sleep-write: loses updates without mutual exclusion
            $v = (int)$r->get("{$ns}counter");
            usleep(mt_rand(0, 400));
            $r->set("{$ns}counter", $v + 1);
            if (!$lock->release()) {
                fwrite(STDERR, "process $p: release returned false\n");
                return false;
            }
        }
        return true;
    });
}
$codes = lock_wait($pids);
var_dump(array_sum($codes), count($codes));
var_dump($raw->get("{$ns}counter"));
var_dump($raw->get("{$ns}fence_violations"));
$fences = array_map('intval', $raw->lrange("{$ns}fences", 0, -1));
var_dump(count($fences), count(array_unique($fences)));
$sorted = $fences;
sort($sorted);
var_dump($sorted === $fences);   // in the order the lock was held
var_dump($raw->exists("{$ns}stress"), $raw->exists("{{$ns}stress}:waiters"), $raw->exists("{{$ns}stress}:wake"));
?>
--EXPECT--
int(0)
int(50)
string(4) "1000"
NULL
int(1000)
int(1000)
bool(true)
int(0)
int(0)
int(0)
