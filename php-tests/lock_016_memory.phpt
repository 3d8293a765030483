--TEST--
RedisLock under memory pressure: with maxmemory + noeviction every acquire (try once, waiting, fair, with dead waiters to purge, run()) throws RedisKit\Exception with Redis's OOM text and writes nothing (no lock, no fencing counter, no waiter entry), while the holder can still extend, renew (watchdog) and release; with allkeys-lru the lock key can be evicted while held (another owner gets it, run() throws LockLostException) and the fencing counter with it (tokens then restart from the server clock)
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$s = new RkServer(['--maxmemory', '4mb', '--maxmemory-policy', 'noeviction']);
$raw = $s->raw();
$u = $s->url;
$info = function (string $field) use ($raw): int {
    preg_match("/^$field:(\d+)/m", $raw->info('memory'), $m);
    return (int)$m[1];
};
$lk = fn(string $name, array $o = []) => new RedisKit\RedisLock($name, $u, $o + ['ttl' => 30.0, 'watchdog' => false]);
/** every key of resource $name (the lock, its fencing counter, waiters, queue, hints) */
$keys = function (string $name) use ($raw): array {
    $k = array_merge($raw->keys($name), $raw->keys("{{$name}}:*"));
    sort($k);
    return $k;
};

// before the memory runs out: a held lock, a held lock renewed by its watchdog,
// a fair lock with a dead waiter queued (its heartbeat ran out long ago)
$held = $lk('held');
var_dump($held->acquire());
$fenceHeld = $raw->get('{held}:fence');
$wd = $lk('wd', ['ttl' => 2.0, 'watchdog' => true]);
var_dump($wd->acquire());
$raw->zadd('{fq}:waiters', '1', 'dead-waiter');
$raw->zadd('{fq}:queue', '1', 'dead-waiter');
$before = ['held' => $keys('held'), 'fq' => $keys('fq'), 'free' => $keys('free')];

// fill the memory with data until Redis refuses writes, then lower the limit
// well below what is used, so no fluctuation can bring it back under
$i = 0;
do {
    $r = $raw->set('fill:' . $i++, str_repeat('x', 10000));
} while ($r === 'OK' && $i < 10000);
echo 'filled: ', $r instanceof RuntimeException ? $r->getMessage() : var_export($r, true), "\n";
$raw->config('SET', 'maxmemory', (string)($info('used_memory') - 1000000));

// every way of acquiring: RedisKit\Exception (not a connection error), nothing written
$free = $lk('free');
$fairFree = $lk('free', ['fair' => true]);
$waiter = $lk('held');
$fairWaiter = $lk('held', ['fair' => true]);
$fq = $lk('fq', ['fair' => true]);
$called = false;
$cases = [
    'free: acquire()' => fn() => $free->acquire(),
    'free: acquire(0.3)' => fn() => $free->acquire(0.3),
    'free: fair acquire(0.3)' => fn() => $fairFree->acquire(0.3),
    'free: run()' => fn() => $free->run(function () use (&$called) { $called = true; }),
    'free: run(0.3)' => fn() => $free->run(function () use (&$called) { $called = true; }, 0.3),
    'held: acquire(0.3)' => fn() => $waiter->acquire(0.3),
    'held: fair acquire(0.3)' => fn() => $fairWaiter->acquire(0.3),
    'dead waiter: fair acquire(0.3)' => fn() => $fq->acquire(0.3),
];
foreach ($cases as $what => $fn) {
    $e = rk_catch($fn);
    printf("%-31s %s\n", $what, $e ? get_class($e) . ': ' . substr($e->getMessage(), 0, 56) : 'no exception');
}
var_dump($called, $free->fencingToken());
// nothing half-written: the keys of each resource are exactly what they were
var_dump(['held' => $keys('held'), 'fq' => $keys('fq'), 'free' => $keys('free')] === $before);
var_dump($raw->get('{held}:fence') === $fenceHeld, $raw->get('held') === $held->token());
var_dump($raw->zrange('{fq}:queue', '0', '-1'));
// a one-shot acquire of a lock fair waiters queue for is refused before it runs
// too (busy or not, as a plain SET NX is): it writes nothing either
$e = rk_catch(fn() => $fq->acquire());
echo $e ? get_class($e) . ': ' . substr($e->getMessage(), 0, 56) : 'no exception', "\n";
var_dump(['held' => $keys('held'), 'fq' => $keys('fq'), 'free' => $keys('free')] === $before);

// the holder still works under OOM: extend, watchdog renewals, release
var_dump($held->extend(20.0), $raw->pttl('held') > 19000);
usleep(2500000);                 // past its TTL: only the watchdog keeps it
var_dump($wd->isAcquired(), $raw->get('wd') === $wd->token());
var_dump($held->release(), $wd->release(), $raw->exists('held', 'wd'));
var_dump($info('used_memory') > (int)$raw->config('GET', 'maxmemory')[1]);   // still over the limit

// memory back: locks work again, tokens above every earlier one
$raw->config('SET', 'maxmemory', '0');
var_dump($free->acquire(), $free->fencingToken() > (int)$fenceHeld, $free->release());

// allkeys-lru: Redis evicts whatever it likes, locks included. (Memory freed
// first, and synchronously: with nothing left to evict, allkeys-lru is OOM too.)
$raw->flushall('SYNC');
var_dump(rk_until(fn() => $info('used_memory') < 2000000, 10.0));
$raw->config('SET', 'maxmemory', '4mb');
$raw->config('SET', 'maxmemory-policy', 'allkeys-lru');
$a = $lk('ev');
$b = $lk('ev');
$other = null;
$e = rk_catch(function () use ($a, $b, $raw, &$other) { return $a->run(function () use ($a, $b, $raw, &$other) {
    // more data than fits: the lock key, least recently used, goes at some point
    $n = 0;
    while ($raw->exists('ev') === 1 && $n < 50000) $raw->set('fill:' . $n++, str_repeat('y', 1000));
    echo 'evicted while held: ', json_encode($raw->exists('ev') === 0), "\n";
    $other = $b->acquire();                  // another owner gets it meanwhile
    return 'done';
}); });
echo rk_ex($e), "\n";
var_dump($other, $raw->get('ev') === $b->token(), $a->isAcquired());
var_dump($b->release());

// fencing counter evicted: the next token comes from the server clock again,
// still above the last one as long as the counter was not ahead of that clock.
// (Between evictions the limit is off: eviction may free memory lazily, later.)
$raw->config('SET', 'maxmemory', '0');
$tokens = [];
for ($k = 0; $k < 20; $k++) {
    if (!$a->acquire()) echo "acquire failed\n";
    $tokens[] = $a->fencingToken();
    $a->release();
    // evict everything, the counter included (each command evicts some more)
    $raw->config('SET', 'maxmemory', '1');
    $gone = rk_until(fn() => $raw->dbsize() === 0, 5.0);
    $raw->config('SET', 'maxmemory', '0');
    if (!$gone) echo "not everything evicted\n";
}
$sorted = $tokens;
sort($sorted);
var_dump($sorted === $tokens && count(array_unique($tokens)) === 20);
// the limit: a counter ahead of the clock (as after the clock stepped back)
// protects the tokens only while it exists; evicted, the next token is lower
$raw->set('{ev}:fence', '8000000000000000');
var_dump($a->acquire(), $a->fencingToken(), $a->release());
$raw->config('SET', 'maxmemory', '1');
var_dump(rk_until(fn() => $raw->dbsize() === 0, 5.0));
$raw->config('SET', 'maxmemory', '0');
var_dump($a->acquire(), $a->fencingToken() < 8000000000000000, $a->release());
?>
--EXPECT--
bool(true)
bool(true)
filled: OOM command not allowed when used memory > 'maxmemory'.
free: acquire()                 RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
free: acquire(0.3)              RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
free: fair acquire(0.3)         RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
free: run()                     RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
free: run(0.3)                  RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
held: acquire(0.3)              RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
held: fair acquire(0.3)         RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
dead waiter: fair acquire(0.3)  RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
bool(false)
NULL
bool(true)
bool(true)
bool(true)
array(1) {
  [0]=>
  string(11) "dead-waiter"
}
RedisKit\Exception: OOM command not allowed when used memory > 'maxmemory'.
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
int(0)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
evicted while held: true
RedisKit\LockLostException: RedisLock: the lock 'ev' was lost while the callback ran (its TTL ran out or another owner took it)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
int(8000000000000001)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
