--TEST--
RedisCache stale_ttl (stale-while-revalidate): once a value's TTL has run out, remember() serves it for stale_ttl while one caller refreshes it, instead of blocking; get() counts it as a miss; the refreshed value then replaces it
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$opts = ['prefix' => $ns, 'stale_ttl' => 30, 'jitter' => 0];
$c = new RedisKit\RedisCache('s', $u, $opts);
$c->remember('k', 0.3, fn() => 'old');
$t = $raw->pttl("{$ns}s:k");
rk_assert($t > 29000 && $t <= 30300, "Redis TTL = ttl + stale_ttl: $t");
var_dump($raw->get("{$ns}s:k"));
rk_assert(rk_until(fn() => $c->get('k', 'expired') === 'expired'), 'logically expired');
// one process refreshes, slowly
$pid = lock_fork(function () use ($u, $ns, $opts) {
    $c = new RedisKit\RedisCache('s', $u, $opts);
    return $c->remember('k', 60, function () { usleep(5000000); return 'new'; }) === 'new';
});
rk_assert(rk_until(fn() => $raw->exists("{{$ns}s:k}:claim") == 1), 'the refresh started');
$t = microtime(true);
$v = $c->remember('k', 60, fn() => throw new LogicException('a second refresh'));
$took = microtime(true) - $t;
var_dump($v);
rk_assert($took < 2.5, "served at once, not after the 5 s refresh: $took s");
var_dump($c->stats()['stale_served'], $c->stats()['waits']);
var_dump(lock_wait([$pid]));
var_dump($c->remember('k', 60, fn() => 'unused'), $c->get('k'));
?>
--EXPECTF--
string(%d) "rk1:p:%d:%d:s:3:"old";"
string(3) "old"
int(1)
int(0)
array(1) {
  [0]=>
  int(0)
}
string(3) "new"
string(3) "new"
