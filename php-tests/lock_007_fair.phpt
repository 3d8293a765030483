--TEST--
RedisLock fair mode: 10 waiters get the lock in the order they asked, each woken once (no herd); a dead waiter leaves the queue by itself; no barging past the queue
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$opts = ['prefix' => $ns, 'fair' => true, 'ttl' => 30.0, 'watchdog' => false];
$queue = "{{$ns}f}:queue";

// 1. FIFO
$holder = new RedisKit\RedisLock('f', $u, $opts);
var_dump($holder->acquire());
$pids = [];
for ($i = 0; $i < 10; $i++) {
    $pids[] = lock_fork(function () use ($u, $opts, $ns, $i) {
        $l = new RedisKit\RedisLock('f', $u, $opts);
        $t = microtime(true);
        if (!$l->acquire(30.0)) return false;
        $waited = microtime(true) - $t;
        $r = new RkRaw();
        $r->rpush("{$ns}order", $i);
        usleep(20000);
        $ok = $l->release();
        $cmds = RedisKit\stats()['commands'];      // counters start at 0 in a forked child
        $r->rpush("{$ns}cmds", json_encode([$i, $cmds, $waited]));
        return $ok;
    });
    // the next one asks only once this one is queued
    if (!lock_until(fn() => $raw->zcard($queue) === $i + 1)) echo "waiter $i not queued\n";
}
// a newcomer, fair or not, cannot jump the queue even when the lock is free
var_dump($holder->release());
$barger = new RedisKit\RedisLock('f', $u, ['fair' => false] + $opts);
$barged = 0;
for ($k = 0; $k < 20; $k++) { if ($barger->acquire()) { $barged++; $barger->release(); } usleep(2000); }
var_dump(lock_wait($pids) === array_fill(0, 10, 0));
var_dump($barged);
echo implode(',', $raw->lrange("{$ns}order", 0, -1)), "\n";
foreach ($raw->lrange("{$ns}cmds", 0, -1) as $j) {
    [$i, $cmds, $waited] = json_decode($j, true);
    // each waiter: one attempt, one wait, one attempt after its wake-up, one release,
    // plus at most 3 commands per second of waiting (heartbeat); a herd would add 2 per release
    rk_assert($cmds <= 6 + 3 * ceil($waited), "waiter $i sent $cmds commands in $waited s");
}
var_dump($raw->exists($queue), $raw->exists("{{$ns}f}:waiters"));

// 2. a waiter that died leaves the queue by itself
$raw->del("{$ns}got");
var_dump($holder->acquire());
$dead = lock_fork(function () use ($u, $opts) {
    $l = new RedisKit\RedisLock('f', $u, $opts);
    $l->acquire(60.0);
    return true;
});
var_dump(lock_until(fn() => $raw->zcard($queue) === 1));
$next = lock_fork(function () use ($u, $opts, $ns) {
    $l = new RedisKit\RedisLock('f', $u, $opts);
    $ok = $l->acquire(30.0);
    (new RkRaw())->set("{$ns}got", sprintf('%.6f', microtime(true)));
    return $ok && $l->release();
});
var_dump(lock_until(fn() => $raw->zcard($queue) === 2));
posix_kill($dead, SIGKILL);
var_dump(lock_wait([$dead]));
$t = microtime(true);
var_dump($holder->release());
// reserved for the queue's head meanwhile
var_dump((new RedisKit\RedisLock('f', $u, $opts))->acquire());
var_dump(lock_wait([$next]));
$took = (float)$raw->get("{$ns}got") - $t;
rk_assert($took > 0 && $took < 5.5, "the next waiter got it $took s after the release (heartbeat 3 s)");
var_dump($raw->exists($queue));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
int(0)
0,1,2,3,4,5,6,7,8,9
int(0)
int(0)
bool(true)
bool(true)
bool(true)
array(1) {
  [0]=>
  int(-9)
}
bool(true)
bool(false)
array(1) {
  [0]=>
  int(0)
}
int(0)
