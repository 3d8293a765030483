--TEST--
RedisCache::remember(): a SIGKILLed computing process frees the key for the next caller within its claim's TTL (lock_timeout), a caller already waiting takes over then; a Redis restart in the middle of a compute: the value is still returned and written to the restarted server
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();

$pid = lock_fork(function () use ($u, $ns) {
    $c = new RedisKit\RedisCache('c', $u, ['prefix' => $ns, 'lock_timeout' => 1.0]);
    $c->remember('k', 60, function () { sleep(60); return 'never'; });
    return false;
});
rk_assert(rk_until(fn() => $raw->exists("{{$ns}c:k}:claim") == 1), 'the child claimed');
$claimed = microtime(true);
posix_kill($pid, SIGKILL);
var_dump(lock_wait([$pid]));
$c = new RedisKit\RedisCache('c', $u, ['prefix' => $ns, 'lock_timeout' => 10]);
$v = $c->remember('k', 60, fn() => 'next caller');
$after = microtime(true) - $claimed;
var_dump($v);
rk_assert($after < 2.5, "freed within the claim's TTL (1 s): $after s after the claim");
var_dump($c->stats()['waits'], $c->stats()['computes']);

// a restart in the middle of the compute
$s = new RkServer();
$c = new RedisKit\RedisCache('c', $s->url, ['prefix' => $ns]);
var_dump($c->remember('warm', 60, fn() => 'up'));
$v = $c->remember('k', 60, function () use ($s) {
    $s->restart();                    // no persistence: comes back empty
    return 'computed across a restart';
});
var_dump($v, $c->get('k'));
var_dump($s->raw()->exists("{{$ns}c:k}:claim"));
$s->stop();
?>
--EXPECT--
array(1) {
  [0]=>
  int(-9)
}
string(11) "next caller"
int(1)
int(1)
string(2) "up"
string(25) "computed across a restart"
string(25) "computed across a restart"
int(0)
