--TEST--
RedisLock: waiters are woken by the release or the TTL expiry (no polling), give up on time, send only a few commands while waiting, and leave no trace
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$raw = new RkRaw();
$u = rk_conn();
$opts = ['prefix' => $ns, 'ttl' => 30.0, 'watchdog' => false];
$holder = new RedisKit\RedisLock('w', $u, $opts);
$waitersKey = "{{$ns}w}:waiters";

// 1. a waiter in another process is woken by the release
var_dump($holder->acquire());
$pid = lock_fork(function () use ($u, $opts, $ns) {
    $l = new RedisKit\RedisLock('w', $u, $opts);
    $ok = $l->acquire(20.0);
    (new RkRaw())->set("{$ns}got", sprintf('%.6f', microtime(true)));
    return $ok && $l->release();
});
var_dump(lock_until(fn() => $raw->zcard($waitersKey) === 1));
usleep(300000);                       // the waiter sleeps: nothing happens by itself
var_dump($raw->get("{$ns}got"));
$released = microtime(true);
var_dump($holder->release());
var_dump(lock_wait([$pid]));
$handoff = (float)$raw->get("{$ns}got") - $released;
rk_assert($handoff >= 0 && $handoff < 0.2, "woken by the release: $handoff s");

// 2. giving up: false shortly after $wait, and the waiter leaves
var_dump($holder->acquire());
$other = new RedisKit\RedisLock('w', $u, $opts);
foreach ([0.05, 0.3] as $w) {
    $t = microtime(true);
    var_dump($other->acquire($w));
    $took = microtime(true) - $t;
    rk_assert($took >= $w && $took < $w + 0.1, "acquire($w) gave up after $took s");
}
var_dump($raw->zcard($waitersKey), $raw->exists("{{$ns}w}:wake"));

// 3. only a handful of commands per second while waiting (no polling)
$pid = lock_fork(function () use ($u, $opts, $ns) {
    $l = new RedisKit\RedisLock('w', $u, $opts);
    $before = RedisKit\stats()['commands'];
    $got = $l->acquire(2.5);
    $n = RedisKit\stats()['commands'] - $before;
    (new RkRaw())->set("{$ns}cmds", $n);
    return $got === false;
});
var_dump(lock_wait([$pid]));
$n = (int)$raw->get("{$ns}cmds");
rk_assert($n >= 3 && $n <= 15, "commands sent while waiting 2.5 s: $n");
var_dump($holder->release());

// 4. the holder's TTL expiry wakes the waiter, on time
$short = new RedisKit\RedisLock('w', $u, ['ttl' => 0.4] + $opts);
var_dump($short->acquire());
$pttl = $raw->pttl("{$ns}w") / 1000;
$t = microtime(true);
var_dump($other->acquire(5.0));
$took = microtime(true) - $t;
rk_assert($took >= $pttl - 0.02 && $took < $pttl + 0.15, "woken by the TTL expiry after $took s (PTTL was $pttl)");
var_dump($other->release());

// 5. a chain: 6 waiters, each woken by the previous one's release (TTL 30 s: no expiry involved)
var_dump($holder->acquire());
$pids = [];
for ($i = 0; $i < 6; $i++) {
    $pids[] = lock_fork(function () use ($u, $opts, $ns) {
        $l = new RedisKit\RedisLock('w', $u, $opts);
        if (!$l->acquire(10.0)) return false;
        $r = new RkRaw();
        $r->incr("{$ns}chain");
        usleep(20000);
        return $l->release();
    });
}
var_dump(lock_until(fn() => $raw->zcard($waitersKey) === 6));
$t = microtime(true);
var_dump($holder->release());
var_dump(lock_wait($pids));
$took = microtime(true) - $t;
rk_assert($took < 2.0, "6 handoffs took $took s");
var_dump($raw->get("{$ns}chain"));
var_dump($raw->exists("{$ns}w"), $raw->zcard($waitersKey));
?>
--EXPECT--
bool(true)
bool(true)
NULL
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(true)
bool(false)
bool(false)
int(0)
int(0)
array(1) {
  [0]=>
  int(0)
}
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
array(6) {
  [0]=>
  int(0)
  [1]=>
  int(0)
  [2]=>
  int(0)
  [3]=>
  int(0)
  [4]=>
  int(0)
  [5]=>
  int(0)
}
string(1) "6"
int(0)
int(0)
