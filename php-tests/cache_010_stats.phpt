--TEST--
RedisKit\stats(): per-primitive counters at no extra round trip: locks (acquired, contended, timed out, lost), queues (pushed, claimed, acked, redelivered, dead), limiters (allowed, denied, local blocks), caches (hits, misses, computes, waits, early refreshes, stale served); RedisCache::stats() per namespace; a forked child starts from zero
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$delta = function (callable $fn, string $prefix) {
    $before = RedisKit\stats();
    $fn();
    $after = RedisKit\stats();
    $out = [];
    foreach ($after as $k => $v) {
        if (str_starts_with($k, $prefix) && $v !== $before[$k]) $out[$k] = $v - $before[$k];
    }
    return $out;
};

// locks
$a = new RedisKit\RedisLock('l', $u, ['prefix' => $ns, 'ttl' => 5, 'watchdog' => false]);
$b = new RedisKit\RedisLock('l', $u, ['prefix' => $ns, 'ttl' => 5]);
var_dump($delta(function () use ($a, $b, $raw, $ns) {
    $a->acquire();                 // acquired
    $b->acquire();                 // contended
    $b->acquire(0.05);             // contended, timed out
    $raw->del("{$ns}l");           // a's lock is gone...
    $a->extend();                  // ...found lost
}, 'lock_'));

// queues
$q = new RedisKit\DelayQueue('q', $u, ['prefix' => $ns, 'visibility_timeout' => 0.05, 'max_attempts' => 2, 'backoff' => 0]);
var_dump($delta(function () use ($q) {
    $q->pushMany(['a', 'b', 'c']);                 // pushed 3
    $jobs = $q->pop(3);                            // claimed 3
    $q->ack($jobs[0]['id']);                       // acked 1
    $q->retry($jobs[1]['id']);                     // attempt 1 of 2: back
    $q->retry($jobs[2]['id']);                     // attempt 1 of 2: back
    $again = $q->pop(2);                           // claimed 2, redelivered 2
    $q->retry($again[0]['id']);                    // attempt 2 of 2: dead
    usleep(100000);                                // the other claim lapses: dead at the next pop
    $q->pop(1);
}, 'queue_'));

// limiters
$l = new RedisKit\RateLimiter('r', 2, 60, $u, ['prefix' => $ns, 'local_block' => true]);
var_dump($delta(function () use ($l) {
    $l->attempt('x');              // allowed
    $l->attempt('x');              // allowed
    $l->attempt('x');              // denied (Redis said so: remembered)
    $l->attempt('x');              // denied by this worker's local block, no round trip
}, 'limiter_'));

// caches, and no extra command for counting
$c = new RedisKit\RedisCache('{c}', $u, ['prefix' => $ns]);
$c->remember('warm', 1, fn() => 1);
$cmds = RedisKit\stats()['commands'];
var_dump($delta(function () use ($c) {
    $c->get('a');                  // miss
    $c->remember('a', 10, fn() => 1);   // miss, compute
    $c->get('a');                  // hit
    $c->getMany(['a', 'b']);       // hit, miss
}, 'cache_'));
var_dump(RedisKit\stats()['commands'] - $cmds);      // GET, GET + claim + write, GET, MGET
var_dump($c->stats());
$other = new RedisKit\RedisCache('other', $u, ['prefix' => $ns]);
var_dump($other->stats()['misses']);                 // per namespace

// a forked child starts from zero
$pid = lock_fork(function () use ($c) {
    $s = RedisKit\stats();
    return $s['cache_misses'] === 0 && $s['lock_acquired'] === 0 && $c->stats()['misses'] === 0;
});
var_dump(lock_wait([$pid]));
?>
--EXPECT--
array(4) {
  ["lock_acquired"]=>
  int(1)
  ["lock_contended"]=>
  int(2)
  ["lock_timed_out"]=>
  int(1)
  ["lock_lost"]=>
  int(1)
}
array(5) {
  ["queue_pushed"]=>
  int(3)
  ["queue_claimed"]=>
  int(5)
  ["queue_acked"]=>
  int(1)
  ["queue_redelivered"]=>
  int(2)
  ["queue_dead"]=>
  int(2)
}
array(3) {
  ["limiter_allowed"]=>
  int(2)
  ["limiter_denied"]=>
  int(2)
  ["limiter_local_blocks"]=>
  int(1)
}
array(3) {
  ["cache_hits"]=>
  int(2)
  ["cache_misses"]=>
  int(3)
  ["cache_computes"]=>
  int(1)
}
int(6)
array(7) {
  ["hits"]=>
  int(2)
  ["misses"]=>
  int(4)
  ["computes"]=>
  int(2)
  ["waits"]=>
  int(0)
  ["early_refreshes"]=>
  int(0)
  ["stale_served"]=>
  int(0)
  ["local_hits"]=>
  int(0)
}
int(0)
array(1) {
  [0]=>
  int(0)
}
