--TEST--
DelayQueue::pop() with a wait, when the blocking connection it waits on cannot be opened: it fails with ConnectionException before its script runs, so a lapsed claim is not put back by a call that failed (a pop without a wait puts it back) (the surface fuzzer's 'write by a failed call' on sid); RedisCache::remember() likewise before counting itself as a waiter; a queue key of the wrong type fails a script that finds a lapsed claim before it writes
--FILE--
<?php
require __DIR__ . '/_rk.inc';
$ns = rk_ns();
$url = rk_url();
$raw = new RkRaw();
$state = function () use ($raw, $ns) {
    $keys = $raw->keys("*$ns*");
    sort($keys);
    $s = [];
    foreach ($keys as $k) $s[$k] = $raw->dump($k);
    return $s;
};
// the same server with a connect timeout no new connection can meet: this
// worker's main connection is open already (the pool shares it), the
// blocking connection a waiting call needs is not
$unreachable = $url . (str_contains($url, '?') ? '&' : '?') . 'timeout=1e-9';

// RedisCache: another process computes; a caller that would wait for it
// cannot open its blocking connection: it fails before counting itself
// (first in this process: its main connection is opened by a plain GET, no
// call has opened the blocking connection yet)
var_dump((new RedisKit\RedisCache('c', $url, ['prefix' => $ns]))->get('nothing'));
$pid = pcntl_fork();
if ($pid === 0) {
    $c = new RedisKit\RedisCache('c', $url, ['prefix' => $ns]);
    $c->remember('k', 60, function () use ($ns) {
        rk_until(fn() => (bool)(new RkRaw())->exists("{$ns}go"), 30);   // until the parent has looked
        return 'computed';
    });
    exit(0);
}
rk_until(fn() => (bool)$raw->exists("{{$ns}c:k}:claim"));
$before = $state();
$c2 = new RedisKit\RedisCache('c', $unreachable, ['prefix' => $ns]);
$e = rk_catch(fn() => $c2->remember('k', 60, fn() => 'mine'));
echo get_class($e), ': ', str_contains($e->getMessage(), 'connect') ? 'cannot connect' : $e->getMessage(), "\n";
var_dump($state() === $before);
$raw->set("{$ns}go", '1');
pcntl_waitpid($pid, $st);
var_dump((new RedisKit\RedisCache('c', $url, ['prefix' => $ns]))->remember('k', 60, fn() => 'mine'));

// (a lapsed claim is put back due in 30 s: a pop that puts it back finds
// nothing due, and would wait)
$opts = ['prefix' => $ns, 'visibility_timeout' => 0.05, 'backoff' => 30, 'consumer' => 'c1'];
$q = new RedisKit\DelayQueue('w', $url, $opts);
$q->push('job', 0);
var_dump(count($q->pop(1)));                   // claimed, never acked
usleep(100000);                                // its visibility timeout has passed
$before = $state();
$q2 = new RedisKit\DelayQueue('w', $unreachable, $opts);
$e = rk_catch(fn() => $q2->pop(1, 0.5));
echo get_class($e), ': ', str_contains($e->getMessage(), 'connect') ? 'cannot connect' : $e->getMessage(), "\n";
var_dump($state() === $before);                // nothing put back, nothing written
// without a wait no blocking connection is needed: that pop puts the lapsed
// claim back (due in 30 s) and returns nothing
var_dump($q2->pop(1), $state() === $before);

// a key of the queue holding another type (another object's key under this
// name): the script that finds a lapsed claim fails before putting it back
// (the surface fuzzer on sid: dead() deleted the claim, created the attempts,
// then hit WRONGTYPE)
$q = new RedisKit\DelayQueue('t', $url, ['prefix' => $ns, 'visibility_timeout' => 0.05]);
$q->push('job', 0);
var_dump(count($q->pop(1)));
usleep(100000);                                // the claim has lapsed
$raw->set("{{$ns}t}:dead", 'not a sorted set');
$before = $state();
foreach (['dead' => fn() => $q->dead(1), 'pop' => fn() => $q->pop(1), 'counts' => fn() => $q->counts()] as $name => $call) {
    $e = rk_catch($call);
    echo $name, ': ', $e ? get_class($e) . ': ' . (str_contains($e->getMessage(), 'WRONGTYPE') ? 'WRONGTYPE' : $e->getMessage()) : 'no exception', "\n";
}
var_dump($state() === $before);
$raw->del("{{$ns}t}:dead");
var_dump(count($q->dead(1)), $state() === $before);   // now it puts the claim back

// the same with the ready list's key (jobs pushed without a delay wait there)
$q->purge();
$q->push('job 2');
var_dump(count($q->pop(1)));
usleep(100000);                                // the claim has lapsed
$raw->set("{{$ns}t}:ready", 'not a list');
$before = $state();
$e = rk_catch(fn() => $q->pop(1));
echo 'pop: ', $e ? get_class($e) . ': ' . (str_contains($e->getMessage(), 'WRONGTYPE') ? 'WRONGTYPE' : $e->getMessage()) : 'no exception', "\n";
var_dump($state() === $before);
?>
--EXPECT--
NULL
RedisKit\ConnectionException: cannot connect
bool(true)
string(8) "computed"
int(1)
RedisKit\ConnectionException: cannot connect
bool(true)
array(0) {
}
bool(false)
int(1)
dead: RedisKit\Exception: WRONGTYPE
pop: RedisKit\Exception: WRONGTYPE
counts: RedisKit\Exception: WRONGTYPE
bool(true)
int(0)
bool(false)
int(1)
pop: RedisKit\Exception: WRONGTYPE
bool(true)
