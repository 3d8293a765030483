--TEST--
Laravel locks on rediskit: Cache::lock() is a RedisKit\Laravel\Lock with Laravel's contract (get, get with a callback, block, release, forceRelease, owner, isOwnedByCurrentProcess, restoreLock from another process, refresh, isLocked) plus fencingToken(); any owner string works; block() and forceRelease() wake waiters without polling; cache data goes through RedisKit\RedisCache
--INI--
extension=mbstring
include_path=.:/usr/share/php
--FILE--
<?php
require __DIR__ . '/_laravel.inc';
use Illuminate\Support\Facades\Cache;
use Illuminate\Contracts\Cache\LockTimeoutException;

$app = rk_app();
$raw = new RkRaw();
$key = fn(string $name) => rk_ns() . Cache::getStore()->getPrefix() . $name;   // rediskit prefix . the store's prefix . name
/** forks $f; returns its pid */
function child(callable $f): int { $pid = pcntl_fork(); if ($pid === 0) { $f(); exit(0); } return $pid; }
/** waits until the lock has a waiter */
function wait_for_waiter(RkRaw $raw, string $lockKey): void {
    $deadline = microtime(true) + 10;
    while ((int)$raw->cmd('ZCARD', "{{$lockKey}}:waiters") === 0) {
        if (microtime(true) > $deadline) { echo "no waiter\n"; return; }
        usleep(2000);
    }
}

echo "-- get, owner, release\n";
$a = Cache::lock('a', 10);
var_dump(get_class($a), $a instanceof Illuminate\Cache\Lock, strlen($a->owner()));
var_dump($a->get(), $raw->cmd('GET', $key('a')) === $a->owner(), (int)$raw->cmd('PTTL', $key('a')) > 9000);
$b = Cache::lock('a', 10);
var_dump($b->get(), $b->isOwnedByCurrentProcess(), $a->isOwnedByCurrentProcess(), $b->isLocked());
var_dump(is_int($a->fencingToken()), $b->fencingToken());
var_dump($b->release(), $a->release(), $a->isLocked(), $a->release());
var_dump(Cache::lock('a', 10)->get(fn() => 'computed'), Cache::lock('a')->isLocked());

echo "-- restoreLock in another process\n";
$a = Cache::lock('r', 60);
var_dump($a->get());
$owner = $a->owner();
pcntl_waitpid(child(function () use ($owner) {
    $l = Cache::restoreLock('r', $owner);
    (new RkRaw())->cmd('SET', rk_ns() . 'restored', json_encode([$l->isOwnedByCurrentProcess(), $l->release()]));
}), $st);
var_dump($raw->cmd('GET', rk_ns() . 'restored'), $a->isLocked());

echo "-- any owner string\n";
foreach (['' => 'empty', str_repeat('o', 600) => '600 bytes', "\0\xff\n" => 'binary'] as $o => $label) {
    $l = Cache::lock('o', 10, $o);
    $other = Cache::lock('o', 10);
    $ok = [$l->get(), $l->owner() === $o, $other->get(), $l->isOwnedByCurrentProcess(), Cache::restoreLock('o', $o)->isOwnedByCurrentProcess()];
    $ok[] = Cache::restoreLock('o', $o)->release();
    $ok[] = $other->get();
    $other->release();
    echo $label, ': ', json_encode($ok), "\n";
}

echo "-- block() is woken by the release\n";
$a = Cache::lock('w', 30);
$a->get();
$pid = child(function () {
    $t0 = microtime(true);
    $got = Cache::lock('w', 30)->betweenBlockedAttemptsSleepFor(5000)->block(10, fn() => microtime(true));
    (new RkRaw())->cmd('SET', rk_ns() . 'woke', (string)$got);
});
wait_for_waiter($raw, $key('w'));
$t = microtime(true);
$a->release();
pcntl_waitpid($pid, $st);
$lag = (float)$raw->cmd('GET', rk_ns() . 'woke') - $t;
rk_report(sprintf("lock_001: block() got the lock %.2f ms after the release", $lag * 1000));
var_dump($lag > 0 && $lag < 1.0);   // woken, not after its 5 s "sleep between attempts"

echo "-- block() times out\n";
$a = Cache::lock('t', 30);
$a->get();
$t = microtime(true);
try { Cache::lock('t', 30)->block(0.3); echo "acquired?\n"; } catch (LockTimeoutException $e) { echo get_class($e), "\n"; }
var_dump(microtime(true) - $t >= 0.3);
$a->release();

echo "-- forceRelease() frees anyone's lock and wakes a waiter\n";
$a = Cache::lock('f', 30);
$a->get();
$pid = child(function () {
    $got = Cache::lock('f', 30)->block(10);
    (new RkRaw())->cmd('SET', rk_ns() . 'forced', json_encode([$got, microtime(true)]));
});
wait_for_waiter($raw, $key('f'));
$t = microtime(true);
var_dump(Cache::lock('f')->forceRelease());
pcntl_waitpid($pid, $st);
[$got, $at] = json_decode($raw->cmd('GET', rk_ns() . 'forced'));
var_dump($got, $at - $t < 1.0, $a->isOwnedByCurrentProcess(), $a->isLocked());
Cache::lock('f')->forceRelease();
var_dump($a->isLocked());

echo "-- refresh(), no expiry\n";
$a = Cache::lock('x', 5);
$a->get();
var_dump($a->refresh(20), (int)$raw->cmd('PTTL', $key('x')) > 19000, Cache::lock('x', 5)->refresh(), $a->refresh(), (int)$raw->cmd('PTTL', $key('x')) <= 5000);
$a->release();
$n = Cache::lock('n');   // $seconds = 0: a watchdog-renewed lock with a 30 s TTL
var_dump($n->get(), ($p = (int)$raw->cmd('PTTL', $key('n'))) > 25000 && $p <= 30000, $n->remainingTtl() > 25.0);
$n->release();

echo "-- the store\n";
var_dump(get_class(Cache::getStore()), Cache::getStore() instanceof Illuminate\Contracts\Cache\LockProvider);
Cache::put('data', ['v' => 1], 10);
var_dump(Cache::get('data'), $raw->cmd('EXISTS', rk_ns() . Cache::getStore()->getPrefix() . 'data'));   // a RedisCache value
try { Cache::getStore()->flushLocks(); } catch (RuntimeException $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
?>
--EXPECT--
-- get, owner, release
string(21) "RedisKit\Laravel\Lock"
bool(true)
int(16)
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
NULL
bool(false)
bool(true)
bool(false)
bool(false)
string(8) "computed"
bool(false)
-- restoreLock in another process
bool(true)
string(11) "[true,true]"
bool(false)
-- any owner string
empty: [true,true,false,true,true,true,true]
600 bytes: [true,true,false,true,true,true,true]
binary: [true,true,false,true,true,true,true]
-- block() is woken by the release
bool(true)
-- block() times out
Illuminate\Contracts\Cache\LockTimeoutException
bool(true)
-- forceRelease() frees anyone's lock and wakes a waiter
NULL
bool(true)
bool(true)
bool(false)
bool(true)
bool(false)
-- refresh(), no expiry
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
-- the store
string(27) "RedisKit\Laravel\CacheStore"
bool(true)
array(1) {
  ["v"]=>
  int(1)
}
int(1)
RuntimeException: The rediskit cache store does not flush locks: release one with Cache::lock($name)->forceRelease().
