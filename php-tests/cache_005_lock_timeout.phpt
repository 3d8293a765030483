--TEST--
RedisCache::remember(): a compute slower than lock_timeout: the claim lasts lock_timeout, then a waiter takes it over and computes (one at a time, never all waiters at once); with on_lock_timeout 'throw', a caller that waited lock_timeout for a live claim gets LockTimeoutException (its file and line); a null that is not cached reaches the waiters
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$c = new RedisKit\RedisCache('c', $u, ['prefix' => $ns, 'lock_timeout' => 0.5]);

// a child computes for 3 s; the claim lasts 0.5 s
$pid = lock_fork(function () use ($u, $ns) {
    $c = new RedisKit\RedisCache('c', $u, ['prefix' => $ns, 'lock_timeout' => 0.5]);
    return $c->remember('slow', 60, function () { usleep(3000000); return 'slow value'; }) === 'slow value';
});
rk_assert(rk_until(fn() => $raw->exists("{{$ns}c:slow}:claim") == 1), 'the child claimed');
$t = microtime(true);
$v = $c->remember('slow', 60, fn() => 'mine');
$took = microtime(true) - $t;
var_dump($v);
rk_assert($took > 0.2 && $took < 2.5, "took over once the claim ran out (0.5 s), long before the child's write: $took s");
var_dump(lock_wait([$pid]));
var_dump($c->get('slow'));                                  // last write wins: the child's

// 'throw': a live claim held for longer than this caller's lock_timeout
$raw->set("{{$ns}c:held}:claim", 'someone', 'PX', 60000);
$t = microtime(true);
$e = rk_catch(fn() => $c->remember('held', 60, fn() => 'never', ['on_lock_timeout' => 'throw', 'lock_timeout' => 0.3]));
$took = microtime(true) - $t;
echo rk_ex($e), "\n";
var_dump($e->getFile() === __FILE__, $e->getLine() === __LINE__ - 3);
rk_assert($took >= 0.3 && $took < 2.0, "gave up after lock_timeout: $took s");
var_dump($raw->get("{$ns}c:held"), $raw->get("{{$ns}c:held}:claim"));
// 'compute' (the default): computes after lock_timeout, without the claim
var_dump($c->remember('held', 60, fn() => 'computed anyway', ['lock_timeout' => 0.3]));
var_dump($raw->get("{{$ns}c:held}:claim"));                  // not ours to end

// null_ttl 0: a null is not cached, yet the waiters get it without computing
$pid = lock_fork(function () use ($u, $ns) {
    $c = new RedisKit\RedisCache('c', $u, ['prefix' => $ns, 'null_ttl' => 0]);
    return $c->remember('nothing', 60, function () { usleep(500000); return null; }) === null;
});
rk_assert(rk_until(fn() => $raw->exists("{{$ns}c:nothing}:claim") == 1), 'the child claimed');
$n = new RedisKit\RedisCache('c', $u, ['prefix' => $ns, 'null_ttl' => 0]);
var_dump($n->remember('nothing', 60, fn() => throw new LogicException('a waiter computed')));
var_dump(lock_wait([$pid]), $raw->exists("{$ns}c:nothing"));
?>
--EXPECTF--
string(4) "mine"
array(1) {
  [0]=>
  int(0)
}
string(10) "slow value"
RedisKit\LockTimeoutException: RedisCache: another process has been computing 'held' for longer than lock_timeout (0.3 s)
bool(true)
bool(true)
NULL
string(7) "someone"
string(15) "computed anyway"
string(7) "someone"
NULL
array(1) {
  [0]=>
  int(0)
}
int(0)
