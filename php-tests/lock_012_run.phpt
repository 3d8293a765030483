--TEST--
RedisLock::run(): acquire, call, release in finally; returns the callback's value, rethrows its exception after releasing, LockTimeoutException when the lock cannot be had within $wait; LockLostException also when the callback itself saw the loss (isAcquired()/extend() false)
--FILE--
<?php
require __DIR__ . '/_lock.inc';
$ns = rk_ns();
$u = rk_conn();
$raw = new RkRaw();
$l = new RedisKit\RedisLock('run', $u, ['prefix' => $ns]);

var_dump($l->run(function () use ($raw, $ns, $l) {
    var_dump(func_num_args(), $raw->get("{$ns}run") === $l->token());
    return ['value' => 42];
}));
var_dump($raw->exists("{$ns}run"), $l->isAcquired());

// the callback's exception comes out unchanged, the lock already released
try {
    $l->run(function () { throw new DomainException('from the callback', 7); });
} catch (DomainException $e) {
    echo get_class($e), ': ', $e->getMessage(), ' ', $e->getCode(), ' line ', $e->getLine(), "\n";
    var_dump($raw->exists("{$ns}run"));
}

// held elsewhere: LockTimeoutException after $wait, pointing at the caller
$other = new RedisKit\RedisLock('run', $u, ['prefix' => $ns]);
$other->acquire();
$called = false;
$t = microtime(true);
try {
    $line = __LINE__; $l->run(function () use (&$called) { $called = true; }, 0.2);
} catch (RedisKit\LockTimeoutException $e) {
    $took = microtime(true) - $t;
    echo get_class($e), ': ', $e->getMessage(), "\n";
    var_dump($e instanceof RedisKit\Exception, $e->getFile() === __FILE__, $e->getLine() === $line);
    // after its 0.2 s wait, long before the holder's lock expires (30 s)
    rk_assert($took >= 0.2 && $took < 5.0, "gave up after $took s");
}
var_dump($called, $raw->get("{$ns}run") === $other->token());

// run() waits for the lock: released by the other owner from another process
// (a forked child, through the owner's token: the inherited $other is not its to release)
$token = $other->token();
$pid = lock_fork(function () use ($u, $ns, $token) {
    usleep(200000);
    return (new RedisKit\RedisLock('run', $u, ['prefix' => $ns, 'token' => $token]))->release();
});
var_dump($l->run(fn() => 'waited', 5.0));
var_dump(lock_wait([$pid]));

// the callback may release the lock itself: no exception, nothing left
var_dump($l->run(fn() => $l->release()));
var_dump($raw->exists("{$ns}run"));

// nested run() of another lock, callables of any kind
$inner = new RedisKit\RedisLock('inner', $u, ['prefix' => $ns]);
var_dump($l->run(fn() => $inner->run(fn() => 'nested')));
var_dump($l->run('phpversion') === phpversion());
var_dump($raw->exists("{$ns}run"), $raw->exists("{$ns}inner"));

// the callback itself finds the lock gone (isAcquired() false, extend() false):
// run() still reports the loss after the callback returned
foreach (['isAcquired', 'extend'] as $how) {
    $seen = new RedisKit\RedisLock("seen-$how", $u, ['prefix' => $ns, 'watchdog' => false]);
    $e = rk_catch(fn() => $seen->run(function () use ($seen, $raw, $ns, $how) {
        $raw->set("{$ns}seen-$how", 'intruder', 'PX', 5000);
        var_dump($seen->$how());
    }));
    echo rk_ex($e), "\n";
    var_dump($raw->get("{$ns}seen-$how"));
}
?>
--EXPECTF--
int(0)
bool(true)
array(1) {
  ["value"]=>
  int(42)
}
int(0)
bool(false)
DomainException: from the callback 7 line 16
int(0)
RedisKit\LockTimeoutException: RedisLock: could not acquire 'rkt:%s:run' within 0.2 s
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
string(6) "waited"
array(1) {
  [0]=>
  int(0)
}
bool(true)
int(0)
string(6) "nested"
bool(true)
int(0)
int(0)
bool(false)
RedisKit\LockLostException: RedisLock: the lock 'rkt:%s:seen-isAcquired' was lost while the callback ran (its TTL ran out or another owner took it)
string(8) "intruder"
bool(false)
RedisKit\LockLostException: RedisLock: the lock 'rkt:%s:seen-extend' was lost while the callback ran (its TTL ran out or another owner took it)
string(8) "intruder"
