--TEST--
RedisLock Redlock: a list of 3 independent masters; majority needed, works with one stopped, fails (ConnectionException) with two stopped, undoes a minority grant everywhere, a release with no majority lands where it can and says so, fencing tokens strictly increasing
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$s = [new RkServer(), new RkServer(), new RkServer()];
$urls = array_map(fn($x) => $x->url, $s);
$raw = fn($i) => $s[$i]->raw();
$holders = fn() => array_map(fn($x) => $x->raw()->get('res'), $s);

$a = new RedisKit\RedisLock('res', $urls, ['ttl' => 10.0]);
$b = new RedisKit\RedisLock('res', $urls, ['ttl' => 10.0]);
var_dump($a->acquire());
var_dump($holders() === array_fill(0, 3, $a->token()));
foreach ($s as $x) rk_assert($x->raw()->pttl('res') > 9000, "TTL on every server");
$fences = [$a->fencingToken()];
var_dump($a->isAcquired(), $b->isAcquired(), $b->acquire());
$t = $a->remainingTtl();
rk_assert($t > 9.5 && $t < 10.0, "remainingTtl minus drift: $t");
var_dump($a->extend(20.0));
rk_assert($raw(2)->pttl('res') > 19000, "extended everywhere");
var_dump($a->release());
var_dump($holders());

// a waiter is woken by the release (through the server it blocks on)
var_dump($a->acquire());
$pid = lock_fork(function () use ($urls) {
    $l = new RedisKit\RedisLock('res', $urls);
    $t = microtime(true);
    $ok = $l->acquire(10.0);
    $took = microtime(true) - $t;
    return $ok && $took < 2.0 && $l->release();
});
usleep(300000);
var_dump($a->release());
var_dump(lock_wait([$pid]));

// a minority grant is undone everywhere: two servers are held by someone else
$raw(0)->set('res', 'other', 'PX', 5000);
$raw(1)->set('res', 'other', 'PX', 5000);
var_dump($a->acquire());
var_dump($holders());
$t = microtime(true);
var_dump($a->acquire(0.3));                      // gives up on time too
rk_assert(microtime(true) - $t < 0.5, "gave up on time");
$raw(0)->del('res'); $raw(1)->del('res');

// fencing: a server whose counter is far ahead raises the token, and the
// write-back keeps later tokens above it even once that server is gone
$raw(0)->set('{res}:fence', '8000000000000000');
var_dump($a->acquire());
$fences[] = $a->fencingToken();
var_dump($a->fencingToken() === 8000000000000001);
var_dump($a->release());

// one server stopped: still works (2 of 3)
$s[0]->stop(true);
var_dump($b->acquire());
$fences[] = $b->fencingToken();
var_dump($b->fencingToken() > 8000000000000001);
var_dump($a->acquire(), $b->isAcquired());
var_dump($b->release());
var_dump($a->acquire());
$fences[] = $a->fencingToken();
var_dump($a->release());
$sorted = $fences; sort($sorted);
var_dump($sorted === $fences && count(array_unique($fences)) === count($fences));

// two stopped: no majority can answer
$s[1]->stop(true);
echo rk_ex(rk_catch(fn() => $a->acquire())), "\n";
// a release cannot be undone: it lands on the server that answered, and says so
$raw(2)->set('res', $a->token(), 'PX', 10000);
echo rk_ex(rk_catch(fn() => $a->release())), "\n";
var_dump($raw(2)->exists('res'));
// back up (empty: no persistence): tokens still increase (write-back on server 2 + clock floor)
$s[0]->start(); $s[1]->start();
var_dump($a->acquire());
var_dump($a->fencingToken() > max($fences));
var_dump($a->release());
?>
--EXPECTF--
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
bool(true)
bool(true)
array(3) {
  [0]=>
  NULL
  [1]=>
  NULL
  [2]=>
  NULL
}
bool(true)
bool(true)
array(1) {
  [0]=>
  int(0)
}
bool(false)
array(3) {
  [0]=>
  string(5) "other"
  [1]=>
  string(5) "other"
  [2]=>
  NULL
}
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
RedisKit\ConnectionException: Redlock: only 1 of 3 Redis servers answered, 2 needed: %s
RedisKit\ConnectionException: Redlock: only 1 of 3 Redis servers answered, 2 needed; the lock is released on the ones that answered (a release is not undone) and kept on the others until its TTL ends: %s
int(0)
bool(true)
bool(true)
bool(true)
